"""The table task on its own: seating through the ledger, hands, timers, leaving."""

from __future__ import annotations

from typing import Any

import pytest

from app.store import ledger
from app.store.db import Database
from app.tables import FakeClock, Table, TableError, TableManager, TableSettings
from app.tables import messages as m
from app.wire import client as c
from tests import asks
from tests.store.factories import make_user


async def users(db: Database, *names: str, balance: int = 10_000) -> list[int]:
    ids = []
    async with db.transaction() as s:
        for name in names:
            ids.append((await make_user(s, name, balance=balance)).id)
    return ids


async def settle(table: Table, clock: FakeClock, seconds: float = 0.0) -> None:
    clock.advance(seconds)
    await table.request(m.Sync())


async def balance(db: Database, user_id: int) -> int:
    async with db.session() as s:
        return await ledger.player_balance(s, user_id)


async def total_chips(db: Database, table: Table, user_ids: list[int]) -> tuple[int, int]:
    """(in memory, in the ledger): balances + stacks + pots + house."""
    async with db.session() as s:
        balances = sum([await ledger.player_balance(s, u) for u in user_ids])
        house = await ledger.balance(s, ledger.HOUSE)
        escrow = await ledger.balance(s, ledger.escrow_code(table.id))
    hand = table.state.hand
    if hand is not None:
        stacks = sum(hand.stacks.values()) + sum(p.put for p in hand.players)
        stacks += sum(i.stack for s, i in table.state.seats.items() if s not in hand.by_seat)
    else:
        stacks = sum(i.stack for i in table.state.seats.values())
    return balances + stacks + house, balances + escrow + house


SETTINGS: dict[str, Any] = dict(
    name="t", small_bet=100, big_bet=200, ante=10, bring_in=50, hand_pause_ms=1000
)


async def test_r3_seating_needs_ten_small_bets_and_moves_chips_once(
    manager: TableManager, sqlite_db: Database, clock: FakeClock
) -> None:
    alice, bob = await users(sqlite_db, "alice", "bob")
    table = await manager.create(TableSettings(**SETTINGS), host_user_id=alice, password_hash=None)
    with pytest.raises(TableError) as err:
        await table.request(asks.sit(alice, "alice", 0, 999, "k1"))
    assert err.value.code == "buy_in_too_small"
    with pytest.raises(TableError) as err:
        await table.request(asks.sit(alice, "alice", 0, 20_000, "k1"))
    assert err.value.code == "insufficient_funds"
    await table.request(asks.sit(alice, "alice", 0, 1000, "k1"))
    with pytest.raises(TableError) as err:
        await table.request(asks.sit(alice, "alice", 1, 1000, "k2"))
    assert err.value.code == "already_seated"
    with pytest.raises(TableError) as err:
        await table.request(asks.sit(bob, "bob", 0, 1000, "k1"))
    assert err.value.code == "seat_taken"
    assert await balance(sqlite_db, alice) == 9000
    await table.request(asks.sit(bob, "bob", 3, 2000, "k1"))
    await settle(table, clock, 1.0)
    assert table.state.hand is not None
    mem, led = await total_chips(sqlite_db, table, [alice, bob])
    assert mem == led == 20_000


async def test_hands_play_out_on_timeouts_and_chips_add_up(
    manager: TableManager, sqlite_db: Database, clock: FakeClock
) -> None:
    ids = await users(sqlite_db, "a1", "b1", "c1")
    table = await manager.create(
        TableSettings(**SETTINGS, timeout_action="fold", rake_bps=500, rake_third_street=True),
        host_user_id=ids[0],
        password_hash=None,
    )
    for n, user in enumerate(ids):
        await table.request(asks.sit(user, f"u{n}", n, 1000, "k"))
    await settle(table, clock, 1.0)
    for _ in range(40):
        await settle(table, clock, 10.0)
        mem, led = await total_chips(sqlite_db, table, ids)
        assert mem == 30_000
        if table.state.hand is None:
            assert led == 30_000
        for info in list(table.state.seats.values()):  # timed out twice: sat out (R40); back
            if info.sitting_out and info.stack > 0:
                await table.request(m.Ask(info.user_id, info.name, "", c.SitInMsg(type="sit_in")))
    assert table.state.hands_played >= 3


async def test_draining_is_a_message_a_hand_on_its_way_is_not_dealt_and_lifting_it_deals(
    manager: TableManager, sqlite_db: Database, clock: FakeClock
) -> None:
    """The manager holds a table back by telling it (`Drain`), ahead of what its mailbox
    holds: the hand whose pause is running is not dealt; `Drain(on=False)` deals on."""
    alice, bob = await users(sqlite_db, "alice", "bob")
    table = await manager.create(TableSettings(**SETTINGS), host_user_id=alice, password_hash=None)
    await table.request(asks.sit(alice, "alice", 0, 1000, "k"))
    await table.request(asks.sit(bob, "bob", 1, 1000, "k"))
    if table.numbers.task is not None:
        await table.numbers.task  # its hand numbers are in (reserved in the background)
    table.post(m.Drain(), first=True)  # during the hand's pause
    await settle(table, clock, 1.0)
    assert table.state.life.draining and table.state.hand is None
    assert table.state.hands_played == 0
    table.post(m.Drain(on=False))
    await settle(table, clock)  # lifted: the hand's pause starts
    await settle(table, clock, 1.0)
    assert not table.state.life.draining and table.state.hand is not None
