"""An app on a fresh database (both backends) and an HTTP client for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.fanout import create_fanout
from app.main import create_app
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Live, live_server


def make_settings(database_url: str, data_dir: Path) -> Settings:
    """Settings for a test app: cheap argon2, small login limits, no `.env`."""
    values: dict[str, Any] = dict(
        _env_file=None,
        data_dir=data_dir,
        database_url=database_url,
        redis_url=None,
        argon2_time_cost=1,
        argon2_memory_kib=1024,
        argon2_parallelism=1,
        starting_balance=10_000,
        daily_topup_amount=2_000,
        daily_topup_threshold=500,
        login_attempts_per_name=5,
        login_attempts_per_ip=12,
        login_window_seconds=60,
    )
    return Settings(**values)


@pytest.fixture
def api_settings(db_url: str, tmp_path: Path) -> Settings:
    return make_settings(db_url, tmp_path)


@pytest.fixture
async def app(api_settings: Settings) -> AsyncIterator[FastAPI]:
    """The real app (`create_app`), its lifespan running (the database migrated)."""
    application = create_app(api_settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def live(db: Database) -> AsyncIterator[Live]:
    """Tables played over real sockets (tests/tables/live.py) on the test's database."""
    fanout = create_fanout("memory://")
    try:
        async with live_server(db, fanout, FakeClock()) as server:
            yield server
    finally:
        await fanout.close()
