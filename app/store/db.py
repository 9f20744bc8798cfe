"""The database handle: one async engine and its sessions, from a URL.

SQLite (the embedded default) and PostgreSQL behave alike here: foreign keys are on, and a
write transaction (`Database.transaction`) takes the write lock at BEGIN on SQLite
(`BEGIN IMMEDIATE`), so writers queue instead of failing half-way; on PostgreSQL the ledger
locks the rows it changes with `SELECT … FOR UPDATE`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app import metrics
from app.jsontext import from_json, to_json
from app.store import sqlite

_IMMEDIATE = "stud_sqlite_immediate"
SQLITE_BUSY_TIMEOUT_MS = 30_000
POOL_SIZE = 15  # connections a process keeps open at most


class Database:
    """An engine and a session factory. Create one per process (or per test) and `dispose()` it."""

    def __init__(
        self, url: str, *, idle_transaction_seconds: float | None = None, **engine_kwargs: Any
    ) -> None:
        """`idle_transaction_seconds` (PostgreSQL): the server ends a session that sits in a
        transaction that long, so a process stopped mid-write (SIGSTOP, a frozen VM) does not
        hold its table leases' row locks, and with them every claim, for ever."""
        self.url = make_url(url)
        self.backend = self.url.get_backend_name()  # "sqlite" or "postgresql"
        if idle_transaction_seconds is not None and self.backend == "postgresql":
            limit = {
                "idle_in_transaction_session_timeout": str(int(idle_transaction_seconds * 1000))
            }
            engine_kwargs.setdefault("connect_args", {"server_settings": limit})
        if self.is_sqlite:
            database = self.url.database or ""
            if database and database != ":memory:" and not database.startswith("file:"):
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            if self.url.get_driver_name() == "aiosqlite":
                engine_kwargs.setdefault("module", sqlite.dbapi())  # one trip per statement
        if not (self.is_sqlite and (self.url.database or ":memory:") == ":memory:"):
            # a steady pool, as large as SQLAlchemy's default at its most (5 kept and 10 more):
            # those 10 were opened and closed again as a busy process's writes came and went,
            # several connections a second on PostgreSQL, each a new server process and its
            # statements prepared again
            engine_kwargs.setdefault("pool_size", POOL_SIZE)
            engine_kwargs.setdefault("max_overflow", 0)
            engine_kwargs.setdefault("pool_use_lifo", True)  # a quiet process uses the same few
        engine_kwargs.setdefault("json_serializer", to_json)  # hand records are JSON
        engine_kwargs.setdefault("json_deserializer", from_json)
        self.engine: AsyncEngine = create_async_engine(self.url, **engine_kwargs)
        if self.is_sqlite:
            _sqlite_transactions(self.engine)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        return self.backend == "sqlite"

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A write transaction: commits when the block ends, rolls back if it raises."""
        async with self.sessions() as session, session.begin():
            # its connection now (SQLite: and the write lock): the wait is a metric
            began = metrics.now()
            await session.connection(
                execution_options={_IMMEDIATE: True} if self.is_sqlite else None
            )
            metrics.DB_WAIT_SECONDS.observe(metrics.since(began))
            yield session

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A session for reads (and small writes the caller commits itself)."""
        async with self.sessions() as session:
            yield session

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[AsyncSession]:
        """A session for reads that all see the database as of one moment: a check across
        tables (`ledger check`) while servers write would otherwise read a seat row after a
        move that its entry row, read before, did not yet show. PostgreSQL: REPEATABLE READ;
        SQLite: the session's deferred BEGIN holds one WAL snapshot from its first read."""
        async with self.sessions() as session:
            if not self.is_sqlite:
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()


def _sqlite_transactions(engine: AsyncEngine) -> None:
    """Let SQLAlchemy, not the sqlite3 module, say BEGIN (the recipe in SQLAlchemy's docs)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver emits no BEGIN of its own
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
