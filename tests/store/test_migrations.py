"""Migrations upgrade an empty database to head and downgrade it back, on both backends; the
server refuses a database newer than its code."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from app.store.db import Database
from app.store.errors import SchemaError
from app.store.migrate import downgrade, ensure_schema, schema_state, upgrade
from app.store.models import Base

APP_TABLES = set(Base.metadata.tables)


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def _table_names(db: Database) -> set[str]:
    async with db.engine.connect() as connection:
        return await connection.run_sync(_tables)


async def test_upgrade_from_empty_and_downgrade_to_base(empty_db_url: str) -> None:
    db = Database(empty_db_url)
    try:
        assert not (await _table_names(db)) & APP_TABLES
        await upgrade(db)
        assert await _table_names(db) >= APP_TABLES
        state = await schema_state(db)
        assert state.up_to_date and state.current == state.heads
        async with db.session() as session:
            codes = set((await session.execute(text("SELECT code FROM ledger_accounts"))).scalars())
        assert codes == {"bank", "house"}

        await downgrade(db, "base")
        assert not (await _table_names(db)) & APP_TABLES
        assert (await schema_state(db)).current == ()

        await upgrade(db)  # and up again: the downgrade left nothing behind
        assert await _table_names(db) >= APP_TABLES
    finally:
        await db.dispose()


async def test_ensure_schema_migrates_an_empty_database(empty_db_url: str) -> None:
    db = Database(empty_db_url)
    try:
        state = await ensure_schema(db)
        assert state.up_to_date
        assert (await ensure_schema(db)).up_to_date  # idempotent at head
    finally:
        await db.dispose()


async def test_ensure_schema_refuses_a_database_newer_than_the_code(db: Database) -> None:
    async with db.transaction() as session:
        await session.execute(text("UPDATE alembic_version SET version_num = 'from_the_future'"))
    with pytest.raises(SchemaError, match="newer than this server"):
        await ensure_schema(db)


async def test_without_auto_migrate_a_schema_behind_is_refused(empty_db_url: str) -> None:
    db = Database(empty_db_url)
    try:
        with pytest.raises(SchemaError, match="behind"):
            await ensure_schema(db, auto_upgrade=False)
    finally:
        await db.dispose()
