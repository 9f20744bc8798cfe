"""R33 (a moved player is dealt in at once), on a busy process: while a move's orders are
in hand there, a bot's act due is put off until they are done (`app.tables.hurry`), and
the table's actor is not held meanwhile (the orders may be for that very table)."""

from __future__ import annotations

import asyncio

import pytest

from app.tables import hurry
from app.tables import messages as m
from app.tables.hurry import HURRY, Hurry
from tests.tournaments.harness import Server

LEVELS = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 60}]}


async def test_r33_a_bots_act_waits_for_a_moves_orders_and_the_table_answers_meanwhile(
    server: Server,
) -> None:
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, starting_chips=1000, structure=LEVELS, max_players=3,
    )  # fmt: skip
    await server.bots(tid, 2)
    away = await server.person("away")  # absent: plays by the clock (R28)
    assert (await server.register(away, tid)).status_code == 200
    director = await server.begun(tid)
    (table,) = server.tables(tid)

    def bots_turn() -> bool:
        hand = table.state.hand
        if hand is None or hand.to_act is None:
            return False
        info = table.state.seats.get(hand.to_act)
        return info is not None and info.bot

    await server.run_until(tid, bots_turn)
    hand = table.state.hand
    assert hand is not None
    turn = table.state.turn_id

    with HURRY.first():  # a move's orders in hand on this process
        server.clock.advance(60)  # the bot's think is over: its act is due
        await table.request(m.Sync())
        assert table.state.turn_id == turn  # put off
        # the actor is free: orders to this very table are answered at once
        body = {"tournament_id": tid, "epoch": director.books.epoch}
        answer = await server.services.router.ask(table.id, "direct", body)
        assert answer is not None
        await table.request(m.Sync())
        assert table.state.turn_id == turn
    await table.request(m.Sync())  # the act put off, posted again once they are done
    await table.request(m.Sync())
    assert table.state.turn_id != turn


async def test_what_waits_runs_once_when_the_urgent_work_is_done() -> None:
    h = Hurry()
    ran: list[str] = []
    with h.first():
        with h.first():
            h.later(lambda: ran.append("a"))
        assert ran == []  # one still in hand
        h.later(lambda: ran.append("b"))
    assert ran == ["a", "b"]
    with h.first():
        pass
    assert ran == ["a", "b"]  # each once


async def test_what_waits_runs_after_the_hold_even_if_the_urgent_work_is_stuck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hurry, "HOLD_SECONDS", 0.0)
    h = Hurry()
    done = asyncio.get_running_loop().create_future()
    with h.first():
        h.later(lambda: done.set_result("ran"))
        assert await done == "ran"  # a stuck order never stops the bots
    assert h.urgent == 0


class _Counting:
    """A table that answers with how much urgent work was in hand as it took the orders."""

    async def request(self, orders: object) -> int:
        return HURRY.urgent


@pytest.mark.parametrize(
    ("orders", "urgent"),
    [
        ({}, 0),
        ({"deal": True}, 0),
        ({"unseat": [{"user_id": 7, "entry_id": 3, "to_table": 2, "seat": 1}]}, 1),
        ({"seat": [{"entry_id": 3, "user_id": 7, "name": "ann", "seat": 1, "chips": 500}]}, 1),
    ],
)
async def test_a_moves_orders_are_urgent_and_others_not(
    orders: dict[str, object], urgent: int
) -> None:
    from app.tables.rpc import _direct

    body = {"tournament_id": 1, "epoch": 1, **orders}
    assert await _direct(_Counting(), body) == urgent  # type: ignore[arg-type]
    assert HURRY.urgent == 0
