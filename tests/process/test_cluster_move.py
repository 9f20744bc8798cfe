"""`python -m app tables move` against real server processes (PostgreSQL, Redis): a move the
target cannot take is refused before the table stops, with a non-zero exit and a message
that says why; the table stays where it was under the same lease epoch. (A move that goes
through: tests/process/test_cluster_failover.py.)"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from app.store.lease_models import ServerProcess
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import cluster
from tests.serverproc import ROOT

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


def _move(env: dict[str, str], table_id: int, *to: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "app", "tables", "move", str(table_id), *to]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)


async def test_a_move_to_a_full_process_is_refused_and_the_table_stays(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url, n=2, each={1: {"TABLE_CAPACITY": "1"}}) as c:
        _, token = await c.user(0, "ann")
        table_id = await c.create(0, token)
        assert await c.runner(table_id) == 0
        other = await c.create(1, token)  # process 1 runs as many tables as it may now
        assert await c.runner(other) == 1
        before = await c.lease(table_id)
        assert before is not None
        async with c.db.session() as s:
            full = await s.scalar(
                select(ServerProcess.id).where(ServerProcess.pid == c.procs[1].pid)
            )
        assert full is not None
        for to, says in (
            (("--to", full), f"server process {full} runs as many tables as it may"),
            ((), "no other server process has room for the table"),  # the only other one
            (("--to", "nobody"), "no live server process nobody"),
        ):
            done = await asyncio.to_thread(_move, c.envs[0], table_id, *to)
            output = done.stdout + done.stderr
            assert done.returncode == 1, output
            assert says in done.stderr, output
            assert "moved" not in output, output
            # the table never stopped: the same owner, under the same lease epoch
            after = await c.lease(table_id)
            assert after is not None, output
            assert (after.owner, after.epoch) == (before.owner, before.epoch), output
        assert await c.runner(table_id) == 0
        assert await c.runner(other) == 1
        assert "let go of tables" not in c.log(0)
