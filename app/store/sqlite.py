"""The SQLite driver: aiosqlite, with one trip to its thread per statement.

aiosqlite runs each call on the connection's own thread: SQLAlchemy's adapter makes four
such trips for one statement (make a cursor, execute, fetch the rows, close), each a
thread wake-up there and an event-loop wake-up back. A finished hand is about twenty
statements; on a 2-core machine those trips were most of the table server's database cost.
Here a cursor is made, executed, read and closed in one trip, and SQLAlchemy then reads
the rows and the cursor's attributes from memory.

`dbapi()` is what `create_async_engine(..., module=...)` takes for `sqlite+aiosqlite` URLs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from types import SimpleNamespace
from typing import Any, TypeVar

import aiosqlite
from aiosqlite.context import contextmanager
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_dbapi

_Description = tuple[tuple[str, None, None, None, None, None, None], ...] | None


class OneTripCursor:
    """What SQLAlchemy's aiosqlite adapter uses of a cursor, each statement one trip."""

    __slots__ = ("_conn", "_rows", "arraysize", "description", "lastrowid", "rowcount")

    def __init__(self, conn: OneTripConnection) -> None:
        self._conn = conn
        self._rows: list[Any] = []
        self.description: _Description = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.arraysize = 1

    async def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> OneTripCursor:
        db = self._conn._conn
        args = [] if parameters is None else parameters

        def run() -> tuple[list[Any], _Description, int, int | None]:
            cursor = db.cursor()
            try:
                cursor.execute(sql, args)
                rows = cursor.fetchall() if cursor.description else []
                return rows, cursor.description, cursor.rowcount, cursor.lastrowid
            finally:
                cursor.close()

        self._rows, self.description, self.rowcount, self.lastrowid = await _trip(self._conn, run)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> OneTripCursor:
        db = self._conn._conn
        rows = list(parameters)

        def run() -> tuple[int, int | None]:
            cursor = db.cursor()
            try:
                cursor.executemany(sql, rows)
                return cursor.rowcount, cursor.lastrowid
            finally:
                cursor.close()

        self._rows, self.description = [], None
        self.rowcount, self.lastrowid = await _trip(self._conn, run)
        return self

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        n = self.arraysize if size is None else size
        rows, self._rows = self._rows[:n], self._rows[n:]
        return rows

    async def close(self) -> None:
        self._rows = []  # the sqlite3 cursor closed in its trip

    async def __aenter__(self) -> OneTripCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


T = TypeVar("T")


async def _trip(conn: aiosqlite.Connection, fn: Callable[[], T]) -> T:
    """Run `fn` on the connection's thread (aiosqlite's own queue, so in order)."""
    result: T = await conn._execute(fn)  # type: ignore[no-untyped-call]
    return result


class OneTripConnection(aiosqlite.Connection):
    @contextmanager
    async def cursor(self) -> OneTripCursor:  # type: ignore[override]
        """No trip: the sqlite3 cursor is made where the statement runs."""
        return OneTripCursor(self)


def connect(database: str, *, iter_chunk_size: int = 64, **kwargs: Any) -> OneTripConnection:
    """`aiosqlite.connect`, with the connection above."""

    def connector() -> sqlite3.Connection:
        db: sqlite3.Connection = sqlite3.connect(database, **kwargs)
        return db

    conn: OneTripConnection = OneTripConnection(connector, iter_chunk_size)
    return conn


@cache
def dbapi() -> AsyncAdapt_aiosqlite_dbapi:
    """SQLAlchemy's aiosqlite adapter over this module's connections."""
    module = SimpleNamespace(**{name: getattr(aiosqlite, name) for name in aiosqlite.__all__})
    module.connect = connect
    module.Connection = OneTripConnection
    return AsyncAdapt_aiosqlite_dbapi(module, sqlite3)  # type: ignore[arg-type]
