"""The hand writer writes several tables' hands in one transaction, and each on its own when
that transaction fails; either way every hand lands once, in each table's order, and the
ledger adds up."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

from sqlalchemy import event, func, select

from app.fanout import create_fanout
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.models import Seat
from app.tables import FakeClock, LedgerTableStore, TableManager, TableSettings
from app.tables.writer import HandWriter
from tests import asks
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
            await table.request(asks.sit(user, f"w{n}p{seat}", seat, 2000, f"k{n}{seat}"))
        tables.append(table)
    return manager, clock, tables


WRITES_HANDS = re.compile(rf"\s*(INSERT INTO|UPDATE) {HandRecord.__tablename__}\b", re.IGNORECASE)


class Transactions:
    """What each committed database transaction wrote to the hand records, seen on the engine's
    connections: the strings among its statements' parameters (hand ids among them), so the
    test can tell which tables' hands went in together."""

    def __init__(self, db: Database) -> None:
        self.engine = db.engine.sync_engine
        self.open: dict[int, set[str]] = {}
        self.committed: list[set[str]] = []

    def _begin(self, conn: Any) -> None:
        self.open[id(conn)] = set()

    def _execute(self, conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if WRITES_HANDS.match(statement):
            self.open.setdefault(id(conn), set()).update(_strings(params))

    def _commit(self, conn: Any) -> None:
        self.committed.append(self.open.pop(id(conn), set()))

    def _rollback(self, conn: Any) -> None:
        self.open.pop(id(conn), None)

    def __enter__(self) -> Transactions:
        event.listen(self.engine, "begin", self._begin)
        event.listen(self.engine, "after_cursor_execute", self._execute)
        event.listen(self.engine, "commit", self._commit)
        event.listen(self.engine, "rollback", self._rollback)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.engine, "begin", self._begin)
        event.remove(self.engine, "after_cursor_execute", self._execute)
        event.remove(self.engine, "commit", self._commit)
        event.remove(self.engine, "rollback", self._rollback)

    async def tables_per_transaction(self, db: Database) -> list[set[int]]:
        """For each committed transaction that wrote hands: the tables whose hands it wrote."""
        async with db.session() as s:
            table_of = dict((await s.execute(select(HandRecord.id, HandRecord.table_id))).all())
        found = [{table_of[v] for v in seen if v in table_of} for seen in self.committed]
        return [tables for tables in found if tables]


def _strings(params: Any) -> Iterator[str]:
    if isinstance(params, str):
        yield params
    elif isinstance(params, dict):
        for value in params.values():
            yield from _strings(value)
    elif isinstance(params, list | tuple):
        for value in params:
            yield from _strings(value)


async def _check(db: Database, manager: TableManager, tables: list[Any]) -> None:
    async with db.session() as s:
        done = await s.scalar(
            select(func.count()).select_from(HandRecord).where(HandRecord.status == HandStatus.DONE)
        )
        assert done == sum(t.state.hands_played for t in tables)
        for table in tables:  # the database caught up with every table's stacks
            rows = await s.execute(
                select(Seat.seat_no, Seat.stack).where(Seat.table_id == table.id)
            )
            stacks = {seat: stack for seat, stack in rows}
            assert stacks == {seat: info.stack for seat, info in table.state.seats.items()}
        report = await check_ledger(s)
    assert report.ok, report.violations


async def test_several_tables_hands_share_transactions(db: Database) -> None:
    manager, clock, tables = await _tables(db, 4)
    try:
        with Transactions(db) as seen:
            for _ in range(3):
                for table in tables:
                    await play_hands(table, clock, 1)
            assert await manager.writer.drain(timeout=30)
        shared = await seen.tables_per_transaction(db)
        # every hand write went through the shared path; some transactions held several
        # tables' hands, and the writer counted exactly those
        assert sum(len(tables) > 1 for tables in shared) == manager.writer.batches > 0
        assert len(shared) < 2 * sum(t.state.hands_played for t in tables)  # a start, an end each
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
        with Transactions(db) as seen:
            for table in tables:
                await play_hands(table, clock, 2)
            assert await manager.writer.drain(timeout=30)
        assert calls  # it was tried, then every write went on its own
        assert manager.writer.batches == 0 and manager.writer.dropped == 0
        shared = await seen.tables_per_transaction(db)
        assert shared and all(len(tables) == 1 for tables in shared), shared
        await _check(db, manager, tables)
    finally:
        await manager.stop()


async def test_an_urgent_write_goes_at_once_with_the_writes_gathered() -> None:
    """A tournament table's finished hand is urgent (its report to the director, and so its
    next deal, waits for it): it does not wait out the window, and the writes gathered so
    far go in its transaction."""
    batches: list[list[str]] = []

    async def write_many(items: list[Any]) -> None:
        batches.append(list(items))

    async def alone() -> None:
        raise AssertionError("each write goes in the shared transaction")

    writer = HandWriter(write_many=write_many, window=3600.0)  # an hour: only urgency ends it
    try:
        calm = writer.submit(1, "hand #1 start", alone, item="start 1")
        while not writer._together:  # the calm write is gathered, its window begun
            await asyncio.sleep(0)
        urgent = writer.submit(2, "hand #7", alone, item="end 2", urgent=True)
        await asyncio.wait_for(asyncio.gather(calm, urgent), 60)
        assert batches == [["start 1", "end 2"]]
        # an urgent write while none is gathering goes at once too, alone
        await asyncio.wait_for(writer.submit(3, "hand #2", alone, item="end 3", urgent=True), 60)
        assert batches[1:] == [["end 3"]]
    finally:
        await writer.stop()


async def test_an_urgent_write_hurries_the_tables_write_gathered_before_it() -> None:
    """A short hand's finished record is behind its start row, gathered and waiting out the
    window: the urgent record sends that row now, then goes itself, without the window."""
    batches: list[list[str]] = []

    async def write_many(items: list[Any]) -> None:
        batches.append(list(items))

    async def alone() -> None:
        raise AssertionError("each write goes in the shared transaction")

    writer = HandWriter(write_many=write_many, window=3600.0)
    try:
        start = writer.submit(1, "hand #1 start", alone, item="start 1")
        while not writer._together:
            await asyncio.sleep(0)
        end = writer.submit(1, "hand #1", alone, item="end 1", urgent=True)
        await asyncio.wait_for(asyncio.gather(start, end), 60)
        assert batches == [["start 1"], ["end 1"]]  # the table's order kept
    finally:
        await writer.stop()
