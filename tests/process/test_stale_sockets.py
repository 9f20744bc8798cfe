"""Nothing a table has not surely published reaches any socket, whichever process holds the
socket, when the table changes owner: its owner paused past its lease (SIGSTOP, then
SIGCONT; also with Redis away meanwhile), killed (kill -9) or asked to move it (`tables
move`). Players and watchers follow the table from the old owner, the new owner and a third
process. A Redis subscriber of the test's own hears what each owner published (owner
notices split it by epoch): every numbered event a client is sent must be one of those, every
snapshot after the change is of a new epoch, numbering is contiguous within each epoch, and
every client reaches the new owner's epoch on the socket it has (one on a killed process
reconnects, as a browser does)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from websockets.exceptions import InvalidStatus

from app.store.lease_models import ServerProcess
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import HEARTBEAT, LEASE, SLACK, Cluster, Stage, cluster
from tests.process.published import Published, published, told_only_what_was_published
from tests.process.test_cluster_redis import own_redis
from tests.serverproc import ROOT, Frame, Player, free_port, open_socket

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]

TIMER_MS = 3_000  # the stopped turn's clock runs out while its owner is paused


async def _watchers(c: Cluster, stage: Stage, at: list[int]) -> list[Player]:
    """A watcher (no seat) on each process of `at` (their tokens join `stage.tokens`)."""
    out = []
    for k, i in enumerate(at):
        user, token = await c.user(i, f"watcher{k}")
        stage.tokens[user] = token
        p = await Player.connect(c.ports[i], stage.table_id, token, user)
        await p.wait(lambda f: f.get("type") == "snapshot")
        out.append(p)
    # every client has the last count before a test listens: an event still on its way to
    # a socket elsewhere would otherwise reach it after the listener's start, unheard by it
    for p in [*stage.players, *out]:
        await p.wait(lambda f: _observers(f) == len(at), timeout=30)
    return out


def _observers(f: Frame) -> int | None:
    """The watcher count a frame tells (a snapshot's, or an `observers` event's)."""
    if f.get("type") == "snapshot":
        return int(f["observers"])
    return int(f["count"]) if f.get("type") == "observers" else None


async def _reconnect(port: int, table_id: int, token: str, user: int, query: str) -> Player:
    """Open a socket as a browser does after losing one: while the table is between owners
    the server turns it away (close 1013 before the handshake ends); try again."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return Player(await open_socket(port, table_id, token, query), user)
        except InvalidStatus:
            assert time.monotonic() < deadline, "the table never took the socket back"
            await asyncio.sleep(0.2)


def _epoch(p: Player) -> str:
    return str(next(f["epoch"] for f in reversed(p.frames) if f.get("type") == "snapshot"))


async def _in_new_epoch(clients: list[Player], left: str, timeout: float = 30) -> None:
    """Each client, on its socket, gets a snapshot of another epoch than `left`."""
    for p in clients:
        await p.wait(lambda f: f.get("type") == "snapshot" and f["epoch"] != left, timeout)


async def _play_on(stage: Stage, clients: list[Player]) -> None:
    """One more hand ends, told to every client."""
    for p in stage.players:
        p.acting = True
    starts = [len(p.frames) for p in clients]
    for p, start in zip(clients, starts, strict=True):
        await p.wait(lambda f: f.get("type") == "hand_ended", timeout=60, start=start)


def _check(
    clients: list[Player], marks: list[int], heard: Published, left: str, strict: bool = True
) -> None:
    ended = {told_only_what_was_published(p, heard, m, left=left, strict=strict)
             for p, m in zip(clients, marks, strict=True)}  # fmt: skip
    assert len(ended) == 1 and left not in ended, ended  # all in the one new epoch
    if strict:
        assert heard.notices()[-1]["epoch"] in ended


@pytest.mark.parametrize("redis_away", [False, True], ids=["paused", "paused-and-redis-away"])
async def test_a_paused_owners_own_sockets_are_told_only_what_was_published(
    tmp_path: Path, pg_server: PgServer, redis_away: bool
) -> None:
    """Both players and a watcher on the owner itself, another watcher elsewhere. The owner
    is paused at a turn past its lease and past that turn's clock; another process claims
    the table; the owner wakes with the turn's timer due and its sockets hearing of the new
    owner. (With `redis_away`, Redis is stopped during the pause and started again, empty,
    before the owner wakes.)"""
    port = free_port()
    log = tmp_path / "redis.log"
    url = f"redis://127.0.0.1:{port}/0"
    with own_redis(port, log) as first_redis:
        async with cluster(tmp_path, pg_server, url) as c:
            stage = await c.seated(at=(0, 0), action_timer_ms=TIMER_MS)
            turned = time.monotonic()
            clients = stage.players + await _watchers(c, stage, [0, 1])
            left = _epoch(clients[0])
            async with published(url, c.namespace, stage.table_id) as heard:
                marks = [len(p.frames) for p in clients]
                c.signal(0, signal.SIGSTOP)
                try:
                    if redis_away:
                        first_redis.terminate()
                        first_redis.wait()
                    await c.moved_from(stage.table_id, stage.lease, LEASE + HEARTBEAT + SLACK)
                    # the paused owner's clock for that turn runs out before it wakes
                    await asyncio.sleep(max(0.0, turned + 2 * TIMER_MS / 1000 - time.monotonic()))
                    with own_redis(port, log) if redis_away else contextlib.nullcontext():
                        c.signal(0, signal.SIGCONT)
                        await _in_new_epoch(clients, left)
                        await _play_on(stage, clients)
                finally:
                    c.signal(0, signal.SIGCONT)
                _check(clients, marks, heard, left, strict=not redis_away)
            for p in clients:
                await p.close()
            c.ledger_ok()


async def test_kill_9_sockets_on_the_old_and_new_owner_and_a_third_process(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """A player and a watcher on the owner, which is killed; a player on each other
    process. The killed process's clients reconnect elsewhere from the last event they
    saw; the others stay on their sockets."""
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated(at=(0, 1))
        clients = stage.players + await _watchers(c, stage, [0, 2])
        left = _epoch(clients[0])
        async with published(redis_url, c.namespace, stage.table_id) as heard:
            marks = [len(p.frames) for p in clients]
            c.procs[0].kill()
            c.procs[0].wait()
            await c.moved_from(stage.table_id, stage.lease, LEASE + HEARTBEAT + SLACK)
            for k in (0, 2):  # on the killed process: as a browser would, from the last event
                old = clients[k]
                with pytest.raises(ConnectionError):
                    await old.wait(lambda f: False, timeout=10)
                last = max(int(f["v"]) for f in old.frames if "v" in f)
                again = await _reconnect(
                    c.ports[2], stage.table_id, stage.tokens[old.user_id], old.user_id,
                    f"?last_v={last}&epoch={left}",
                )  # fmt: skip
                again.frames = list(old.frames)  # one client's whole story
                again.seat = old.seat
                again.acting = old.acting
                clients[k] = again
                if k == 0:
                    stage.players[0] = again
            await _in_new_epoch(clients, left)
            await _play_on(stage, clients)
            _check(clients, marks, heard, left)
        for p in clients:
            await p.close()
        c.ledger_ok()


async def test_tables_move_sockets_on_the_old_and_new_owner_and_a_third_process(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """`tables move` from process 0 to 2, between hands: a player on each of the three
    processes and a watcher on the old owner; every socket stays open."""
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated(at=(0, 2))
        clients = stage.players + await _watchers(c, stage, [1, 0])
        left = _epoch(clients[0])
        async with c.db.session() as s:
            target = await s.scalar(
                select(ServerProcess.id).where(ServerProcess.pid == c.procs[2].pid)
            )
        assert target is not None
        async with published(redis_url, c.namespace, stage.table_id) as heard:
            marks = [len(p.frames) for p in clients]
            command = [sys.executable, "-m", "app", "tables", "move", str(stage.table_id),
                       "--to", target]  # fmt: skip
            mover = subprocess.Popen(
                command, cwd=ROOT, env=c.envs[0], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            try:
                for p in stage.players:  # the hand in play ends where it is
                    p.acting = True
                await stage.mover.ws.send(json.dumps(Player.answer(stage.turn)))
                out, _ = await asyncio.to_thread(mover.communicate, timeout=60)
            finally:
                if mover.poll() is None:
                    mover.kill()
                    mover.wait()
            assert mover.returncode == 0, out.decode()
            assert await c.runner(stage.table_id) == 2
            await _in_new_epoch(clients, left)
            await _play_on(stage, clients)
            _check(clients, marks, heard, left)
        for p in clients:
            await p.close()
        c.ledger_ok()
