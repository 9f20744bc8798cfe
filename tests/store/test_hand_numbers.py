"""Hand numbers from the shared counter: reservations from several server processes (each
its own engine and connections) at once never overlap, and numbers grow; a migration numbers
the hands stored before it in the order they started and renames queued emails' hands."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import column, insert, select, text
from sqlalchemy import table as sa_table

from app.store import hands
from app.store.db import Database
from app.store.hand_models import HandCounter
from app.store.migrate import alembic_config, downgrade, upgrade
from app.store.models import PokerTable
from app.store.outbox import MailRequest

NUMBERS = "0400_hand_numbers"


async def test_reservations_from_several_processes_never_overlap(db_url: str) -> None:
    processes = [Database(db_url) for _ in range(3)]  # three servers' own connection pools
    try:

        async def reserve(db: Database, count: int) -> range:
            async with db.transaction() as s:
                return await hands.reserve_numbers(s, count)

        blocks = await asyncio.gather(
            *(reserve(db, size) for db in processes for size in (10, 1, 7, 10))
        )
        taken = [n for block in blocks for n in block]
        assert len(taken) == len(set(taken)) == 3 * (10 + 1 + 7 + 10)
        assert sorted(taken) == list(range(1, len(taken) + 1))  # no gap while nothing is lost
        later = await reserve(processes[0], 5)
        assert later.start > max(taken)  # the numbers grow
        with pytest.raises(ValueError):
            await reserve(processes[1], 0)
    finally:
        for db in processes:
            await db.dispose()


async def test_a_failed_transaction_gives_its_numbers_back(db: Database) -> None:
    """The counter moves with the caller's transaction: a rolled-back reservation is free."""
    with pytest.raises(RuntimeError):
        async with db.transaction() as s:
            await hands.reserve_numbers(s, 10)
            raise RuntimeError("the transaction fails")
    async with db.transaction() as s:
        assert await hands.reserve_numbers(s, 2) == range(1, 3)


async def test_the_migration_numbers_stored_hands_in_the_order_they_started(
    empty_db_url: str,
) -> None:
    before = ScriptDirectory.from_config(alembic_config()).get_revision(NUMBERS).down_revision
    assert isinstance(before, str)
    db = Database(empty_db_url)
    try:
        await upgrade(db, before)
        start = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
        async with db.transaction() as s:
            # the users table as it was then (later migrations add columns the model has)
            users = sa_table(
                "users", *(column(c) for c in ("id", "name", "name_key", "email", "password_hash"))
            )
            user = (
                await s.execute(
                    insert(users)
                    .values(name="ann", name_key="ann", email="ann@example.com", password_hash="x")
                    .returning(users.c.id)
                )
            ).scalar_one()
            table = (
                await s.execute(
                    insert(PokerTable)
                    .values(
                        name="Old",
                        variant="stud",
                        small_bet=100,
                        big_bet=200,
                        ante=10,
                        bring_in=50,
                        max_seats=8,
                        status="open",
                    )
                    .returning(PokerTable.id)
                )
            ).scalar_one()
            for hand_id, minutes in (("ccc", 2), ("aaa", 0), ("bbb", 1)):
                await s.execute(
                    text(
                        "INSERT INTO hands (id, table_id, table_name, max_seats, variant, rules,"
                        " button, seats, commitment, status, started_at, rake) VALUES (:id, :t,"
                        " 'Old', 8, 'stud', '{}', 0, '[]', 'c', 'done', :at, 0)"
                    ),
                    {"id": hand_id, "t": table, "at": start + timedelta(minutes=minutes)},
                )
            await s.execute(
                insert(MailRequest).values(
                    user_id=user,
                    kind="hands",
                    to_address="ann@example.com",
                    payload={"hand_ids": ["ccc", "aaa"]},
                    status="queued",
                    next_attempt_at=start,
                    created_at=start,
                )
            )
        await upgrade(db, NUMBERS)
        async with db.transaction() as s:
            numbers: dict[str, int] = dict(
                (await s.execute(text("SELECT id, number FROM hands"))).all()
            )
            assert numbers == {"aaa": 1, "bbb": 2, "ccc": 3}
            assert await s.scalar(select(HandCounter.next_number)) == 4
            payload = await s.scalar(select(MailRequest.payload))
            assert payload == {"hand_ids": [3, 1]}
            assert await hands.reserve_numbers(s, 10) == range(4, 14)
        await downgrade(db, before)
        async with db.session() as s:
            assert await s.scalar(select(MailRequest.payload)) == {"hand_ids": ["ccc", "aaa"]}
    finally:
        await db.dispose()
