"""R43 over real WebSockets: a private table's seat requests wait for the host's yes (the
buy-in posted only then), declined and withdrawn ones change nothing, a scripted client's
answers out of place are refused, and the host's buy-in limits for one player."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from app.store import accounts, moderation
from app.store.models import LedgerTransaction, PokerTable, TxKind
from app.tables import messages as m
from tests.tables.live import Client, Frame, Live
from tests.tables.test_extras import BALANCE, ledger_ok


@dataclass
class Stage:
    table_id: int
    invite: str
    host: Client
    users: dict[str, tuple[int, str]]


async def private_table(live: Live, *names: str, **settings: Any) -> Stage:
    """A private table with seat approval, its host connected, and `names` let in by the
    invite (connected, not seated)."""
    host_id, host_token = await live.user("host")
    created = await live.create_table(
        host_token,
        name="Home",
        small_bet=100,
        private=True,
        seat_approval=True,
        **settings,
    )
    table_id, invite = created["table"]["id"], created["invite"]
    host = await Client.open(live, table_id, host_token, host_id)
    users = {name: await live.user(name) for name in names}
    return Stage(table_id, invite, host, users)


async def guest(live: Live, stage: Stage, name: str) -> Client:
    user_id, token = stage.users[name]
    return await Client.open(live, stage.table_id, token, user_id, invite=stage.invite)


def sit(seat: int, amount: int, request_id: str) -> dict[str, Any]:
    return {"type": "sit", "seat": seat, "amount": amount, "request_id": request_id}


def requests_event(client: Client, count: int, start: int = 0) -> Any:
    return client.wait(
        lambda f: f.get("type") == "seat_requests" and len(f["requests"]) == count, start=start
    )


async def buy_ins(live: Live, table_id: int) -> list[str]:
    """The keys of the buy-in postings made at the table (every sit's key names it)."""
    async with live.db.session() as s:
        keys = await s.scalars(
            select(LedgerTransaction.idempotency_key).where(
                LedgerTransaction.kind == TxKind.BUY_IN,
                LedgerTransaction.idempotency_key.like(f"buy_in:t{table_id}:%"),
            )
        )
        return list(keys)


def answered(frame: Frame) -> Any:
    assert frame["type"] == "ok", frame
    return frame["result"]


async def test_r43_a_seat_waits_for_the_hosts_yes_and_the_buy_in_moves_only_then(
    live: Live,
) -> None:
    stage = await private_table(live, "anna")
    anna_id = stage.users["anna"][0]
    anna = await guest(live, stage, "anna")
    waiting = answered(await anna.call(sit(2, 2000, "a1")))
    assert waiting["waiting"] is True and waiting["seat"] == 2
    request = waiting["request"]
    listed = (await requests_event(stage.host, 1))["requests"]
    assert [(r["request"], r["user_id"], r["seat"], r["amount"]) for r in listed] == [
        (request, anna_id, 2, 2000)
    ]
    own = await requests_event(anna, 1)
    assert own["requests"][0]["request"] == request
    # nothing moved, nobody is seated
    assert await live.balance(anna_id) == BALANCE and await buy_ins(live, stage.table_id) == []
    assert live.table(stage.table_id).state.seats == {}
    # the same sit again is the same request, not a second one
    assert answered(await anna.call(sit(2, 2000, "a1"))) == waiting
    second = await anna.call(sit(3, 2000, "a2"))
    assert second["code"] == "request_waiting"
    # a host who reconnects finds the request in the snapshot
    nosy_id, nosy_token = await live.user("nosy")  # another player sees none of it
    nosy = await Client.open(live, stage.table_id, nosy_token, nosy_id, invite=stage.invite)
    snap = next(f for f in nosy.frames if f.get("type") == "snapshot")
    assert snap["seat_requests"] == []
    async with live.db.transaction() as s:
        login = await accounts.open_session(s, stage.host.user_id, lifetime=timedelta(days=1))
    again = await Client.open(live, stage.table_id, login.token, stage.host.user_id)
    snap = next(f for f in again.frames if f.get("type") == "snapshot")
    assert [r["request"] for r in snap["seat_requests"]] == [request]

    mark = len(anna.frames)
    yes = answered(
        await stage.host.call({"type": "host_seat_answer", "request": request, "approve": True})
    )
    assert yes == {"approved": True, "seat": 2, "stack": 2000}
    told = await anna.wait(lambda f: f.get("type") == "seat_answer", start=mark)
    assert told["approved"] is True and told["request"] == request and told["reason"] is None
    seats = await anna.wait(
        lambda f: f.get("type") == "seats" and any(s["user_id"] == anna_id for s in f["seats"]),
        start=mark,
    )
    assert [s["seat"] for s in seats["seats"] if s["user_id"] == anna_id] == [2]
    await requests_event(stage.host, 0)
    assert await live.balance(anna_id) == BALANCE - 2000
    assert len(await buy_ins(live, stage.table_id)) == 1
    # her retry of the same sit is answered as seated, and moves nothing
    assert answered(await anna.call(sit(2, 2000, "a1"))) == {"seat": 2, "stack": 2000}
    assert len(await buy_ins(live, stage.table_id)) == 1
    await ledger_ok(live)
    # the host's answer is a line of the moderation log (issue 25), naming whom it seated
    await live.table(stage.table_id).request(m.Sync())
    async with live.db.session() as s:
        lines = await moderation.read_log(s, target=anna_id)
    assert [(x["action"], x["detail"]) for x in lines] == [
        ("host_seat_answer", {"seat": 2, "approve": True})
    ]


async def test_r43_declined_and_withdrawn_requests_change_nothing(live: Live) -> None:
    stage = await private_table(live, "anna")
    anna_id = stage.users["anna"][0]
    anna = await guest(live, stage, "anna")
    first = answered(await anna.call(sit(1, 2000, "a1")))["request"]
    mark = len(anna.frames)
    no = answered(
        await stage.host.call({"type": "host_seat_answer", "request": first, "approve": False})
    )
    assert no == {"approved": False}
    told = await anna.wait(lambda f: f.get("type") == "seat_answer", start=mark)
    assert (told["approved"], told["reason"]) == (False, "declined")
    # the same request id may ask again: nothing moved under it
    second = answered(await anna.call(sit(1, 2000, "a1")))
    assert second["waiting"] is True and second["request"] != first
    assert answered(await anna.call({"type": "seat_withdraw"})) == {"withdrawn": True}
    await requests_event(stage.host, 0, start=0)
    late = await stage.host.call(
        {"type": "host_seat_answer", "request": second["request"], "approve": True}
    )
    assert late["code"] == "no_such_request" and "withdrew" in late["message"]
    again = await stage.host.call({"type": "host_seat_answer", "request": first, "approve": True})
    assert again["code"] == "no_such_request" and "declined" in again["message"]
    assert (await anna.call({"type": "seat_withdraw"}))["code"] == "no_such_request"
    assert await live.balance(anna_id) == BALANCE
    assert await buy_ins(live, stage.table_id) == []
    assert live.table(stage.table_id).state.seats == {}
    await ledger_ok(live)


async def test_r43_a_scripted_client_non_host_forged_twice_and_two_for_one_seat(
    live: Live,
) -> None:
    stage = await private_table(live, "anna", "carl", "bob")
    anna, carl, bob = [await guest(live, stage, n) for n in ("anna", "carl", "bob")]
    anna_id, carl_id = stage.users["anna"][0], stage.users["carl"][0]
    a = answered(await anna.call(sit(3, 2000, "a")))["request"]
    c = answered(await carl.call(sit(3, 2500, "c")))["request"]  # both wait for seat 3
    await requests_event(stage.host, 2)
    # a player who is not the host cannot answer, on the socket or over HTTP
    refused = await bob.call({"type": "host_seat_answer", "request": a, "approve": True})
    assert refused["code"] == "not_host"
    async with live.http(stage.users["bob"][1]) as http:
        r = await http.post(
            f"/api/tables/{stage.table_id}/host",
            json={"type": "host_seat_answer", "request": a, "approve": True},
        )
    assert r.status_code == 403 and r.json()["detail"]["code"] == "not_host"
    # a forged id, and a malformed one
    forged = await stage.host.call(
        {"type": "host_seat_answer", "request": "q-0123456789ab", "approve": True}
    )
    assert forged["code"] == "no_such_request"
    bad = await stage.host.call(
        {"type": "host_seat_answer", "request": "<script>", "approve": True}
    )
    assert bad["code"] == "invalid_message"
    assert len(live.table(stage.table_id).state.seat_requests) == 2
    assert live.table(stage.table_id).state.seats == {}
    # the host seats anna: carl's request for that seat ends, and he is told why
    mark = len(carl.frames)
    assert answered(
        await stage.host.call({"type": "host_seat_answer", "request": a, "approve": True})
    )["approved"]
    told = await carl.wait(lambda f: f.get("type") == "seat_answer", start=mark)
    assert (told["request"], told["approved"], told["reason"]) == (c, False, "seat_taken")
    late = await stage.host.call({"type": "host_seat_answer", "request": c, "approve": True})
    assert late["code"] == "no_such_request" and "seat was taken" in late["message"]
    twice = await stage.host.call({"type": "host_seat_answer", "request": a, "approve": True})
    assert twice["code"] == "no_such_request" and "already seated" in twice["message"]
    assert await live.balance(anna_id) == BALANCE - 2000
    assert await live.balance(carl_id) == BALANCE
    assert len(await buy_ins(live, stage.table_id)) == 1
    # a request for a seat already taken is refused at once
    assert (await carl.call(sit(3, 2500, "c2")))["code"] == "seat_taken"
    await ledger_ok(live)


async def test_r43_the_hosts_limits_for_a_player_bind_buy_ins_and_top_ups(live: Live) -> None:
    stage = await private_table(live, "anna", "bob", max_buy_in=5000)
    anna_id = stage.users["anna"][0]
    anna = await guest(live, stage, "anna")
    bob = await guest(live, stage, "bob")

    def limits(user: int, low: int | None, high: int | None) -> dict[str, Any]:
        return {"type": "host_limits", "user_id": user, "min_buy_in": low, "max_buy_in": high}

    assert (await bob.call(limits(anna_id, 1500, 3000)))["code"] == "not_host"
    for low, high in ((500, None), (None, 6000), (3000, 2000), (None, 900)):
        assert (await stage.host.call(limits(anna_id, low, high)))["code"] == "invalid_limits"
    assert (await stage.host.call(limits(99_999, 1500, None)))["code"] == "no_such_player"
    set_ = answered(await stage.host.call(limits(anna_id, 1500, 3000)))
    assert set_ == {"user_id": anna_id, "min_buy_in": 1500, "max_buy_in": 3000}
    async with live.db.session() as s:
        row = await s.get(PokerTable, stage.table_id)
        assert row is not None and row.extra["limits"] == {str(anna_id): [1500, 3000]}
    small = await anna.call(sit(0, 1200, "s"))
    assert small["code"] == "buy_in_too_small" and "$15" in small["message"]
    large = await anna.call(sit(0, 3500, "l"))
    assert large["code"] == "buy_in_too_large" and "$30" in large["message"]
    # bob's limits are the table's own
    assert answered(await bob.call(sit(1, 4500, "b")))["waiting"] is True
    request = answered(await anna.call(sit(0, 2500, "ok")))["request"]
    listed = (await requests_event(stage.host, 2))["requests"]
    mine = next(r for r in listed if r["request"] == request)
    assert (mine["min_buy_in"], mine["max_buy_in"]) == (1500, 3000)
    assert answered(
        await stage.host.call({"type": "host_seat_answer", "request": request, "approve": True})
    )["approved"]
    over = await anna.call({"type": "top_up", "amount": 600, "request_id": "t1"})
    assert over["code"] == "buy_in_too_large" and "$30" in over["message"]
    assert (
        answered(await anna.call({"type": "top_up", "amount": 500, "request_id": "t2"}))["stack"]
        == 3000
    )
    assert await live.balance(anna_id) == BALANCE - 3000
    await ledger_ok(live)


async def test_r43_seat_approval_is_a_private_tables_option(live: Live) -> None:
    _, token = await live.user("pub")
    async with live.http(token) as http:
        r = await http.post(
            "/api/tables", json={"name": "Open", "small_bet": 100, "seat_approval": True}
        )
    assert r.status_code == 422 and "private" in r.json()["detail"]["message"]


async def test_r43_a_yes_the_ledger_refuses_ends_the_request_and_moves_nothing(
    live: Live,
) -> None:
    stage = await private_table(live)
    dana_id, dana_token = await live.user("dana", balance=3000)
    stage.users["dana"] = (dana_id, dana_token)
    dana = await guest(live, stage, "dana")
    request = answered(await dana.call(sit(4, 2500, "d")))["request"]
    # meanwhile she buys in elsewhere: her balance cannot pay the request any more
    other = (await live.create_table(dana_token, name="Elsewhere", small_bet=100))["table"]["id"]
    there = await Client.open(live, other, dana_token, dana_id)
    assert answered(await there.call(sit(0, 1000, "x")))["seat"] == 0
    mark = len(dana.frames)
    yes = answered(
        await stage.host.call({"type": "host_seat_answer", "request": request, "approve": True})
    )
    assert (yes["approved"], yes["reason"]) == (False, "insufficient_funds")
    told = await dana.wait(lambda f: f.get("type") == "seat_answer", start=mark)
    assert (told["approved"], told["reason"]) == (False, "insufficient_funds")
    late = await stage.host.call({"type": "host_seat_answer", "request": request, "approve": True})
    assert late["code"] == "no_such_request" and "insufficient_funds" in late["message"]
    assert await live.balance(dana_id) == 2000
    assert await buy_ins(live, stage.table_id) == []
    assert live.table(stage.table_id).state.seats == {}
    await ledger_ok(live)
