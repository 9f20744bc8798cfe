"""Fixtures for the table server: a fresh SQLite database, the fan-out, a fake clock."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.fanout import BaseFanout, create_fanout
from app.store.db import Database
from app.tables import FakeClock, LedgerTableStore, TableManager
from tests.conftest import REDIS_URL, unavailable
from tests.tables.live import Live, live_server


@pytest.fixture
async def sqlite_db(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    path = tmp_path / "stud.sqlite3"
    shutil.copyfile(sqlite_template, path)
    database = Database(f"sqlite+aiosqlite:///{path}")
    try:
        yield database
    finally:
        await database.dispose()


async def redis_fanout() -> BaseFanout:
    """The Redis fan-out, or a failure (CI) / skip when Redis is not there."""
    import secrets

    fanout = create_fanout(REDIS_URL, namespace=f"test{secrets.token_hex(4)}")
    try:
        await fanout.publish("ping", "x")
    except Exception as exc:
        await fanout.close()
        unavailable(f"Redis at {REDIS_URL} is unreachable: {exc!r}")
    return fanout


@pytest.fixture
async def memory_fanout() -> AsyncIterator[BaseFanout]:
    fan = create_fanout("memory://")
    try:
        yield fan
    finally:
        await fan.close()


@pytest.fixture(params=["memory", "redis"])
async def fanout(request: pytest.FixtureRequest) -> AsyncIterator[BaseFanout]:
    fan = create_fanout("memory://") if request.param == "memory" else await redis_fanout()
    try:
        yield fan
    finally:
        await fan.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def manager(
    sqlite_db: Database, fanout: BaseFanout, clock: FakeClock
) -> AsyncIterator[TableManager]:
    mgr = TableManager(LedgerTableStore(sqlite_db), fanout, clock)
    try:
        yield mgr
    finally:
        await mgr.stop()


@pytest.fixture
async def live(
    sqlite_db: Database, memory_fanout: BaseFanout, clock: FakeClock
) -> AsyncIterator[Live]:
    """A live table server (the app, its tables, sockets) on SQLite and the memory fan-out."""
    async with live_server(sqlite_db, memory_fanout, clock) as server:
        yield server
