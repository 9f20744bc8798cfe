"""Fenced writes, on SQLite and PostgreSQL. A table's owner is paused past its
lease; another store claims the table (a higher epoch) and voids the hand left live. Every
write the old owner then makes for that table (the finished hand with its settlement, a
hand start, both in a shared transaction, a settlement, a cash-out, a buy-in, a top-up,
settings, seat state, closing, an all-in protection) is refused and changes nothing; the
ledger stays sound; the new owner writes as usual. In the hand writer's shared transaction
only the stale table's write is refused: the others commit."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import func, select, update

from app.store import hands, leases
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.errors import LeaseLost
from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import TableLease
from app.store.models import (
    AllInProtection,
    LedgerAccount,
    LedgerTransaction,
    PokerTable,
    Seat,
)
from app.store.types import utcnow
from app.tables import LedgerTableStore, TableError, TableSettings
from app.tables.writer import HandWriter
from tests.store.factories import make_user
from tests.store.hands_play import play_hands, seated_table


async def _expire(db: Database, table_id: int) -> None:
    """The owner stopped renewing (paused, cut off): its lease ran out."""
    async with db.transaction() as s:
        await s.execute(
            update(TableLease).where(TableLease.table_id == table_id).values(expires_at=utcnow())
        )


async def _state(db: Database, table_id: int) -> dict[str, Any]:
    """Everything a table's writes could change."""
    async with db.session() as s:
        table = await s.get(PokerTable, table_id, populate_existing=True)
        assert table is not None
        seats = await s.execute(
            select(Seat.seat_no, Seat.user_id, Seat.stack, Seat.sitting_out)
            .where(Seat.table_id == table_id)
            .order_by(Seat.seat_no)
        )
        handrows = await s.execute(select(HandRecord.id, HandRecord.status).order_by(HandRecord.id))
        balances = await s.execute(
            select(LedgerAccount.code, LedgerAccount.balance).order_by(LedgerAccount.code)
        )
        return {
            "table": (table.status, table.name, table.small_bet, dict(table.extra), table.stacks),
            "seats": list(seats),
            "hands": list(handrows),
            "balances": list(balances),
            "postings": await s.scalar(select(func.count()).select_from(LedgerTransaction)),
        }


async def test_a_stale_owner_writes_nothing(db: Database) -> None:
    manager, table, clock, users = await seated_table(db, 3)
    old = table.store
    assert isinstance(old, LedgerTableStore)
    finished: list[hands.HandFinish] = []

    async def held_back(finish: hands.HandFinish) -> None:
        finished.append(finish)  # the owner is paused before its hand record commits

    old.record_hand = held_back  # type: ignore[method-assign]
    manager.writer.write_many = None  # each write on its own, through record_hand
    try:
        await play_hands(table, clock, 1)
        await manager.writer.drain()
        await table.stop()
        (finish,) = finished
        del old.record_hand  # the real one again
        async with db.session() as s:
            live = await s.scalar(
                select(HandRecord.status).where(HandRecord.id == finish.start.hand_id)
            )
        assert live == HandStatus.LIVE

        await _expire(db, table.id)
        new = LedgerTableStore(db)
        assert await new.claim_open() == [table.id]
        assert new.epochs[table.id] == old.epochs[table.id] + 1
        (voided,) = await new.void_interrupted([table.id])  # the new owner voids the hand left live
        assert voided["hand_id"] == finish.start.hand_id
        before = await _state(db, table.id)
        assert before["postings"] and (finish.start.hand_id, HandStatus.VOID) in before["hands"]

        async with db.transaction() as s:
            newcomer = (await make_user(s, "late", balance=5_000)).id
        before = await _state(db, table.id)
        after_start = dataclasses.replace(finish.start, hand_id="stale-next", number=10**9)
        stacks = {"0": [users[0], 1]}
        writes: dict[str, Callable[[], Awaitable[object]]] = {
            "record_hand": lambda: old.record_hand(finish),
            "record_start": lambda: old.record_start(after_start),
            "record_many": lambda: old.record_many([after_start, finish]),
            "save_settings": lambda: old.save_settings(
                table.id, table.state.settings.model_copy(update={"name": "Stale"})
            ),
            "save_state": lambda: old.save_state(
                table.id, members=set(), bots=set(), sitting_out={users[0]: True}
            ),
            "close": lambda: old.close(table.id),
        }
        for name, write in writes.items():
            with pytest.raises(LeaseLost):
                await write()
            assert await _state(db, table.id) == before, name
        chip_moves: dict[
            str, Callable[[], Awaitable[object]]
        ] = {  # a player's request: a clear refusal, as the table answers it
            "cash_out": lambda: old.cash_out(table.id, users[1], "stale-out", stacks),
            "buy_in": lambda: old.buy_in(table.id, newcomer, 5, 2_000, "stale-in", stacks),
            "top_up": lambda: old.top_up(table.id, users[0], 100, "stale-up", stacks),
        }
        for name, move in chip_moves.items():
            with pytest.raises(TableError) as refused:
                await move()
            assert refused.value.code == "lease_lost", name
            assert await _state(db, table.id) == before, name

        async with db.session() as s:
            assert (await check_ledger(s)).ok
        assert await old.renew_leases() == {table.id}  # the old owner learns, and lets go
        assert table.id not in old.epochs
        # the new owner's writes go through
        left = {str(no): [uid, stack] for no, uid, stack, _ in before["seats"] if uid != users[1]}
        out = await new.cash_out(table.id, users[1], "new-out", left)
        assert out == next(stack for _, uid, stack, _ in before["seats"] if uid == users[1])
        async with db.session() as s:
            assert (await check_ledger(s)).ok
    finally:
        await manager.stop()


def _start(table_id: int, number: int, user_id: int) -> hands.HandStart:
    return hands.HandStart(
        hand_id=f"h{table_id}-{number}", number=number, table_id=table_id, table_name="T",
        max_seats=8, variant="stud", rules={}, button=0,
        seats=[{"seat": 0, "user_id": user_id, "name": "p", "stack": 100}], commitment="0" * 64,
    )  # fmt: skip


async def test_in_a_shared_transaction_only_the_stale_tables_write_is_refused(
    db: Database,
) -> None:
    old = LedgerTableStore(db)
    settings = TableSettings.parse({"name": "T", "small_bet": 100})
    kept, lost = [
        await old.create(settings, host_user_id=None, invite_token=None, password_hash=None)
        for _ in range(2)
    ]
    async with db.transaction() as s:
        user = (await make_user(s, "pat")).id
    await _expire(db, lost)
    new = LedgerTableStore(db)
    async with db.transaction() as s:
        assert await leases.claim(s, lost, new.owner, seconds=5.0) == 2

    first, second = await old.reserve_numbers(2)
    starts = {kept: _start(kept, first, user), lost: _start(lost, second, user)}
    with pytest.raises(LeaseLost) as refused:  # together: all or nothing
        await old.record_many(list(starts.values()))
    assert refused.value.table_ids == frozenset({lost})

    writer = HandWriter(write_many=old.record_many, window=0.0, first_backoff=0.0)
    futures = {
        t: writer.submit(t, "start", lambda st=st: old.record_start(st), item=st)  # type: ignore[misc]
        for t, st in starts.items()
    }
    assert await futures[kept] is None
    with pytest.raises(LeaseLost):
        await futures[lost]
    await writer.stop()
    async with db.session() as s:
        rows = set(await s.scalars(select(HandRecord.table_id)))
        assert rows == {kept}  # the kept table's start row, written on its own
        assert (await check_ledger(s)).ok


async def test_a_stale_owner_spends_no_all_in_protection(db: Database) -> None:
    """R19's allowance is the player's, across tables: a stale owner timing a player out
    must not use one up (the new owner may, and the allowance is still whole)."""
    old = LedgerTableStore(db)
    settings = TableSettings.parse({"name": "T", "small_bet": 100})
    table_id = await old.create(settings, host_user_id=None, invite_token=None, password_hash=None)
    async with db.transaction() as s:
        user = (await make_user(s, "pat")).id
    now = utcnow().timestamp()
    assert await old.claim_protection(table_id, user, "while-owner", now)  # the owner may
    await _expire(db, table_id)
    new = LedgerTableStore(db)
    assert await new.claim_open() == [table_id]

    with pytest.raises(LeaseLost) as refused:
        await old.claim_protection(table_id, user, "stale", now)
    assert refused.value.table_ids == frozenset({table_id})
    async with db.session() as s:
        used = set(await s.scalars(select(AllInProtection.hand_id)))
    assert used == {"while-owner"}
    # the second of the two is still there for the new owner, and then none is
    assert await new.claim_protection(table_id, user, "fresh", now)
    assert not await new.claim_protection(table_id, user, "one-too-many", now)
