"""The table server: one asyncio task per table owns its state (`table.Table`); everything
else sends it messages (`messages`). `TableManager` holds the tables of this process."""

from app.tables.clock import Clock, FakeClock, RealClock
from app.tables.errors import TableError
from app.tables.ledger_store import LedgerTableStore
from app.tables.manager import TableManager
from app.tables.settings import TableSettings
from app.tables.store import TableStore
from app.tables.table import Table

__all__ = [
    "Clock",
    "FakeClock",
    "LedgerTableStore",
    "RealClock",
    "Table",
    "TableError",
    "TableManager",
    "TableSettings",
    "TableStore",
]
