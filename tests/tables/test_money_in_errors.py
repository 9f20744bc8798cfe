"""Every refusal a player can meet at a $1/$2 table names its amounts as the table shows them
(dollars and cents), never a raw count of cents nor an internal account name: over the
table's socket, the lobby and the accounts API, on the real server."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE

DOLLARS = re.compile(r"\$\d{1,3}(,\d{3})*(\.\d\d)?")


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


def in_dollars(message: str) -> bool:
    """Amounts in dollars; no other number (a seat, a count of cents) nor an account code."""
    rest = DOLLARS.sub("", message)
    account = re.search(r"\w:\w|house|escrow", message)  # "player:1", "escrow:t7"
    return "$" in message and not re.search(r"\d", rest) and account is None


async def test_every_refusal_at_a_one_two_table_shows_dollars_and_cents(live: Live) -> None:
    """The minimum and maximum buy-in, a balance too small, a top-up over the cap, an amount
    out of range, a wrong bring-in and call, the daily top-up, and a host's bad settings and
    stakes."""
    _, host = await live.user("host")
    ann_id, ann_token = await live.user("ann", balance=85_000)  # $850
    bo_id, bo_token = await live.user("bo", balance=1_500)  # $15
    created = await live.create_table(
        host, name="One-two", small_bet=100, ante=15, max_buy_in=5_000,
        hand_pause_ms=int(PAUSE * 1000),
    )  # fmt: skip
    table_id = created["table"]["id"]
    ann = await Client.open(live, table_id, ann_token, ann_id)
    bo = await Client.open(live, table_id, bo_token, bo_id)
    refusals: dict[str, Frame] = {}

    def sit(seat: int, amount: int, rid: str) -> dict[str, object]:
        return {"type": "sit", "seat": seat, "amount": amount, "request_id": rid}

    refusals["too small"] = await ann.call(sit(0, 500, "a1"))
    refusals["too large"] = await ann.call(sit(0, 9_000, "a2"))
    refusals["out of range"] = await ann.call(sit(0, 10**13, "a3"))
    refusals["balance"] = await bo.call(sit(1, 3_000, "b1"))
    assert (await ann.call(sit(0, 2_000, "a4")))["type"] == "ok"
    assert (await bo.call(sit(1, 1_500, "b2")))["type"] == "ok"
    refusals["top-up"] = await ann.call({"type": "top_up", "amount": 4_000, "request_id": "t"})

    await live.settle(table_id, PAUSE)
    turn = await ann.wait(lambda f: f.get("type") == "turn")
    actor = ann if turn["seat"] == 0 else bo
    act = {"type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"]}
    refusals["bring-in"] = await actor.call({**act, "action": "bring_in", "amount": 7})
    ok = await actor.call({**act, "action": "bring_in", "amount": turn["legal"]["bring_in"]})
    assert ok["type"] == "ok", ok
    other, seat = (bo, 1) if actor is ann else (ann, 0)
    turn = await other.wait(lambda f: f.get("type") == "turn" and f["seat"] == seat)
    act = {"type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"]}
    refusals["check"] = await other.call({**act, "action": "check"})
    refusals["call"] = await other.call({**act, "action": "call", "amount": 3})

    async with live.http(ann_token) as http:
        reply = await http.post("/api/me/topup")
        assert reply.status_code == 409
        refusals["daily top-up"] = reply.json()["detail"]
    async with live.http(host) as http:
        reply = await http.post(
            "/api/tables", json={"name": "Capped", "small_bet": 100, "max_buy_in": 500}
        )
        assert reply.status_code == 422, reply.text
        refusals["settings"] = reply.json()["detail"]
        reply = await http.post("/api/tables", json={"name": "Huge", "small_bet": 10**13})
        assert reply.status_code == 422, reply.text
        refusals["stakes"] = reply.json()["detail"]

    for what, refusal in refusals.items():
        assert set(refusal) >= {"code", "message"}, (what, refusal)
        assert in_dollars(refusal["message"]), (what, refusal["message"])
    assert refusals["too small"]["message"] == "The minimum buy-in here is $10 (ten small bets)"
    assert refusals["too large"]["message"] == "The maximum buy-in here is $50"
    assert refusals["balance"]["message"] == "Not enough chips: your balance holds $15, $30 needed"
    assert refusals["top-up"]["message"] == "A stack may hold at most $50 here"
    assert refusals["daily top-up"]["message"] == (
        "The daily top-up is for players with less than $20; you have $850"  # with her stack
    )
    assert refusals["settings"]["message"] == (
        "The maximum buy-in must be at least the minimum ($10)"
    )
    assert refusals["stakes"]["message"] == "small_bet: at most $10,000,000,000"
    # nothing changed: the refused buy-ins and top-up moved no chips
    assert await live.balance(ann_id) == 85_000 - 2_000
    assert await live.balance(bo_id) == 0
