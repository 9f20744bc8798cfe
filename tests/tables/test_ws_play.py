"""Registered players play full hands over real WebSockets, on the memory and Redis fan-out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.fanout import BaseFanout
from app.store import ledger
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Client, Frame, Live, live_server

Policy = Callable[[dict[str, Any]], dict[str, Any]]
PAUSE = 1.0


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


def calldown(legal: dict[str, Any]) -> dict[str, Any]:
    if legal["muck"]:
        return {"action": "muck"}
    if legal["show"]:
        return {"action": "show"}
    if legal["bring_in"] is not None:
        return {"action": "bring_in", "amount": legal["bring_in"]}
    if legal["check"]:
        return {"action": "check"}
    return {"action": "call"}


def complete_then_fold(legal: dict[str, Any]) -> dict[str, Any]:
    if legal["show"] or legal["muck"]:
        return {"action": "muck"}
    if legal["complete"] is not None:
        return {"action": "complete", "amount": legal["complete"]}
    if legal["fold"]:
        return {"action": "fold"}
    return calldown(legal)


async def drive(clients: dict[int, Client], policy: Policy, start: int = 0) -> Frame:
    """Play the current hand by the `turn` events until it ends; returns `hand_ended`."""
    watcher = next(iter(clients.values()))
    i = start
    for _ in range(300):
        i, frame = await watcher.wait_index(
            lambda f: f.get("type") in ("turn", "hand_ended"), start=i
        )
        i += 1
        if frame["type"] == "hand_ended":
            return frame
        client = clients[frame["seat"]]
        act = {"type": "act", "hand_id": frame["hand_id"], "turn_id": frame["turn_id"]}
        reply = await client.call({**act, **policy(frame["legal"])})
        assert reply["type"] == "ok", reply
    raise AssertionError("the hand did not end")


async def seat_players(
    live: Live, n: int, **settings: Any
) -> tuple[int, dict[int, Client], list[int]]:
    users = [await live.user(f"p{i}") for i in range(n)]
    created = await live.create_table(
        users[0][1],
        name="Play",
        small_bet=100,
        ante=10,
        hand_pause_ms=int(PAUSE * 1000),
        **settings,
    )
    table_id = created["table"]["id"]
    clients: dict[int, Client] = {}
    for seat, (user_id, token) in enumerate(users):
        client = await Client.open(live, table_id, token, user_id)
        reply = await client.call(
            {"type": "sit", "seat": seat, "amount": 2000, "request_id": f"buy{seat}"}
        )
        assert reply["type"] == "ok", reply
        clients[seat] = client
    return table_id, clients, [u for u, _ in users]


async def chips(live: Live, table_id: int, user_ids: list[int]) -> tuple[int, int]:
    """Between hands: (balances + stacks + house in memory, balances + escrow + house)."""
    table = live.table(table_id)
    async with live.db.session() as s:
        balances = sum([await ledger.player_balance(s, u) for u in user_ids])
        house = await ledger.balance(s, ledger.HOUSE)
        escrow = await ledger.balance(s, ledger.escrow_code(table_id))
    stacks = sum(info.stack for info in table.state.seats.values())
    return balances + stacks + house, balances + escrow + house


@pytest.mark.parametrize("variant", ["stud", "stud8", "razz"])
async def test_players_play_every_variant_to_showdown_and_uncontested(
    live: Live, variant: str
) -> None:
    table_id, clients, users = await seat_players(
        live, 3, variant=variant, rake_bps=500, rake_cap=50
    )
    total = 3 * 100_000
    assert await chips(live, table_id, users) == (total, total)
    watcher = clients[0]
    ended: list[Frame] = []
    for policy in (calldown, complete_then_fold, calldown):
        mark = len(watcher.frames)
        await live.settle(table_id, PAUSE)
        ended.append(await drive(clients, policy, mark))
        await live.settle(table_id)
        assert await chips(live, table_id, users) == (total, total)
    kinds = {f.get("type") for f in watcher.frames}
    assert {"showdown_started", "hand_shown", "pot_awarded", "rake_taken"} <= kinds
    assert any(f.get("type") == "show_offered" for f in watcher.frames)  # R41
    assert live.table(table_id).state.hands_played == 3
    async with live.db.session() as s:
        assert await ledger.balance(s, ledger.HOUSE) > 0


async def test_leaving_returns_the_stack_and_the_lobby_lists_the_table(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 2)
    async with live.http() as http:
        listed = (await http.get("/api/tables")).json()["tables"]
    assert [t["id"] for t in listed] == [table_id]
    assert listed[0]["seats_taken"] == 2
    assert await live.balance(users[1]) == 98_000
    reply = await clients[1].call({"type": "leave"})
    assert reply["result"] == {"left": True, "amount": 2000}
    assert await live.balance(users[1]) == 100_000
    await clients[0].wait(lambda f: f.get("type") == "left" and f["user_id"] == users[1])
