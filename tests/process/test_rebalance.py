"""Tables spread over the processes (issue 25), with three real server processes on
PostgreSQL and Redis, bot tables playing all along:
- one process is killed (SIGKILL); once the survivors run its tables it starts again, and
  within a few heartbeats it runs its share of them, handed over between hands: no hand is
  voided by the rebalancing (the void records are the kill's alone), the moved tables deal
  on there, and `ledger check` passes;
- with automatic rebalancing off, `python -m app tables balance` moves a process's excess
  to the others, prints each move, and run again moves nothing.
Every wait polls the leases or the hand records; nothing sleeps for synchronisation."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import ServerProcess
from app.store.types import utcnow
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import Cluster, cluster, until
from tests.serverproc import ROOT

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]

BOTS = {"BOTS_PLAY_ALONE": "true"}
FAST = {"hand_pause_ms": 500, "bot_delay_ms": 100}


async def bot_tables(c: Cluster, token: str, where: list[int]) -> list[int]:
    """A table made on each process of `where`, two bots playing at it."""
    made = []
    for i in where:
        table_id = await c.create(i, token, **FAST)
        async with c.http(i, token) as http:
            r = await http.post(
                f"/api/tables/{table_id}/host", json={"type": "host_bots", "count": 2}
            )
        assert r.status_code == 200, r.text
        made.append(table_id)
    return made


async def runners(c: Cluster, tables: list[int]) -> dict[int, int | None]:
    return {t: await c.runner(t) for t in tables}


async def played_since(c: Cluster, tables: list[int], since: datetime) -> bool:
    """Every one of `tables` finished a hand that started after `since`."""
    async with c.db.session() as s:
        done = set(
            await s.scalars(
                select(HandRecord.table_id).where(
                    HandRecord.table_id.in_(tables),
                    HandRecord.status == HandStatus.DONE,
                    HandRecord.started_at > since,
                )
            )
        )
    return done >= set(tables)


async def test_a_process_that_comes_back_runs_its_share_and_no_hand_is_voided(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    on = {**BOTS, "REBALANCE_STEP": "2"}  # a round each heartbeat, as in production
    async with cluster(tmp_path, pg_server, redis_url, each={i: on for i in range(3)}) as c:
        _, token = await c.user(0, "ann")
        tables = await bot_tables(c, token, [0, 0, 0, 1, 1, 1, 2, 2, 2])
        began = utcnow()

        async def playing() -> bool:
            return await played_since(c, tables, began)

        await until(playing, "every bot table plays", timeout=90)
        c.procs[2].kill()  # SIGKILL
        c.procs[2].wait()
        killed = utcnow()

        async def failed_over() -> bool:
            where = await runners(c, tables)
            return set(where.values()) <= {0, 1} and await played_since(c, tables, killed)

        # the survivors run every table, each has dealt since (so the kill's voids are written)
        await until(failed_over, "the survivors run every table", timeout=90)
        voided_by_the_kill = set(await c.voided())
        c.start(2)  # it comes back with nothing: every table is held
        back = utcnow()

        async def shared() -> dict[int, int | None] | None:
            where = await runners(c, tables)
            counts = [list(where.values()).count(i) for i in range(3)]
            # a share is 3 of 9; the margin is 1
            return where if min(counts) >= 2 and max(counts) <= 4 else None

        where = await until(shared, "the process that came back runs its share", timeout=90)
        moved = [t for t, i in where.items() if i == 2]

        async def dealing_there() -> bool:
            return await played_since(c, moved, back)

        await until(dealing_there, "the moved tables deal on at their new process", timeout=90)
        assert set(await c.voided()) == voided_by_the_kill  # the rebalancing voided nothing
        async with c.db.session() as s:
            live = await s.scalar(
                select(func.count()).where(
                    HandRecord.status == HandStatus.LIVE, HandRecord.started_at < back
                )
            )
        assert live == 0  # no hand from before the restart was left unsettled
        await until(said_rebalanced(c, 0, 1), "a round says what it moved", timeout=60)
        c.ledger_ok()


def said_rebalanced(c: Cluster, *procs: int) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return any("rebalanced: " in c.log(i) for i in procs)

    return check


def balance(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "app", "tables", "balance", "--seconds", "30"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


async def test_tables_balance_moves_the_excess_and_then_nothing(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    off = {**BOTS, "REBALANCE_STEP": "0"}  # only on demand
    async with cluster(tmp_path, pg_server, redis_url, each={i: off for i in range(3)}) as c:
        _, token = await c.user(0, "ann")
        tables = await bot_tables(c, token, [0] * 6)
        assert set((await runners(c, tables)).values()) == {0}
        done = await asyncio.to_thread(balance, c.envs[0])
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        lines = re.findall(r"table (\d+) moved from (\w+) to (\w+)", done.stdout)
        assert len(lines) == 4, output  # 6 over 3 processes: 2 each
        async with c.db.session() as s:
            ids = {
                pid: p for p, pid in await s.execute(select(ServerProcess.id, ServerProcess.pid))
            }
        first = ids[c.procs[0].pid]
        for table, source, target in lines:
            assert source == first, output
            lease = await c.lease(int(table))
            assert lease is not None and lease.owner == target, output  # where it runs now
        counts = list((await runners(c, tables)).values())
        assert sorted(counts.count(i) for i in range(3)) == [2, 2, 2], output
        assert await c.voided() == []  # handed over between hands
        again = await asyncio.to_thread(balance, c.envs[0])
        assert again.returncode == 0, again.stdout + again.stderr
        assert "moved" not in again.stdout and again.stdout.startswith("balanced: "), again.stdout
        c.ledger_ok()


def move(env: dict[str, str], table_id: int, to: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "app", "tables", "move", str(table_id), "--to", to]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


async def test_a_move_while_rebalancing_is_on_lands_and_stays(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """An operator moves a bot table while the rebalancer runs each heartbeat: the move
    lands (exit 0), and the round it unbalances hands over the target's other table, not the
    one the operator brought (the newer, which a round would otherwise take first)."""
    on = {**BOTS, "REBALANCE_STEP": "2", "REBALANCE_MARGIN": "0"}  # any difference moves
    async with cluster(tmp_path, pg_server, redis_url, n=2, each={0: on, 1: on}) as c:
        _, token = await c.user(0, "ann")
        [own] = await bot_tables(c, token, [1])
        [brought] = await bot_tables(c, token, [0])  # one each: balanced
        began = utcnow()

        async def playing() -> bool:
            return await played_since(c, [own, brought], began)

        await until(playing, "both bot tables play", timeout=90)
        async with c.db.session() as s:
            target = await s.scalar(
                select(ServerProcess.id).where(ServerProcess.pid == c.procs[1].pid)
            )
        assert target is not None
        done = await asyncio.to_thread(move, c.envs[0], brought, target)
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        assert "moved from" in done.stdout, output

        async def evened() -> dict[int, int | None] | None:
            where = await runners(c, [own, brought])
            return where if sorted(where.values(), key=str) == [0, 1] else None

        where = await until(evened, "process 1 hands a table back to process 0", timeout=90)
        assert where == {brought: 1, own: 0}, (where, c.log(1))
        # the giver says what its round moved once every move of it returns, which may be
        # after the taker already deals
        await until(said_rebalanced(c, 1), "process 1's round says what it moved", timeout=60)
        assert await c.voided() == []  # every hand-over between hands
        c.ledger_ok()
