"""The shared parts of a several-process run: a fresh PostgreSQL database for it (made at the
start, dropped at the end) and which process owns which table."""

from __future__ import annotations

import os
import secrets

from sqlalchemy.engine import make_url

POSTGRES = os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


class Postgres:
    """The PostgreSQL server behind `url` (a SQLAlchemy URL of a database to connect to
    while making and dropping others)."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin_dsn = self.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def url_for(self, database: str) -> str:
        return str(self.url.set(database=database).render_as_string(hide_password=False))

    async def _execute(self, statement: str) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(self.admin_dsn, timeout=10)
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    async def create(self) -> str:
        name = f"bench_{secrets.token_hex(4)}"
        await self._execute(f"CREATE DATABASE {name}")
        return name

    async def drop(self, name: str) -> None:
        await self._execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


async def owners(database_url: str, pids: list[int]) -> dict[int, int]:
    """Table id -> the index in `pids` of the process that holds its lease (the registry
    names each process's pid)."""
    from sqlalchemy import select

    from app.store.db import Database
    from app.store.lease_models import ServerProcess, TableLease

    db = Database(database_url)
    try:
        async with db.session() as s:
            rows = await s.execute(
                select(TableLease.table_id, ServerProcess.pid).join(
                    ServerProcess, ServerProcess.id == TableLease.owner
                )
            )
            index = {pid: i for i, pid in enumerate(pids)}
            return {table: index[pid] for table, pid in rows if pid in index}
    finally:
        await db.dispose()
