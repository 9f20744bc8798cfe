"""R35 at the tables: a re-entry, a rebuy and the add-on in one tournament, the chips in
play and the prize pool checked after each."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.engine.tournament import payouts
from app.store.models import User
from app.tables import Table, TableError, bot_users
from app.tables.seating import DRAIN_WAIT
from tests.tournaments.harness import (
    Deal,
    Person,
    Server,
    by_registration,
    play_call_down,
    play_fold,
    play_raise,
)

PRICE, FEE, CHIPS = 1000, 100, 100
LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 2},
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 2},
    {"ante": 20, "bring_in": 30, "small_bet": 100, "big_bet": 200, "minutes": 60},
]}  # fmt: skip
REBUYS = {"levels": 1, "price": PRICE, "fee": FEE, "addon_price": PRICE, "addon_fee": FEE}


class Books:
    """What the money and the chips must be after each step."""

    def __init__(self, server: Server, tid: int, people: list[Person]) -> None:
        self.server, self.tid, self.people = server, tid, people
        self.paid = {p.id: 0 for p in people}
        self.chips = 0

    def bought(self, who: Person) -> None:
        self.paid[who.id] += PRICE + FEE
        self.chips += CHIPS

    async def check(self) -> None:
        s = self.server
        assert await s.pool(self.tid) == PRICE * sum(v // (PRICE + FEE) for v in self.paid.values())
        for who in self.people:
            assert await s.balance(who.id) == 100_000 - self.paid[who.id]
        assert sum(int(e.chips) for e in await s.entries(self.tid)) == self.chips
        await s.ledger_ok()


def to_act(table: Table, user_id: int) -> Callable[[], bool]:
    """Whether it is `user_id`'s turn at `table` (a condition for `run_until`)."""

    def now() -> bool:
        hand = table.state.hand
        seat = hand.to_act if hand is not None else None
        return seat is not None and table.state.hand_users[seat] == user_id

    return now


async def test_r35_a_reentry_a_rebuy_behind_and_the_addon_in_one_tournament(
    server: Server,
) -> None:
    """Four players at one table, 100 chips each: a rebuy, a re-entry and the add-on, each
    paying its price into the prize pool and its fee to the house, each a starting stack.
    Ann buys again in the first hand (while Dan, away, is on the clock): her chips wait
    behind and join her stack when the hand ends. Cy raises all his chips and loses them
    to Ann, and enters again during late registration with a new full stack. In the level
    after the rebuy period Bea takes the add-on, once."""
    host = await server.person("host")
    starts = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    tid = await server.create(
        host, seats_per_table=6, buy_in=PRICE, fee=FEE, starting_chips=CHIPS,
        structure=LEVELS, start="scheduled", starts_at=starts, max_players=10, late_levels=2,
        reentry=True, rebuys=REBUYS,
    )  # fmt: skip
    ann, bea, cy, dan = people = [await server.person(n) for n in ("ann", "bea", "cy", "dan")]
    books = Books(server, tid, people)
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
        books.bought(who)
    await books.check()
    started = await server.post(host, f"/api/tournaments/{tid}/host", {"type": "start"})
    assert started.status_code == 200, started.text
    director = await server.begun(tid)
    server.puppets.update({ann.id: play_call_down, bea.id: play_fold, cy.id: play_raise})
    calm = by_registration(server, [bea.id, ann.id, cy.id, dan.id])  # Bea wins on

    def policy(table: Table) -> Deal:
        if table.state.hands_played == 0:
            return Deal([ann.id, bea.id, dan.id, cy.id], bring_in=cy.id, folds={bea.id, dan.id})
        return calm(table)

    server.rig(tid, policy)
    (table,) = server.tables(tid)

    await server.run_until(tid, to_act(table, dan.id))
    r = await server.post(ann, f"/api/tournaments/{tid}/rebuy", {"request_id": "rb1"})
    assert r.status_code == 200, r.text
    assert r.json()["behind"] is True and r.json()["chips"] == CHIPS  # in a hand: behind
    books.bought(ann)
    stack = table.state.seats[table.state.by_user[ann.id]].stack
    await server.run_until(tid, lambda: table.state.hands_played == 1)
    won = table.state.seats[table.state.by_user[ann.id]].stack
    assert cy.id not in table.state.by_user  # his chips are Ann's now
    assert won > stack + CHIPS  # her hand's winnings and, behind them, the rebuy's chips
    await books.check()
    prizes = payouts.prizes(director.t.payouts, director.pool, 4)
    assert director.entrants() == 4 and director.prizes() == prizes

    server.puppets.update({bea.id: play_call_down, cy.id: play_call_down})
    r = await server.register(cy, tid, request_id="again")
    assert r.status_code == 200 and r.json() == {"registered": True, "entry": "reentry"}
    books.bought(cy)
    await server.settle(tid)
    mine = [e for e in await server.entries(tid) if e.user_id == cy.id]
    assert [(e.number, e.status) for e in mine] == [(1, "busted"), (2, "playing")]
    assert int(mine[1].chips) == CHIPS and mine[1].table_id == table.id
    # the director's live entries (kept, not scanned for): Cy's first entry left them when
    # he busted, his re-entry joined them
    live = [e.id for e in director.alive()]
    assert live == [e.id for e in director.entries.values() if e.alive]
    assert mine[0].id not in live and mine[1].id in live
    assert director.live_by_user == {e.user_id: e for e in director.entries.values() if e.alive}
    # the prizes (kept, not worked out each time they are asked) follow the pool and entrants
    assert director.entrants() == 5 and director.pool == await server.pool(tid)
    assert director.prizes() == payouts.prizes(director.t.payouts, director.pool, 5) != prizes
    await books.check()

    await server.run_until(tid, lambda: director.clock_.level == 1 and table.state.hand is None)
    r = await server.post(bea, f"/api/tournaments/{tid}/addon", {"request_id": "ad1"})
    assert r.status_code == 200, r.text
    assert r.json()["behind"] is False and r.json()["chips"] == CHIPS
    books.bought(bea)
    await books.check()
    again = await server.post(bea, f"/api/tournaments/{tid}/addon", {"request_id": "ad2"})
    assert again.status_code == 400 and again.json()["detail"]["code"] == "add_on_taken"
    late = await server.post(ann, f"/api/tournaments/{tid}/rebuy", {"request_id": "rb2"})
    assert late.status_code == 400 and late.json()["detail"]["code"] == "rebuys_over"
    await books.check()


async def test_r35_a_rebuy_behind_is_taken_when_the_hands_record_is_slow_to_be_written(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chips behind were promised: when the hand ends with its record not yet written (a
    database slower than a between-hands chip move waits for), the table waits for it and
    the rebuy joins the stack, paid once; it is not dropped with a warning. Ann buys again
    while Dan, away, is on the clock in the first hand."""
    host = await server.person("host")
    starts = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    tid = await server.create(
        host, seats_per_table=6, buy_in=PRICE, fee=FEE, starting_chips=CHIPS,
        structure=LEVELS, start="scheduled", starts_at=starts, max_players=10, late_levels=2,
        reentry=True, rebuys=REBUYS,
    )  # fmt: skip
    ann, bea, dan = people = [await server.person(n) for n in ("ann", "bea", "dan")]
    books = Books(server, tid, people)
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
        books.bought(who)
    started = await server.post(host, f"/api/tournaments/{tid}/host", {"type": "start"})
    assert started.status_code == 200, started.text
    await server.begun(tid)
    server.puppets.update({ann.id: play_fold, bea.id: play_fold})
    (table,) = server.tables(tid)

    await server.run_until(tid, to_act(table, dan.id))
    r = await server.post(ann, f"/api/tournaments/{tid}/rebuy", {"request_id": "rb1"})
    assert r.status_code == 200, r.text
    assert r.json()["behind"] is True
    books.bought(ann)
    chips_before = sum(int(e.chips) for e in await server.entries(tid))
    writer = server.services.manager.writer
    write_many = writer.write_many
    assert write_many is not None

    async def slow(items: list[Any]) -> None:  # the database, slower than DRAIN_WAIT
        await asyncio.sleep(2 * DRAIN_WAIT)
        await write_many(items)

    monkeypatch.setattr(writer, "write_many", slow)
    await server.run_until(tid, lambda: table.state.hands_played >= 1)
    monkeypatch.setattr(writer, "write_many", write_many)
    await server.settle(tid)
    in_play = sum(int(e.chips) for e in await server.entries(tid))
    assert in_play == chips_before + CHIPS  # the rebuy's chips joined the game
    await books.check()  # paid once, into the pool, and the chips in play issued


async def test_a_bot_whose_random_name_is_taken_draws_another(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bot accounts are named at random ("b.Ada.3f9c1e"); two bots of a 1,000-entrant
    tournament drew the same name once, and the registering stopped. A taken name is drawn
    again (the other bot's account untouched); one that is never free is refused."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=8, max_players=8)
    names = iter(["b.Ada.000001", "b.Ada.000001", "b.Ada.000001", "b.Ada.000002"])
    monkeypatch.setattr(bot_users, "bot_account", lambda first: next(names))
    bots = await server.bots(tid, 2)
    assert len(bots) == 2 and len(await server.entries(tid)) == 2
    async with server.db.session() as s:
        got = [await s.get(User, b) for b in bots]
    assert sorted(u.name for u in got if u is not None) == ["b.Ada.000001", "b.Ada.000002"]

    monkeypatch.setattr(bot_users, "bot_account", lambda first: "b.Ada.000001")
    with pytest.raises(TableError) as refused:
        await server.bots(tid, 1)
    assert refused.value.code == "bot_failed" and len(await server.entries(tid)) == 2
    await server.ledger_ok()
