"""Failover and graceful stop with real processes on the real PostgreSQL and Redis,
for players whose sockets were on the process that goes away.

Two server processes share one database and one Redis. A table is made on process 0 and
its players play there. Then:
- process 0 is killed (`kill -9`) in the middle of a hand: process 1 claims the table at its
  next heartbeat after the lease ran out, voids the hand (stacks as before it), and the
  players, reconnecting to process 1 (as the load balancer sends them), are told
  (`hand_voided`) and play the next hand there;
- process 0 is sent SIGTERM in the middle of a hand: it deals no new hand, lets that one
  finish, hands the table over and exits; process 1 runs the table and no hand was voided.
After each, `python -m app ledger check` passes. (Players on the surviving processes keep
their sockets: tests/process/test_cluster_failover.py.)"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest

from app.store.hand_models import HandStatus
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import HEARTBEAT, LEASE, SLACK, Cluster, Stage, cluster, until
from tests.serverproc import Player

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


async def _play_on_1(c: Cluster, stage: Stage, voided: str | None) -> None:
    """The players connect to process 1: told of the voided hand (if any), they play a
    whole hand."""
    token = next(iter(stage.tokens.values()))
    async with c.http(1, token) as http:

        async def served() -> bool:  # process 1 runs it (claimed, voided, then restored)
            return (await http.get(f"/api/tables/{stage.table_id}")).status_code == 200

        await until(served, "process 1 serves the table")
    players = [
        await Player.connect(c.ports[1], stage.table_id, stage.tokens[p.user_id], p.user_id)
        for p in stage.players
    ]
    try:
        for p in players:
            snapshot = await p.wait(lambda f: f.get("type") == "snapshot")
            # told of the cancelled hand, with the stacks as before it (`hand_voided`)
            assert [v["hand_id"] for v in snapshot["voided"]] == ([voided] if voided else [])
        # process 1 may have dealt before they connected (their snapshot shows the hand,
        # and a player whose turn it is answers it): the first hand to end is its own
        ended = await players[0].wait(lambda f: f.get("type") == "hand_ended", timeout=30)

        await c.until_status(
            ended["hand_id"], HandStatus.DONE, "the hand played on process 1 is recorded"
        )
    finally:
        for p in players:
            await p.close()


async def test_kill_9_owner_mid_hand_another_process_takes_the_table(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url, n=2) as c:
        stage = await c.seated(at=(0, 0))
        old = stage.lease
        c.procs[0].kill()  # SIGKILL: no release, no goodbye
        c.procs[0].wait()
        killed = time.monotonic()
        # the bound: the lease runs out, then the survivor's next heartbeat claims it
        new = await c.moved_from(stage.table_id, old, timeout=LEASE + HEARTBEAT + SLACK)
        print(f"claimed {time.monotonic() - killed:.2f} s after the kill")
        assert new.epoch == old.epoch + 1
        live = stage.live

        await c.until_status(live, HandStatus.VOID, "the survivor voids the interrupted hand")
        assert await c.seats(stage.table_id) == stage.stacks  # as before the hand
        for p in stage.players:
            await p.close()
        await _play_on_1(c, stage, voided=live)
        c.ledger_ok()


async def test_sigterm_owner_mid_hand_finishes_it_and_hands_the_table_over(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url, n=2) as c:
        stage = await c.seated(at=(0, 0))
        old = stage.lease
        live = stage.live
        c.signal(0, signal.SIGTERM)  # the hand is live, waiting for a player
        marks = [len(p.frames) for p in stage.players]
        for p in stage.players:
            p.acting = True
        mover = stage.mover
        await mover.ws.send(json.dumps(Player.answer(stage.turn)))
        ended = await mover.wait(lambda f: f.get("type") == "hand_ended" and f["hand_id"] == live)
        assert ended["hand_id"] == live
        # it exits by itself once the table is let go (uvicorn, done, re-raises the signal)
        assert await asyncio.to_thread(c.procs[0].wait, 60) in (0, -signal.SIGTERM)
        assert f"let go of tables [{stage.table_id}]" in c.log(0)
        new = await c.moved_from(stage.table_id, old, timeout=10)
        assert new.epoch == old.epoch + 1
        assert await c.status(live) == HandStatus.DONE
        for p, mark in zip(stage.players, marks, strict=True):
            # the stopping process dealt no hand after the one it finished
            started = [f for f in p.frames[mark:] if f.get("type") == "hand_started"]
            assert started == [], started
            await p.close()
        assert await c.voided() == []  # no hand was voided
        await _play_on_1(c, stage, voided=None)
        c.ledger_ok()
