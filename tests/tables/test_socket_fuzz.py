"""A hostile client's frames against a real server, in the middle of a hand: every JSON type
that is not an object, deep nesting (past the parser's depth limit too), huge and odd
numbers, escaped oddities (lone surrogates, NUL, a byte order mark), fields of the wrong
type, extra fields, oversized frames, and messages the wire catalog refuses, drawn by
hypothesis. Each frame is answered with one clear error frame, the socket stays open (the
ping after it gets its pong), nothing is logged as a failure, and the table's version and
snapshot are as before. Only a frame too large for the transport closes the socket, with
1009 (never 1006)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.api import ws as ws_module
from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import FakeClock
from app.tables import messages as m
from app.wire import client as c
from app.wire.limits import MAX_FRAME, MAX_TRANSPORT_FRAME
from tests.tables.live import Client, Live, live_server
from tests.tables.test_ws_play import PAUSE, seat_players

NOT_OBJECTS = ["[1,2,3]", "[]", "42", "-0", "1.5", "1e-400", '"ping"', '""', "null", "true",
               "false"]  # fmt: skip


def nested(depth: int, open_: str = "[", close: str = "]", inner: str = "") -> str:
    return open_ * depth + inner + close * depth


def cases(hand_id: str, turn_id: int) -> list[tuple[str, str]]:
    """(frame, the error code it must get). `hand_id`/`turn_id`: the turn being played, so an
    almost valid action for it is among them."""
    act = {"type": "act", "hand_id": hand_id, "turn_id": turn_id, "action": "fold"}
    sit = {"type": "sit", "seat": 5, "amount": 2000, "request_id": "f1"}
    found: list[tuple[str, str]] = [(text, "invalid_message") for text in NOT_OBJECTS]
    found += [
        # not JSON at all
        ("", "bad_json"),
        ("   ", "bad_json"),
        ("{nope", "bad_json"),
        ('{"type": "ping"} {"type": "ping"}', "bad_json"),
        ('{"type": "ping",}', "bad_json"),
        ("NaN", "bad_json"),
        ("Infinity", "bad_json"),
        # deep nesting: within the parser's depth limit, past it, and too big to read
        (nested(1000), "invalid_message"),
        (nested(2000), "bad_json"),
        (nested(800, '{"":', "}", "1"), "unknown_type"),
        (json.dumps({"type": "ping", "x": 1})[:-1] + ', "y": ' + nested(1000) + "}",
         "invalid_message"),
        ('{"type": "chat", "text": ' + nested(1000) + "}", "invalid_message"),
        # the one field of any JSON: too deep to pass between the servers (their JSON
        # encoder stops at 254 levels), and shallow enough for the table to name
        ('{"type": "host_settings", "changes": {"ante": ' + nested(1000) + "}}",
         "invalid_message"),
        ('{"type": "host_settings", "changes": {"ante": ' + nested(300) + "}}",
         "invalid_message"),
        ('{"type": "host_settings", "changes": {"ante": ' + nested(3) + "}}",
         "invalid_settings"),
        ('{"type": "host_settings", "changes": ' + nested(1000, '{"a":', "}", "1") + "}",
         "too_large"),
        (nested(10_000), "too_large"),
        (nested(10_000, '{"a":', "}", "1"), "too_large"),
        # numbers: too large for a double, for 64 bits, of the wrong kind
        ('{"type": "top_up", "amount": 1e400, "request_id": "n1"}', "bad_json"),
        ('{"type": "top_up", "amount": -1e400, "request_id": "n1"}', "bad_json"),
        ('{"type": "top_up", "amount": ' + "9" * 400 + ', "request_id": "n1"}', "bad_json"),
        ('{"type": "top_up", "amount": 123456789012345678901234567890, "request_id": "n1"}',
         "invalid_message"),
        (json.dumps({**sit, "amount": 10**13}), "invalid_message"),
        (json.dumps({**sit, "amount": 0}), "invalid_message"),
        (json.dumps({**sit, "amount": -2000}), "invalid_message"),
        (json.dumps({**sit, "amount": 2000.0}), "invalid_message"),
        (json.dumps({**sit, "amount": "2000"}), "invalid_message"),
        (json.dumps({**sit, "amount": True}), "invalid_message"),
        (json.dumps({**sit, "seat": 2**63}), "invalid_message"),
        (json.dumps({**sit, "seat": -(2**63) - 1}), "invalid_message"),
        (json.dumps({**act, "turn_id": 1e308}), "invalid_message"),
        (json.dumps({"type": "resync", "last_v": -1}), "invalid_message"),
        # escaped oddities: lone surrogates, NUL, a byte order mark
        ('{"type": "chat", "text": "\\ud800"}', "bad_json"),
        ('{"type": "chat", "text": "\\udc00x"}', "bad_json"),
        ('{"type": "ping", "ref": "\\ud800"}', "bad_json"),
        ("\ufeff" + json.dumps({"type": "ping"}), "bad_json"),
        ('{"type": "ping"}\x00', "bad_json"),
        ('{"type": "chat", "text": "a\x00b"}', "bad_json"),  # a raw control character
        (json.dumps({**sit, "request_id": "a\u0000b"}), "invalid_message"),
        (json.dumps({"type": "ping\u0000"}), "unknown_type"),
        (json.dumps({"type": "\ufeffping"}), "unknown_type"),
        (json.dumps({"type": "ping", "\u0000": 1}), "invalid_message"),
        (json.dumps({"type": "chat", "text": "\U0001f600" * 201}), "invalid_message"),
        # the type: missing, of the wrong kind, unknown
        ("{}", "unknown_type"),
        ('{"ref": "x"}', "unknown_type"),
        ('{"type": null}', "unknown_type"),
        ('{"type": 5}', "unknown_type"),
        ('{"type": ["ping"]}', "unknown_type"),
        ('{"type": {"type": "ping"}}', "unknown_type"),
        ('{"type": "PING"}', "unknown_type"),
        # other fields of the wrong type, missing, or extra
        ('{"type": "ping", "ref": 5}', "invalid_message"),
        ('{"type": "ping", "ref": ["x"]}', "invalid_message"),
        (json.dumps({"type": "ping", "ref": "r" * 65}), "invalid_message"),
        (json.dumps({**act, "turn_id": str(turn_id)}), "invalid_message"),
        (json.dumps({**act, "turn_id": float(turn_id)}), "invalid_message"),
        (json.dumps({**act, "hand_id": None}), "invalid_message"),
        (json.dumps({**act, "action": "FOLD"}), "invalid_message"),
        (json.dumps({**act, "seat": 1}), "invalid_message"),
        (json.dumps({k: v for k, v in act.items() if k != "turn_id"}), "invalid_message"),
        (json.dumps({"type": "leave", "now": True}), "invalid_message"),
        (json.dumps({"type": "sit_out", "ref": None, "x": None}), "invalid_message"),
        (json.dumps({"type": "auto_post", "on": "maybe"}), "invalid_message"),
        (json.dumps({"type": "auto_post", "on": None}), "invalid_message"),
        (json.dumps({"type": "host_pause", "paused": [True]}), "invalid_message"),
        (json.dumps({"type": "host_bots", "count": 1.0}), "invalid_message"),
        (json.dumps({"type": "host_settings", "changes": [["ante", 20]]}), "invalid_message"),
        (json.dumps({"type": "host_settings", "changes": {"ante": "20"}}), "invalid_settings"),
        (json.dumps({"type": "host_settings", "changes": {"nope": 1}}), "invalid_settings"),
        # already seated: a valid message the table refuses, changing nothing
        (json.dumps(sit), "already_seated"),
        # oversized, in characters and in bytes (a character of three bytes)
        (json.dumps({"type": "chat", "text": "x" * MAX_FRAME}), "too_large"),
        (json.dumps({"type": "chat", "text": "\u20ac" * (MAX_FRAME // 3 + 1)}, ensure_ascii=False),
         "too_large"),
        ("z" * (MAX_TRANSPORT_FRAME - 1), "too_large"),
    ]  # fmt: skip
    return found


@pytest.fixture
async def live(
    sqlite_db: Database,
    memory_fanout: BaseFanout,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Live]:
    # the fuzzer sends faster than a person may; the rate limit has its own test
    monkeypatch.setattr(ws_module, "RATE", 10_000.0)
    monkeypatch.setattr(ws_module, "BURST", 10_000.0)
    async with live_server(sqlite_db, memory_fanout, clock) as server:
        yield server


async def _state(live: Live, table_id: int, user_id: int) -> tuple[int, Any]:
    table = live.table(table_id)
    answer = await table.request(m.Resync(user_id))
    return table.version, answer["snapshot"]


async def _answered(client: Client, text: str) -> dict[str, Any]:
    """The one answer to `text`; then a ping is answered too (the socket is open)."""
    mark = len(client.frames)
    reply = await client.send_raw(text)
    pong = await client.call({"type": "ping"})
    assert pong["type"] == "ok" and pong["result"] == {"pong": True}, (text[:80], pong)
    answers = [f for f in client.frames[mark:] if f.get("type") in ("ok", "error")]
    assert answers == [reply, pong], (text[:80], answers)
    return reply


Hand = tuple[int, dict[int, Client], list[int], dict[str, Any]]


@pytest.fixture
async def hand(live: Live) -> Hand:
    """Two players seated, the first the host; a hand dealt and waiting for its first turn."""
    table_id, clients, users = await seat_players(live, 2)
    await live.settle(table_id, PAUSE)
    turn = await clients[0].wait(lambda f: f.get("type") == "turn")
    return table_id, clients, users, turn


async def test_hostile_frames_get_an_error_and_change_nothing(
    live: Live, hand: Hand, caplog: pytest.LogCaptureFixture
) -> None:
    table_id, clients, users, turn = hand
    host = clients[0]  # seated, and the table's host: host messages reach the table
    before = await _state(live, table_id, users[0])
    caplog.set_level(logging.WARNING)
    wrong: list[tuple[str, str, dict[str, Any]]] = []
    for text, code in cases(turn["hand_id"], turn["turn_id"]):
        reply = await _answered(host, text)
        assert reply["type"] == "error" and reply["message"], (text[:80], reply)
        if reply["code"] != code:
            wrong.append((text[:80], code, reply))
    assert wrong == []
    assert await _state(live, table_id, users[0]) == before
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == [], [r.getMessage() for r in failures]
    # and the hand plays on: the turn is still the one it was, for whoever it is
    assert live.table(table_id).state.turn_id == turn["turn_id"]


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)  # what JSON can say
    | st.text()
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
TYPES = st.sampled_from([c.type_of(model) for model in c.MESSAGES])
FIELDS = st.sampled_from(
    ["ref", "seat", "amount", "request_id", "hand_id", "turn_id", "action", "text", "on",
     "paused", "count", "changes", "last_v", "epoch", "type"]
)  # fmt: skip
MESSAGES = st.one_of(
    JSON,
    st.builds(lambda t, rest: {**rest, "type": t}, TYPES, st.dictionaries(FIELDS, JSON)),
)


def _refused_by_the_catalog(value: Any) -> bool:
    try:
        c.client_message.validate_python(value)
    except ValidationError:
        return True
    return False


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same frames every run
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
async def test_frames_the_catalog_refuses_are_answered_and_change_nothing(
    live: Live, hand: Hand, data: st.DataObject
) -> None:
    """One server and one hand for all the examples: each refused message leaves it as it
    was, so the next finds the same table."""
    table_id, clients, users, _turn = hand
    value = data.draw(MESSAGES)
    assume(_refused_by_the_catalog(value))
    text = json.dumps(value)
    assume(len(text.encode()) <= MAX_FRAME)
    before = await _state(live, table_id, users[0])
    reply = await _answered(clients[0], text)
    assert reply["type"] == "error", (text, reply)
    assert reply["code"] in ("invalid_message", "unknown_type"), (text, reply)
    assert await _state(live, table_id, users[0]) == before


async def test_a_frame_too_large_for_the_transport_closes_with_1009(live: Live) -> None:
    user, token = await live.user("ann")
    table_id = (await live.create_table(token, name="Big", small_bet=100))["table"]["id"]
    client = await Client.open(live, table_id, token, user)
    await client.ws.send(nested(MAX_TRANSPORT_FRAME))
    with pytest.raises(ConnectionError):
        await client.wait(lambda f: False, timeout=5)
    assert client.ws.close_code == 1009
