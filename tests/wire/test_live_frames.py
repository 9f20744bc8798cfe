"""Every frame a real table sends over real sockets is in the wire catalog and has exactly
the fields the catalog gives it; every message a client sends is one of the catalog's."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.engine import events as engine
from app.engine.cards import Card
from app.fanout import BaseFanout
from app.jsontext import to_json
from app.store.db import Database
from app.tables import FakeClock
from app.wire import catalog, events
from app.wire.envelope import encode
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE, calldown, complete_then_fold, drive, seat_players


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


class Recorder:
    """Every message the test sends, checked against the catalog's client side."""

    def __init__(self) -> None:
        self.sent: list[Frame] = []

    async def call(self, client: Client, msg: Frame) -> Frame:
        assert catalog.check(msg, "client") == [], msg
        self.sent.append(msg)
        reply = await client.call(msg)
        assert reply["type"] == "ok", (msg, reply)
        return reply


def problems(frames: list[Frame]) -> list[str]:
    found = []
    for frame in frames:
        found += catalog.check(frame)
        if frame.get("type") == "snapshot":  # its hand log holds events as sent live
            for event in frame["log"]:
                found += catalog.check(event)
    return found


def engine_event(frame: Frame) -> engine.Event:
    """The engine event a frame was written from."""
    cls = next(c for c in catalog.ENGINE_EVENTS if c.type == frame["type"])
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        value = frame[f.name]
        if f.name == "card" and value is not None:
            value = Card.parse(value)
        elif f.name == "cards":
            value = tuple(map(Card.parse, value))
        elif isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return cls(**values)


def rebuilt(frame: Frame) -> str | None:
    """The frame's text as the catalog writes it (None for a placeholder)."""
    if list(frame) == ["v"]:
        return None
    if catalog.SERVER[frame["type"]].group == "engine":
        number, pots = frame.get("number"), frame.get("pots")
        started = events.Started(frame["count"], frame["names"]) if "count" in frame else None
        body, _ = events.engine_body(engine_event(frame), frame["hand_id"], number, pots, started)
        return encode(frame["v"], body)
    cls = next(c for c in (*events.TABLE_EVENTS, *events.REPLIES) if c.type == frame["type"])
    fields = {
        k: v for k, v in frame.items() if k != "type" and (k != "v" or cls is events.Snapshot)
    }
    body = cls(**fields).body()
    return to_json(body) if cls in events.REPLIES else encode(frame["v"], body)


async def private_host(live: Live, send: Recorder) -> list[Client]:
    """R43's messages at a private table whose host approves seats: a request withdrawn,
    another with limits set and approved."""
    host_id, host_token = await live.user("hostess")
    created = await live.create_table(
        host_token, name="Home", small_bet=100, private=True, seat_approval=True
    )
    table_id, invite = created["table"]["id"], created["invite"]
    host = await Client.open(live, table_id, host_token, host_id)
    guest_id, guest_token = await live.user("guest")
    guest = await Client.open(live, table_id, guest_token, guest_id, invite=invite)
    asked = {"type": "sit", "seat": 1, "amount": 2000}
    await send.call(guest, {**asked, "request_id": "g-1"})
    await send.call(guest, {"type": "seat_withdraw"})
    limits = {"type": "host_limits", "user_id": guest_id, "min_buy_in": 1500, "max_buy_in": None}
    await send.call(host, limits)
    request = (await send.call(guest, {**asked, "request_id": "g-2"}))["result"]["request"]
    await send.call(host, {"type": "host_seat_answer", "request": request, "approve": True})
    await guest.wait(lambda f: f.get("type") == "seat_answer" and f["approved"])
    return [host, guest]


async def test_every_frame_of_a_played_table_is_in_the_catalog(live: Live) -> None:
    table_id, players, users = await seat_players(live, 3)
    host = players[0]
    send = Recorder()
    _, token = await live.user("watcher")
    watcher = await Client.open(live, table_id, token, 0)
    await send.call(watcher, {"type": "ping"})
    await send.call(players[2], {"type": "auto_post", "on": False})
    said = await send.call(players[1], {"type": "chat", "text": "gl"})
    await send.call(players[2], {"type": "report_chat", "line": said["result"]["line"]})
    shot = next(f for f in players[1].frames if f.get("type") == "snapshot")
    first = {"seed": "00" * 32, "commit": "11" * 32, "sealed": shot["next_deal"]["sealed"]}
    await send.call(players[1], {"type": "seed", **first})  # the first of a chain
    await send.call(players[1], {"type": "top_up", "amount": 500, "request_id": "t-1"})

    # a hand to the showdown, then one won by a fold
    for policy in (calldown, complete_then_fold):
        mark = len(host.frames)
        await live.settle(table_id, PAUSE)
        await drive(players, policy, mark)
        await live.settle(table_id)
    # R41: the uncontested winner shows after the award
    offered = await host.wait(lambda f: f.get("type") == "show_offered")
    await send.call(players[offered["seat"]], {"type": "show", "hand_id": offered["hand_id"]})
    await players[2].wait(lambda f: f.get("type") == "post_ante_due")
    await send.call(players[2], {"type": "post_ante"})
    await send.call(players[1], {"type": "sit_out"})
    await send.call(players[1], {"type": "sit_in"})
    await send.call(players[1], {"type": "resync", "last_v": 1, "epoch": "nope"})

    # the host's commands between hands
    await send.call(host, {"type": "host_pause", "paused": True})
    await send.call(host, {"type": "host_settings", "changes": {"ante": 20}})
    await send.call(host, {"type": "host_pause", "paused": False})
    await send.call(host, {"type": "host_mute", "user_id": users[1], "muted": True})
    await send.call(host, {"type": "host_bots", "count": 5})  # the table is full
    await send.call(watcher, {"type": "wait_join"})  # R44's list, its offer, declined
    await send.call(host, {"type": "host_remove", "seat": 3})
    await watcher.wait(lambda f: f.get("type") == "seat_offered")
    await send.call(watcher, {"type": "wait_leave"})
    await watcher.wait(lambda f: f.get("type") == "seat_offer_ended")
    await send.call(players[2], {"type": "leave"})
    refused = await host.send_raw(json.dumps({"type": "no_such_message", "ref": "x"}))
    assert refused["type"] == "error"
    await send.call(host, {"type": "host_close"})
    await host.wait(lambda f: f.get("type") == "closed")

    clients = [*players.values(), watcher, *await private_host(live, send)]
    frames = [f for c in clients for f in c.frames]
    assert problems(frames) == []
    # byte for byte: each table event and reply is exactly what its catalog class writes
    same = set()
    for c in clients:
        for text, frame in zip(c.raw, c.frames, strict=True):
            again = rebuilt(frame)
            if again is not None:
                assert again == text
                same.add(frame["type"])
    assert {"snapshot", "ok", "error", "turn", "deal_revealed", "left", "chat"} <= same
    assert {"hand_started", "card_dealt", "street_started", "hand_shown", "hand_ended"} <= same
    sent = {f.get("type") for f in frames}
    # the frames cover the table's own events, the engine's and the replies
    assert {
        "snapshot", "ok", "error", "deal_committed", "turn", "down_cards", "seats", "table",
        "observers", "chat", "left", "closed", "post_ante_due", "deal_revealed",
        "waiting_list", "seat_offered", "seat_offer_ended",
        "hand_started", "card_dealt", "hand_shown", "folded", "pot_awarded", "hand_ended",
        "seat_requests", "seat_answer",
    } <= sent  # fmt: skip
    assert any(list(f) == ["v"] for f in players[0].frames)  # another seat's down card
    assert {f["reason"] for f in frames if f.get("type") == "left"} >= {
        "removed", "left", "table_closed",
    }  # fmt: skip
    # and every message of the catalog was sent (`sit` and `act` by the helpers)
    assert {m["type"] for m in send.sent} | {"act", "sit"} == set(catalog.CLIENT)


async def test_a_frame_outside_the_catalog_fails_the_check(live: Live) -> None:
    """The check this file relies on can fail: a frame with a field the catalog does not
    give, or of another type, is reported."""
    table_id, players, _ = await seat_players(live, 2)
    await live.settle(table_id, PAUSE)
    turn = await players[0].wait(lambda f: f.get("type") == "turn")
    assert catalog.check(turn) == []
    assert catalog.check({**turn, "timer_ms": "10000"}) != []
    assert catalog.check({**turn, "secret": 1}) != []
