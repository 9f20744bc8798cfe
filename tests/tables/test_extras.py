"""Between-hands life of a table over real WebSockets: R1, R3, R6, R25, top-ups, sitting out,
leaving mid-hand, the host's commands, and a restart on the same database (SQLite and
PostgreSQL)."""

from __future__ import annotations

import pytest

from app.fanout import BaseFanout, create_fanout
from app.store import ledger
from app.store.audit import check_ledger
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import (
    PAUSE,
    Policy,
    calldown,
    chips,
    complete_then_fold,
    seat_players,
)
from tests.tables.test_ws_rules import reopen_token

BUY_IN = 2000
BALANCE = 100_000


async def play_hand(live: Live, table_id: int, clients: dict[int, Client], policy: Policy) -> Frame:
    """Play the current hand, or start the next one (after the pause), to its end; seats
    without a client here (leaving, sitting out) are left to the table."""
    watcher = next(iter(clients.values()))
    table = live.table(table_id)
    if table.state.hand is None:
        await live.settle(table_id, PAUSE)
    hand_id = table.state.hand_id
    assert table.state.hand is not None and hand_id is not None, "no hand started"
    i, _ = await watcher.wait_index(
        lambda f: f.get("type") == "hand_started" and f.get("hand_id") == hand_id
    )
    for _ in range(300):
        i, frame = await watcher.wait_index(
            lambda f: f.get("type") in ("turn", "hand_ended"), start=i
        )
        i += 1
        if frame["type"] == "hand_ended":
            if not table.closed:
                await live.settle(table_id)
            return frame
        client = clients.get(frame["seat"])
        if client is None:
            continue
        act = {"type": "act", "hand_id": frame["hand_id"], "turn_id": frame["turn_id"]}
        reply = await client.call({**act, **policy(frame["legal"])})
        assert reply["type"] == "ok", reply
    raise AssertionError("the hand did not end")


def dealt(live: Live, table_id: int) -> set[int]:
    hand = live.table(table_id).state.hand
    assert hand is not None
    return set(hand.seats)


async def ledger_ok(live: Live) -> None:
    async with live.db.session() as s:
        report = await check_ledger(s)
    assert report.ok, report.violations


async def test_r1_a_hand_starts_once_two_players_sit(live: Live) -> None:
    (alice, a_token), (bob, b_token) = await live.user("alice"), await live.user("bob")
    created = await live.create_table(a_token, name="R1", small_bet=100, hand_pause_ms=1000)
    table_id = created["table"]["id"]
    a = await Client.open(live, table_id, a_token, alice)
    sit = {"type": "sit", "amount": BUY_IN}
    assert (await a.call({**sit, "seat": 0, "request_id": "a"}))["type"] == "ok"
    await live.settle(table_id, 60.0)
    assert live.table(table_id).state.hand is None
    assert not any(f.get("type") == "hand_started" for f in a.frames)
    b = await Client.open(live, table_id, b_token, bob)
    assert (await b.call({**sit, "seat": 4, "request_id": "b"}))["type"] == "ok"
    await live.settle(table_id, PAUSE)
    assert dealt(live, table_id) == {0, 4}
    await a.wait(lambda f: f.get("type") == "hand_started")
    await b.wait(lambda f: f.get("type") == "turn")


async def test_r3_a_buy_in_below_ten_small_bets_is_refused(live: Live) -> None:
    user, token = await live.user("carol")
    created = await live.create_table(token, name="R3", small_bet=100)
    table_id = created["table"]["id"]
    c = await Client.open(live, table_id, token, user)
    low = await c.call({"type": "sit", "seat": 0, "amount": 999, "request_id": "low"})
    assert low["type"] == "error" and low["code"] == "buy_in_too_small"
    assert "$10 " in low["message"]  # ten small bets of $1, as the table shows it
    assert live.table(table_id).state.seats == {}
    assert await live.balance(user) == BALANCE
    ok = await c.call({"type": "sit", "seat": 0, "amount": 1000, "request_id": "ok"})
    assert ok["type"] == "ok" and ok["result"] == {"seat": 0, "stack": 1000}
    assert await live.balance(user) == BALANCE - 1000


async def test_r25_the_next_hand_waits_for_the_pause(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 2)
    await play_hand(live, table_id, clients, complete_then_fold)
    table = live.table(table_id)
    await live.settle(table_id, PAUSE - 0.05)
    assert table.state.hand is None and table.state.hands_played == 1
    await live.settle(table_id, 0.1)
    assert table.state.hand is not None
    await live.settle(table_id)
    assert await chips(live, table_id, users) == (2 * BALANCE, 2 * BALANCE)


async def test_r6_with_auto_post_off_a_player_is_asked_each_hand(live: Live) -> None:
    table_id, clients, _users = await seat_players(live, 3)
    shy = clients[2]
    assert (await shy.call({"type": "auto_post", "on": False}))["result"] == {"auto_post": False}
    await live.settle(table_id, PAUSE)
    assert dealt(live, table_id) == {0, 1}  # not posted: not dealt in
    mark = len(shy.frames)
    await play_hand(live, table_id, clients, complete_then_fold)
    await shy.wait(lambda f: f.get("type") == "post_ante_due" and f["seat"] == 2, start=mark)
    assert (await shy.call({"type": "post_ante"}))["result"] == {"posted": True}
    mark = len(shy.frames)
    await play_hand(live, table_id, clients, complete_then_fold)
    antes = [f for f in shy.frames[mark:] if f.get("type") == "ante_posted"]
    assert {f["seat"] for f in antes} == {0, 1, 2}
    # asked again; this time it does not post, and sits that hand out
    await shy.wait(lambda f: f.get("type") == "post_ante_due" and f["seat"] == 2, start=mark)
    await live.settle(table_id, PAUSE)
    assert dealt(live, table_id) == {0, 1}


async def test_r25_top_up_between_hands_at_once_and_during_a_hand_at_its_end(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 2)
    now = await clients[0].call({"type": "top_up", "amount": 500, "request_id": "t1"})
    assert now["result"] == {"queued": False, "stack": BUY_IN + 500}
    assert await live.balance(users[0]) == BALANCE - BUY_IN - 500
    refused = await clients[0].call({"type": "top_up", "amount": 0, "request_id": "t0"})
    assert refused["type"] == "error"
    await live.settle(table_id, PAUSE)
    assert live.table(table_id).state.hand is not None
    later = await clients[1].call({"type": "top_up", "amount": 300, "request_id": "t2"})
    assert later["result"] == {"queued": True, "stack": BUY_IN}
    assert await live.balance(users[1]) == BALANCE - BUY_IN
    await play_hand(live, table_id, clients, calldown)
    table = live.table(table_id)
    assert await live.balance(users[1]) == BALANCE - BUY_IN - 300
    assert table.state.seats[0].stack + table.state.seats[1].stack == 2 * BUY_IN + 800
    assert await chips(live, table_id, users) == (2 * BALANCE, 2 * BALANCE)
    await ledger_ok(live)


async def test_r25_a_top_up_the_balance_cannot_pay_is_refused_during_a_hand_too(
    live: Live,
) -> None:
    """Refused at once with the error it gets between hands, not queued and dropped at the
    hand's end; of several queued ones, the one that would overdraw is refused."""
    host_id, host_token = await live.user("host")
    ann_id, ann_token = await live.user("ann", balance=BUY_IN + 700)
    created = await live.create_table(
        host_token, name="Short", small_bet=100, ante=10, hand_pause_ms=int(PAUSE * 1000)
    )
    table_id = created["table"]["id"]
    clients: dict[int, Client] = {}
    for seat, (user_id, token) in enumerate([(host_id, host_token), (ann_id, ann_token)]):
        clients[seat] = await Client.open(live, table_id, token, user_id)
        sit = {"type": "sit", "seat": seat, "amount": BUY_IN, "request_id": f"buy{seat}"}
        assert (await clients[seat].call(sit))["type"] == "ok"
    ann = clients[1]
    between = await ann.call({"type": "top_up", "amount": 800, "request_id": "b"})
    assert between["type"] == "error" and between["code"] == "insufficient_funds", between
    await live.settle(table_id, PAUSE)
    assert 1 in dealt(live, table_id)
    during = await ann.call({"type": "top_up", "amount": 800, "request_id": "d"})
    assert (during["type"], during["code"], during["message"]) == (
        "error", between["code"], between["message"]
    )  # fmt: skip
    first = await ann.call({"type": "top_up", "amount": 400, "request_id": "q1"})
    assert first["result"] == {"queued": True, "stack": BUY_IN}
    over = await ann.call({"type": "top_up", "amount": 400, "request_id": "q2"})
    assert over["type"] == "error" and over["code"] == "insufficient_funds", over
    assert over["message"] == (
        "Not enough chips: your balance holds $7, $8 needed with the top-ups already queued"
    )
    last = await ann.call({"type": "top_up", "amount": 300, "request_id": "q3"})
    assert last["result"] == {"queued": True, "stack": BUY_IN}
    assert await live.balance(ann_id) == 700  # queued: nothing moved yet
    await play_hand(live, table_id, clients, calldown)
    # both queued ones were made at the hand's end, to the last chip of her balance
    assert await live.balance(ann_id) == 0
    table = live.table(table_id)
    assert table.state.seats[0].stack + table.state.seats[1].stack == 2 * BUY_IN + 700
    assert await chips(live, table_id, [host_id, ann_id]) == (BALANCE + BUY_IN + 700,) * 2
    await ledger_ok(live)


async def test_r25_sitting_out_past_the_limit_frees_the_seat_and_returns_the_stack(
    live: Live,
) -> None:
    table_id, clients, users = await seat_players(live, 3, sit_out_limit=2)
    away = clients.pop(2)
    assert (await away.call({"type": "sit_out"}))["result"] == {"sitting_out": True}
    assert await live.balance(users[2]) == BALANCE - BUY_IN
    for _ in range(2):
        await play_hand(live, table_id, clients, complete_then_fold)
        assert 2 in live.table(table_id).state.seats
    await live.settle(table_id, PAUSE)  # the third hand it would sit out
    left = await away.wait(lambda f: f.get("type") == "left" and f["seat"] == 2)
    assert left["reason"] == "sat_out" and left["amount"] == BUY_IN
    assert 2 not in live.table(table_id).state.seats
    await live.settle(table_id)
    assert await live.balance(users[2]) == BALANCE
    await ledger_ok(live)


async def test_sitting_back_in_deals_the_player_in_again(live: Live) -> None:
    table_id, clients, _ = await seat_players(live, 3)
    assert (await clients[2].call({"type": "sit_out"}))["type"] == "ok"
    await play_hand(live, table_id, {0: clients[0], 1: clients[1]}, complete_then_fold)
    assert (await clients[2].call({"type": "sit_in"}))["result"] == {"sitting_out": False}
    await live.settle(table_id, PAUSE)
    assert dealt(live, table_id) == {0, 1, 2}


async def test_leaving_mid_hand_returns_the_stack_when_the_hand_ends(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 3, timeout_action="fold")
    await live.settle(table_id, PAUSE)
    leaver = clients.pop(2)
    reply = await leaver.call({"type": "leave"})
    assert reply["result"] == {"left": False, "at_hand_end": True}
    assert await live.balance(users[2]) == BALANCE - BUY_IN
    assert 2 in live.table(table_id).state.seats
    await play_hand(live, table_id, clients, calldown)
    left = await clients[0].wait(lambda f: f.get("type") == "left" and f["seat"] == 2)
    assert left["reason"] == "left"
    assert 2 not in live.table(table_id).state.seats
    assert await live.balance(users[2]) == BALANCE - BUY_IN + left["amount"]
    assert left["amount"] < BUY_IN  # it paid its ante (and perhaps the bring-in) and folded
    assert await chips(live, table_id, users) == (3 * BALANCE, 3 * BALANCE)
    await ledger_ok(live)


async def test_host_changes_settings_between_hands_and_pauses_the_table(live: Live) -> None:
    table_id, clients, _ = await seat_players(live, 2)
    host, guest = clients[0], clients[1]
    table = live.table(table_id)
    refused = await guest.call({"type": "host_settings", "changes": {"ante": 20}})
    assert refused["code"] == "not_host"
    now = await host.call({"type": "host_settings", "changes": {"ante": 20, "name": "Renamed"}})
    assert now["result"] == {"applied": True}
    await guest.wait(lambda f: f.get("type") == "table" and f["table"]["ante"] == 20)
    await live.settle(table_id, PAUSE)
    later = await host.call({"type": "host_settings", "changes": {"ante": 30}})
    assert later["result"] == {"applied": False, "at_hand_end": True}
    assert table.state.settings.ante == 20
    assert (await host.call({"type": "host_pause", "paused": True}))["result"] == {"paused": True}
    await play_hand(live, table_id, clients, complete_then_fold)
    assert table.state.settings.ante == 30 and table.state.settings.name == "Renamed"
    await live.settle(table_id, 120.0)
    assert table.state.hand is None and table.state.hands_played == 1  # paused
    assert (await guest.call({"type": "host_pause", "paused": False}))["code"] == "not_host"
    assert (await host.call({"type": "host_pause", "paused": False}))["type"] == "ok"
    await live.settle(table_id, PAUSE)
    assert table.state.hand is not None
    antes = [f["amount"] for f in host.frames if f.get("type") == "ante_posted"]
    assert antes[-2:] == [30, 30]


async def test_host_removes_a_player_and_closing_returns_every_stack(live: Live) -> None:
    table_id, clients, users = await seat_players(live, 3)
    host = clients[0]
    await play_hand(live, table_id, clients, calldown)
    table = live.table(table_id)
    stack2 = table.state.seats[2].stack
    assert (await clients[1].call({"type": "host_remove", "seat": 2}))["code"] == "not_host"
    removed = await host.call({"type": "host_remove", "seat": 2})
    assert removed["result"] == {"removed": True}
    left = await clients[2].wait(lambda f: f.get("type") == "left" and f["seat"] == 2)
    assert left["reason"] == "removed" and left["amount"] == stack2
    await live.settle(table_id)
    assert await live.balance(users[2]) == BALANCE - BUY_IN + stack2
    # closing mid-hand waits for the hand's end, then every stack goes home
    await live.settle(table_id, PAUSE)
    assert table.state.hand is not None
    closing = await host.call({"type": "host_close"})
    assert closing["result"] == {"closed": False, "at_hand_end": True}
    clients.pop(2)
    await play_hand(live, table_id, clients, calldown)
    await host.wait(lambda f: f.get("type") == "closed")
    assert table.closed and table.state.seats == {}
    await live.services.manager.writer.drain()
    async with live.db.session() as s:
        house = await ledger.balance(s, ledger.HOUSE)
        escrow = await ledger.balance(s, ledger.escrow_code(table_id))
        balances = [await ledger.player_balance(s, u) for u in users]
    assert escrow == 0
    assert sum(balances) + house == 3 * BALANCE
    await ledger_ok(live)
    async with live.http() as http:
        assert (await http.get("/api/tables")).json()["tables"] == []
    assert live.services.manager.get(table_id) is None


@pytest.mark.parametrize("policy", [calldown, complete_then_fold], ids=["showdown", "uncontested"])
async def test_full_hands_on_each_database(
    db: Database, memory_fanout: BaseFanout, clock: FakeClock, policy: Policy
) -> None:
    async with live_server(db, memory_fanout, clock) as live:
        table_id, clients, users = await seat_players(live, 3, rake_bps=500, rake_cap=50)
        for _ in range(2):
            ended = await play_hand(live, table_id, clients, policy)
            assert ended["type"] == "hand_ended"
            assert await chips(live, table_id, users) == (3 * BALANCE, 3 * BALANCE)
        await ledger_ok(live)


async def test_tables_and_seats_come_back_after_a_restart(
    db: Database, memory_fanout: BaseFanout, clock: FakeClock
) -> None:
    async with live_server(db, memory_fanout, clock) as live:
        table_id, clients, users = await seat_players(live, 3)
        await play_hand(live, table_id, clients, calldown)
        assert (await clients[2].call({"type": "sit_out"}))["type"] == "ok"
        before = {s: (i.user_id, i.stack) for s, i in live.table(table_id).state.seats.items()}
        settings = live.table(table_id).state.settings
        for c in clients.values():
            await c.close()
    fanout = create_fanout("memory://")
    try:
        async with live_server(db, fanout, FakeClock()) as again:
            table = again.table(table_id)
            assert {s: (i.user_id, i.stack) for s, i in table.state.seats.items()} == before
            assert table.state.settings == settings
            assert table.state.seats[2].sitting_out and not table.state.seats[0].sitting_out
            async with again.http() as http:
                listed = (await http.get("/api/tables")).json()["tables"]
            assert [(t["id"], t["seats_taken"]) for t in listed] == [(table_id, 3)]
            back: dict[int, Client] = {}
            for seat in (0, 1):
                _, token = await reopen_token(again, users[seat])
                back[seat] = await Client.open(again, table_id, token, users[seat])
                assert back[seat].frames[0]["you"]["seat"] == seat
            await play_hand(again, table_id, back, calldown)
            assert await chips(again, table_id, users) == (3 * BALANCE, 3 * BALANCE)
            await ledger_ok(again)
    finally:
        await fanout.close()
