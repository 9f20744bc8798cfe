"""The statements a block of code sends to the database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from app.store.db import Database


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """Every statement sent to the database while the block runs (an executemany is one)."""
    seen: list[str] = []

    def sent(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    engine = db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", sent)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", sent)


def verbs(seen: list[str]) -> list[str]:
    """Each statement's kind (`SELECT`, `UPDATE`, …): what a count of statements compares."""
    return [statement.split(None, 1)[0].upper() for statement in seen]
