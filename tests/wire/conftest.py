"""The table fixtures (a fresh SQLite database, the memory and Redis fan-out, a fake clock)."""

from tests.tables.conftest import clock, fanout, sqlite_db

__all__ = ["clock", "fanout", "sqlite_db"]
