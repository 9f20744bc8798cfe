"""Redis restarts while three server processes play one table through it. The table runs on
process 0, its players' sockets are on processes 1 and 2, so every command and every event
crosses Redis. Redis (a server of this test's own, on a loopback port: the shared one stays
up for the other tests) is stopped in the middle of a hand and started again. Every process
notices it go and come back (its log). The table stops its clock meanwhile: a chat line
said at the table's own process is refused (`table_frozen`, R19's clock is stopped too), and
what the table does say (a watcher there leaves: the observer count) cannot be published
then: it is held, and the clients elsewhere get it once, with no event missing, whichever
way it reaches them when Redis is back (published late, or by the resync a socket makes
after the gap in its subscription). Commands resume, the hand goes on and more hands
follow, and no chip moved wrongly (`ledger check`)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from app.store.hand_models import HandStatus
from tests.conftest import PgServer, unavailable
from tests.process.cluster import check_frames, cluster, until
from tests.serverproc import Frame, Player, free_port

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


def _redis_server() -> str:
    found = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(found).exists():
        unavailable("redis-server is not installed")
    return found


@contextmanager
def own_redis(port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A Redis server of this test's own on `port`, stopped by process id."""
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [_redis_server(), "--bind", "127.0.0.1", "--port", str(port), "--save", "",
             "--appendonly", "no"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        client = redis.Redis(host="127.0.0.1", port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        client.close()
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


LOST = ("fan-out: lost the Redis subscription connection", "fan-out: Redis stopped answering")
BACK = "fan-out: reconnected"


def _contiguous_from(frames: list[Frame], start: int) -> int:
    """The events a client got from `start` on follow each other (a snapshot restarts the
    count); returns the last event number."""
    last = max(int(f["v"]) for f in frames[:start] if "v" in f)
    for f in frames[start:]:
        if f.get("type") == "snapshot":
            last = int(f["v"])
        elif "v" in f:
            assert f["v"] == last + 1, f"event {f['v']} after {last}"
            last = int(f["v"])
    return last


async def test_redis_restarts_during_play(tmp_path: Path, pg_server: PgServer) -> None:
    port = free_port()
    log = tmp_path / "redis.log"
    with own_redis(port, log) as first:
        url = f"redis://127.0.0.1:{port}/0"
        async with cluster(tmp_path, pg_server, url) as c:
            stage = await c.seated()  # stopped at a turn, the hand live
            live = stage.live
            # watchers on the table's own process: what they do reaches the table without
            # Redis, while the players' processes hear of it only through Redis
            before = [len(p.frames) for p in stage.players]  # their own joins counted too
            cat, cat_token = await c.user(0, "cat")
            watcher = await Player.connect(c.ports[0], stage.table_id, cat_token, cat)
            dog, dog_token = await c.user(0, "dog")
            leaver = await Player.connect(c.ports[0], stage.table_id, dog_token, dog)
            for w in (watcher, leaver):
                await w.wait(lambda f: f.get("type") == "snapshot")
            clients = [*stage.players, watcher]
            for p, start in zip(clients, [*before, 0], strict=True):
                # the count reaches the players elsewhere through Redis: wait for the one the
                # two watchers make, not the 2 of ann's and bob's own joins before they sat
                await p.wait(
                    lambda f: f.get("type") == "observers" and f["count"] == 2, start=start
                )
            marks = [len(p.frames) for p in clients]
            first.terminate()  # Redis goes away mid-hand ...
            first.wait()

            async def noticed(what: tuple[str, ...], procs: range = range(len(c.procs))) -> bool:
                """Every process in `procs` logged one of `what`."""
                return all(any(w in c.log(i) for w in what) for i in procs)

            await until(lambda: noticed(LOST), "every process notices Redis is gone")
            said = await watcher.call({"type": "chat", "text": "said while Redis was away"})
            assert said["type"] == "error" and said["code"] == "table_frozen", said
            await leaver.close()  # the table says so, and cannot publish it

            async def held() -> bool:
                # a table that holds back what it said answers no resync meanwhile
                reply = await watcher.call({"type": "resync", "last_v": 0})
                return bool(reply["type"] == "error" and reply["code"] == "unavailable")

            await until(held, "the new count waits to be published")
            with own_redis(port, log):  # ... and comes back, empty
                mover = stage.mover

                async def acted() -> bool:
                    # the move, routed through Redis to the table's process: refused with a
                    # clear error until the processes hear each other again, then taken
                    reply = await mover.call(Player.answer(stage.turn), timeout=30)
                    if reply["type"] == "ok":
                        return True
                    if reply["code"] in ("stale_turn", "stale_hand"):
                        # the table resumed with a new turn, which the players (acting
                        # again) answered by themselves, maybe to the hand's end
                        return True
                    assert reply["code"] in ("unavailable", "server_unreachable", "table_frozen"), (
                        reply
                    )
                    return False

                for p in stage.players:
                    p.acting = True  # the turns after this one
                await until(acted, "a command crosses Redis again", timeout=60)
                for p in stage.players:
                    await p.wait(
                        lambda f: f.get("type") == "hand_ended" and f["hand_id"] == live,
                        timeout=60,
                    )

                await c.until_status(
                    live, HandStatus.DONE, "the hand Redis was away for is recorded"
                )
                first_p = stage.players[0]
                done = first_p.count("hand_ended")
                await first_p.wait(lambda f: first_p.count("hand_ended") >= done + 2, timeout=60)
                assert await noticed((BACK,)), "a process did not resubscribe"
                for p, mark in zip(clients, marks, strict=True):
                    # only a resync brings it to most: its publish failed
                    heard = [f for f in p.frames[mark:] if f.get("type") == "observers"]
                    assert [f["count"] for f in heard] == [1], heard
                    assert "said while Redis was away" not in {f.get("text") for f in p.frames}
                    _contiguous_from(p.frames, mark)
                    check_frames(p)
                    await p.close()
                assert await c.voided() == []
                c.ledger_ok()
