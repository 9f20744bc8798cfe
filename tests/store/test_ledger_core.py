"""One posting core: a key answers one request (a request id is bound to its kind,
table and amount), and a bulk settlement of many hands is one statement of each kind, the
same statements as for one hand (R4, R25)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from app.store import ledger
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.errors import IdempotencyConflict
from app.store.models import LedgerAccount, LedgerTransaction, Seat
from tests.store.factories import make_table, make_user
from tests.store.statements import statements, verbs


async def _state(db: Database) -> tuple[list[tuple[str, int]], list[tuple[int, int, int]], int]:
    """Every account's balance, every seat's stack, and how many transactions are posted."""
    async with db.session() as s:
        report = await check_ledger(s)
        assert report.ok, report.violations
        accounts = [
            (code, await ledger.balance(s, code))
            for code in sorted(await s.scalars(select(LedgerAccount.code)))
        ]
        seats = sorted(
            (seat.table_id, seat.user_id, seat.stack) for seat in await s.scalars(select(Seat))
        )
        count = await s.scalar(select(func.count()).select_from(LedgerTransaction))
    return accounts, seats, int(count or 0)


async def test_r25_a_used_key_answers_only_its_own_request(db: Database) -> None:
    async with db.transaction() as s:
        alice, bob = await make_user(s, "alice"), await make_user(s, "bob")
        one, two = await make_table(s), await make_table(s, name="Two")
        alice_id, bob_id = await ledger.account_ids(
            s, ledger.player_code(alice.id), ledger.player_code(bob.id)
        )

    async def post(call: Callable[[Any], Awaitable[ledger.Posted]]) -> ledger.Posted:
        async with db.transaction() as s:
            return await call(s)

    def buy(table: int, amount: int, seat: int | None) -> Any:
        return lambda s: ledger.buy_in(
            s, user_id=alice.id, table_id=table, amount=amount, key="r1", seat_no=seat
        )

    def settle(deltas: dict[int, int], rake: int) -> Any:
        return lambda s: ledger.settle_hand(s, table_id=one.id, key="h1", deltas=deltas, rake=rake)

    def cash(table: int, amount: int | None) -> Any:
        return lambda s: ledger.cash_out(
            s, user_id=alice.id, table_id=table, key="c1", amount=amount
        )

    def move(amount: int, memo: str = "") -> Any:
        return lambda s: ledger.transfer(
            s, {alice_id: -amount, bob_id: amount}, key="gift", memo=memo
        )

    first = await post(buy(one.id, 300, 0))
    await post(
        lambda s: ledger.buy_in(s, user_id=bob.id, table_id=one.id, amount=300, key="b", seat_no=1)
    )
    hand = await post(settle({alice.id: 45, bob.id: -50}, 5))
    gift = await post(move(100))
    before = await _state(db)

    # the same request again: the first answer, nothing moves
    for call, earlier in [
        (buy(one.id, 300, 0), first),
        (settle({alice.id: 45, bob.id: -50}, 5), hand),
        (move(100), gift),
    ]:
        again = await post(call)
        assert again.replayed and again.transaction_id == earlier.transaction_id
        assert again.entries == earlier.entries
    assert await _state(db) == before

    # another request under a used key: refused, nothing moves
    others = [
        buy(one.id, 400, 0),  # another amount
        buy(one.id, 300, 2),  # another seat
        buy(one.id, 300, None),  # a top-up where a sit was
        buy(two.id, 300, 0),  # another table
        settle({alice.id: -50, bob.id: 45}, 5),  # another result, the same rake
        settle({alice.id: 40, bob.id: -50}, 10),  # another rake
        move(101),
        move(100, memo="another reason"),
        lambda s: ledger.grant_signup(s, user_id=alice.id, amount=5),  # the user's own key
    ]
    for call in others:
        with pytest.raises(IdempotencyConflict, match="was used for another request"):
            await post(call)
    assert await _state(db) == before

    left = await post(cash(one.id, None))  # leaving: the whole stack
    assert left.amount_for(alice_id) == 345
    after = await _state(db)
    assert (await post(cash(one.id, None))).replayed
    for call in [cash(one.id, 100), cash(two.id, None)]:
        with pytest.raises(IdempotencyConflict):
            await post(call)
    assert await _state(db) == after


async def test_r4_bulk_settlement_is_one_statement_of_each_kind_however_many_hands(
    db: Database,
) -> None:
    async with db.transaction() as s:
        users = [await make_user(s, f"p{n}") for n in range(4)]
        tables = [await make_table(s, name=f"T{n}") for n in range(5)]
        for t in tables:
            for seat, user in enumerate(users):
                await ledger.buy_in(
                    s, user_id=user.id, table_id=t.id, amount=1_000, key=f"{t.id}:{seat}",
                    seat_no=seat,
                )  # fmt: skip

    def hands(prefix: str, n: int) -> list[ledger.Settlement]:
        a, b = users[0].id, users[1].id
        return [
            ledger.Settlement(tables[i % 5].id, f"{prefix}{i}", {a: 9, b: -10}, rake=1)
            for i in range(n)
        ]

    seen: dict[int, list[str]] = {}
    for n in (1, 50):
        async with db.transaction() as s:
            await s.flush()
            with statements(db) as sent:
                posted = await ledger.settle_hands(s, hands(f"n{n}-", n))
            seen[n] = verbs(sent)
        assert len(posted) == n and all(not p.replayed for p in posted)
    assert seen[1] == seen[50], seen
    assert seen[50] == ["INSERT", "SELECT", "SELECT", "UPDATE", "INSERT", "UPDATE"]
    async with db.session() as s:
        report = await check_ledger(s)
        assert report.ok, report.violations
        assert await ledger.balance(s, "house") == 51
        stacks = {
            (seat.table_id, seat.user_id): seat.stack for seat in await s.scalars(select(Seat))
        }
    assert sum(stacks[t.id, users[0].id] for t in tables) == 5_000 + 51 * 9
