"""R26 from the host's page: the levels to come edited, before the start or while it runs. The
level in play and those before it never change; the next level change plays the new ones; a
wrong level table, someone else than the host, or a tournament over is refused and nothing
changes. The edit is written, so a director rebuilt from the database plays it too."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from app.engine.tournament.structure import Structure
from app.fanout import channels
from app.store.hand_models import HandRecord
from tests.tournaments.harness import Person, Server, by_registration, heard

FIRST = {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 1}
LEVELS = {"levels": [
    FIRST,
    {"ante": 20, "bring_in": 30, "small_bet": 100, "big_bet": 200, "minutes": 60},
]}  # fmt: skip
NEW = [
    {"ante": 30, "bring_in": 50, "small_bet": 150, "big_bet": 300, "minutes": 60},
    {"ante": 40, "bring_in": 60, "small_bet": 200, "big_bet": 400, "minutes": 60},
]


async def edit(server: Server, who: Person, tid: int, levels: Any) -> httpx.Response:
    return await server.post(
        who, f"/api/tournaments/{tid}/host", {"type": "edit_levels", "levels": levels}
    )


async def stored(server: Server, tid: int) -> Structure:
    return Structure.from_dict((await server.tournament(tid)).structure)


async def stakes_played(server: Server, tid: int) -> dict[int, set[int]]:
    """Each level's antes, as the written hands played them."""
    async with server.db.session() as s:
        rows = list(await s.scalars(select(HandRecord).where(HandRecord.tournament_id == tid)))
    out: dict[int, set[int]] = {}
    for row in rows:
        assert row.level is not None
        out.setdefault(row.level, set()).add(int(row.rules["ante"]))
    return out


def dealt_at(server: Server, level: int) -> bool:
    return any(s.level == level for s in server.seen)


async def test_r26_an_edit_before_the_start_plays_from_the_second_level(server: Server) -> None:
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    r = await edit(server, host, tid, NEW)
    assert r.status_code == 200 and r.json() == {"from_level": 2, "levels": 3}
    structure = await stored(server, tid)
    assert [lv.to_dict() for lv in structure.levels[1:]] == [
        {**lv, "hands": None, "is_break": False, "variant": None} for lv in NEW
    ]
    assert structure.levels[0].to_dict()["ante"] == 10  # the first level stays
    await server.bots(tid, 3)
    director = await server.start(tid)
    assert director.structure == structure
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: dealt_at(server, 2), seconds=600)
    assert await stakes_played(server, tid) == {1: {10}, 2: {30}}


async def test_r26_an_edit_while_it_runs_keeps_the_level_in_play_and_plays_at_the_next(
    server: Server,
) -> None:
    """Twenty seconds into a one-minute first level the host replaces the levels after it:
    the level in play, its stakes and its clock are as they were; at the minute the next
    level is the new one, and hands dealt from then play its stakes."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    await server.bots(tid, 3)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: server.clock.monotonic() >= 20)
    before = director.stakes()
    async with server.http(host) as http:
        left = (await http.get(f"/api/tournaments/{tid}")).json()["live"]["level_left_ms"]
    r = await edit(server, host, tid, NEW)
    assert r.status_code == 200 and r.json() == {"from_level": 2, "levels": 3}
    assert director.clock_.level == 0 and director.stakes() == before
    async with server.http(host) as http:
        live = (await http.get(f"/api/tournaments/{tid}")).json()["live"]
    assert live["level"] == 1 and live["level_left_ms"] == left
    assert live["stakes"]["ante"] == 10
    assert (await stored(server, tid)) == director.structure
    assert director.structure.levels[0].to_dict() == {
        **FIRST, "hands": None, "is_break": False, "variant": None,
    }  # fmt: skip
    assert [e["from_level"] for e in server.events(channels.tournament(tid), "levels")] == [2]
    await server.run_until(tid, lambda: dealt_at(server, 2), seconds=600)
    assert await stakes_played(server, tid) == {1: {10}, 2: {30}}
    assert director.stakes().ante == 30


async def test_r26_a_director_rebuilt_from_the_database_plays_the_edited_levels(
    server: Server,
) -> None:
    """The director is stopped after the edit (its lease let go, as a process that died)
    and another takes the tournament over from the database: it has the new levels."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    await server.bots(tid, 3)
    await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: server.clock.monotonic() >= 5)
    assert (await edit(server, host, tid, NEW)).status_code == 200
    directors = server.services.directors
    assert directors is not None
    await directors._let_go(tid)
    assert await directors.start_now(tid)
    rebuilt = server.director(tid)
    await heard(rebuilt)
    assert rebuilt.status == "running" and rebuilt.clock_.level == 0
    assert [lv.ante for lv in rebuilt.structure.levels] == [10, 30, 40]


async def test_r26_a_wrong_level_table_is_refused_and_changes_nothing(server: Server) -> None:
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    down = [{"ante": 5, "bring_in": 10, "small_bet": 40, "big_bet": 80, "minutes": 5}]
    odd = [{"ante": 30, "bring_in": 50, "small_bet": 150, "big_bet": 250, "minutes": 5}]
    unstarted = await stored(server, tid)
    r = await edit(server, host, tid, down)
    assert r.status_code == 422 and r.json()["detail"]["code"] == "invalid_levels"
    assert "level 2" in r.json()["detail"]["message"].lower()  # numbered in the whole table
    assert await stored(server, tid) == unstarted
    await server.bots(tid, 3)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: server.clock.monotonic() >= 5)
    for wrong in (down, odd, [], [{"ante": 30}], "levels", None):
        r = await edit(server, host, tid, wrong)
        assert r.status_code == 422, (wrong, r.text)
        assert r.json()["detail"]["code"] in ("invalid_levels", "invalid_request"), r.text
    assert await stored(server, tid) == unstarted == director.structure
    assert not server.events(channels.tournament(tid), "levels")


async def test_r26_only_the_host_edits_and_not_once_it_is_over(server: Server) -> None:
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    other = await server.person("other")
    r = await edit(server, other, tid, NEW)
    assert r.status_code == 403 and r.json()["detail"]["code"] == "not_host"
    assert len((await stored(server, tid)).levels) == 2
    r = await server.post(host, f"/api/tournaments/{tid}/host", {"type": "cancel"})
    assert r.status_code == 200
    r = await edit(server, host, tid, NEW)
    assert r.status_code == 400 and r.json()["detail"]["code"] == "tournament_closed"
    assert len((await stored(server, tid)).levels) == 2
