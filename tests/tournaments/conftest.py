"""A tournament server per test, on SQLite and on a private PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.fanout import create_fanout
from app.main import create_app
from app.store.db import Database
from app.tables import FakeClock
from tests.api.conftest import make_settings
from tests.tournaments.harness import Server, close_server, open_server


@pytest.fixture
async def server(db_url: str, tmp_path: Path) -> AsyncIterator[Server]:
    app = create_app(make_settings(db_url, tmp_path))
    db = Database(db_url)
    fanout = create_fanout("memory://")
    opened = await open_server(app, db, fanout, FakeClock())
    try:
        yield opened
    finally:
        await close_server(opened)
        await fanout.close()
        await db.dispose()
