"""The statements a block of code sends to the database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from app.store.db import Database


@contextmanager
def counting(db: Database) -> Iterator[list[str]]:
    """Every statement sent to the database while the block runs (an executemany is one)."""
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement.split(None, 1)[0].upper())

    engine = db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)
