"""The resync snapshot carries the current hand's log: the public events since the
hand began and the requesting player's own down cards, never another seat's down card and
none to an observer; and "Your tables" lists every table one sits at or hosts."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import FakeClock
from app.tables.state import kept_v, unkept
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE, calldown


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


async def play_to_street(clients: dict[int, Client], street: int) -> Frame:
    """Act by `calldown` until `street` is dealt and someone is to act on it."""
    watcher = clients[0]
    i = 0
    seen = 0
    for _ in range(100):
        i, frame = await watcher.wait_index(
            lambda f: f.get("type") in ("turn", "street_started"), start=i
        )
        i += 1
        if frame["type"] == "street_started":
            seen = frame["street"]
            continue
        if seen >= street:
            return frame
        act = {"type": "act", "hand_id": frame["hand_id"], "turn_id": frame["turn_id"]}
        reply = await clients[frame["seat"]].call({**act, **calldown(frame["legal"])})
        assert reply["type"] == "ok", reply
    raise AssertionError(f"street {street} never came")


def down_cards(log: list[dict[str, Any]]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for e in log:
        if e.get("type") == "card_dealt" and not e["face_up"]:
            out.setdefault(e["seat"], []).append(e["card"])
    return out


async def test_snapshot_log_holds_the_hand_so_far_with_only_your_own_down_cards(
    live: Live,
) -> None:
    users = [await live.user(n) for n in ("ann", "bob", "cy")]
    created = await live.create_table(
        users[0][1], name="Log", small_bet=100, ante=10, hand_pause_ms=int(PAUSE * 1000)
    )
    table_id = created["table"]["id"]
    clients: dict[int, Client] = {}
    for seat in (0, 1):
        user_id, token = users[seat]
        client = await Client.open(live, table_id, token, user_id)
        reply = await client.call(
            {"type": "sit", "seat": seat, "amount": 2000, "request_id": f"b{seat}"}
        )
        assert reply["type"] == "ok", reply
        clients[seat] = client
    await live.settle(table_id, PAUSE)
    turn = await play_to_street(clients, 4)
    hand_id = turn["hand_id"]
    live_ann = [f for f in clients[0].events() if f.get("hand_id") == hand_id]
    live_ann = live_ann[[f["type"] for f in live_ann].index("hand_started") :]

    ann = await Client.open(live, table_id, users[0][1], users[0][0])  # ann reloads
    snap = ann.frames[0]
    assert snap["type"] == "snapshot" and snap["log_complete"] is True
    log = snap["log"]
    assert log[0]["type"] == "hand_started" and log[0]["hand_id"] == hand_id
    assert [e["v"] for e in log] == sorted(e["v"] for e in log) and log[-1]["v"] <= snap["v"]
    # the hand's events ann saw live, in order (the deal's commitment came just before it)
    assert [e for e in log if e.get("hand_id") == hand_id] == live_ann
    assert [e["street"] for e in log if e["type"] == "street_started"] == [3, 4]
    mine = next(s for s in snap["hand"]["seats"] if s["seat"] == 0)
    assert down_cards(log) == {0: mine["down"]}
    assert len(down_cards(log)[0]) == 2

    cy = await Client.open(live, table_id, users[2][1], users[2][0])  # an observer
    seen = cy.frames[0]["log"]
    assert seen and seen[0]["type"] == "hand_started"
    assert down_cards(seen) == {}
    assert not any(e.get("type") == "card_dealt" and not e["face_up"] for e in seen)
    public = [e for e in log if not (e.get("type") == "card_dealt" and not e["face_up"])]
    assert [e["v"] for e in seen if e["v"] <= snap["v"]] == [e["v"] for e in public]


async def test_snapshot_log_when_the_hands_start_left_the_ring(live: Live) -> None:
    """The ring's bound: a hand whose start is no longer kept gets its later events and
    `log_complete: false` (the client says the earlier lines are gone)."""
    users = [await live.user(n) for n in ("ann", "bob")]
    created = await live.create_table(
        users[0][1], name="Ring", small_bet=100, ante=10, hand_pause_ms=int(PAUSE * 1000)
    )
    table_id = created["table"]["id"]
    clients: dict[int, Client] = {}
    for seat in (0, 1):
        user_id, token = users[seat]
        client = await Client.open(live, table_id, token, user_id)
        await client.call({"type": "sit", "seat": seat, "amount": 2000, "request_id": f"b{seat}"})
        clients[seat] = client
    await live.settle(table_id, PAUSE)
    await play_to_street(clients, 4)
    ring = live.table(table_id).ring
    while json.loads(unkept(ring[0])[0])["type"] != "hand_started":
        ring.popleft()
    ring.popleft()  # as if the ring had overflowed past the hand's start
    first_kept = kept_v(ring[0])
    bob = await Client.open(live, table_id, users[1][1], users[1][0])
    snap = bob.frames[0]
    assert snap["log_complete"] is False
    assert snap["log"][0]["v"] == first_kept
    assert not any(e["type"] == "hand_started" for e in snap["log"])
    assert set(down_cards(snap["log"])) <= {1}


async def test_your_tables_lists_where_you_sit_or_host(live: Live) -> None:
    host, host_token = await live.user("host")
    guest, guest_token = await live.user("guest")
    _watcher, watcher_token = await live.user("watcher")
    private = await live.create_table(host_token, name="Home game", small_bet=100, private=True)
    table_id, invite = private["table"]["id"], private["invite"]
    await live.create_table(guest_token, name="Guest's", small_bet=100)
    for token in (guest_token, watcher_token):
        async with live.http(token) as http:
            assert (await http.post("/api/tables/join", json={"invite": invite})).status_code == 200
    guest_ws = await Client.open(live, table_id, guest_token, guest)
    reply = await guest_ws.call({"type": "sit", "seat": 3, "amount": 2000, "request_id": "g"})
    assert reply["type"] == "ok", reply
    async with live.http(guest_token) as http:
        yours = (await http.get("/api/tables/yours")).json()["tables"]
        assert [(t["name"], t["seat"], t["host"]) for t in yours] == [
            ("Home game", 3, False),
            ("Guest's", None, True),
        ]
        assert "invite" not in yours[0] and yours[0]["private"] is True
    async with live.http(watcher_token) as http:
        assert (await http.get("/api/tables/yours")).json()["tables"] == []
    async with live.http(host_token) as http:
        yours = (await http.get("/api/tables/yours")).json()["tables"]
        assert [(t["name"], t["invite"], t["seat"], t["host"]) for t in yours] == [
            ("Home game", invite, None, True)
        ]
    # the host takes a seat at their own table: still one line, now with the seat
    host_ws = await Client.open(live, table_id, host_token, host)
    reply = await host_ws.call({"type": "sit", "seat": 0, "amount": 2000, "request_id": "h"})
    assert reply["type"] == "ok", reply
    async with live.http(host_token) as http:
        yours = (await http.get("/api/tables/yours")).json()["tables"]
        assert [(t["name"], t["invite"], t["seat"], t["host"]) for t in yours] == [
            ("Home game", invite, 0, True)
        ]
    async with live.http() as http:
        assert (await http.get("/api/tables/yours")).status_code == 401


async def test_bots_get_short_distinct_names_that_survive_a_restart(live: Live) -> None:
    host, token = await live.user("host")
    created = await live.create_table(
        token, name="Bots", small_bet=100, private=True, hand_pause_ms=60_000
    )
    table_id = created["table"]["id"]
    me = await Client.open(live, table_id, token, host)
    await me.call({"type": "host_pause", "paused": True})
    assert (await me.call({"type": "host_bots", "count": 2}))["type"] == "ok"
    assert (await me.call({"type": "host_bots", "count": 3}))["type"] == "ok"
    table = live.table(table_id)
    names = sorted(info.name for info in table.state.seats.values())
    assert names == ["Bot Ada", "Bot Bram", "Bot Cor", "Bot Dirk", "Bot Eva"]
    stored = next(t for t in await table.store.load_open() if t.table_id == table_id)
    assert sorted(s.name for s in stored.seats) == names
