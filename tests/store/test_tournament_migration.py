"""Migration 0700 (tournaments), on SQLite and PostgreSQL, over a database with players and
postings: the upgrade keeps every ledger row (SQLite re-creates `ledger_accounts` for its
CHECKs, foreign keys on), prize pools are then allowed; the downgrade keeps them too, and is
refused while a tournament exists; the models are what the migrations built."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import ledger
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.migrate import downgrade, schema_state, upgrade
from app.store.models import Base
from tests.store.factories import make_tournament
from tests.store.tournament_play import enter

BEFORE, AFTER = "0600_leases", "0700_tournaments"
TOURNAMENT_TABLES = {"tournaments", "tournament_entries", "tournament_draws", "tournament_leases"}


async def _ledger_rows(db: Database) -> dict[str, list[Any]]:
    async with db.session() as s:
        return {
            name: list(await s.execute(text(f"SELECT * FROM {name} ORDER BY id")))
            for name in ("ledger_accounts", "ledger_transactions", "ledger_entries", "users")
        }


def _shape(connection: Connection) -> tuple[set[str], set[str], set[str]]:
    found = inspect(connection)
    return (
        set(found.get_table_names()),
        {c["name"] for c in found.get_columns("poker_tables")},
        {c["name"] for c in found.get_columns("hands")},
    )


async def _refuses_a_prize_pool(db: Database) -> bool:
    try:
        async with db.transaction() as s:
            await s.execute(
                text("INSERT INTO ledger_accounts (kind, code) VALUES ('prize_pool', 'pool:x')")
            )
    except IntegrityError:
        return True
    return False


async def _user_then(s: AsyncSession, name: str, balance: int) -> int:
    """A user as the schema before this migration had them: today's `User` model names
    columns later migrations added (0900's role), so the row is written by hand."""
    found = await s.execute(
        text(
            "INSERT INTO users (name, name_key, email, password_hash)"
            " VALUES (:name, :name, :email, 'x') RETURNING id"
        ),
        {"name": name, "email": f"{name}@example.com"},
    )
    user_id: int = found.scalar_one()
    await ledger.open_player_account(s, user_id)
    await ledger.grant_signup(s, user_id=user_id, amount=balance)
    return user_id


async def test_the_tournaments_migration_keeps_the_ledger_both_ways(empty_db_url: str) -> None:
    db = Database(empty_db_url)
    try:
        await upgrade(db, BEFORE)
        async with db.transaction() as s:
            ann = await _user_then(s, "ann", 5000)
            await _user_then(s, "bob", 3000)
        rows = await _ledger_rows(db)
        assert await _refuses_a_prize_pool(db)

        await upgrade(db, AFTER)
        assert await _ledger_rows(db) == rows
        async with db.engine.connect() as conn:
            tables, columns, hand_columns = await conn.run_sync(_shape)
        assert tables >= TOURNAMENT_TABLES and "tournament_id" in columns
        assert {"tournament_id", "level"} <= hand_columns
        with pytest.raises(IntegrityError):  # foreign keys still hold on the re-created table
            async with db.transaction() as s:
                await s.execute(
                    text(
                        "INSERT INTO ledger_entries (transaction_id, account_id, amount)"
                        " VALUES (1, 999, 5)"
                    )
                )

        await downgrade(db, BEFORE)
        assert await _ledger_rows(db) == rows
        assert await _refuses_a_prize_pool(db)
        async with db.engine.connect() as conn:
            tables, columns, hand_columns = await conn.run_sync(_shape)
        assert not tables & TOURNAMENT_TABLES and "tournament_id" not in columns
        assert "level" not in hand_columns

        await upgrade(db)  # and up again, then a tournament with an entry
        async with db.transaction() as s:
            t = await make_tournament(s)
        await enter(db, t, ann, "in")
        async with db.session() as s:
            assert (await check_ledger(s)).ok
            assert await ledger.balance(s, ledger.prize_pool_code(t)) == 1000
        with pytest.raises(RuntimeError, match="holds tournaments"):
            await downgrade(db, BEFORE)
        assert (await schema_state(db)).up_to_date  # refused: nothing changed
    finally:
        await db.dispose()


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_the_models_are_the_migrated_schema(db: Database) -> None:
    """What the code declares (tables, columns, types, indexes, keys) is what the migrations
    built: the new models and the columns they added to tables and hands included."""
    async with db.engine.connect() as conn:
        assert await conn.run_sync(_differences) == []
