"""R36 and R37 from the operator's command line (`python -m app tournaments freeze|resume|
cancel ID`): the director is asked through the lease's owner, as the CLI asks it; here the
owner is the test's own server process (`through` with its router)."""

from __future__ import annotations

from typing import Any

import pytest

from app.cli.tables import NoTables
from app.cli.tournament_ops import EXIT_OK, EXIT_REFUSED, operate_and_say, through
from app.engine.tournament import payouts
from app.fanout import channels
from app.store.directory import Directory
from app.tables import Table
from app.tables.rpc import TableRouter
from app.tournaments import service
from app.tournaments.spec import TournamentSpec
from tests.tournaments.harness import (
    Deal,
    Server,
    by_registration,
    play_call_down,
    play_fold,
    play_raise,
)

LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 10},
    {"ante": 20, "bring_in": 30, "small_bet": 100, "big_bet": 200, "minutes": 60},
]}  # fmt: skip
START = 100_000  # each person's balance


async def operator(server: Server, tid: int, action: str) -> int:
    return await operate_and_say(server.db, through(server.db, server.services.router), tid, action)


async def books(server: Server, tid: int) -> list[Any]:
    """What a refusal must leave as it was: the tournament's columns and every entry."""
    t = await server.tournament(tid)
    entries = [
        (e.id, e.status, int(e.chips), e.place, e.prize, e.refunded)
        for e in await server.entries(tid)
    ]
    return [t.status, t.frozen, t.level, entries, await server.pool(tid)]


async def test_r36_an_operator_cancels_after_a_bust_paying_the_place_and_chopping_the_rest(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cy raises all his chips in the first hand and loses them: out 4th. The host may no
    longer cancel; the operator does: Cy's place stays paid, the three left share the
    prizes of places 1 to 3 by R36's chop, by their chips, and the pool is paid out."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=4, structure=LEVELS, max_players=4)
    ann, bea, cy, dan = people = [await server.person(n) for n in ("ann", "bea", "cy", "dan")]
    server.puppets.update({ann.id: play_call_down, bea.id: play_fold, cy.id: play_raise})
    server.puppets[dan.id] = play_fold
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    director = await server.begun(tid)

    def policy(table: Table) -> Deal:
        return Deal([ann.id, bea.id, dan.id, cy.id], bring_in=cy.id, folds={bea.id, dan.id})

    server.rig(tid, policy)
    await server.run_until(
        tid, lambda: any(e.status == "busted" for e in director.entries.values())
    )
    r = await server.post(host, f"/api/tournaments/{tid}/host", {"type": "cancel"})
    assert r.status_code == 400 and r.json()["detail"]["code"] == "in_the_money_already"
    left = {e.id: e.chips for e in director.alive()}
    order = {e.id: e.order for e in director.alive()}
    prizes = payouts.prizes((await server.tournament(tid)).payouts, 4000, 4)
    capsys.readouterr()
    assert await operator(server, tid, "cancel") == EXIT_OK
    assert "chopped by chips" in capsys.readouterr().out
    await server.run_until(tid, lambda: not server.tables(tid))
    chopped = payouts.chip_chop(prizes, left, order)
    by_user = {e.user_id: e for e in await server.entries(tid)}
    fourth = prizes[3] if len(prizes) > 3 else 0
    assert by_user[cy.id].place == 4 and int(by_user[cy.id].prize or 0) == fourth
    placed = sorted(left, key=lambda e: (-left[e], order[e]))
    for who in (ann, bea, dan):
        e = by_user[who.id]
        assert e.place == placed.index(e.id) + 1 and int(e.prize or 0) == chopped[e.id]
        assert await server.balance(who.id) == START - 1100 + chopped[e.id]
    assert sum(int(e.prize or 0) for e in by_user.values()) == 4000
    assert await server.pool(tid) == 0
    assert (await server.tournament(tid)).status == "cancelled"
    assert not any(e.refunded for e in by_user.values())
    await server.ledger_ok()


async def test_r37_an_operator_freezes_and_resumes_a_public_tournament(server: Server) -> None:
    """A public sit & go of bots the house made (no host): the operator freezes it, nothing
    is dealt and the level's clock stands; resumed, the tables deal again."""
    spec = TournamentSpec(name="House stud", seats_per_table=3, max_players=3)
    spec = TournamentSpec.parse({**spec.model_dump(), "structure": LEVELS})
    tid = (await service.create(server.db, spec, host_user_id=None))["id"]
    await server.bots(tid, 3)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: server.clock.monotonic() >= 20)
    assert await operator(server, tid, "freeze") == EXIT_OK
    assert director.frozen and (await server.tournament(tid)).frozen
    left = (await director.request("view", {}))["level_left_ms"]
    dealt = len(server.seen)
    frozen_at = server.clock.monotonic()
    await server.run_until(tid, lambda: server.clock.monotonic() >= frozen_at + 120)
    assert len(server.seen) == dealt
    assert (await director.request("view", {}))["level_left_ms"] == left
    assert await operator(server, tid, "resume") == EXIT_OK
    assert not director.frozen and not (await server.tournament(tid)).frozen
    await server.run_until(tid, lambda: len(server.seen) > dealt)
    kinds = [e["type"] for e in server.events(channels.tournament(tid), "frozen")]
    kinds += [e["type"] for e in server.events(channels.tournament(tid), "resumed")]
    assert kinds == ["frozen", "resumed"]


async def test_r37_the_operator_command_reaches_the_director_on_another_process(
    server: Server,
) -> None:
    """As from the command line: its own router (no tables) asks the process holding the
    lease, over the fan-out, and the freeze is that process's director's."""
    server.services.router.directory = Directory(server.db, lease_seconds=60)
    await server.services.router.start()  # the server's process now hears routed requests
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    await server.bots(tid, 3)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: server.clock.monotonic() >= 5)
    cli = TableRouter(
        NoTables(),
        server.services.fanout,
        me="operator",
        directory=Directory(server.db, lease_seconds=60),
    )
    await cli.start()
    try:
        told = through(server.db, cli)
        assert await operate_and_say(server.db, told, tid, "freeze") == EXIT_OK
        assert director.frozen and (await server.tournament(tid)).frozen
        assert await operate_and_say(server.db, told, tid, "resume") == EXIT_OK
        assert not director.frozen
    finally:
        await cli.stop()


async def test_r36_r37_the_operators_refusals_exit_1_and_change_nothing(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """No such tournament; one not started (nothing to freeze); one nobody directs now (its
    process let it go); one finished; one cancelled."""
    assert await operator(server, 999_999, "freeze") == EXIT_REFUSED
    assert "no such tournament" in capsys.readouterr().err
    host = await server.person("host")
    waiting = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    before = await books(server, waiting)
    for action in ("freeze", "resume"):
        assert await operator(server, waiting, action) == EXIT_REFUSED
    assert "not_running" in capsys.readouterr().err
    assert await books(server, waiting) == before

    alone = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    await server.bots(alone, 3)
    await server.start(alone)
    server.rig(alone, by_registration(server, []))
    await server.run_until(alone, lambda: server.clock.monotonic() >= 5)
    assert server.services.directors is not None
    await server.services.directors._let_go(alone)  # as if its process had died
    before = await books(server, alone)
    for action in ("freeze", "cancel"):
        assert await operator(server, alone, action) == EXIT_REFUSED
        assert "no server process directs" in capsys.readouterr().err
    assert await books(server, alone) == before

    ann, cy = await server.person("ann"), await server.person("cy")
    done = await server.create(host, seats_per_table=2, structure=LEVELS, max_players=2)
    server.puppets.update({ann.id: play_call_down, cy.id: play_raise})
    assert (await server.register(ann, done)).status_code == 200
    assert (await server.register(cy, done)).status_code == 200
    await server.begun(done)
    server.rig(done, lambda table: Deal([ann.id, cy.id], bring_in=cy.id))
    await server.run_until(done, lambda: server.finished(done))
    await server.run_until(done, lambda: not server.tables(done))
    before = await books(server, done)
    for action in ("freeze", "resume", "cancel"):
        assert await operator(server, done, action) == EXIT_REFUSED
        assert "the tournament is finished (tournament_closed)" in capsys.readouterr().err
    assert await books(server, done) == before
    won = [*payouts.prizes((await server.tournament(done)).payouts, 2000, 2), 0]
    assert [await server.balance(p.id) for p in (ann, cy)] == [
        START - 1100 + won[0],
        START - 1100 + won[1],
    ]

    r = await server.post(host, f"/api/tournaments/{waiting}/host", {"type": "cancel"})
    assert r.status_code == 200
    before = await books(server, waiting)
    assert await operator(server, waiting, "cancel") == EXIT_REFUSED
    assert "cancelled (tournament_closed)" in capsys.readouterr().err
    assert await books(server, waiting) == before
    await server.ledger_ok()
