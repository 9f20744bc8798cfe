"""Tournaments to test with: players, a tournament, entries seated at its tables, and
tournament hands to record (their cards do not matter to the store)."""

from __future__ import annotations

from typing import Any

from app.store import hands, ledger, tournaments
from app.store.db import Database
from app.store.tournament_models import TournamentEntry
from tests.store.factories import make_table, make_tournament, make_user

START = 10_000  # each player's balance
PRICE, FEE, CHIPS = 1000, 100, 1500


async def players(db: Database, n: int, balance: int = START) -> list[int]:
    async with db.transaction() as s:
        return [(await make_user(s, f"p{i}", balance=balance)).id for i in range(n)]


async def setup(db: Database, n: int = 3, **settings: Any) -> tuple[int, list[int]]:
    users = await players(db, n)
    async with db.transaction() as s:
        return await make_tournament(s, **settings), users


async def enter(db: Database, t: int, user: int, key: str, **kw: Any) -> ledger.Posted:
    kw = {"chips": CHIPS, "price": PRICE, "fee": FEE, **kw}
    async with db.transaction() as s:
        return await tournaments.enter(s, t, user, key=key, **kw)


async def entries_of(db: Database, t: int) -> list[TournamentEntry]:
    async with db.session() as s:
        return await tournaments.entries(s, t)


async def seated(db: Database, n: int = 3) -> tuple[int, list[int], list[int], list[int]]:
    """A tournament of `n` entries seated at its first of two tables: the tournament, its
    players, its entries and its tables."""
    t, users = await setup(db, n)
    for user in users:
        await enter(db, t, user, f"in-{user}")
    async with db.transaction() as s:
        tables = [(await make_table(s, name=f"T{i}", tournament_id=t)).id for i in (1, 2)]
    rows = await entries_of(db, t)
    view: dict[str, list[int]] = {}
    for seat, entry in enumerate(rows):
        view[str(seat)] = [entry.user_id, CHIPS]
        async with db.transaction() as s:
            await tournaments.seat_entries(s, tables[0], {entry.id: seat}, stacks=dict(view))
    return t, users, [e.id for e in rows], tables


async def start_hand(
    db: Database, t: int, table_id: int, users: list[int], stacks: list[int], **kw: Any
) -> hands.HandStart:
    async with db.transaction() as s:
        (number,) = await hands.reserve_numbers(s, 1)
    start = hands.HandStart(
        hand_id=f"h{number}",
        number=number,
        table_id=table_id,
        table_name="T1",
        max_seats=8,
        variant="stud",
        rules={"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100},
        button=0,
        seats=[
            {"seat": i, "user_id": u, "name": f"p{i}", "stack": stack}
            for i, (u, stack) in enumerate(zip(users, stacks, strict=True))
        ],
        commitment="c" * 64,
        **{"tournament_id": t, "level": 3, "round": 7, **kw},
    )
    async with db.transaction() as s:
        await hands.record_start(s, start)
    return start


def finished(
    start: hands.HandStart, deltas: dict[int, int], view: dict[str, list[int]], rake: int = 0
) -> hands.HandFinish:
    return hands.HandFinish(
        start=start,
        salt="00" * 32,
        deck="As" * 52,
        events=[],
        inputs=[],
        result={"deltas": {str(u): d for u, d in deltas.items()}},
        rake=rake,
        deltas=deltas,
        table_stacks=view,
    )
