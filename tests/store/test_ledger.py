"""The chip ledger: each movement is one balanced transaction; keys post once; the database
itself refuses a negative balance; concurrent buy-ins never overdraw (docs/rules.md R3, R4, R25)."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from app.store import ledger
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.errors import (
    BuyInOutOfRange,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidSeat,
    LedgerError,
    NotSeated,
    SeatTaken,
    TableClosed,
    TopUpAlreadyClaimed,
    TopUpNotAllowed,
    UnbalancedTransaction,
)
from app.store.models import LedgerEntry, LedgerTransaction, Seat
from app.store.table_rows import close_table, get_table, open_tables
from tests.store.factories import make_table, make_user


async def _assert_ledger_ok(db: Database) -> None:
    async with db.session() as session:
        report = await check_ledger(session)
    assert report.ok, report.violations


async def _balances(db: Database, *codes: str) -> list[int]:
    async with db.session() as session:
        return [await ledger.balance(session, code) for code in codes]


async def test_signup_grant_comes_from_the_bank(db: Database) -> None:
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=5_000)
    assert await _balances(db, "bank", ledger.player_code(alice.id)) == [-5_000, 5_000]
    await _assert_ledger_ok(db)


async def test_buy_in_settle_and_cash_out_keep_escrow_equal_to_the_seats(db: Database) -> None:
    async with db.transaction() as s:
        alice, bob = await make_user(s, "alice"), await make_user(s, "bob")
        table = await make_table(s, small_bet=10, rake_bps=500, rake_cap=30)
    async with db.transaction() as s:
        await ledger.buy_in(
            s, user_id=alice.id, table_id=table.id, amount=1_000, key="a1", seat_no=0
        )
        await ledger.buy_in(s, user_id=bob.id, table_id=table.id, amount=500, key="b1", seat_no=3)
    escrow = ledger.escrow_code(table.id)
    assert await _balances(db, escrow, ledger.player_code(alice.id)) == [1_500, 9_000]

    async with db.transaction() as s:  # bob wins 200, 10 raked
        posted = await ledger.settle_hand(
            s, table_id=table.id, key="hand-1", deltas={alice.id: -200, bob.id: 190}, rake=10
        )
    assert posted.amount_for(await _account(db, "house")) == 10
    assert await _balances(db, escrow, "house") == [1_490, 10]
    async with db.session() as s:
        stacks = {seat.user_id: seat.stack for seat in (await get_table(s, table.id)).seats}
    assert stacks == {alice.id: 800, bob.id: 690}
    await _assert_ledger_ok(db)

    async with db.transaction() as s:  # R25: leave, the stack goes back
        out = await ledger.cash_out(s, user_id=bob.id, table_id=table.id, key="b-leave")
    assert out.amount_for(await _account(db, ledger.player_code(bob.id))) == 690
    assert await _balances(db, ledger.player_code(bob.id), escrow) == [10_190, 800]
    async with db.session() as s:
        assert [seat.user_id for seat in (await get_table(s, table.id)).seats] == [alice.id]
    await _assert_ledger_ok(db)


async def _account(db: Database, code: str) -> int:
    async with db.session() as s:
        return await ledger.account_id(s, code)


async def test_same_key_twice_moves_chips_once(db: Database) -> None:
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=1_000)
        table = await make_table(s, small_bet=10)
    first = second = None
    for _ in range(2):
        async with db.transaction() as s:
            posted = await ledger.buy_in(
                s, user_id=alice.id, table_id=table.id, amount=300, key="req-42", seat_no=1
            )
            first, second = (posted, None) if first is None else (first, posted)
    assert first is not None and second is not None
    assert not first.replayed and second.replayed
    assert second.transaction_id == first.transaction_id and second.entries == first.entries
    assert await _balances(db, ledger.player_code(alice.id)) == [700]
    async with db.session() as s:
        count = len(
            (
                await s.scalars(select(LedgerTransaction).where(LedgerTransaction.kind == "buy_in"))
            ).all()
        )
    assert count == 1
    # the same key with other entries is a caller bug, not a retry
    with pytest.raises(IdempotencyConflict):
        async with db.transaction() as s:
            await ledger.buy_in(s, user_id=alice.id, table_id=table.id, amount=100, key="req-42")
    await _assert_ledger_ok(db)


async def test_same_hand_settled_twice_moves_rake_once(db: Database) -> None:
    async with db.transaction() as s:
        alice, bob = await make_user(s, "alice"), await make_user(s, "bob")
        table = await make_table(s)
        await ledger.buy_in(s, user_id=alice.id, table_id=table.id, amount=500, key="a", seat_no=0)
        await ledger.buy_in(s, user_id=bob.id, table_id=table.id, amount=500, key="b", seat_no=1)
    for _ in range(3):
        async with db.transaction() as s:
            await ledger.settle_hand(
                s, table_id=table.id, key="h7", deltas={alice.id: 95, bob.id: -100}, rake=5
            )
    assert await _balances(db, "house", ledger.escrow_code(table.id)) == [5, 995]
    await _assert_ledger_ok(db)


async def test_hands_of_several_tables_settle_together(db: Database) -> None:
    """R4: `settle_hands` posts each hand as `settle_hand` would (its own transaction, its
    rake to the house), two hands of one table in order; one refusal and nothing moves."""
    async with db.transaction() as s:
        alice, bob, carol = [await make_user(s, name) for name in ("alice", "bob", "carol")]
        one, two = await make_table(s), await make_table(s, name="Two")
        for user, table, seat_no in (
            (alice, one, 0),
            (bob, one, 1),
            (carol, two, 0),
            (bob, two, 1),
        ):
            await ledger.buy_in(
                s,
                user_id=user.id,
                table_id=table.id,
                amount=500,
                key=f"{user.id}@{table.id}",
                seat_no=seat_no,
            )
    hands = [
        ledger.Settlement(one.id, "h1", {alice.id: 95, bob.id: -100}, rake=5),
        ledger.Settlement(two.id, "h2", {carol.id: -40, bob.id: 40}),
        ledger.Settlement(one.id, "h3", {alice.id: -595, bob.id: 592}, rake=3),
    ]
    refused = ledger.Settlement(two.id, "h4", {carol.id: -461, bob.id: 460}, rake=1)
    with pytest.raises(InsufficientFunds, match=r"cannot lose \$4.61"):
        async with db.transaction() as s:
            await ledger.settle_hands(s, [*hands, refused])
    assert await _balances(db, "house") == [0]
    async with db.transaction() as s:
        posted = await ledger.settle_hands(s, hands)
    house = await _account(db, "house")
    assert [p.key for p in posted] == ["h1", "h2", "h3"]
    assert [p.amount_for(house) for p in posted] == [5, 0, 3]
    assert await _balances(db, "house", ledger.escrow_code(one.id), ledger.escrow_code(two.id)) == [
        8,
        992,
        1_000,
    ]
    async with db.session() as s:
        stacks = {
            (seat.table_id, seat.user_id): seat.stack for seat in await s.scalars(select(Seat))
        }
    assert stacks == {
        (one.id, alice.id): 0,
        (one.id, bob.id): 992,
        (two.id, carol.id): 460,
        (two.id, bob.id): 540,
    }
    async with db.transaction() as s:  # settled: the same key again is the same posting
        again = await ledger.settle_hand(
            s, table_id=one.id, key="h3", deltas={alice.id: -595, bob.id: 592}, rake=3
        )
    assert again.replayed and again.transaction_id == posted[2].transaction_id
    await _assert_ledger_ok(db)


async def test_refusals_are_typed_and_write_nothing(db: Database) -> None:
    async with db.transaction() as s:
        alice, bob = await make_user(s, "alice", balance=500), await make_user(s, "bob")
        table = await make_table(s, small_bet=10, max_buy_in=800, max_seats=4)
        await ledger.buy_in(s, user_id=bob.id, table_id=table.id, amount=200, key="b", seat_no=2)
    tid, aid = table.id, alice.id
    cases: list[tuple[type[LedgerError], int, int | None]] = [  # error, amount, seat
        (BuyInOutOfRange, 99, 0),  # R3: at least ten small bets
        (BuyInOutOfRange, 801, 0),
        (SeatTaken, 100, 2),
        (InvalidSeat, 100, 4),
        (NotSeated, 100, None),
        (InsufficientFunds, 600, 0),
    ]
    for error, amount, seat_no in cases:
        with pytest.raises(error) as caught:
            async with db.transaction() as s:
                await ledger.buy_in(
                    s, user_id=aid, table_id=tid, amount=amount, key="x", seat_no=seat_no
                )
        assert caught.value.message
    with pytest.raises(NotSeated):
        async with db.transaction() as s:
            await ledger.cash_out(s, user_id=aid, table_id=tid, key="c")
    with pytest.raises(UnbalancedTransaction):
        async with db.transaction() as s:
            await ledger.settle_hand(s, table_id=tid, key="h", deltas={bob.id: -10}, rake=5)
    with pytest.raises(InsufficientFunds):
        async with db.transaction() as s:
            await ledger.settle_hand(s, table_id=tid, key="h", deltas={bob.id: -201}, rake=201)
    with pytest.raises(LedgerError, match="moves only with its seats"):
        async with db.transaction() as s:
            escrow = await ledger.account_id(s, ledger.escrow_code(tid))
            player = await ledger.account_id(s, ledger.player_code(aid))
            await ledger.transfer(s, {escrow: -10, player: 10}, key="steal")
    async with db.transaction() as s:
        await close_table(s, tid)
        assert tid not in [t.id for t in await open_tables(s)]
    with pytest.raises(TableClosed):
        async with db.transaction() as s:
            await ledger.buy_in(s, user_id=aid, table_id=tid, amount=100, key="late", seat_no=0)
    async with db.transaction() as s:  # a closed table still lets its players leave
        await ledger.cash_out(s, user_id=bob.id, table_id=tid, key="bye")
    assert await _balances(db, ledger.player_code(aid), ledger.escrow_code(tid)) == [500, 0]
    await _assert_ledger_ok(db)


async def test_a_refusal_leaves_the_callers_transaction_usable(db: Database) -> None:
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=100)
        table = await make_table(s, small_bet=10)
        with pytest.raises(InsufficientFunds):
            await ledger.buy_in(
                s, user_id=alice.id, table_id=table.id, amount=101, key="big", seat_no=0
            )
        await ledger.buy_in(s, user_id=alice.id, table_id=table.id, amount=100, key="ok", seat_no=0)
    assert await _balances(db, ledger.player_code(alice.id)) == [0]
    await _assert_ledger_ok(db)


async def test_daily_top_up_only_when_broke_and_once_a_day(db: Database) -> None:
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=100)
        rich = await make_user(s, "rich", balance=5_000)
    day = date(2026, 11, 29)
    async with db.transaction() as s:
        posted = await ledger.top_up_daily(
            s, user_id=alice.id, amount=2_000, threshold=1_000, today=day
        )
    assert not posted.replayed
    with pytest.raises(TopUpAlreadyClaimed):
        async with db.transaction() as s:
            await ledger.top_up_daily(s, user_id=alice.id, amount=2_000, threshold=1_000, today=day)
    with pytest.raises(TopUpNotAllowed):
        async with db.transaction() as s:
            await ledger.top_up_daily(s, user_id=rich.id, amount=2_000, threshold=1_000, today=day)
    assert await _balances(db, ledger.player_code(alice.id)) == [2_100]
    await _assert_ledger_ok(db)


async def test_the_database_itself_refuses_a_negative_balance(db: Database) -> None:
    """Bypass the service: raw SQL that would overdraw a player trips the CHECK constraint."""
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=100)
        bob = await make_user(s, "bob", balance=100)
        table = await make_table(s, small_bet=10)
        await ledger.buy_in(s, user_id=bob.id, table_id=table.id, amount=100, key="b", seat_no=0)
    a = await _account(db, ledger.player_code(alice.id))
    bank = await _account(db, "bank")
    escrow = await _account(db, ledger.escrow_code(table.id))
    raw_transfer = [
        "INSERT INTO ledger_transactions (kind, idempotency_key, memo) "
        "VALUES ('transfer', 'raw', '')",
        f"INSERT INTO ledger_entries (transaction_id, account_id, amount) SELECT id, {a}, -150 "
        "FROM ledger_transactions WHERE idempotency_key = 'raw'",
        f"INSERT INTO ledger_entries (transaction_id, account_id, amount) SELECT id, {bank}, 150 "
        "FROM ledger_transactions WHERE idempotency_key = 'raw'",
        f"UPDATE ledger_accounts SET balance = balance + 150 WHERE id = {bank}",
        f"UPDATE ledger_accounts SET balance = balance - 150 WHERE id = {a}",
    ]
    with pytest.raises(IntegrityError, match="balance_nonnegative"):
        async with db.transaction() as s:
            for statement in raw_transfer:
                await s.execute(text(statement))
    for statement, constraint in [
        (f"UPDATE ledger_accounts SET balance = -1 WHERE id = {escrow}", "balance_nonnegative"),
        ("UPDATE ledger_accounts SET balance = -1 WHERE code = 'house'", "balance_nonnegative"),
        ("UPDATE seats SET stack = -1", "stack_nonnegative"),
    ]:
        with pytest.raises(IntegrityError, match=constraint):
            async with db.transaction() as s:
                await s.execute(text(statement))
    async with db.transaction() as s:  # the bank, the issuer, may go negative
        await s.execute(text(f"UPDATE ledger_accounts SET balance = balance - 1 WHERE id = {bank}"))
        await s.execute(text(f"UPDATE ledger_accounts SET balance = balance + 1 WHERE id = {bank}"))
    assert await _balances(db, ledger.player_code(alice.id)) == [100]
    async with db.session() as s:
        assert (await s.scalar(select(LedgerEntry.id).where(LedgerEntry.amount == -150))) is None
    await _assert_ledger_ok(db)


async def test_twenty_concurrent_buy_ins_never_overdraw(db: Database) -> None:
    """Twenty buy-ins of 100 race against a balance of 1,000: exactly ten win, none overdraw."""
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=1_000)
        tables = [await make_table(s, small_bet=10, name=f"t{i}") for i in range(20)]

    async def buy(i: int) -> bool:
        try:
            async with db.transaction() as s:
                await ledger.buy_in(
                    s,
                    user_id=alice.id,
                    table_id=tables[i].id,
                    amount=100,
                    key=f"race-{i}",
                    seat_no=0,
                )
            return True
        except InsufficientFunds:
            return False

    won = await asyncio.gather(*(buy(i) for i in range(20)))
    assert sum(won) == 10
    assert await _balances(db, ledger.player_code(alice.id)) == [0]
    async with db.session() as s:
        seated = (await s.scalars(select(Seat).where(Seat.user_id == alice.id))).all()
    assert sum(seat.stack for seat in seated) == 1_000
    await _assert_ledger_ok(db)


async def test_twenty_concurrent_top_ups_of_one_seat_never_overdraw(db: Database) -> None:
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=1_100)
        table = await make_table(s, small_bet=10)
        await ledger.buy_in(
            s, user_id=alice.id, table_id=table.id, amount=100, key="sit", seat_no=5
        )

    async def top_up(i: int) -> bool:
        try:
            async with db.transaction() as s:
                await ledger.buy_in(
                    s, user_id=alice.id, table_id=table.id, amount=100, key=f"more-{i}"
                )
            return True
        except InsufficientFunds:
            return False

    assert sum(await asyncio.gather(*(top_up(i) for i in range(20)))) == 10
    assert await _balances(db, ledger.player_code(alice.id), ledger.escrow_code(table.id)) == [
        0,
        1_100,
    ]
    await _assert_ledger_ok(db)


async def test_concurrent_twins_of_one_key_post_once(db: Database) -> None:
    async with db.transaction() as s:
        alice = await make_user(s, "alice", balance=1_000)
        table = await make_table(s, small_bet=10)

    async def buy() -> ledger.Posted:
        async with db.transaction() as s:
            return await ledger.buy_in(
                s, user_id=alice.id, table_id=table.id, amount=200, key="double-click", seat_no=0
            )

    results = await asyncio.gather(*(buy() for _ in range(8)))
    assert len({posted.transaction_id for posted in results}) == 1
    assert sum(not posted.replayed for posted in results) == 1
    assert await _balances(db, ledger.player_code(alice.id)) == [800]
    await _assert_ledger_ok(db)
