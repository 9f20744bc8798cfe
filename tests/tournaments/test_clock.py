"""R27 and R28 at a tournament table: the action clock, then the time bank; an absent
player dealt in, posting the ante and the bring-in, checking when it is free and folding
when it is not."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.fanout import channels
from app.store.hand_models import HandRecord
from app.tables import Table
from tests.tournaments.harness import Deal, Server, by_registration

LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 2},
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 60},
]}  # fmt: skip


ACTIONS = {"brought_in", "completed", "bet", "raised", "called", "checked", "folded"}


def plus(start: float, seconds: float) -> float:
    return round(start + seconds, 3)


def turns_of(events: list[tuple[float, dict[str, Any]]], seat: int) -> list[list[Any]]:
    """Each betting turn of `seat`: when it began, then its time bank and its action, each
    with when it came, until the next turn."""
    out: list[list[Any]] = []
    mine = False
    for when, body in events:
        at = round(when, 3)  # the clock's sum of steps, to the millisecond
        kind = body["type"]
        if kind == "turn":
            mine = body["seat"] == seat and body["phase"] == "betting"
            if mine:
                out.append([(at, "turn", body["timer_ms"])])
        elif mine and body.get("seat") == seat and (kind == "time_bank" or kind in ACTIONS):
            out[-1].append((at, kind, body.get("ms")))
    return out


async def test_r27_r28_the_clock_then_the_bank_and_the_absent_player_plays_by_the_clock(
    server: Server,
) -> None:
    """A person away at a table with two bots (10 s to act, a 30 s bank, 5 s more at each
    level). First hand, the bring-in is theirs: 10 s, then the bank's 30 s, then the
    bring-in is posted for them (R28); on later streets they check, 10 s each (the bank is
    spent). Next hands they face the bring-in and fold after 10 s. From the second level
    their bank has 5 s again, used on the next turn before they fold."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, starting_chips=1000, structure=LEVELS, max_players=3,
    )  # fmt: skip
    bots = await server.bots(tid, 2)
    away = await server.person("away")
    assert (await server.register(away, tid)).status_code == 200
    director = await server.begun(tid)
    calm = by_registration(server, [*bots, away.id])

    def policy(table: Table) -> Deal:
        if table.state.hands_played == 0:
            return Deal([*bots, away.id], bring_in=away.id)
        return calm(table)

    server.rig(tid, policy)
    (table,) = server.tables(tid)
    seat = table.state.by_user[away.id]
    await server.run_until(tid, lambda: director.clock_.level == 1 and len(server.seen) >= 6)
    events = []
    for channel, body, at in server.heard:
        if channel == channels.table(table.id):
            events.append((at, body))
    turns = turns_of(events, seat)
    first = turns[0]
    t0 = first[0][0]
    assert first == [
        (t0, "turn", 10_000), (plus(t0, 10), "time_bank", 30_000),
        (plus(t0, 40), "brought_in", None),
    ]  # fmt: skip
    later = [t for t in turns[1:] if t[0][0] < server.seen[1].at]  # the rest of hand 1
    assert later and all(t[1:] == [(plus(t[0][0], 10), "checked", None)] for t in later)
    level_2 = next(at for at, body in server.timed(channels.tournament(tid), "level"))
    before = [t for t in turns if server.seen[1].at <= t[0][0] < level_2]
    assert before and all(t[1:] == [(plus(t[0][0], 10), "folded", None)] for t in before)
    after = [t for t in turns if t[0][0] > level_2]
    assert after[0][1:] == [
        (plus(after[0][0][0], 10), "time_bank", 5_000),
        (plus(after[0][0][0], 15), "folded", None),
    ]  # fmt: skip
    async with server.db.session() as s:
        rows = list(await s.scalars(select(HandRecord).where(HandRecord.tournament_id == tid)))
    for row in rows:  # dealt into every hand, the ante posted for them
        assert any(p["user_id"] == away.id for p in row.seats)
        antes = [e for e in row.events or [] if e["type"] == "ante_posted"]
        assert row.events is None or any(e["seat"] == seat for e in antes)
