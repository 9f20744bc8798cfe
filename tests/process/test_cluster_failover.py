"""Three real server processes on the real PostgreSQL and Redis: a table's owner
dies, is paused past its lease, is stopped, or its table is moved on purpose, while its
players play through the two other processes. Their sockets stay open throughout: they hear
of the table's new owner, get a snapshot of it, and play on. After each, `ledger check`
passes, and what every client was sent is one table's story (no other seat's down card, no
event of a second owner, no hand number twice: `check_frames`)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from app.store.hand_models import HandStatus
from app.store.lease_models import ServerProcess
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import (
    HEARTBEAT,
    LEASE,
    SLACK,
    Cluster,
    Stage,
    check_frames,
    cluster,
    until,
)
from tests.serverproc import ROOT, Frame, Player, open_socket

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


def _act_again(stage: Stage) -> None:
    """From now on the players answer their turns again (the stopped one stays unanswered)."""
    for p in stage.players:
        p.acting = True


async def _play_on(c: Cluster, stage: Stage, hands: int = 1) -> list[str]:
    """The same players, on the same sockets, play `hands` more whole hands (recorded)."""
    first = stage.players[0]
    mark = len(first.frames)
    ended: list[str] = []
    while len(ended) < hands:
        frame = await first.wait(lambda f: f.get("type") == "hand_ended", timeout=60, start=mark)
        mark = first.frames.index(frame) + 1
        ended.append(frame["hand_id"])
    for hand_id in ended:
        await c.until_status(hand_id, HandStatus.DONE, f"hand {hand_id} is recorded")
    return ended


async def _told_of_void(stage: Stage, hand_id: str) -> None:
    """Each player's socket, still open, got a snapshot of the new owner's table that says
    the hand was cancelled."""

    def told(f: Frame) -> bool:
        return f.get("type") == "snapshot" and hand_id in [v["hand_id"] for v in f["voided"]]

    for p in stage.players:
        snap = await p.wait(told, timeout=LEASE + HEARTBEAT + SLACK + 10)
        assert snap["hand"] is None or snap["hand"]["hand_id"] != hand_id


async def _finish(c: Cluster, stage: Stage, seen: list[Player] | None = None) -> None:
    """Every client's frames tell one table's story; every chip is accounted for."""
    for p in stage.players:
        await p.close()
    for p in seen or stage.players:
        check_frames(p)
    c.ledger_ok()


async def test_kill_9_of_the_owner_mid_hand(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated()
        old = stage.lease
        live = stage.live
        _act_again(stage)
        c.procs[0].kill()  # SIGKILL: no release, no goodbye
        c.procs[0].wait()
        killed = time.monotonic()
        new = await c.moved_from(stage.table_id, old, timeout=LEASE + HEARTBEAT + SLACK)
        print(f"claimed {time.monotonic() - killed:.2f} s after the kill")
        assert new.epoch == old.epoch + 1
        assert await c.runner(stage.table_id) in (1, 2)

        await c.until_status(live, HandStatus.VOID, "the new owner voids the interrupted hand")
        assert await c.seats(stage.table_id) == stage.stacks  # as before the hand
        await _told_of_void(stage, live)
        played = await _play_on(c, stage, hands=2)
        assert live not in played
        await _finish(c, stage)


async def test_sigterm_moves_every_table_between_hands(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated()
        # a second table on process 0, with nobody at it
        ann_token = next(iter(stage.tokens.values()))
        idle = await c.create(0, ann_token, name="Idle")
        old = stage.lease
        assert await c.runner(idle) == 0
        live = stage.live
        c.signal(0, signal.SIGTERM)  # the hand is live, waiting for a player
        mover = stage.mover
        _act_again(stage)
        await mover.ws.send(json.dumps(Player.answer(stage.turn)))
        ended = await mover.wait(lambda f: f.get("type") == "hand_ended" and f["hand_id"] == live)
        assert ended["hand_id"] == live
        assert await asyncio.to_thread(c.procs[0].wait, 60) in (0, -signal.SIGTERM)
        log = c.log(0)
        assert "let go of tables" in log and "still in a hand" not in log
        new = await c.moved_from(stage.table_id, old, timeout=10)
        assert new.epoch == old.epoch + 1
        assert await c.runner(stage.table_id) in (1, 2)

        async def idle_moved() -> bool:
            return await c.runner(idle) in (1, 2)

        await until(idle_moved, "the idle table runs on another process")
        assert await c.status(live) == HandStatus.DONE
        played = await _play_on(c, stage, hands=2)
        assert live not in played
        assert await c.voided() == []  # no hand was voided
        await _finish(c, stage)


async def test_a_paused_owner_wakes_to_find_its_table_gone(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated()
        old = stage.lease
        live = stage.live
        _act_again(stage)
        c.signal(0, signal.SIGSTOP)
        # the player to act answers now: the command waits, routed, for the paused owner
        mover = stage.mover
        await mover.ws.send(json.dumps({**Player.answer(stage.turn), "ref": "late"}))
        await c.moved_from(stage.table_id, old, timeout=LEASE + HEARTBEAT + SLACK)
        await _told_of_void(stage, live)
        late = await mover.wait(lambda f: f.get("ref") == "late", timeout=30)
        assert late["type"] == "error", late  # never taken: the owner it went to was paused
        played = await _play_on(c, stage)
        c.signal(0, signal.SIGCONT)  # the routed action waits for it on its channel

        async def stopped_there() -> bool:
            return "lease lost to another process" in c.log(0)

        await until(stopped_there, "the woken owner finds its lease gone and stops the table")
        played += await _play_on(c, stage)  # the woken process publishes nothing of it
        assert await c.status(live) == HandStatus.VOID
        assert live not in played
        await _finish(c, stage)


async def test_a_table_moves_on_purpose_between_hands(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated()
        old = stage.lease
        async with c.db.session() as s:
            target = await s.scalar(
                select(ServerProcess.id).where(ServerProcess.pid == c.procs[2].pid)
            )
        assert target is not None
        command = [sys.executable, "-m", "app", "tables", "move", str(stage.table_id),
                   "--to", target]  # fmt: skip
        mover = subprocess.Popen(
            command, cwd=ROOT, env=c.envs[0], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        try:
            # the hand in play is finished first, where it is
            live = stage.live
            player = stage.mover
            _act_again(stage)
            await player.ws.send(json.dumps(Player.answer(stage.turn)))
            out, _ = await asyncio.to_thread(mover.communicate, timeout=60)
        finally:
            if mover.poll() is None:
                mover.kill()
                mover.wait()
        assert mover.returncode == 0, out.decode()
        assert f"to {target}" in out.decode()
        assert await c.runner(stage.table_id) == 2
        new = await c.lease(stage.table_id)
        # given to the target (one more epoch) and taken there (one more): nobody between
        assert new is not None and new.epoch == old.epoch + 2
        assert await c.status(live) == HandStatus.DONE
        played = await _play_on(c, stage, hands=2)  # on the same sockets, from its new home
        assert live not in played
        assert await c.voided() == []
        await _finish(c, stage)


async def test_a_rolling_restart_voids_no_hand(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """Every process in turn gets SIGTERM, drains, exits and is started again, while the
    players play on. A player whose process goes away reconnects to a live one (as the load
    balancer would send them), from the last event it saw."""
    async with cluster(tmp_path, pg_server, redis_url) as c:
        stage = await c.seated()
        sockets = {p.user_id: 1 + i for i, p in enumerate(stage.players)}  # user -> process
        seen: list[Player] = list(stage.players)
        _act_again(stage)
        await stage.mover.ws.send(json.dumps(Player.answer(stage.turn)))
        for i in range(3):
            c.signal(i, signal.SIGTERM)
            # waited for off the event loop: the players answer their turns meanwhile
            assert await asyncio.to_thread(c.procs[i].wait, 60) in (0, -signal.SIGTERM)
            for k, p in enumerate(stage.players):
                if sockets[p.user_id] != i:
                    continue
                with pytest.raises(ConnectionError):  # closed by its stopping process
                    await p.wait(lambda f: False, timeout=30)
                to = next(j for j in range(3) if j != i and c.procs[j].poll() is None)
                last = max(int(f["v"]) for f in p.frames if "v" in f)
                epoch = next(f["epoch"] for f in reversed(p.frames) if f.get("type") == "snapshot")
                ws = await open_socket(
                    c.ports[to], stage.table_id, stage.tokens[p.user_id],
                    f"?last_v={last}&epoch={epoch}",
                )  # fmt: skip
                again = Player(ws, p.user_id)
                again.seat = p.seat
                stage.players[k] = again
                seen.append(again)
                sockets[p.user_id] = to
            c.start(i)  # the new version of process i
            await _play_on(c, stage)  # hands go on meanwhile, wherever the table runs now
        await _play_on(c, stage)
        errors = [f for p in seen for f in p.frames if f.get("type") == "error"]
        assert await c.voided() == [], errors  # no hand was voided
        await _finish(c, stage, seen)
