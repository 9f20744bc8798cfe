"""The hand writer writes several tables' hands in one transaction, and each on its own when
that transaction fails; either way every hand lands once, in each table's order, and the
ledger adds up."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from app.fanout import create_fanout
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.models import Seat
from app.tables import FakeClock, LedgerTableStore, TableManager, TableSettings
from app.tables import messages as m
from tests.store.factories import make_user
from tests.store.hands_play import SETTINGS, play_hands


async def _tables(db: Database, count: int) -> tuple[TableManager, FakeClock, list[Any]]:
    clock = FakeClock()
    manager = TableManager(LedgerTableStore(db), create_fanout("memory://"), clock)
    tables = []
    for n in range(count):
        users = []
        async with db.transaction() as s:
            for i in range(3):
                users.append((await make_user(s, f"w{n}p{i}", balance=10_000)).id)
        table = await manager.create(
            TableSettings(**{**SETTINGS, "name": f"writer {n}"}),
            host_user_id=users[0],
            password_hash=None,
        )
        for seat, user in enumerate(users):
            await table.request(m.Sit(user, f"w{n}p{seat}", seat, 2000, f"k{n}{seat}"))
        tables.append(table)
    return manager, clock, tables


async def _check(db: Database, manager: TableManager, tables: list[Any]) -> None:
    async with db.session() as s:
        done = await s.scalar(
            select(func.count()).select_from(HandRecord).where(HandRecord.status == HandStatus.DONE)
        )
        assert done == sum(t.hands_played for t in tables)
        for table in tables:  # the database caught up with every table's stacks
            rows = await s.execute(
                select(Seat.seat_no, Seat.stack).where(Seat.table_id == table.id)
            )
            stacks = {seat: stack for seat, stack in rows}
            assert stacks == {seat: info.stack for seat, info in table.seats.items()}
        report = await check_ledger(s)
    assert report.ok, report.violations


async def test_several_tables_hands_share_transactions(db: Database) -> None:
    manager, clock, tables = await _tables(db, 4)
    try:
        for _ in range(3):
            for table in tables:
                await play_hands(table, clock, 1)
        assert await manager.writer.drain(timeout=30)
        assert manager.writer.batches > 0
        await _check(db, manager, tables)
    finally:
        await manager.stop()


async def test_a_failed_shared_transaction_leaves_each_write_to_itself(db: Database) -> None:
    manager, clock, tables = await _tables(db, 3)
    calls: list[int] = []

    async def refuse(items: list[Any]) -> None:
        calls.append(len(items))
        raise RuntimeError("this transaction fails")

    manager.writer.write_many = refuse
    try:
        for table in tables:
            await play_hands(table, clock, 2)
        assert await manager.writer.drain(timeout=30)
        assert calls  # it was tried, then every write went on its own
        assert manager.writer.batches == 0 and manager.writer.dropped == 0
        await _check(db, manager, tables)
    finally:
        await manager.stop()
