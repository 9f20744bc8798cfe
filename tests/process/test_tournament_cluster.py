"""Stud sit & gos across real server processes on the real PostgreSQL and Redis: a
sit & go of 20 (18 bots, two people on scripted sockets) on three processes, each table run
where there was room, its director on the process that took the last seat; the people's
sockets on other processes than their tables'. Every place is given once and paid once,
the prizes are the payout scheme's, `ledger check` passes, and no user ever has two seats.
(The director's own rules: tests/tournaments; one process: `tournaments simulate`.)"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from app.store.hand_models import HandStatus
from app.store.lease_models import TournamentLease
from app.store.types import utcnow
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import HEARTBEAT, LEASE, SLACK, Cluster, cluster, until
from tests.process.tournament import (
    Heard,
    Sng,
    check_story,
    heard,
    seed_seating_both_at_first_break,
    sng_on,
    watching_seats,
)
from tests.serverproc import Player

# their own group: these sit & gos mostly wait (bots, leases), so they run beside the
# other cluster tests rather than after them
pytestmark = [
    pytest.mark.postgresql,
    pytest.mark.xdist_group("tournament_cluster"),
    pytest.mark.timeout(900),
]

# the process that takes the last registration (0) directs and runs no table, so a kill of
# the director and a kill of a table's owner are two things; the others have room for all
CAPACITY = {0: {"TABLE_CAPACITY": "0"}, 1: {"TABLE_CAPACITY": "3"}, 2: {"TABLE_CAPACITY": "3"}}
REBUYS = {"levels": 3, "price": 1000, "fee": 100}  # R35: ann and bob rebuy once, at the start


async def test_a_sit_and_go_of_20_plays_to_a_winner_on_three_processes(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """ann and bob start at the table that breaks first (the seed's draw) with a rebuy
    each, so both are still playing when it breaks: each is moved to another table, their
    socket gets `moved` and then that table's snapshot, and they act there."""
    async with cluster(tmp_path, pg_server, redis_url, each=CAPACITY) as c:
        sng = await sng_on(c, seed=seed_seating_both_at_first_break(), rebuys=REBUYS)
        try:
            assert await sng.director() == 0
            runners = await sng.runners()
            assert len(runners) == 3 and set(runners.values()) == {1, 2}
            humans = await sng.connect_humans()
            for human in humans:
                bought = await sng.rebuy(0, human.user_id)
                assert bought["kind"] == "rebuy" and bought["chips"] == 1500
            async with watching_seats(sng) as looks:
                await sng.finished()
            assert looks[0] > 10  # looked at while it ran, not once at the end
            es = await sng.check_result()
            assert sum(e.rebuys for e in es) == 2
            for human in humans:
                moves = human.moves_followed()
                assert moves, f"user {human.user_id} saw {human.tables_seen()}"
                for _, to in moves:
                    # dealt in at the new table, and acting there: a person who folds all day
                    # may come to a table short of the ante, all in before any betting
                    dealt = human.hands_at(to)
                    story = f"user {human.user_id} at {to}: {dealt}"
                    assert dealt, f"never dealt in: {story}"
                    if not all(d.all_in_forced for d in dealt):
                        assert human.taken_at(to), f"never acted: {story}"
                # the one socket it opened is open still: the server never closed it ("too
                # slow: reconnect", "try again"), the only thing that makes a client reopen one
                shut = (human.ws.close_code, human.ws.close_reason)
                assert not human.task.done() and shut == (None, None), shut
                check_story(human)
        finally:
            await sng.close()


async def _in_a_hand_at(c: Cluster, sng: Sng, table_id: int, at: int) -> str:
    """A watcher on process `at` sees a hand under way at the table (dealt, its first turn
    on, its start row written): the hand's id."""
    user, token = await c.user(at, "watcher")
    watcher = await Player.connect(c.ports[at], table_id, token, user)
    try:
        await watcher.wait(lambda f: f.get("type") == "snapshot")
        mark = len(watcher.frames)
        turn = await watcher.wait(
            lambda f: (
                f.get("type") == "turn"
                and any(g.get("type") == "hand_started" for g in watcher.frames[mark:])
            ),
            timeout=60,
            start=mark,
        )
    finally:
        await watcher.close()
    await c.until_status(turn["hand_id"], HandStatus.LIVE, "the hand's start row")
    return str(turn["hand_id"])


async def _directed_elsewhere(sng: Sng, old: TournamentLease) -> TournamentLease:
    async def claimed() -> TournamentLease | None:
        lease = await sng.director_lease()
        ok = lease is not None and lease.owner not in (None, old.owner)
        return lease if ok else None

    return await until(claimed, "another process directs the tournament", LEASE + HEARTBEAT + SLACK)


async def test_kill_9_of_a_table_owner_and_then_of_the_director(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """A process running some of its tables dies in a hand: those tables fail over, the
    hand is void and its chips are back; later the director's process dies: another one
    directs it on from the database, the clock where it was written, and it plays to a
    winner with every place given and paid once."""
    async with cluster(tmp_path, pg_server, redis_url, each=CAPACITY) as c:
        sng = await sng_on(c)
        try:
            assert await sng.director() == 0
            runners = await sng.runners()
            victim = 2 if 2 in runners.values() else 1
            survivor = 3 - victim
            humans = await sng.connect_humans(on=[survivor])
            async with heard(redis_url, c.namespace, sng.id) as news, watching_seats(sng):
                await sng.played(6)
                # a table's owner, in a hand there
                table_id = next(t for t, r in (await sng.runners()).items() if r == victim)
                live = await _in_a_hand_at(c, sng, table_id, survivor)
                theirs = [t for t, r in (await sng.runners()).items() if r == victim]
                leases = {t: await c.lease(t) for t in theirs}
                c.procs[victim].kill()
                c.procs[victim].wait()
                for t, old in leases.items():
                    assert old is not None
                    new = await c.moved_from(t, old, LEASE + HEARTBEAT + SLACK)
                    assert new.epoch == old.epoch + 1
                    assert await c.runner(t) == survivor
                await c.until_status(live, HandStatus.VOID, "the interrupted hand is void")
                c.start(victim)  # the process again, with nothing to run yet

                # then the director's
                before = await sng.row()  # the clock as last written
                lease = await sng.director_lease()
                assert lease is not None
                mark = len(news.news)
                c.procs[0].kill()
                c.procs[0].wait()
                taken = await _directed_elsewhere(sng, lease)
                assert taken.epoch == lease.epoch + 1 and await sng.director() in (1, 2)

                async def told() -> dict[str, Any] | None:
                    return next((n for n in news.news[mark:] if n["type"] == "clock"), None)

                clock = await until(told, "the new director says the clock resumes")
                assert clock["resumed"] is True
                assert clock["level"] >= before.level + 1  # shown from 1
                if clock["level"] == before.level + 1:
                    assert clock["elapsed_ms"] >= before.level_elapsed_ms
                assert (await sng.row()).level >= before.level
                await sng.finished()
            es = await sng.check_result()
            chips, issued = await sng.chips_in_play()
            assert chips == issued == sum(e.chips for e in es)
            assert live in [h.id for h in await sng.hands() if h.status == HandStatus.VOID]
            for human in humans:
                check_story(human)
        finally:
            await sng.close()


async def test_a_director_paused_past_its_lease_writes_nothing_when_it_wakes(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """The director's process is stopped (SIGSTOP) past its lease; another process claims
    it, the host freezes the tournament there (so nothing changes while the old one wakes)
    and every table finishes its hand. Woken (SIGCONT) with a backlog of reports and ticks
    in its mailbox and no freeze in its memory, the old director's renewal fails and it
    stops: no row the directors write changed, no table dealt a hand (its orders, of the old
    epoch, would be refused). Resumed, the sit & go plays to a winner."""
    async with cluster(tmp_path, pg_server, redis_url, each=CAPACITY) as c:
        sng = await sng_on(c)
        try:
            assert await sng.director() == 0
            humans = await sng.connect_humans(on=[1, 2])
            async with heard(redis_url, c.namespace, sng.id) as news, watching_seats(sng):
                await sng.played(6)
                old = await sng.director_lease()
                assert old is not None
                mark = len(news.news)
                c.signal(0, signal.SIGSTOP)
                try:
                    new = await _directed_elsewhere(sng, old)
                    assert new.epoch == old.epoch + 1

                    async def rebuilt() -> bool:
                        return any(n["type"] == "clock" for n in news.news[mark:])

                    await until(rebuilt, "the new director asked every table how it stands")
                    assert await sng.host(1, "freeze") == {"frozen": True}
                    before = await _quiet(sng, news)
                    hands = len(await sng.hands())
                finally:
                    c.signal(0, signal.SIGCONT)

                async def let_go() -> bool:
                    return "lost its director's lease" in c.log(0)

                await until(let_go, "the woken director's renewal fails and it stops")
                await sng.page(1)  # the new director answers: it still directs
                assert await sng.snapshot() == before
                assert len(await sng.hands()) == hands  # no table dealt
                now = await sng.director_lease()
                assert now is not None and (now.owner, now.epoch) == (new.owner, new.epoch)
                assert await sng.host(2, "resume") == {"frozen": False}
                await sng.finished()
            await sng.check_result()
            for human in humans:
                check_story(human)
        finally:
            await sng.close()


async def _quiet(sng: Sng, news: Heard) -> dict[str, Any]:
    """Frozen: every table has finished its hand and waits (it reported the same hand
    twice), and the director has taken every report (it answered a page asked after them):
    what the directors wrote."""
    mark = len(news.reports)
    tables = await sng.tables()

    async def waiting() -> bool:
        return not await sng.live_hands() and news.waiting_again(tables, mark)

    await until(waiting, "every table stops at the end of its hand", timeout=60)
    page = await sng.page(1)
    assert page["frozen"] is True and page["live"]["frozen"] is True
    return await sng.snapshot()


async def test_the_host_freezes_and_resumes_it_across_processes(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """The host's freeze goes through process 1 to the director on process 0, whose tables
    run on processes 1 and 2: every table stops at the end of its hand and deals no other,
    the level clock stops; the resume gives the level and the clock back as they were, and
    the tables deal again."""
    async with cluster(tmp_path, pg_server, redis_url, each=CAPACITY) as c:
        # a long first level: the hands on when it freezes do not end it, so the level and
        # its clock after the resume are the ones frozen
        sng = await sng_on(c, structure={"preset": "hyper", "by_hands": 30})
        try:
            assert await sng.director() == 0
            await sng.connect_humans()
            async with heard(redis_url, c.namespace, sng.id) as news:
                await sng.played(6)
                assert await sng.host(1, "freeze") == {"frozen": True}
                acked = utcnow()  # a hand dealt before this may have been on its way
                frozen = await _quiet(sng, news)
                froze_for = time.monotonic()
                dealt = {h.id: h.started_at for h in await sng.hands()}
                after_freeze = [h for h, at in dealt.items() if at > acked]
                assert after_freeze == [], "a hand was dealt while frozen"
                # frozen a while: every table reports twice more, the director's clock ticks
                again = await _quiet(sng, news)
                assert again == frozen  # nothing written: the level clock stands
                assert len(await sng.hands()) == len(dealt)
                t = frozen["tournament"]
                assert t["frozen"] is True
                resumed_at = utcnow()
                assert await sng.host(1, "resume") == {"frozen": False}
                frozen_ms = (time.monotonic() - froze_for) * 1000
                row = await sng.row()
                assert row.frozen is False and row.level == t["level"]
                # the clock goes on from where it stood, not from where it would be
                assert t["level_elapsed_ms"] <= row.level_elapsed_ms
                assert row.level_elapsed_ms < t["level_elapsed_ms"] + frozen_ms

                async def dealing() -> bool:
                    return any(h.started_at > resumed_at for h in await sng.hands())

                await until(dealing, "the tables deal again")
                assert [n["level"] for n in news.of("frozen")] == [t["level"] + 1]
                assert [n["level"] for n in news.of("resumed")] == [t["level"] + 1]
            c.ledger_ok()
        finally:
            await sng.close()
