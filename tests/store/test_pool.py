"""The database's connection pool, on SQLite and PostgreSQL: a busy process keeps the
connections it opened. SQLAlchemy's default pool kept 5 and closed the 10 more it opened
for a burst as each was given back, so a process writing for 125 tables opened several a
second (on PostgreSQL each a new server process, its statements prepared again)."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event, text

from app.store.db import POOL_SIZE, Database


async def _burst(db: Database, n: int) -> None:
    """`n` sessions at once, each holding its connection until all of them have one."""
    all_in = asyncio.Barrier(n)

    async def one() -> None:
        async with db.session() as s:
            await s.execute(text("SELECT 1"))
            await all_in.wait()

    await asyncio.gather(*(one() for _ in range(n)))


async def test_bursts_of_writes_reuse_the_connections_of_the_first(db_url: str) -> None:
    db = Database(db_url)
    opened: list[Any] = []
    event.listen(db.engine.sync_engine, "connect", lambda conn, _: opened.append(conn))
    try:
        await _burst(db, POOL_SIZE)
        assert len(opened) == POOL_SIZE
        for _ in range(3):
            await _burst(db, POOL_SIZE)
        assert len(opened) == POOL_SIZE  # none opened again
        # more at once than the pool holds: the rest wait for a connection, none is opened
        many = asyncio.gather(_burst(db, POOL_SIZE), *(_one_query(db) for _ in range(5)))
        await asyncio.wait_for(many, 60)
        assert len(opened) == POOL_SIZE
    finally:
        await db.dispose()


async def _one_query(db: Database) -> None:
    async with db.session() as s:
        assert await s.scalar(text("SELECT 1")) == 1
