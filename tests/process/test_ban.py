"""A ban on three real server processes (PostgreSQL, Redis): the banned player's sockets on
two processes other than the operator's are closed through the fan-out (waited on, not
timed), their login is refused, and their seat, in a hand when the ban comes, is cashed out
at the hand's end with nothing lost (`python -m app ledger check`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import cluster, until
from tests.serverproc import PASSWORD, ROOT, Player, open_socket

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


async def test_a_ban_closes_sockets_everywhere_and_cashes_out_at_the_hands_end(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url) as c:
        # the operator first: the hand must still be on when the ban lands, and a command's
        # start-up on a loaded machine took longer than the turns' timeouts (the hand ended)
        _, olga_token = await c.user(0, "olga")
        granted = subprocess.run(
            [sys.executable, "-m", "app", "admin", "grant", "olga"],
            cwd=ROOT, env=c.envs[0], capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert granted.returncode == 0, granted.stderr
        stage = await c.seated(at=(1, 2), action_timer_ms=5000)
        ann, bob = stage.players
        bob_too = Player(
            await open_socket(c.ports[1], stage.table_id, stage.tokens[bob.user_id]), bob.user_id
        )
        bob_too.acting = False
        await bob_too.wait(lambda f: f.get("type") == "snapshot")
        async with c.http(0, olga_token) as http:
            r = await http.post(f"/api/admin/players/{bob.user_id}/ban", json={"reason": "bot"})
        assert r.status_code == 200, r.text
        assert r.json()["seats"] == [{"table": stage.table_id, "seated": True, "at_hand_end": True}]
        for socket in (bob, bob_too):  # on processes 2 and 1: the fan-out's word closes them
            with pytest.raises(ConnectionError):
                await socket.wait(lambda f: False, timeout=10)
            assert socket.ws.close_code == 4001
        async with c.http(1) as http:
            login = await http.post("/api/login", json={"name": "bob", "password": PASSWORD})
        assert login.status_code == 403 and login.json()["detail"]["code"] == "banned"
        # the hand plays on: ann acts, bob's turns time out; then his seat is cashed out
        ann.acting = True
        if stage.turn["seat"] == ann.seat:
            await ann.ws.send(json.dumps(Player.answer(stage.turn)))
        left = await ann.wait(
            lambda f: f.get("type") == "left" and f["user_id"] == bob.user_id, timeout=60
        )
        assert left["reason"] == "left"  # as a host's removal in a hand
        ended = [f for f in ann.frames if f.get("type") == "hand_ended"]
        assert ended and ended[-1]["hand_id"] == stage.live  # the hand he was in, played out

        async def gone() -> bool:
            return 1 not in await c.seats(stage.table_id)

        await until(gone, "bob's seat is gone from the ledger")
        assert stage.live not in await c.voided()
        c.ledger_ok()
