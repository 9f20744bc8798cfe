"""Refusals, reconnects, timeouts and secrecy over real WebSockets."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from app.api import ws as ws_module
from app.fanout import BaseFanout
from app.store.audit import check_ledger
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE, calldown, chips, drive, seat_players


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


async def first_turn(client: Client, start: int = 0) -> Frame:
    return await client.wait(lambda f: f.get("type") == "turn", start=start)


async def test_repeated_late_forged_and_out_of_turn_actions_are_refused(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 2, timeout_action="fold")
    await live.settle(table_id, PAUSE)
    turn = await first_turn(clients[0])
    actor, other = clients[turn["seat"]], clients[1 - turn["seat"]]
    act = {"type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"]}
    bring_in = {"action": "bring_in", "amount": turn["legal"]["bring_in"]}

    out_of_turn = await other.call({**act, **bring_in})
    assert out_of_turn["code"] == "not_your_turn"
    forged = await actor.call({**act, "hand_id": "deadbeefdeadbeef", **bring_in})
    assert forged["code"] == "stale_hand"
    illegal = await actor.call({**act, "action": "bring_in", "amount": 7})
    assert illegal["code"] == "illegal_action"
    check = await actor.call({**act, "action": "check"})
    assert check["code"] == "illegal_action"
    stack_before = live.table(table_id).state.hand
    assert stack_before is not None
    ok = await actor.call({**act, **bring_in})
    assert ok["type"] == "ok"
    repeated = await actor.call({**act, **bring_in})
    assert repeated["code"] == "stale_turn"

    # a late action: the other player's turn times out, then they act on it
    # the turn after the bring-in's (the answer and the events travel apart: either first)
    turn2 = await actor.wait(lambda f: f.get("type") == "turn" and f["turn_id"] != turn["turn_id"])
    await live.settle(table_id, 10.0)
    late = await other.call(
        {"type": "act", "hand_id": turn2["hand_id"], "turn_id": turn2["turn_id"], "action": "call"}
    )
    assert late["code"] in ("stale_turn", "stale_hand")
    await actor.wait(lambda f: f.get("type") == "timed_out")  # through the fan-out: wait
    # counted once a later event of the table's has come: the replies do not wait for the
    # fan-out (over Redis the bring-in's event may come after both), and a bring-in the
    # repeat had made twice would have come before this
    assert sum(1 for f in actor.frames if f.get("type") == "brought_in") == 1
    await live.settle(table_id)
    total = 2 * 100_000
    assert await chips(live, table_id, users) == (total, total)


async def test_bad_frames_get_clear_errors_and_change_nothing(live: Live) -> None:
    table_id, clients, _ = await seat_players(live, 2)
    c = clients[0]
    v = live.table(table_id).version
    assert (await c.send_raw("{nope"))["code"] == "bad_json"
    assert (await c.send_raw(json.dumps({"type": "dance"})))["code"] == "unknown_type"
    assert (await c.send_raw(json.dumps({"type": "sit", "seat": 9})))["code"] == "invalid_message"
    big = json.dumps({"type": "chat", "text": "x" * 3000})
    assert (await c.send_raw(big))["code"] == "invalid_message"
    long_chat = await c.call({"type": "chat", "text": "y" * 201})
    assert long_chat["code"] == "invalid_message"
    second = await c.call({"type": "sit", "seat": 5, "amount": 2000, "request_id": "again"})
    assert second["code"] == "already_seated"
    assert live.table(table_id).version == v
    assert (await c.call({"type": "chat", "text": "gl"}))["type"] == "ok"
    await clients[1].wait(lambda f: f.get("type") == "chat" and f["text"] == "gl")
    # a frame over 4 KiB is refused unread; the socket stays (tests/tables/test_socket_fuzz.py)
    assert (await c.send_raw("z" * 5000))["code"] == "too_large"
    assert (await c.call({"type": "ping"}))["type"] == "ok"


async def test_connect_needs_login_same_origin_and_the_invite(live: Live) -> None:
    _host, host_token = await live.user("host")
    _guest, guest_token = await live.user("guest")
    created = await live.create_table(host_token, name="Private", small_bet=100, private=True)
    table_id, invite = created["table"]["id"], created["invite"]
    async with live.http() as http:
        assert (await http.get("/api/tables")).json()["tables"] == []
    base = f"{live.ws_url}/ws/tables/{table_id}"

    def bearer(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    for url, headers in (
        (f"{base}", {}),
        (f"{base}", bearer(guest_token)),
        (f"{base}", {**bearer(host_token), "Origin": "http://evil.example"}),
        (f"{base}?token={host_token}", {}),  # a token in a URL would end up in access logs
    ):
        with pytest.raises(InvalidStatus):
            async with connect(url, additional_headers=headers):
                pass
    async with connect(f"{base}?invite={invite}", additional_headers=bearer(guest_token)) as ws:
        snapshot = json.loads(await ws.recv())
        assert snapshot["type"] == "snapshot" and snapshot["table"]["private"]
    origin = live.url
    async with connect(f"{base}", additional_headers={**bearer(host_token), "Origin": origin}):
        pass


async def test_reconnect_mid_hand_gets_what_it_missed(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 3)
    await live.settle(table_id, PAUSE)
    turn = await first_turn(clients[0])
    epoch = live.table(table_id).epoch
    gone_seat = (turn["seat"] + 1) % 3
    gone = clients[gone_seat]
    mine = [f["card"] for f in gone.frames if f.get("type") == "card_dealt" and f["card"]]
    last_v = gone.last_v()
    await gone.close()
    # the others play on a little
    act = {"type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"]}
    await clients[turn["seat"]].call({**act, **calldown(turn["legal"])})
    _, token = await reopen_token(live, users[gone_seat])
    back = await Client.open(live, table_id, token, users[gone_seat], last_v=last_v, epoch=epoch)
    await back.wait(lambda f: f.get("type") == "brought_in")
    versions = [f["v"] for f in back.frames]
    assert versions == list(range(last_v + 1, versions[-1] + 1))
    # a client that lost track gets a snapshot with its own down cards only
    fresh = await Client.open(live, table_id, token, users[gone_seat])
    snap = fresh.frames[0]
    assert snap["type"] == "snapshot"
    seats = {s["seat"]: s for s in snap["hand"]["seats"]}
    assert seats[gone_seat]["down"] == mine[:2]
    assert all(s["down"] is None for n, s in seats.items() if n != gone_seat)
    clients[gone_seat] = back
    # from the turn now waiting (the seat's away and back, R40, may have come after it)
    frames = clients[0].frames
    last_turn = max(i for i, f in enumerate(frames) if f.get("type") == "turn")
    ended = await drive(clients, calldown, start=last_turn)
    assert ended["type"] == "hand_ended"


async def reopen_token(live: Live, user_id: int) -> tuple[int, str]:
    from datetime import timedelta

    from app.store import accounts

    async with live.db.transaction() as s:
        new = await accounts.open_session(s, user_id, lifetime=timedelta(days=1))
    return user_id, new.token


@pytest.mark.parametrize("policy", ["fold", "all_in"])
async def test_r19_timeouts_by_each_policy(live: Live, policy: str) -> None:
    table_id, clients, users = await seat_players(live, 2, timeout_action=policy)
    table = live.table(table_id)
    outcomes: list[tuple[int, str]] = []

    def timeouts(seat: int) -> list[str]:
        return [o for s, o in outcomes if s == seat and o != "muck"]

    hands = 0
    # nobody acts: every turn times out; with protection, until each player's time has run
    # out more often than the two protections cover (who brings in is the cards' choice)
    while hands < 7 or (policy == "all_in" and min(len(timeouts(0)), len(timeouts(1))) < 3):
        assert hands < 40, outcomes
        hands += 1
        mark = len(clients[0].frames)
        await live.settle(table_id, PAUSE)
        for _ in range(40):
            if table.state.hand is None:
                break
            await live.settle(table_id, 10.0)
        await clients[0].wait(lambda f: f.get("type") == "hand_ended", start=mark)
        outcomes += [
            (f["seat"], f["outcome"])
            for f in clients[0].frames[mark:]
            if f.get("type") == "timed_out"
        ]
        total = 2 * 100_000
        assert await chips(live, table_id, users) == (total, total)
        for seat, client in clients.items():  # two timeouts in a row sit out (R40): back
            if table.state.seats[seat].sitting_out:
                assert (await client.call({"type": "sit_in"}))["type"] == "ok"
    kinds = [o for _, o in outcomes]
    if policy == "fold":
        assert "all_in" not in kinds and "fold" in kinds
        return
    # two protections per player per 24 hours (the first two times), then check or fold
    for seat in (0, 1):
        mine = timeouts(seat)
        assert mine[:2] == ["all_in", "all_in"], (seat, mine)
        assert set(mine[2:]) <= {"check", "fold"}, (seat, mine)
    live.clock.advance(24 * 3600)
    for user in users:  # a day later both are back (R19 counts a rolling 24 hours)
        assert await table.store.claim_protection(table.id, user, "next-day", live.clock.time())


async def test_bot_game_never_shows_a_seat_another_seats_down_cards(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ws_module, "RATE", 10_000.0)  # this test clicks faster than people
    monkeypatch.setattr(ws_module, "BURST", 10_000.0)
    host, token = await live.user("host")
    _, watcher_token = await live.user("watcher")
    created = await live.create_table(
        token,
        name="Bots",
        small_bet=100,
        ante=10,
        private=True,
        bot_delay_ms=100,
        hand_pause_ms=500,
    )
    table_id = created["table"]["id"]
    me = await Client.open(live, table_id, token, host)
    sat = await me.call({"type": "sit", "seat": 0, "amount": 3000, "request_id": "me"})
    assert sat["type"] == "ok"
    assert (await me.call({"type": "host_bots", "count": 3}))["type"] == "ok"
    watcher_id = (await reopen_token(live, host))[0]
    observer = await Client.open(
        live, table_id, watcher_token, watcher_id + 1, invite=created["invite"]
    )
    table = live.table(table_id)
    acted = 0
    for _ in range(3000):
        if table.state.hands_played >= 12:
            break
        hand = table.state.hand
        if hand is not None and hand.to_act == 0:
            turn = await me.wait(
                lambda f: f.get("type") == "turn" and f["turn_id"] == table.state.turn_id
            )
            act = {"type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"]}
            # the fake clock stands still between the turn and the reply: nothing else can
            # act or time out first, so a legal action is always taken
            r = await me.call({**act, **calldown(turn["legal"])}, timeout=2)
            assert r["type"] == "ok", (r, me.frames[-5:])
            acted += 1
        await live.settle(table_id, 0.1)
    assert table.state.hands_played >= 12
    assert acted >= 12  # the seat with down cards to keep secret played every hand
    await live.settle(table_id)
    async with live.db.session() as s:  # the table's stacks are the ledger's after it all
        report = await check_ledger(s)
    assert report.ok, report.violations
    check_secrecy(me.frames, my_seat=0)
    check_secrecy(observer.frames, my_seat=None)
    assert any(f.get("type") == "hand_shown" for f in observer.frames)


def check_secrecy(frames: list[Frame], my_seat: int | None) -> None:
    for f in frames:
        if f.get("type") == "card_dealt" and not f["face_up"]:
            assert f["seat"] == my_seat and f["card"] is not None, f
        if f.get("type") == "snapshot" and f["hand"] is not None:
            for s in f["hand"]["seats"]:
                if s["seat"] != my_seat and not s["shown"]:
                    assert s["down"] is None, s
        if "v" in f and len(f) == 1:
            continue
        text = json.dumps(f)
        assert '"audience"' not in text
    private = [f for f in frames if f.get("type") == "card_dealt" and not f["face_up"]]
    assert (len(private) > 0) == (my_seat is not None)


async def test_rate_limit_refuses_a_flood(live: Live) -> None:
    _table_id, clients, _ = await seat_players(live, 2)
    c = clients[0]
    for i in range(60):
        await c.ws.send(json.dumps({"type": "ping", "ref": f"f{i}"}))
    await c.wait(lambda f: f.get("code") == "rate_limited")
