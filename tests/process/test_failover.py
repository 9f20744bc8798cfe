"""Issue 13, failover and graceful stop with real processes on the real PostgreSQL and Redis.

Two server processes share one database and one Redis. A table is made on process A and
played there. Then:
- A is killed (`kill -9`) in the middle of a hand: B claims the table at its next heartbeat
  after the lease ran out, voids the hand (stacks as before it), and the players who
  reconnect to B are told (`hand_voided`) and play the next hand there;
- A is sent SIGTERM in the middle of a hand: it deals no new hand, lets that one finish,
  lets the table go, and exits; B owns the table and no hand was voided.
After each, `python -m app ledger check` passes."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import TableLease
from app.store.models import Seat
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.serverproc import Frame, Player, free_port, ledger_check, register, server, server_env

LEASE = 2.0  # seconds: short, so the test waits little for a dead owner's lease to run out
HEARTBEAT = 0.5
SLACK = 5.0  # a loaded 2-core machine: the bound is lease + one heartbeat, plus this margin


async def _until(check: Any, what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


@dataclass
class Room:
    """Two processes (A runs the table), its players on A, and the database."""

    db: Database
    env: dict[str, str]
    a: subprocess.Popen[bytes]
    port_b: int
    table_id: int
    players: list[Player]
    tokens: dict[int, str]
    turn: Frame  # the turn the live hand stopped at
    stacks: dict[int, int]  # seat -> stack before the live hand

    async def owner(self) -> TableLease | None:
        async with self.db.session() as s:
            return await s.get(TableLease, self.table_id, populate_existing=True)

    async def status(self, hand_id: str) -> HandStatus | None:
        async with self.db.session() as s:
            found: HandStatus | None = await s.scalar(
                select(HandRecord.status).where(HandRecord.id == hand_id)
            )
            return found

    async def seats(self) -> dict[int, int]:
        async with self.db.session() as s:
            return {n: st for n, st in await s.execute(select(Seat.seat_no, Seat.stack))}


@asynccontextmanager
async def two_processes(
    tmp_path: Path,
    pg_server: PgServer,
    redis: str,
) -> AsyncIterator[Room]:
    """A and B up; a table made on A, two players on A who play two hands and stop at the
    first turn of the third (its start row written)."""
    name = pg_server.new_database(template=pg_server.template)
    url = pg_server.url_for(name)
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    env_a, env_b = (
        server_env(
            tmp_path / d, DATABASE_URL=url, REDIS_URL=redis, REDIS_NAMESPACE=namespace,
            LEASE_SECONDS=str(LEASE), HEARTBEAT_SECONDS=str(HEARTBEAT), DRAIN_SECONDS="30",
        )
        for d in ("a", "b")
    )  # fmt: skip
    db = Database(url)
    port_a, port_b = free_port(), free_port()
    players: list[Player] = []
    try:
        with (
            server(tmp_path, port_a, tmp_path / "a.log", env_a) as a,
            server(tmp_path, port_b, tmp_path / "b.log", env_b),
        ):
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port_a}") as http:
                ann, ann_token = await register(http, "ann")
                bob, bob_token = await register(http, "bob")
                r = await http.post(
                    "/api/tables",
                    headers={"Authorization": f"Bearer {ann_token}"},
                    json={"name": "Moving", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
                          "action_timer_ms": 60_000},
                )  # fmt: skip
                assert r.status_code == 201, r.text
                table_id = r.json()["table"]["id"]
            players = [
                await Player.connect(port_a, table_id, ann_token, ann),
                await Player.connect(port_a, table_id, bob_token, bob),
            ]
            for seat, p in enumerate(players):
                await p.wait(lambda f: f.get("type") == "snapshot")
                p.seat = seat
                reply = await p.call(
                    {"type": "sit", "seat": seat, "amount": 2000, "request_id": "s"}
                )
                assert reply["type"] == "ok", reply
            watcher = players[0]
            await watcher.wait(lambda f: watcher.count("hand_ended") >= 2, timeout=30)
            for p in players:
                p.acting = False  # the next hand stops at its first turn
            turn = await watcher.wait(
                lambda f: (
                    f.get("type") == "turn"
                    and watcher.count("hand_started") >= watcher.count("hand_ended") + 1
                )
            )
            room = Room(
                db, env_a, a, port_b, table_id, players, {ann: ann_token, bob: bob_token}, turn,
                {},
            )  # fmt: skip

            async def live_row() -> bool:
                return await room.status(turn["hand_id"]) == HandStatus.LIVE

            await _until(live_row, "the live hand's start row")
            room.stacks = await room.seats()
            yield room
    finally:
        for p in players:
            await p.close()
        await db.dispose()
        pg_server.drop(name)


async def _play_on_b(room: Room, voided: str | None) -> None:
    """The players connect to B: told of the voided hand (if any), they play a whole hand."""
    token = next(iter(room.tokens.values()))
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{room.port_b}") as http:

        async def served() -> bool:  # B runs it (claimed, voided, then restored)
            r = await http.get(
                f"/api/tables/{room.table_id}", headers={"Authorization": f"Bearer {token}"}
            )
            return r.status_code == 200

        await _until(served, "B serves the table")
    players = [
        await Player.connect(room.port_b, room.table_id, room.tokens[p.user_id], p.user_id)
        for p in room.players
    ]
    try:
        for p in players:
            snapshot = await p.wait(lambda f: f.get("type") == "snapshot")
            # told of the cancelled hand, with the stacks as before it (`hand_voided`)
            assert [v["hand_id"] for v in snapshot["voided"]] == ([voided] if voided else [])
        first = players[0]
        # B may have dealt before they connected (their snapshot shows the hand): the first
        # hand to end is B's either way
        ended = await first.wait(lambda f: f.get("type") == "hand_ended", timeout=30)

        async def written() -> bool:
            return await room.status(ended["hand_id"]) == HandStatus.DONE

        await _until(written, "the hand played on B is recorded")
    finally:
        for p in players:
            await p.close()


@pytest.mark.postgresql
async def test_kill_9_owner_mid_hand_another_process_takes_the_table(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with two_processes(tmp_path, pg_server, redis_url) as room:
        old = await room.owner()
        assert old is not None and old.owner is not None
        room.a.kill()  # SIGKILL: no release, no goodbye
        room.a.wait()
        killed = time.monotonic()

        async def moved() -> TableLease | None:
            lease = await room.owner()
            return lease if lease is not None and lease.owner not in (None, old.owner) else None

        # the bound: the lease runs out, then the survivor's next heartbeat claims it
        new = await _until(
            moved, "the survivor claims the table", timeout=LEASE + HEARTBEAT + SLACK
        )
        print(f"claimed {time.monotonic() - killed:.2f} s after the kill")
        assert new.epoch == old.epoch + 1
        live_hand = room.turn["hand_id"]

        async def voided() -> bool:
            return await room.status(live_hand) == HandStatus.VOID

        await _until(voided, "the survivor voids the interrupted hand")
        assert await room.seats() == room.stacks  # stacks as before the hand
        await _play_on_b(room, voided=live_hand)
        check = ledger_check(room.env)
        assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.postgresql
async def test_sigterm_owner_mid_hand_finishes_it_and_hands_the_table_over(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with two_processes(tmp_path, pg_server, redis_url) as room:
        old = await room.owner()
        assert old is not None and old.owner is not None
        live_hand = room.turn["hand_id"]
        room.a.send_signal(signal.SIGTERM)  # the hand is live, waiting for a player
        marks = [len(p.frames) for p in room.players]
        for p in room.players:
            p.acting = True
        mover = next(p for p in room.players if p.seat == room.turn["seat"])
        await mover.ws.send(json.dumps(Player.answer(room.turn)))
        ended = await mover.wait(
            lambda f: f.get("type") == "hand_ended" and f.get("hand_id") == live_hand
        )
        assert ended["hand_id"] == live_hand
        # it exits by itself once the table is let go (uvicorn, done, re-raises the signal)
        assert room.a.wait(timeout=60) in (0, -signal.SIGTERM)
        assert f"let go of tables [{room.table_id}]" in (tmp_path / "a.log").read_text()

        async def moved() -> TableLease | None:
            lease = await room.owner()
            return lease if lease is not None and lease.owner not in (None, old.owner) else None

        new = await _until(moved, "the other process claims the table")
        assert new.epoch == old.epoch + 1
        assert await room.status(live_hand) == HandStatus.DONE
        for p, mark in zip(room.players, marks, strict=True):
            # the stopping process dealt no hand after the one it finished
            started = [f for f in p.frames[mark:] if f.get("type") == "hand_started"]
            assert started == [], started
        async with room.db.session() as s:
            void = await s.scalar(select(HandRecord.id).where(HandRecord.status == HandStatus.VOID))
        assert void is None  # no hand was voided
        await _play_on_b(room, voided=None)
        check = ledger_check(room.env)
        assert check.returncode == 0, check.stdout + check.stderr
