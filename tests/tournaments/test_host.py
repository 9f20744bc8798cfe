"""R36 and R37 from the host's page: freezing and resuming the clock, cancelling before the
start or before anyone is out (everyone refunded), and the refusal once a player is out."""

from __future__ import annotations

from typing import Any

from app.fanout import channels
from app.tables import Table
from tests.tournaments.harness import (
    Deal,
    Person,
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


async def host_says(server: Server, host: Person, tid: int, kind: str) -> Any:
    return await server.post(host, f"/api/tournaments/{tid}/host", {"type": kind})


async def live(server: Server, host: Person, tid: int) -> dict[str, Any]:
    async with server.http(host) as http:
        page = (await http.get(f"/api/tournaments/{tid}")).json()
    shown: dict[str, Any] = page["live"]
    return shown


async def test_r37_the_host_freezes_the_clock_and_resumes_it_exactly_and_nothing_deals(
    server: Server,
) -> None:
    """Three bots at a table, a ten-minute level. Frozen a little into it, the hand being
    played ends and no other is dealt for the two minutes it stays frozen, and the level's
    clock shows the same time left all along; resumed, it goes on from there and the table
    deals again."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    await server.bots(tid, 3)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: server.clock.monotonic() >= 20)
    r = await host_says(server, host, tid, "freeze")
    assert r.status_code == 200 and r.json() == {"frozen": True}
    frozen_at = server.clock.monotonic()
    left = (await live(server, host, tid))["level_left_ms"]
    assert left == 600_000 - round(frozen_at * 1000) and (await live(server, host, tid))["frozen"]
    dealt = len(server.seen)
    await server.run_until(tid, lambda: server.clock.monotonic() >= frozen_at + 120)
    assert len(server.seen) == dealt  # nothing dealt while frozen
    assert all(t.state.hand is None for t in server.tables(tid))  # the hand in play ended
    assert (await live(server, host, tid))["level_left_ms"] == left
    assert director.clock_.level == 0
    r = await host_says(server, host, tid, "resume")
    assert r.status_code == 200 and r.json() == {"frozen": False}
    resumed_at = server.clock.monotonic()
    await server.run_until(tid, lambda: len(server.seen) > dealt)
    assert (await live(server, host, tid))["level_left_ms"] == left - round(
        (server.clock.monotonic() - resumed_at) * 1000
    )
    kinds = [e["type"] for e in server.events(channels.tournament(tid), "frozen")]
    kinds += [e["type"] for e in server.events(channels.tournament(tid), "resumed")]
    assert kinds == ["frozen", "resumed"]


async def test_r36_the_host_cancels_before_the_start_and_everyone_is_refunded(
    server: Server,
) -> None:
    host = await server.person("host")
    tid = await server.create(host, max_players=5, buy_in=1000, fee=100)
    people = [await server.person() for _ in range(3)]
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
        assert await server.balance(who.id) == START - 1100
    assert await server.pool(tid) == 3000
    r = await host_says(server, host, tid, "cancel")
    assert r.status_code == 200 and r.json() == {"cancelled": True}
    assert [await server.balance(who.id) for who in people] == [START] * 3
    assert await server.pool(tid) == 0
    assert (await server.tournament(tid)).status == "cancelled"
    assert all(e.refunded for e in await server.entries(tid))
    late = await server.register(await server.person(), tid)
    assert late.status_code == 400 and late.json()["detail"]["code"] == "registration_closed"
    await server.ledger_ok()


async def test_r36_the_host_cancels_a_started_tournament_before_any_bust_refunding_all(
    server: Server,
) -> None:
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=3, structure=LEVELS, max_players=3)
    people = [await server.person() for _ in range(3)]
    server.puppets.update(dict.fromkeys((p.id for p in people), play_call_down))
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    await server.begun(tid)
    server.rig(tid, by_registration(server, [p.id for p in people]))
    await server.run_until(tid, lambda: len(server.seen) >= 2)  # a hand played: chips moved
    dealt = len(server.seen)
    r = await host_says(server, host, tid, "cancel")
    assert r.status_code == 200 and r.json() == {"cancelled": True}
    await server.run_until(tid, lambda: not server.tables(tid))  # each closes between hands
    assert len(server.seen) == dealt  # and none deals another hand
    assert [await server.balance(who.id) for who in people] == [START] * 3
    assert await server.pool(tid) == 0 and server.tables(tid) == []
    assert (await server.tournament(tid)).status == "cancelled"
    await server.ledger_ok()


async def test_r36_once_a_player_is_out_the_host_cannot_cancel(server: Server) -> None:
    """A player raises all his chips and loses them in the first hand: the host's cancel is
    refused, and nothing changes (the tournament runs on, nobody is refunded)."""
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
    before = [(e.id, e.status, int(e.chips), e.refunded) for e in await server.entries(tid)]
    pool = await server.pool(tid)
    r = await host_says(server, host, tid, "cancel")
    assert r.status_code == 400 and r.json()["detail"]["code"] == "in_the_money_already"
    assert [(e.id, e.status, int(e.chips), e.refunded) for e in await server.entries(tid)] == before
    assert await server.pool(tid) == pool == 4000
    assert (await server.tournament(tid)).status == "running" and director.status == "running"
    assert [await server.balance(who.id) for who in people] == [START - 1100] * 4
    await server.ledger_ok()


async def test_r27_pause_for_me_adds_the_hosts_time_to_the_players_bank_within_the_allowance(
    server: Server,
) -> None:
    """The host gives Ann 40 s of her 60 s allowance: her time bank at her table grows by
    40 s at once, and her entry keeps 20 s. Another 30 s is more than she has left: refused
    with its own code, and neither her bank nor her allowance changes."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, structure=LEVELS, max_players=3, time_bank_ms=10_000,
        pause_allowance_ms=60_000,
    )  # fmt: skip
    ann = await server.person("ann")
    server.puppets[ann.id] = play_call_down
    await server.bots(tid, 2)
    assert (await server.register(ann, tid)).status_code == 200
    await server.begun(tid)
    server.rig(tid, by_registration(server, []))
    await server.settle(tid)
    (table,) = server.tables(tid)

    def bank() -> int:
        return table.state.seats[table.state.by_user[ann.id]].time_bank_ms

    async def mine() -> tuple[int, int]:
        (entry,) = [e for e in await server.entries(tid) if e.user_id == ann.id]
        return int(entry.time_bank_ms), int(entry.pause_left_ms)

    assert bank() == 10_000 and await mine() == (10_000, 60_000)
    body = {"type": "pause_for_me", "user_id": ann.id, "seconds": 40}
    r = await server.post(host, f"/api/tournaments/{tid}/host", body)
    assert r.status_code == 200 and r.json() == {"pause_left_ms": 20_000}
    assert bank() == 50_000 and await mine() == (50_000, 20_000)

    r = await server.post(host, f"/api/tournaments/{tid}/host", {**body, "seconds": 30})
    assert r.status_code == 400 and r.json()["detail"]["code"] == "allowance_spent"
    assert bank() == 50_000 and await mine() == (50_000, 20_000)
    someone = await server.post(
        await server.person("stranger"), f"/api/tournaments/{tid}/host", {**body, "seconds": 5}
    )
    assert someone.status_code in (403, 404) and bank() == 50_000  # only the host may
