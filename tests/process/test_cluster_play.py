"""Three real server processes on the real PostgreSQL and Redis: any process
serves any player. Players whose sockets are on different processes play whole hands at one
table run by a third; the lobby, observer counts, host commands, invites and table passwords
answer the same from every process; a process with no room places a new table on one that
has it. Every chip is accounted for (`ledger check`) and no client saw another seat's down
card."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import check_frames, cluster, until
from tests.serverproc import Frame, Player

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


async def test_players_on_different_processes_play_at_one_table(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url, each={0: {"TABLE_CAPACITY": "1"}}) as c:
        ann, ann_token = await c.user(0, "ann")
        bob, bob_token = await c.user(1, "bob")
        cid, cid_token = await c.user(2, "cid")
        table_id = await c.create(0, ann_token)
        assert await c.runner(table_id) == 0  # where it was asked for: it had room
        # ann through process 1, bob through process 2, cid watching through process 0
        ann_p = await Player.connect(c.ports[1], table_id, ann_token, ann)
        bob_p = await Player.connect(c.ports[2], table_id, bob_token, bob)
        cid_p = await Player.connect(c.ports[0], table_id, cid_token, cid)
        cid_p.acting = False
        players = [ann_p, bob_p]
        # a scripted client races one buy-in through two processes at once, then reuses its
        # request id for another amount: one seat, one buy-in, the reuse refused
        ann_too = await Player.connect(c.ports[2], table_id, ann_token, ann)
        ann_too.acting = False
        for p in (ann_p, ann_too):
            await p.wait(lambda f: f.get("type") == "snapshot")
        async with c.http(0, ann_token) as http:
            before = (await http.get("/api/me")).json()["balance"]
            sit = {"type": "sit", "seat": 0, "amount": 2000, "request_id": "s"}
            first, second = await asyncio.gather(ann_p.call(sit), ann_too.call(sit))
            assert first["type"] == second["type"] == "ok", (first, second)
            assert first["result"] == second["result"]
            reused = await ann_too.call({**sit, "amount": 3000})
            assert reused["type"] == "error" and reused["code"] == "request_id_reused"
            assert (await http.get("/api/me")).json()["balance"] == before - 2000
        ann_p.seat = ann_too.seat = 0  # both sockets are ann's: her own cards reach both
        await bob_p.wait(lambda f: f.get("type") == "snapshot")
        reply = await bob_p.call({"type": "sit", "seat": 1, "amount": 2000, "request_id": "s"})
        assert reply["type"] == "ok", reply
        bob_p.seat = 1
        for p in (*players, cid_p):

            def two_hands(f: Frame, p: Player = p) -> bool:
                return p.count("hand_ended") >= 2

            await p.wait(two_hands, timeout=60)

        # the lobby of every process lists it, with the watcher counted where the table runs
        for i in range(3):
            async with c.http(i) as http:

                async def watched(http: object = http) -> bool:
                    r = await http.get("/api/tables")  # type: ignore[attr-defined]
                    lines = {t["id"]: t for t in r.json()["tables"]}
                    line = lines.get(table_id)
                    return line is not None and line["observers"] == 1

                await until(watched, f"process {i}'s lobby shows the table and its watcher")

        # the host's commands through any process, seen through any other
        async with c.http(2, ann_token) as http:
            r = await http.post(
                f"/api/tables/{table_id}/host", json={"type": "host_pause", "paused": True}
            )
            assert r.status_code == 200, r.text
            r = await http.post(
                f"/api/tables/{table_id}/host", json={"type": "host_remove", "seat": 5}
            )  # a refusal crosses back with its code
            assert r.status_code == 400 and r.json()["detail"]["code"] == "invalid_seat", r.text
        async with c.http(1, bob_token) as http:
            r = await http.post(
                f"/api/tables/{table_id}/host", json={"type": "host_pause", "paused": False}
            )
            assert r.status_code == 403 and r.json()["detail"]["code"] == "not_host"
            r = await http.get(f"/api/tables/{table_id}")
            assert r.status_code == 200 and r.json()["settings"]["paused"] is True
            assert "invite" not in r.json()  # only the host sees an invite
        async with c.http(0, ann_token) as http:
            r = await http.post(
                f"/api/tables/{table_id}/host", json={"type": "host_pause", "paused": False}
            )
            assert r.status_code == 200, r.text
        ended = ann_p.count("hand_ended")
        await ann_p.wait(lambda f: ann_p.count("hand_ended") > ended, timeout=60)

        # a private table with a password, asked for on process 0, which is full: it runs
        # on another process; bob joins it through a third and opens his socket on process 0
        async with c.http(0, ann_token) as http:
            r = await http.post(
                "/api/tables", json={"name": "Friends", "small_bet": 100, "private": True,
                                     "password": "open sesame"},
            )  # fmt: skip
            assert r.status_code == 201, r.text
            private_id, invite = r.json()["table"]["id"], r.json()["invite"]
            assert invite
        runner = await c.runner(private_id)
        assert runner in (1, 2), runner
        async with c.http(0, cid_token) as http:
            r = await http.get(f"/api/tables/{private_id}")
            assert r.status_code == 404  # not admitted: not even confirmed
            r = await http.get("/api/tables")
            assert private_id not in [t["id"] for t in r.json()["tables"]]
        joiner = 2 if runner == 1 else 1
        async with c.http(joiner, bob_token) as http:
            r = await http.post("/api/tables/join", json={"invite": invite, "password": "no"})
            assert r.status_code == 403 and r.json()["detail"]["code"] == "bad_password"
            r = await http.post(
                "/api/tables/join", json={"invite": invite, "password": "open sesame"}
            )
            assert r.status_code == 200 and r.json()["table"]["id"] == private_id, r.text
        bob_private = await Player.connect(c.ports[0], private_id, bob_token, bob)
        snapshot = await bob_private.wait(lambda f: f.get("type") == "snapshot")
        assert snapshot["table"]["id"] == private_id
        async with c.http(1, ann_token) as http:
            r = await http.get("/api/tables/yours")
            mine = {t["id"]: t for t in r.json()["tables"]}
            assert mine[table_id]["seat"] == 0 and mine[private_id]["invite"] == invite

        for p in (ann_p, ann_too, bob_p, cid_p, bob_private):
            await p.close()
            check_frames(p)
        c.ledger_ok()
