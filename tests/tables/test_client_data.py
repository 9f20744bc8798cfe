"""What the browser client needs from the server rather than working out for itself: the
host's invite again (and only the host's), the tables one hosts, the engine's pots on the
events that end a betting round, the observer count, and hand numbers as exact strings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE, drive


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


async def test_only_the_host_gets_the_invite_and_lists_the_tables_they_host(live: Live) -> None:
    host, host_token = await live.user("host")
    _guest, guest_token = await live.user("guest")
    private = await live.create_table(host_token, name="Mine", small_bet=100, private=True)
    public = await live.create_table(host_token, name="Open", small_bet=100)
    theirs = await live.create_table(guest_token, name="Theirs", small_bet=100, private=True)
    table_id, invite = private["table"]["id"], private["invite"]
    async with live.http(host_token) as http:
        got = (await http.get(f"/api/tables/{table_id}")).json()
        assert got["invite"] == invite
        mine = (await http.get("/api/tables/mine")).json()["tables"]
        assert [(t["name"], t["invite"]) for t in mine] == [("Mine", invite), ("Open", None)]
        assert (await http.get("/api/tables", params={"mine": 1})).json()["tables"] == mine
        listed = (await http.get("/api/tables")).json()["tables"]
        assert [t["id"] for t in listed] == [public["table"]["id"]]
        assert all("invite" not in t for t in listed)
    async with live.http(guest_token) as http:
        assert (await http.get(f"/api/tables/{table_id}")).status_code == 404
        joined = await http.post("/api/tables/join", json={"invite": invite})
        assert joined.status_code == 200
        got = (await http.get(f"/api/tables/{table_id}")).json()
        assert got["table"]["name"] == "Mine" and "invite" not in got
        open_table = (await http.get(f"/api/tables/{public['table']['id']}")).json()
        assert "invite" not in open_table
        theirs_line = (await http.get("/api/tables/mine")).json()["tables"]
        assert [(t["name"], t["invite"]) for t in theirs_line] == [("Theirs", theirs["invite"])]
    async with live.http() as http:
        assert (await http.get("/api/tables/mine")).status_code == 401
        assert (await http.get("/api/tables", params={"mine": 1})).status_code == 401
    # what the host was listed is what the tables themselves say they are hosted by
    assert {live.table(t["id"]).state.host_user_id for t in mine} == {host}


async def test_observer_count_in_the_snapshot_and_as_it_changes(live: Live) -> None:
    users = [await live.user(n) for n in ("ann", "bob", "cy")]
    created = await live.create_table(users[0][1], name="Watch", small_bet=100)
    table_id = created["table"]["id"]
    ann = await Client.open(live, table_id, users[0][1], users[0][0])
    assert ann.frames[0]["observers"] == 1  # ann watches until she sits
    await ann.call({"type": "sit", "seat": 0, "amount": 2000, "request_id": "a"})
    await ann.wait(lambda f: f.get("type") == "observers" and f["count"] == 0)

    cy = await Client.open(live, table_id, users[2][1], users[2][0])
    assert cy.frames[0]["type"] == "snapshot" and cy.frames[0]["observers"] == 1
    await ann.wait(lambda f: f.get("type") == "observers" and f["count"] == 1)
    again = await Client.open(live, table_id, users[2][1], users[2][0])  # a second tab
    bob = await Client.open(live, table_id, users[1][1], users[1][0])
    await ann.wait(lambda f: f.get("type") == "observers" and f["count"] == 2)
    await again.close()
    await cy.close()
    mark = len(ann.frames)
    await bob.close()
    await ann.wait(lambda f: f.get("type") == "observers" and f["count"] == 0, start=mark)
    counts = [f["count"] for f in ann.frames if f.get("type") == "observers"]
    assert counts == [0, 1, 2, 1, 0]  # the second tab changed nothing
    async with live.http(users[0][1]) as http:
        assert (await http.get("/api/tables")).json()["tables"][0]["observers"] == 0


def aggressive(legal: dict[str, Any]) -> dict[str, Any]:
    """Raise, bet or complete as much as allowed: the short stack is soon all-in."""
    if legal["show"]:
        return {"action": "show"}
    if legal["raises"]:
        return {"action": "raise", "amount": max(legal["raises"])}
    if legal["bets"]:
        return {"action": "bet", "amount": max(legal["bets"])}
    if legal["complete"] is not None:
        return {"action": "complete", "amount": legal["complete"]}
    if legal["check"]:
        return {"action": "check"}
    return {"action": "call"}


def pot_total(frame: Frame) -> int:
    return sum(p["amount"] for p in frame["pots"])


async def test_round_ending_events_carry_the_engines_pots_with_side_pots(live: Live) -> None:
    users = [await live.user(f"s{i}") for i in range(3)]
    created = await live.create_table(
        users[0][1], name="Side", small_bet=100, ante=10, hand_pause_ms=int(PAUSE * 1000),
        rake_bps=500, rake_cap=40,
    )  # fmt: skip
    table_id = created["table"]["id"]
    clients: dict[int, Client] = {}
    for seat, ((user_id, token), amount) in enumerate(zip(users, (1000, 2500, 4000), strict=True)):
        client = await Client.open(live, table_id, token, user_id)
        reply = await client.call(
            {"type": "sit", "seat": seat, "amount": amount, "request_id": f"b{seat}"}
        )
        assert reply["type"] == "ok", reply
        clients[seat] = client
    watcher = clients[0]
    await live.settle(table_id, PAUSE)
    ended = await drive(clients, aggressive)
    hand = [f for f in watcher.frames if f.get("hand_id") == ended["hand_id"]]
    started = next(f for f in hand if f.get("type") == "hand_started")
    assert started["number"].isdigit()  # the hand's number, a string as before
    streets = [f for f in hand if f.get("type") == "street_started"]
    assert [f["street"] for f in streets] == [3, 4, 5, 6, 7]
    assert [(p["amount"], sorted(p["eligible"])) for p in streets[0]["pots"]] == [
        (30, [0, 1, 2])  # the antes
    ]
    totals = [pot_total(f) for f in streets]
    assert totals == sorted(totals) and totals[-1] > totals[0]
    showdown = next(f for f in hand if f.get("type") == "showdown_started")
    assert len(showdown["pots"]) >= 2, showdown  # the short stack is all-in: a side pot
    main, side = showdown["pots"][0], showdown["pots"][1]
    assert set(main["eligible"]) > set(side["eligible"]) and 0 not in side["eligible"]
    assert ended["pots"] == showdown["pots"]
    awarded = sum(f["amount"] for f in hand if f.get("type") == "pot_awarded")
    rake = sum(f["amount"] for f in hand if f.get("type") == "rake_taken")
    assert pot_total(ended) == awarded + rake
    assert sum(started["stacks"]) - sum(ended["stacks"]) == rake
    # a seated player's second socket is no observer
    late = await Client.open(live, table_id, users[1][1], users[1][0])
    snap = late.frames[0]
    assert snap["type"] == "snapshot" and snap["observers"] == 0
