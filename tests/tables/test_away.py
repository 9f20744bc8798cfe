"""Issue 24's table flow: away players sat out (R40), the uncontested pot awarded at once with
a show after (R41), and a cash table's time bank (R42). A real server on the fake clock: real
WebSockets, a real SQLite ledger; the clock moves only when a test moves it (no real waits)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from app.fanout import create_fanout
from app.store import hands
from app.store.db import Database
from app.tables import FakeClock
from app.tables import messages as m
from app.tables.watching import RETURN_GRACE
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE, calldown, seat_players
from tests.tables.test_ws_rules import reopen_token

TIMER = 10.0  # the house's action clock (R19), in the fake clock's seconds


async def next_hand(live: Live, table_id: int, watcher: Client) -> tuple[str, int]:
    """Deal the next hand (after the pause): its id and where its events start."""
    mark = len(watcher.frames)
    await live.settle(table_id, PAUSE)
    i, started = await watcher.wait_index(lambda f: f.get("type") == "hand_started", start=mark)
    return started["hand_id"], i


async def play(
    live: Live,
    table_id: int,
    watcher: Client,
    clients: dict[int, Client],
    start: int,
    *,
    idle: Collection[int] = (),
) -> Frame:
    """Play the hand begun at frame `start` to its end: the seats in `idle` (or without a
    client) let the clock run out on every turn, the others call it down in time."""
    i = start
    for _ in range(300):
        i, frame = await watcher.wait_index(
            lambda f: f.get("type") in ("turn", "hand_ended"), start=i
        )
        i += 1
        if frame["type"] == "hand_ended":
            await live.settle(table_id)
            return frame
        client = clients.get(frame["seat"])
        if client is None or frame["seat"] in idle:
            await live.settle(table_id, TIMER)
            continue
        act = {"type": "act", "hand_id": frame["hand_id"], "turn_id": frame["turn_id"]}
        assert (await client.call({**act, **calldown(frame["legal"])}))["type"] == "ok"
    raise AssertionError("the hand did not end")


def seat_of(frames: list[Frame], seat: int) -> dict[str, Any]:
    """The seat as the last `seats` event says."""
    last = [f for f in frames if f.get("type") == "seats"][-1]
    return next(s for s in last["seats"] if s["seat"] == seat)


# -- R40 ----------------------------------------------------------------------------------


async def test_r40_the_last_socket_closing_marks_the_seat_away_and_a_reconnect_clears_it(
    live: Live,
) -> None:
    users = [await live.user(f"a{i}") for i in range(2)]
    created = await live.create_table(users[0][1], name="Away", small_bet=100)
    table_id = created["table"]["id"]
    clients = [await Client.open(live, table_id, token, user) for user, token in users]
    for seat, client in enumerate(clients):
        sit = {"type": "sit", "seat": seat, "amount": 2000, "request_id": f"s{seat}"}
        assert (await client.call(sit))["type"] == "ok"
    watcher = clients[0]
    second = await Client.open(live, table_id, users[1][1], users[1][0])
    await clients[1].close()  # one of two sockets: still here
    await live.table(table_id).request(m.Sync())
    assert seat_of(watcher.frames, 1)["away"] is False
    mark = len(watcher.frames)
    await second.close()  # the last one
    i, seats = await watcher.wait_index(
        lambda f: f.get("type") == "seats" and seat_of([f], 1)["away"], start=mark
    )
    assert seat_of([seats], 0)["away"] is False
    assert live.table(table_id).state.seats[1].away
    back = await Client.open(live, table_id, users[1][1], users[1][0])
    await watcher.wait(lambda f: f.get("type") == "seats" and not seat_of([f], 1)["away"], start=i)
    snapshot = next(f for f in back.frames if f.get("type") == "snapshot")
    assert snapshot["seats"][1]["away"] is False


async def test_r40_after_a_restart_a_player_whose_socket_did_not_come_back_is_away(
    sqlite_db: Database,
) -> None:
    """A table started anew (a restart here; a failover or a move likewise) loads its seats
    not away, as nobody could be watching yet; after the grace for sockets to come back,
    the seats whose players have none are away, for everyone to see."""
    first, again = create_fanout("memory://"), create_fanout("memory://")
    try:
        async with live_server(sqlite_db, first, FakeClock()) as live:
            table_id, _, user_ids = await seat_players(live, 3)
            await live.table(table_id).request(m.Sync())
        async with live_server(sqlite_db, again, FakeClock()) as live:
            seats = live.table(table_id).state.seats
            assert not any(info.away for info in seats.values())
            _, token = await reopen_token(live, user_ids[0])
            back = await Client.open(live, table_id, token, user_ids[0])
            await live.settle(table_id, RETURN_GRACE)
            assert [seats[n].away for n in range(3)] == [False, True, True]
            await back.wait(
                lambda f: (
                    f.get("type") == "seats" and seat_of([f], 1)["away"] and seat_of([f], 2)["away"]
                )
            )
    finally:
        await first.close()
        await again.close()


async def test_r40_a_player_timing_out_away_is_sat_out_from_the_next_hand(live: Live) -> None:
    table_id, clients, _ = await seat_players(live, 3, timeout_action="fold")
    watcher = clients[0]
    _, start = await next_hand(live, table_id, watcher)
    gone = clients.pop(2)
    await gone.close()  # the browser closed mid-hand
    await watcher.wait(lambda f: f.get("type") == "seats" and seat_of([f], 2)["away"], start=start)
    await play(live, table_id, watcher, clients, start)
    timed_out = [f for f in watcher.frames[start:] if f.get("type") == "timed_out"]
    assert [f["seat"] for f in timed_out] == [2]  # one timeout, while away
    assert seat_of(watcher.frames, 2)["sitting_out"] is True
    _, start = await next_hand(live, table_id, watcher)
    started = watcher.frames[start]
    assert sorted(started["seats"]) == [0, 1]  # the absent player is not dealt in
    assert 2 in live.table(table_id).state.seats  # the seat stays until sit_out_limit


async def test_r40_two_timeouts_in_a_row_sit_a_connected_player_out_and_acting_in_time_resets(
    live: Live,
) -> None:
    table_id, clients, _ = await seat_players(live, 3, timeout_action="fold")
    watcher = clients[0]
    seat = live.table(table_id).state.seats[2]

    async def hand(idle: Collection[int]) -> list[int]:
        _, start = await next_hand(live, table_id, watcher)
        dealt = sorted(watcher.frames[start]["seats"])
        await play(live, table_id, watcher, clients, start, idle=idle)
        return dealt

    assert await hand(idle={2}) == [0, 1, 2]
    assert seat.timeouts == 1 and not seat.sitting_out and not seat.away
    assert await hand(idle=()) == [0, 1, 2]  # acted in time: the count starts again
    assert seat.timeouts == 0
    assert await hand(idle={2}) == [0, 1, 2]
    assert seat.timeouts == 1 and not seat.sitting_out
    assert await hand(idle={2}) == [0, 1, 2]
    assert seat.sitting_out  # twice in a row
    assert await hand(idle=()) == [0, 1]
    assert (await clients[2].call({"type": "sit_in"}))["result"] == {"sitting_out": False}
    assert seat.timeouts == 0
    assert await hand(idle=()) == [0, 1, 2]  # "I'm back"


# -- R41 ----------------------------------------------------------------------------------


async def test_r41_the_pot_award_directly_follows_the_last_fold_and_a_show_after_reaches_all_and_the_record(  # noqa: E501
    live: Live,
) -> None:
    table_id, clients, _ = await seat_players(live, 2)
    watcher = clients[0]
    hand_id, start = await next_hand(live, table_id, watcher)
    i = start
    while True:  # the first to act brings in; the other completes; the bring-in folds
        i, turn = await watcher.wait_index(lambda f: f.get("type") == "turn", start=i)
        i += 1
        legal = turn["legal"]
        act = {"type": "act", "hand_id": hand_id, "turn_id": turn["turn_id"]}
        if legal["bring_in"] is not None:
            move = {"action": "bring_in", "amount": legal["bring_in"]}
        elif legal["complete"] is not None:
            move = {"action": "complete", "amount": legal["complete"]}
        else:
            move = {"action": "fold"}
        assert (await clients[turn["seat"]].call({**act, **move}))["type"] == "ok"
        if move["action"] == "fold":
            break
    winner = 1 - turn["seat"]
    offered = await watcher.wait(lambda f: f.get("type") == "show_offered", start=start)
    said = [f["type"] for f in watcher.frames[start:] if "type" in f]
    fold = len(said) - 1 - said[::-1].index("folded")
    between = said[fold + 1 : said.index("pot_awarded", fold)]
    assert set(between) <= {"uncalled_bet_returned", "rake_taken"}  # no prompt, no timeout
    assert said.index("hand_ended") < said.index("show_offered")
    assert offered == {**offered, "hand_id": hand_id, "seat": winner, "ms": 5000}
    assert live.table(table_id).state.hand is None  # over: the next deal waits only its pause
    loser = clients[1 - winner]
    refused = await loser.call({"type": "show", "hand_id": hand_id})
    assert refused["type"] == "error" and refused["code"] == "not_your_hand"
    forged = await clients[winner].call({"type": "show", "hand_id": "f" * 16})
    assert forged["type"] == "error" and forged["code"] == "show_over"
    assert (await clients[winner].call({"type": "show", "hand_id": hand_id}))["type"] == "ok"
    shown = await loser.wait(lambda f: f.get("type") == "hand_shown", start=start)
    assert shown["seat"] == winner and shown["hand_id"] == hand_id and len(shown["cards"]) == 3
    again = await clients[winner].call({"type": "show", "hand_id": hand_id})
    assert again["type"] == "error" and again["code"] == "show_over"
    await live.table(table_id).request(m.Sync())
    async with live.db.session() as s:
        record = await hands.get_hand(s, hand_id)
    assert record is not None and record.events is not None
    assert [e["type"] for e in record.events][-2:] == ["hand_ended", "hand_shown"]


async def test_r41_a_show_after_its_few_seconds_is_refused_and_the_next_hand_never_waits(
    live: Live,
) -> None:
    table_id, clients, _ = await seat_players(live, 2, timeout_action="fold")
    watcher = clients[0]
    hand_id, start = await next_hand(live, table_id, watcher)
    await play(live, table_id, watcher, {0: clients[0]}, start)  # seat 1 times out: folds
    offered = await watcher.wait(lambda f: f.get("type") == "show_offered", start=start)
    mark = len(watcher.frames)
    await live.settle(table_id, PAUSE)  # the pause alone deals the next hand
    await watcher.wait(lambda f: f.get("type") == "hand_started", start=mark)
    await live.settle(table_id, offered["ms"] / 1000)
    late = await clients[offered["seat"]].call({"type": "show", "hand_id": hand_id})
    assert late["type"] == "error" and late["code"] == "show_over"
    assert not any(f.get("type") == "hand_shown" for f in watcher.frames[start:])


# -- R42 ----------------------------------------------------------------------------------


async def test_r42_the_bank_runs_only_when_chips_beyond_the_forced_bets_are_at_stake(
    live: Live,
) -> None:
    table_id, clients, _ = await seat_players(live, 3, timeout_action="fold", time_bank=20)
    watcher = clients[0]
    table = live.table(table_id)
    hand_id, i = await next_hand(live, table_id, watcher)
    i, turn = await watcher.wait_index(lambda f: f.get("type") == "turn", start=i)
    bring_in = turn["seat"]
    act = {"type": "act", "hand_id": hand_id}
    amount = turn["legal"]["bring_in"]
    reply = await clients[bring_in].call(
        {**act, "turn_id": turn["turn_id"], "action": "bring_in", "amount": amount}
    )
    assert reply["type"] == "ok"
    i, turn = await watcher.wait_index(lambda f: f.get("type") == "turn", start=i + 1)
    facing_bring_in = turn["seat"]  # only the bring-in to face: the clock plays at once
    await live.settle(table_id, TIMER)
    i, out = await watcher.wait_index(lambda f: f.get("type") == "timed_out", start=i)
    assert out["seat"] == facing_bring_in
    assert not any(f.get("type") == "time_bank" for f in watcher.frames)
    assert table.state.seats[facing_bring_in].time_bank_ms == 20_000
    i, turn = await watcher.wait_index(lambda f: f.get("type") == "turn", start=i)
    completer = turn["seat"]
    reply = await clients[completer].call(
        {**act, "turn_id": turn["turn_id"], "action": "complete", "amount": 100}
    )
    assert reply["type"] == "ok"
    i, turn = await watcher.wait_index(lambda f: f.get("type") == "turn", start=i + 1)
    assert turn["seat"] == bring_in  # now a completion is at stake
    await live.settle(table_id, TIMER)
    i, bank = await watcher.wait_index(lambda f: f.get("type") == "time_bank", start=i)
    assert bank == {**bank, "seat": bring_in, "turn_id": turn["turn_id"], "ms": 20_000}
    await live.settle(table_id, 5)
    reply = await clients[bring_in].call({**act, "turn_id": turn["turn_id"], "action": "call"})
    assert reply["type"] == "ok"
    assert table.state.seats[bring_in].time_bank_ms == 15_000  # what the turn used is gone
    said = [f.get("type") for f in watcher.frames[i:]]
    assert "timed_out" not in said


async def test_r42_the_bank_refills_as_set_up_to_its_cap(live: Live) -> None:
    settings = {"time_bank": 10, "time_bank_refill": 5, "time_bank_every": 2}
    table_id, clients, _ = await seat_players(live, 2, time_bank_cap=20, **settings)
    watcher = clients[0]
    seats = live.table(table_id).state.seats
    banks = []
    for _ in range(6):
        _, start = await next_hand(live, table_id, watcher)
        await play(live, table_id, watcher, clients, start)
        banks.append(seats[0].time_bank_ms)
    assert banks == [10_000, 15_000, 15_000, 20_000, 20_000, 20_000]
    assert seats[1].time_bank_ms == 20_000


async def test_r42_a_player_who_acts_in_time_keeps_the_whole_bank(live: Live) -> None:
    table_id, clients, _ = await seat_players(live, 3, time_bank=30)
    watcher = clients[0]
    for _ in range(2):
        _, start = await next_hand(live, table_id, watcher)
        await play(live, table_id, watcher, clients, start)
    assert not any(f.get("type") in ("time_bank", "timed_out") for f in watcher.frames)
    assert [s.time_bank_ms for s in live.table(table_id).state.seats.values()] == [30_000] * 3


async def test_r42_settings_are_checked_and_off_by_default(live: Live) -> None:
    user = await live.user("host")
    async with live.http(user[1]) as http:
        bad = await http.post(
            "/api/tables",
            json={"name": "T", "small_bet": 100, "time_bank": 30, "time_bank_cap": 10},
        )
        assert bad.status_code in (400, 422) and "cap" in bad.text, bad.text
        off = await http.post("/api/tables", json={"name": "T", "small_bet": 100})
    settings = live.table(off.json()["table"]["id"]).state.settings
    assert (settings.time_bank, settings.time_bank_cap) == (0, 0)
