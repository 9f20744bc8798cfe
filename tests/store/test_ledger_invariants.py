"""Thousands of random ledger operations, with hypothesis: after every batch all accounts sum to
zero, every balance equals its entries, no balance or stack is negative, each escrow equals the
chips seated at its table, and the database accepted exactly what a plain model says is valid."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import ledger
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.errors import LedgerError, TopUpAlreadyClaimed
from app.store.models import LedgerAccount, Seat
from tests.store.factories import make_table, make_user

USERS = 5
START = 2_000
TABLES: list[dict[str, Any]] = [  # small bet 10: the minimum buy-in is 100
    {"max_seats": 2, "max_buy_in": None},
    {"max_seats": 4, "max_buy_in": 500},
    {"max_seats": 8, "max_buy_in": None},
]
TOPUP, THRESHOLD = 300, 500
DAY0 = date(2026, 1, 1)

user_ix = st.integers(0, USERS - 1)
table_ix = st.integers(0, len(TABLES) - 1)
chips = st.integers(1, 900)
ops = st.one_of(
    st.tuples(st.just("buy"), user_ix, table_ix, chips, st.none() | st.integers(0, 8)),
    st.tuples(st.just("cash"), user_ix, table_ix, st.none() | chips),
    st.tuples(
        st.just("hand"),
        table_ix,
        st.lists(st.integers(0, 400), min_size=8, max_size=8),
        st.integers(0, 8),
        st.integers(0, 30),
    ),
    st.tuples(st.just("topup"), user_ix, st.integers(0, 3)),
    st.tuples(st.just("move"), user_ix, user_ix, chips),
    st.tuples(st.just("again"), st.integers(0, 10_000)),
)
# each example: a few caller transactions, each posting several operations
EXAMPLES, MIN_BATCHES, MIN_OPS = 20, 3, 6
batches = st.lists(st.lists(ops, min_size=MIN_OPS, max_size=20), min_size=MIN_BATCHES, max_size=5)


@dataclass
class Model:
    """What the ledger should hold, kept in plain Python."""

    users: list[int] = field(default_factory=list)
    tables: list[int] = field(default_factory=list)
    balance: dict[int, int] = field(default_factory=dict)  # user id -> chips off the tables
    seats: dict[int, dict[int, tuple[int, int]]] = field(
        default_factory=dict
    )  # table -> user -> (seat, stack)
    topups: set[tuple[int, int]] = field(default_factory=set)
    house: int = 0
    posted: list[tuple[Any, ...]] = field(default_factory=list)  # accepted calls, for replays
    keys: itertools.count[int] = field(default_factory=itertools.count)
    operations: int = 0

    def seated(self, user: int) -> int:
        return sum(s.get(user, (0, 0))[1] for s in self.seats.values())


async def _setup(db: Database, model: Model) -> None:
    async with db.transaction() as s:
        for i in range(USERS):
            user = await make_user(s, f"user{i}", balance=START)
            model.users.append(user.id)
            model.balance[user.id] = START
        for options in TABLES:
            table = await make_table(s, small_bet=10, **options)
            model.tables.append(table.id)
            model.seats[table.id] = {}


async def _apply(s: AsyncSession, model: Model, op: tuple[Any, ...]) -> None:
    """Run one operation; check the database accepted it exactly when the model says valid."""
    kind = op[0]
    if kind == "again":
        if not model.posted:
            return
        call = model.posted[op[1] % len(model.posted)]
        before = (dict(model.balance), model.house)
        if call[0] is ledger.top_up_daily:  # a second claim the same day is refused
            with pytest.raises(TopUpAlreadyClaimed):
                await call[0](s, **call[1])
        else:
            assert (await call[0](s, **call[1])).replayed, call
        assert (dict(model.balance), model.house) == before
        return
    key = f"k{next(model.keys)}"
    fn, kwargs, valid, effect = _plan(model, op, key)
    try:
        posted = await fn(s, **kwargs)
    except LedgerError as refused:
        assert not valid, f"{op} refused: {refused}"
        return
    assert valid, f"{op} accepted, but the model says it is invalid"
    assert not posted.replayed
    effect()
    model.posted.append((fn, kwargs))


def _plan(model: Model, op: tuple[Any, ...], key: str) -> tuple[Any, dict[str, Any], bool, Any]:
    kind = op[0]
    if kind == "buy":
        _, u, t, amount, seat_no = op
        user, table = model.users[u], model.tables[t]
        seats, cap = model.seats[table], TABLES[t]["max_buy_in"]
        here = seats.get(user)
        if here is None:
            valid = (
                seat_no is not None
                and seat_no < TABLES[t]["max_seats"]
                and all(s != seat_no for s, _ in seats.values())
                and amount >= 100
                and (cap is None or amount <= cap)
            )
        else:
            valid = (seat_no is None or seat_no == here[0]) and (
                cap is None or here[1] + amount <= cap
            )
        valid = valid and model.balance[user] >= amount

        def buy() -> None:
            model.balance[user] -= amount
            seat, stack = seats.get(user, (seat_no, 0))
            seats[user] = (seat, stack + amount)

        kwargs = {
            "user_id": user,
            "table_id": table,
            "amount": amount,
            "key": key,
            "seat_no": seat_no,
        }
        return ledger.buy_in, kwargs, valid, buy
    if kind == "cash":
        _, u, t, amount = op
        user, table = model.users[u], model.tables[t]
        seats = model.seats[table]
        here = seats.get(user)
        valid = here is not None and (amount is None or amount <= here[1])

        def cash() -> None:
            seat, stack = seats[user]
            taken = stack if amount is None else amount
            model.balance[user] += taken
            if amount is None:
                del seats[user]
            else:
                seats[user] = (seat, stack - taken)

        kwargs = {"user_id": user, "table_id": table, "key": key, "amount": amount}
        return ledger.cash_out, kwargs, valid, cash
    if kind == "hand":
        _, t, losses, winner_ix, rake_cap = op
        table = model.tables[t]
        seats = model.seats[table]
        players = sorted(seats)
        deltas = {p: -min(losses[i], seats[p][1]) for i, p in enumerate(players)}
        winner = players[winner_ix % len(players)] if players else None
        pot = -sum(deltas.values())
        rake = min(rake_cap, pot)
        if winner is not None:
            deltas[winner] += pot - rake
        valid = winner is not None

        def hand() -> None:
            for p, d in deltas.items():
                seat, stack = seats[p]
                seats[p] = (seat, stack + d)
            model.house += rake

        kwargs = {"table_id": table, "key": key, "deltas": deltas, "rake": rake if players else 0}
        return ledger.settle_hand, kwargs, valid, hand
    if kind == "topup":
        _, u, day = op
        user = model.users[u]
        valid = (user, day) not in model.topups and (
            model.balance[user] + model.seated(user) < THRESHOLD
        )

        def topup() -> None:
            model.topups.add((user, day))
            model.balance[user] += TOPUP

        kwargs = {
            "user_id": user,
            "amount": TOPUP,
            "threshold": THRESHOLD,
            "today": DAY0 + timedelta(days=day),
        }
        return ledger.top_up_daily, kwargs, valid, topup
    assert kind == "move"
    _, a, b, amount = op
    giver, taker = model.users[a], model.users[b]
    valid = giver != taker and model.balance[giver] >= amount

    def move() -> None:
        model.balance[giver] -= amount
        model.balance[taker] += amount

    async def transfer(s: AsyncSession, **kw: Any) -> ledger.Posted:
        ids = {u: await ledger.account_id(s, ledger.player_code(u)) for u in (giver, taker)}
        return await ledger.transfer(
            s, [(ids[giver], -amount), (ids[taker], amount)], key=kw["key"]
        )

    return transfer, {"key": key}, valid, move


async def _check(db: Database, model: Model) -> None:
    async with db.session() as s:
        report = await check_ledger(s)
        assert report.ok, report.violations
        assert sum(report.totals.values()) == 0
        accounts = {a.code: a.balance for a in await s.scalars(select(LedgerAccount))}
        seats = {
            (seat.table_id, seat.user_id): (seat.seat_no, seat.stack)
            for seat in await s.scalars(select(Seat))
        }
    for user, chips_ in model.balance.items():
        assert accounts[ledger.player_code(user)] == chips_
    assert accounts["house"] == model.house
    assert seats == {(t, u): v for t, by_user in model.seats.items() for u, v in by_user.items()}


_MODELS: dict[int, Model] = {}


@pytest.fixture
def model(db: Database) -> Iterator[Model]:
    """One model per database: it lives across hypothesis examples, as the database does."""
    model = _MODELS.setdefault(id(db), Model())
    yield model
    del _MODELS[id(db)]
    # thousands of operations over both backends (about 1,000 per backend on average)
    assert model.operations >= EXAMPLES * MIN_BATCHES * MIN_OPS


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batches=batches)
async def test_invariants_hold_after_random_operations(
    db: Database, model: Model, batches: list[list[tuple[Any, ...]]]
) -> None:
    if not model.users:
        await _setup(db, model)
    for batch in batches:
        snapshot = _snapshot(model)
        try:
            async with db.transaction() as s:  # a batch: one caller transaction, many postings
                for op in batch:
                    await _apply(s, model, op)
                    model.operations += 1
        except BaseException:
            _restore(model, snapshot)
            raise
    await _check(db, model)


def _snapshot(model: Model) -> tuple[Any, ...]:
    return (
        dict(model.balance),
        {t: dict(s) for t, s in model.seats.items()},
        set(model.topups),
        model.house,
        len(model.posted),
    )


def _restore(model: Model, snapshot: tuple[Any, ...]) -> None:
    model.balance, model.seats, model.topups, model.house, n = snapshot
    del model.posted[n:]
