"""A database outage of a few seconds during play loses no hand: the table deals on while
its writer retries, and every hand lands with its settlement once the database is back.

PostgreSQL: a TCP proxy between the app and the server is taken down and brought back.
SQLite: another connection holds the write lock, longer than the app's connections wait for
it (their busy timeout, shortened here), so writes fail and are retried as they would in a
longer lock at the app's own timeout."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event, func, select

from app.store.audit import check_ledger
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.models import Seat
from app.tables import Table
from tests.conftest import PgServer
from tests.fanout.proxy import RedisProxy as TcpProxy
from tests.store.hands_play import play_hands, seated_table

DEADLINE = 30.0  # seconds a condition below may take on a loaded machine
SHORT_BUSY_MS = 100  # the busy timeout while the SQLite lock is held (the app's: 30 s)


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def _done(db: Database) -> int:
    async with db.session() as s:
        count = await s.scalar(
            select(func.count()).select_from(HandRecord).where(HandRecord.status == HandStatus.DONE)
        )
    return int(count or 0)


async def _all_landed(db: Database, table: Table) -> None:
    async with db.session() as s:
        assert (await check_ledger(s)).ok
        stacks = {seat.seat_no: seat.stack for seat in await s.scalars(select(Seat))}
    assert stacks == {seat: info.stack for seat, info in table.state.seats.items()}


async def test_postgres_unreachable_for_seconds_loses_no_hand(pg_server: PgServer) -> None:
    name = pg_server.new_database(template=pg_server.template)
    proxy = TcpProxy(pg_server.url.host or "127.0.0.1", pg_server.url.port or 5432)
    await proxy.start()
    direct = Database(pg_server.url_for(name))
    through = Database(str(pg_server.url.set(database=name, port=proxy.port, host="127.0.0.1")
                           .render_as_string(hide_password=False)))  # fmt: skip
    manager, table, clock, _ = await seated_table(through, 3)
    try:
        await play_hands(table, clock, 1)
        await manager.writer.drain(timeout=10)
        assert await _done(direct) == 1
        proxy.go_down()
        started = time.monotonic()
        await play_hands(table, clock, 3)  # the table deals on
        assert table.state.hands_played == 4
        assert manager.writer.pending(table.id) > 0
        # the outage lasts seconds, and the writer's retries fail all along
        await _until(
            lambda: manager.writer.failures >= 2 and time.monotonic() - started >= 2,
            "the writer did not fail and retry while PostgreSQL was away",
        )
        assert await _done(direct) == 1
        proxy.come_up()
        assert await manager.writer.drain(timeout=20)
        assert await _done(direct) == 4
        await _all_landed(direct, table)
    finally:
        await manager.stop()
        await through.dispose()
        await direct.dispose()
        await proxy.close()
        pg_server.drop(name)


async def test_sqlite_locked_for_seconds_loses_no_hand(sqlite_db: Database) -> None:
    busy_ms: int | None = None  # while set, a connection taken from the pool waits this long

    @event.listens_for(sqlite_db.engine.sync_engine.pool, "checkout")
    def _busy(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if busy_ms is not None:
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
            cursor.close()

    manager, table, clock, _ = await seated_table(sqlite_db, 3)
    path = Path(sqlite_db.url.database or "")
    locker = sqlite3.connect(path, timeout=1, isolation_level=None)
    try:
        await play_hands(table, clock, 1)
        assert await manager.writer.drain(timeout=10)
        assert manager.writer.failures == 0
        busy_ms = SHORT_BUSY_MS
        locker.execute("BEGIN EXCLUSIVE")
        await play_hands(table, clock, 3)  # the table deals on while its writes fail
        # a write gave up on the lock, and its retry did too: the lock outlasts the retries
        await _until(
            lambda: manager.writer.failures >= 2,
            "the writer did not fail and retry while SQLite was locked",
        )
        assert table.state.hands_played == 4 and manager.writer.pending(table.id) > 0
        assert await _done(sqlite_db) == 1  # WAL: reading goes on under the lock
        locker.execute("ROLLBACK")
        assert await manager.writer.drain(timeout=40)
        assert await _done(sqlite_db) == 4
        await _all_landed(sqlite_db, table)
    finally:
        locker.close()
        await manager.stop()
