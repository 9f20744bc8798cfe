"""R19: a player's all-in protections (two in any 24 hours) are theirs, not a table's: used
at one table they are gone at every other, and a restart gives none back."""

from __future__ import annotations

from app.fanout import create_fanout
from app.store.db import Database
from app.tables import FakeClock
from app.tables import messages as m
from app.wire import client as c
from tests.tables.live import Client, Live, live_server
from tests.tables.test_ws_play import PAUSE


async def _table(live: Live, host_token: str, name: str) -> int:
    created = await live.create_table(
        host_token, name=name, small_bet=100, ante=10, hand_pause_ms=int(PAUSE * 1000)
    )
    return int(created["table"]["id"])


async def _sit(live: Live, table_id: int, token: str, user: int, seat: int) -> Client:
    client = await Client.open(live, table_id, token, user)
    request_id = f"sit-{len(live.clients)}"  # a new request each time
    reply = await client.call(
        {"type": "sit", "seat": seat, "amount": 2000, "request_id": request_id}
    )
    assert reply["type"] == "ok", reply
    return client


async def _time_out_hands(
    live: Live, table_id: int, watcher: Client, hands: int
) -> list[tuple[int, str]]:
    """Let `hands` hands play with nobody acting (every turn times out): the outcomes."""
    table = live.table(table_id)
    outcomes: list[tuple[int, str]] = []
    for _ in range(hands):
        mark = len(watcher.frames)
        await live.settle(table_id, PAUSE)
        for _ in range(40):
            if table.state.hand is None:
                break
            await live.settle(table_id, 10.0)
        await watcher.wait(lambda f: f.get("type") == "hand_ended", start=mark)
        outcomes += [
            (f["seat"], f["outcome"]) for f in watcher.frames[mark:] if f.get("type") == "timed_out"
        ]
        for info in list(table.state.seats.values()):  # timed out twice: sat out (R40); back
            if info.sitting_out and info.stack > 0:
                back = m.Ask(info.user_id, info.name, "", c.SitInMsg(type="sit_in"))
                await table.request(back)
    return outcomes


def _timed_out_betting(outcomes: list[tuple[int, str]], seat: int) -> bool:
    return any(s == seat and o in ("fold", "check", "all_in") for s, o in outcomes)


async def test_r19_protections_are_per_player_across_tables_and_a_restart(
    sqlite_db: Database, clock: FakeClock
) -> None:
    fanout = create_fanout("memory://")
    try:
        async with live_server(sqlite_db, fanout, clock) as live:
            (ann, ann_token), (bob, bob_token), (cat, cat_token) = [
                await live.user(name) for name in ("ann", "bob", "cat")
            ]
            first = await _table(live, ann_token, "First")
            ann_first = await _sit(live, first, ann_token, ann, 0)
            await _sit(live, first, bob_token, bob, 1)
            used = 0
            for _ in range(12):  # until ann has used both of hers at the first table
                outcomes = await _time_out_hands(live, first, ann_first, 1)
                used += sum(1 for seat, o in outcomes if seat == 0 and o == "all_in")
                if used >= 2:
                    break
            assert used == 2
            await ann_first.call({"type": "leave"})
            second = await _table(live, cat_token, "Second")
            ann_second = await _sit(live, second, ann_token, ann, 0)
            await _sit(live, second, cat_token, cat, 1)
            outcomes = []
            for _ in range(20):  # until cat (who has hers) was protected, and ann timed out
                outcomes += await _time_out_hands(live, second, ann_second, 1)
                if (1, "all_in") in outcomes and _timed_out_betting(outcomes, 0):
                    break
            assert (1, "all_in") in outcomes, "cat still has hers"
            assert _timed_out_betting(outcomes, 0), "ann timed out"
            assert (0, "all_in") not in outcomes
        # a restart (the same database, a new server) forgets none of them
        async with live_server(sqlite_db, fanout, clock) as live:
            back = await Client.open(live, second, ann_token, ann)
            outcomes = []
            for _ in range(20):
                outcomes += await _time_out_hands(live, second, back, 1)
                if _timed_out_betting(outcomes, 0):
                    break
            assert _timed_out_betting(outcomes, 0), "ann timed out"
            assert (0, "all_in") not in outcomes
            table = live.table(second)
            assert not await table.store.claim_protection(second, ann, "probe", clock.time())
            clock.advance(24 * 3600)  # a rolling 24 hours: a day later both are back
            assert await table.store.claim_protection(second, ann, "probe", clock.time())
    finally:
        await fanout.close()


async def test_bots_alone_do_not_play_on(sqlite_db: Database, clock: FakeClock) -> None:
    fanout = create_fanout("memory://")
    try:
        async with live_server(sqlite_db, fanout, clock) as live:
            host, token = await live.user("host")
            table_id = await _table(live, token, "Bots")
            me = await _sit(live, table_id, token, host, 0)
            assert (await me.call({"type": "host_bots", "count": 2}))["type"] == "ok"
            await _time_out_hands(live, table_id, me, 1)
            table = live.table(table_id)
            assert (await me.call({"type": "leave"}))["type"] == "ok"
            await live.settle(table_id, 60.0)
            if table.state.hand is not None:  # the hand the host left: it plays out
                await _time_out_hands(live, table_id, me, 1)
            played = table.state.hands_played
            for _ in range(5):
                await live.settle(table_id, 60.0)
            assert table.state.hand is None and table.state.hands_played == played
            # a person sits down: the table deals again
            await _sit(live, table_id, token, host, 0)
            await _time_out_hands(live, table_id, me, 1)
            assert table.state.hands_played == played + 1
    finally:
        await fanout.close()
