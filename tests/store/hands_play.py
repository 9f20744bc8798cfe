"""Play real hands at a real table (TableManager, the ledger, a fake clock): players seated
through the table's mailbox, every turn answered by a simple policy."""

from __future__ import annotations

import asyncio
from typing import Any

from app.engine import Phase, Variant
from app.fanout import create_fanout
from app.store.db import Database
from app.tables import FakeClock, LedgerTableStore, Table, TableManager, TableSettings
from app.tables import messages as m
from tests import asks
from tests.store.factories import make_user

SETTINGS: dict[str, Any] = dict(
    name="Rec", small_bet=100, big_bet=200, ante=10, bring_in=50, hand_pause_ms=500,
    rake_bps=500, rake_cap=300,
)  # fmt: skip


async def seated_table(
    db: Database, n: int = 3, variant: str = "stud", **settings: Any
) -> tuple[TableManager, Table, FakeClock, list[int]]:
    clock = FakeClock()
    manager = TableManager(LedgerTableStore(db), create_fanout("memory://"), clock)
    users = []
    async with db.transaction() as s:
        for i in range(n):
            users.append((await make_user(s, f"{variant}{i}", balance=10_000)).id)
    table = await manager.create(
        TableSettings(**{**SETTINGS, **settings}, variant=Variant(variant)),
        host_user_id=users[0],
        password_hash=None,
    )
    for seat, user in enumerate(users):
        await table.request(asks.sit(user, f"{variant}{seat}", seat, 2000, f"k{seat}"))
    return manager, table, clock, users


async def act_once(table: Table, fold_seat: int | None = None) -> None:
    """Answer the current turn: bring in, check or call; `fold_seat` folds when it may."""
    hand = table.state.hand
    assert hand is not None and hand.to_act is not None and table.state.hand_id is not None
    legal = hand.legal_actions()
    seat = legal.seat
    if legal.bring_in is not None:
        action, amount = "bring_in", legal.bring_in
    elif hand.phase is not Phase.BETTING:
        action, amount = ("muck" if legal.muck else "show"), None
    elif seat == fold_seat and legal.fold and not legal.check:
        action, amount = "fold", None
    elif seat == fold_seat and hand.street == 4 and legal.bets:
        action, amount = "bet", legal.bets[0]
    else:
        action, amount = ("check" if legal.check else "call"), None
    user = table.state.hand_users[seat]
    await table.request(asks.act(user, table.state.hand_id, table.state.turn_id, action, amount))


async def play_hands(table: Table, clock: FakeClock, count: int, **kw: Any) -> None:
    """Play until `count` more hands have ended (the clock starts each after its pause)."""
    goal = table.state.hands_played + count
    while table.state.hands_played < goal:
        if table.state.hand is None:
            await _numbers_in(table)
            clock.advance(1.0)
            await table.request(m.Join(0))
            continue
        await act_once(table, **kw)


async def _numbers_in(table: Table) -> None:
    """Hand numbers come from the database in real time: wait for them before moving the
    fake clock, else the other tables' turns would time out while this one waits."""
    task = table.numbers.task
    if not table.numbers.available() and task is not None:
        await asyncio.shield(task)
        await table.request(m.Join(0))


async def start_hand(table: Table, clock: FakeClock) -> None:
    """Advance until a hand is being played."""
    while table.state.hand is None:
        await _numbers_in(table)
        clock.advance(1.0)
        await table.request(m.Join(0))  # not Sync: that would wait for the writer
