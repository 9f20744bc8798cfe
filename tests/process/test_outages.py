"""Outages with a real server process, its players' sockets on it (R19): Redis away for 15 s
in the middle of a hand, PostgreSQL away for longer than the lease (the server's own store,
`watch_expiry` on), and a logout while Redis is away. Nobody times out, no R19 protection is
spent, no hand is dealt that nobody could see; the hand resumes with a full clock and
finishes; every chip is accounted for."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from websockets.exceptions import ConnectionClosed

from app.store.hand_models import HandRecord, HandStatus
from app.store.models import AllInProtection
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.fanout.proxy import RedisProxy as TcpProxy
from tests.process.cluster import LEASE, Cluster, Stage, check_frames, cluster
from tests.process.test_cluster_redis import own_redis
from tests.serverproc import Frame, Player, free_port, open_socket

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]

TIMER_MS = 5_000


class ProxyThread:
    """The TCP proxy on an event loop of its own, in a thread: the server processes start
    while this test's loop waits for them, blocked."""

    def __init__(self, host: str, port: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.proxy = TcpProxy(host, port)
        asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result(10)
        self.port = self.proxy.port

    def go_down(self) -> None:
        self.loop.call_soon_threadsafe(self.proxy.go_down)

    def come_up(self) -> None:
        self.loop.call_soon_threadsafe(self.proxy.come_up)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


async def _protections(c: Cluster) -> int:
    async with c.db.session() as s:
        return int(await s.scalar(select(func.count()).select_from(AllInProtection)) or 0)


async def _done_hands(c: Cluster) -> set[str]:
    async with c.db.session() as s:
        rows = await s.scalars(select(HandRecord.id).where(HandRecord.status == HandStatus.DONE))
        return set(rows)


async def _resumes_and_finishes(c: Cluster, stage: Stage, mark: int, reason: str) -> Frame:
    """After the outage: the table says it resumes, the player to act gets a whole new clock,
    and the hand that was live goes on to its end (the players answer their turns again)."""
    for p in stage.players:
        p.acting = True
    first = stage.players[0]
    resumed = await first.wait(lambda f: f.get("type") == "resumed", timeout=60, start=mark)
    assert resumed["reason"] == reason
    at = first.frames.index(resumed)
    turn = await first.wait(lambda f: f.get("type") == "turn", start=at)
    assert turn["hand_id"] == stage.live and turn["timer_ms"] == TIMER_MS
    assert turn["turn_id"] > stage.turn["turn_id"] and turn["seat"] == stage.turn["seat"]
    for p in stage.players:
        await p.wait(
            lambda f: f.get("type") == "hand_ended" and f["hand_id"] == stage.live, timeout=60
        )
    await c.until_status(stage.live, HandStatus.DONE, "the hand the outage stopped is recorded")
    return resumed


def _nobody_timed_out(p: Player, mark: int, resumed: Frame) -> None:
    """Between the outage's start (frame `mark`) and the table's word that it resumed,
    nothing happened at the table: no timeout, no new hand."""
    end = p.frames.index(resumed)
    during = [f.get("type") for f in p.frames[mark:end] if "v" in f and f.get("type")]
    assert "timed_out" not in during and "hand_started" not in during, during


async def _every_done_hand_was_seen(c: Cluster, stage: Stage) -> None:
    seen = {f["hand_id"] for f in stage.players[0].frames if f.get("type") == "hand_ended"}
    assert await _done_hands(c) <= seen  # no hand was played to its end unseen


@pytest.mark.parametrize("seconds", [15])
async def test_r19_a_redis_outage_mid_hand_times_nobody_out(
    tmp_path: Path, pg_server: PgServer, seconds: float
) -> None:
    port = free_port()
    log = tmp_path / "redis.log"
    url = f"redis://127.0.0.1:{port}/0"
    with own_redis(port, log) as first_redis:
        async with cluster(tmp_path, pg_server, url, n=1) as c:
            stage = await c.seated(at=(0, 0), action_timer_ms=TIMER_MS, timeout_action="all_in")
            mark = len(stage.players[0].frames)
            marks = [len(p.frames) for p in stage.players]
            first_redis.terminate()  # at the turn: its clock would run out three times over
            first_redis.wait()
            await asyncio.sleep(seconds)  # the outage itself, not a wait for anything
            with own_redis(port, log):
                resumed = await _resumes_and_finishes(c, stage, mark, "fanout")
                for p, m in zip(stage.players, marks, strict=True):
                    _nobody_timed_out(p, m, resumed)
                    check_frames(p)
                assert await _protections(c) == 0
                await _every_done_hand_was_seen(c, stage)
                assert "cannot reach its players (fanout)" in c.log(0)
                for p in stage.players:
                    await p.close()
                assert await c.voided() == []
                c.ledger_ok()


async def test_r19_a_postgresql_outage_longer_than_the_lease_times_nobody_out(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """The server reaches PostgreSQL through a proxy the test takes down for three lease
    times: the table is no longer sure of its lease, so it stops its clock (the player's
    timer runs out meanwhile) until a renewal finds the lease still its own."""
    proxy = ProxyThread(pg_server.url.host or "127.0.0.1", pg_server.url.port or 5432)

    def through(url: str) -> str:
        routed = make_url(url).set(host="127.0.0.1", port=proxy.port)
        return routed.render_as_string(hide_password=False)

    try:
        async with cluster(tmp_path, pg_server, redis_url, n=1, route=through) as c:
            stage = await c.seated(at=(0, 0), action_timer_ms=TIMER_MS, timeout_action="all_in")
            mark = len(stage.players[0].frames)
            marks = [len(p.frames) for p in stage.players]
            proxy.go_down()
            outage = time.monotonic()
            await asyncio.sleep(3 * LEASE)  # the outage itself, past the lease and the timer
            assert time.monotonic() - outage > TIMER_MS / 1000
            proxy.come_up()
            resumed = await _resumes_and_finishes(c, stage, mark, "lease")
            for p, m in zip(stage.players, marks, strict=True):
                _nobody_timed_out(p, m, resumed)
                check_frames(p)
            assert await _protections(c) == 0
            assert await c.voided() == []  # the lease stayed this process's: nothing voided
            await _every_done_hand_was_seen(c, stage)
            for p in stage.players:
                await p.close()
            c.ledger_ok()
    finally:
        proxy.close()


async def test_a_logout_while_redis_is_away_closes_the_sockets_on_every_process(
    tmp_path: Path, pg_server: PgServer
) -> None:
    port = free_port()
    log = tmp_path / "redis.log"
    url = f"redis://127.0.0.1:{port}/0"
    with own_redis(port, log) as first_redis:
        async with cluster(tmp_path, pg_server, url, n=2) as c:
            _, host_token = await c.user(0, "host")
            table_id = await c.create(0, host_token)
            user, token = await c.user(0, "eve")
            sockets = [Player(await open_socket(c.ports[i], table_id, token), user) for i in (0, 1)]
            for s in sockets:
                await s.wait(lambda f: f.get("type") == "snapshot")
            first_redis.terminate()
            first_redis.wait()
            async with c.http(0, token) as http:
                r = await http.post("/api/logout")
            assert r.status_code == 200, r.text  # the session is gone whatever Redis does
            with own_redis(port, log):
                for s in sockets:
                    with pytest.raises(ConnectionError):
                        await s.wait(lambda f: False, timeout=30)
                    with pytest.raises(ConnectionClosed) as closed:
                        await s.ws.recv()
                    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
