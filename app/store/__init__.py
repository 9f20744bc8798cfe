"""Storage: SQLAlchemy models, the database handle, migrations, accounts and the chip ledger."""

from app.store.db import Database

__all__ = ["Database"]
