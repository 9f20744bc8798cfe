"""R44: a full public table's waiting list over a real server (HTTP from the lobby, the
table's socket), the offer timed by the table's fake clock, and the list back after a
restart on the same database."""

from __future__ import annotations

from typing import Any

from app.fanout import BaseFanout, create_fanout
from app.store.db import Database
from app.tables import FakeClock
from app.tables.waiting import OFFER_SECONDS
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_rules import reopen_token

BUY_IN = 2000


def sit(seat: int, rid: str) -> dict[str, Any]:
    return {"type": "sit", "seat": seat, "amount": BUY_IN, "request_id": rid}


async def full_table(live: Live) -> tuple[int, dict[str, tuple[int, str]], dict[str, Client]]:
    """A public two-seat table, full (ann, bob), and three who will wait (carl, dan, eve),
    everyone's socket open at it. No hand starts: the fake clock never runs the pause."""
    users = {name: await live.user(name) for name in ("ann", "bob", "carl", "dan", "eve")}
    made = await live.create_table(users["ann"][1], name="Full", small_bet=100, max_seats=2)
    table_id = made["table"]["id"]
    clients = {
        name: await Client.open(live, table_id, token, user_id)
        for name, (user_id, token) in users.items()
    }
    for seat, name in enumerate(("ann", "bob")):
        assert (await clients[name].call(sit(seat, f"s-{name}")))["type"] == "ok"
    return table_id, users, clients


async def lobby_waiting(live: Live, token: str, table_id: int) -> int:
    async with live.http(token) as http:
        tables = (await http.get("/api/tables")).json()["tables"]
    waiting: int = next(t["waiting"] for t in tables if t["id"] == table_id)
    return waiting


def offers(client: Client) -> list[Frame]:
    return [f for f in client.frames if f.get("type") in ("seat_offered", "seat_offer_ended")]


async def test_r44_the_offer_expires_and_passes_to_the_next_in_line(live: Live) -> None:
    table_id, users, clients = await full_table(live)
    # carl and dan join from the lobby (HTTP), eve from the table's socket
    for name in ("carl", "dan"):
        async with live.http(users[name][1]) as http:
            r = await http.post(f"/api/tables/{table_id}/waiting")
        assert r.status_code == 200, r.text
    assert (await clients["eve"].call({"type": "wait_join"}))["result"] == {
        "waiting": 3,
        "count": 3,
    }
    assert await lobby_waiting(live, users["ann"][1], table_id) == 3  # the list's length
    # clear answers: twice, while seated, leaving a list one is not on
    async with live.http(users["carl"][1]) as http:
        twice = await http.post(f"/api/tables/{table_id}/waiting")
    assert twice.status_code == 409
    assert twice.json()["detail"]["code"] == "already_waiting"
    assert "number 1" in twice.json()["detail"]["message"]
    seated = await clients["ann"].call({"type": "wait_join"})
    assert seated["code"] == "already_seated"
    assert (await clients["ann"].call({"type": "wait_leave"}))["code"] == "not_waiting"

    # bob leaves: the seat is offered to carl alone, and held for him
    assert (await clients["bob"].call({"type": "leave"}))["type"] == "ok"
    offered = await clients["carl"].wait(lambda f: f.get("type") == "seat_offered")
    assert offered["seat"] == 1 and offered["ms"] == OFFER_SECONDS * 1000
    listed = await clients["dan"].wait(
        lambda f: f.get("type") == "waiting_list" and f["offered"] == [1]
    )
    assert [w["name"] for w in listed["line"]] == ["carl", "dan", "eve"]
    assert offers(clients["dan"]) == [] and offers(clients["ann"]) == []
    # a scripted racer in the held seat is refused, and nothing changes
    raced = await clients["dan"].call(sit(1, "race"))
    assert raced["code"] == "seat_offered"
    assert live.table(table_id).state.seats.keys() == {0}
    assert await live.balance(users["dan"][0]) == 100_000

    # carl lets it run out: he is off the list and dan is offered the seat
    await live.settle(table_id, OFFER_SECONDS)
    ended = await clients["carl"].wait(lambda f: f.get("type") == "seat_offer_ended")
    assert ended == {**ended, "seat": 1, "reason": "expired"}
    now = await clients["dan"].wait(lambda f: f.get("type") == "seat_offered")
    assert now["seat"] == 1
    assert [w for w, _ in live.table(table_id).state.waiting.line] == [
        users["dan"][0],
        users["eve"][0],
    ]
    # carl now races for the seat and is refused; dan takes it with the ordinary sit
    assert (await clients["carl"].call(sit(1, "late")))["code"] == "seat_offered"
    assert (await clients["dan"].call(sit(1, "take")))["type"] == "ok"
    assert live.table(table_id).state.seats[1].user_id == users["dan"][0]
    assert await lobby_waiting(live, users["ann"][1], table_id) == 1
    # the old offer's timer, should it ring, is stale
    await live.settle(table_id, OFFER_SECONDS)
    assert live.table(table_id).state.seats[1].user_id == users["dan"][0]
    assert (await clients["eve"].call({"type": "wait_leave"}))["result"] == {
        "waiting": False,
        "declined": None,
    }
    assert await lobby_waiting(live, users["ann"][1], table_id) == 0


async def test_r44_a_declined_offer_goes_on_and_a_free_seat_has_no_list(live: Live) -> None:
    _, _, clients = await full_table(live)
    for name in ("carl", "dan"):
        assert (await clients[name].call({"type": "wait_join"}))["type"] == "ok"
    assert (await clients["ann"].call({"type": "leave"}))["type"] == "ok"
    await clients["carl"].wait(lambda f: f.get("type") == "seat_offered")
    declined = await clients["carl"].call({"type": "wait_leave"})
    assert declined["result"] == {"waiting": False, "declined": 0}
    assert (await clients["dan"].wait(lambda f: f.get("type") == "seat_offered"))["seat"] == 0
    # dan declines too: nobody waits, the seat is anyone's, and a list cannot be joined
    assert (await clients["dan"].call({"type": "wait_leave"}))["type"] == "ok"
    assert (await clients["eve"].call({"type": "wait_join"}))["code"] == "seat_free"
    assert (await clients["eve"].call(sit(0, "free")))["type"] == "ok"


async def test_r44_the_host_cannot_shrink_the_table_under_a_held_seat(live: Live) -> None:
    users = {name: await live.user(name) for name in ("ann", "bob", "cy", "dee")}
    made = await live.create_table(users["ann"][1], name="Three", small_bet=100, max_seats=3)
    table_id = made["table"]["id"]
    clients = {n: await Client.open(live, table_id, tok, uid) for n, (uid, tok) in users.items()}
    for seat, name in enumerate(("ann", "bob", "cy")):
        assert (await clients[name].call(sit(seat, f"s-{name}")))["type"] == "ok"
    assert (await clients["dee"].call({"type": "wait_join"}))["type"] == "ok"
    assert (await clients["cy"].call({"type": "leave"}))["type"] == "ok"
    await clients["dee"].wait(lambda f: f.get("type") == "seat_offered" and f["seat"] == 2)
    shrink = await clients["ann"].call({"type": "host_settings", "changes": {"max_seats": 2}})
    assert shrink["code"] == "invalid_settings" and "waiting list" in shrink["message"]
    assert live.table(table_id).state.settings.max_seats == 3


async def test_r44_a_private_table_has_no_waiting_list(live: Live) -> None:
    host, token = await live.user("host")
    made = await live.create_table(token, name="Home", small_bet=100, private=True)
    client = await Client.open(live, made["table"]["id"], token, host)
    assert (await client.call({"type": "wait_join"}))["code"] == "no_waiting_list"


async def test_r44_the_list_comes_back_after_a_restart_and_its_first_is_offered(
    sqlite_db: Database, memory_fanout: BaseFanout, clock: FakeClock
) -> None:
    async with live_server(sqlite_db, memory_fanout, clock) as live:
        table_id, users, clients = await full_table(live)
        for name in ("carl", "dan"):
            assert (await clients[name].call({"type": "wait_join"}))["type"] == "ok"
        await live.settle(table_id)  # the list's write is behind the table's others
        assert (await clients["bob"].call({"type": "leave"}))["type"] == "ok"
        await clients["carl"].wait(lambda f: f.get("type") == "seat_offered")
        await live.settle(table_id)
    fanout = create_fanout("memory://")
    try:
        async with live_server(sqlite_db, fanout, FakeClock()) as again:
            table = again.table(table_id)
            assert [u for u, _ in table.state.waiting.line] == [users["carl"][0], users["dan"][0]]
            # the offer running at the stop is made again, in full, to the same player
            assert table.state.waiting.offers[users["carl"][0]].seat == 1
            _, token = await reopen_token(again, users["carl"][0])
            carl = await Client.open(again, table_id, token, users["carl"][0])
            you = carl.frames[0]["you"]
            assert you["waiting"] == 1 and you["offer"]["seat"] == 1
            assert carl.frames[0]["waiting"]["offered"] == [1]
            assert (await carl.call(sit(1, "back")))["type"] == "ok"
    finally:
        await fanout.close()
