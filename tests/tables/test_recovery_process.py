"""The server as a real process: play hands over WebSockets, SIGKILL it in the middle of a
hand, start it again, and find every balance, stack and finished hand exactly right, the
interrupted hand void (and the players told), and `python -m app ledger check` clean."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select
from websockets.asyncio.client import ClientConnection, connect

from app.store import ledger
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.models import Seat

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a long pass phrase"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATA_DIR=str(data_dir),
        DATABASE_URL="",
        REDIS_URL="",
        ARGON2_TIME_COST="1",
        ARGON2_MEMORY_KIB="8192",
        ARGON2_PARALLELISM="1",
    )
    return env


@contextmanager
def server(data_dir: Path, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=_env(data_dir),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


class Player:
    """A WebSocket client that answers its own turns: bring in, check or call, muck."""

    def __init__(self, ws: ClientConnection, user_id: int) -> None:
        self.ws = ws
        self.user_id = user_id
        self.seat: int | None = None
        self.frames: list[dict[str, Any]] = []
        self.task = asyncio.get_running_loop().create_task(self._read())
        self.acting = True

    async def _read(self) -> None:
        async for text in self.ws:
            frame = json.loads(text)
            self.frames.append(frame)
            if frame.get("type") == "snapshot":
                self.seat = frame["you"]["seat"]
            if frame.get("type") == "turn" and frame["seat"] == self.seat and self.acting:
                legal = frame["legal"]
                if legal.get("bring_in"):
                    action = "bring_in"
                elif legal.get("muck"):
                    action = "muck"
                elif legal.get("show"):
                    action = "show"
                elif legal.get("check"):
                    action = "check"
                else:
                    action = "call"
                await self.ws.send(
                    json.dumps(
                        {
                            "type": "act",
                            "hand_id": frame["hand_id"],
                            "turn_id": frame["turn_id"],
                            "action": action,
                        }
                    )
                )

    def count(self, kind: str) -> int:
        return sum(1 for f in self.frames if f.get("type") == kind)

    async def wait(self, predicate: Any, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for frame in self.frames:
                if predicate(frame):
                    return frame
            await asyncio.sleep(0.02)
        raise AssertionError("timed out waiting for a frame")

    async def close(self) -> None:
        self.task.cancel()
        await self.ws.close()


async def _register(http: httpx.AsyncClient, name: str) -> tuple[int, str]:
    r = await http.post(
        "/api/register",
        json={"name": name, "password": "a long pass phrase", "email": f"{name}@example.com"},
    )
    assert r.status_code == 201, r.text
    r = await http.post("/api/login", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    body = r.json()
    return int(body["user"]["id"]), body["token"]


async def _connect(port: int, table_id: int, token: str, user_id: int) -> Player:
    ws = await connect(
        f"ws://127.0.0.1:{port}/ws/tables/{table_id}?token={token}",
        origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
    )
    return Player(ws, user_id)


async def _db_state(db: Database, table_id: int) -> dict[str, Any]:
    async with db.session() as s:
        rows = list(await s.scalars(select(HandRecord).where(HandRecord.table_id == table_id)))
        seats = {seat.seat_no: seat.stack for seat in await s.scalars(select(Seat))}
        balances = {}
        for user in {p["user_id"] for r in rows for p in r.seats}:
            balances[user] = await ledger.player_balance(s, user)
        house = await ledger.balance(s, ledger.HOUSE)
    return {
        "done": sorted(r.id for r in rows if r.status == HandStatus.DONE),
        "live": sorted(r.id for r in rows if r.status == HandStatus.LIVE),
        "void": sorted(r.id for r in rows if r.status == HandStatus.VOID),
        "seats": seats,
        "balances": balances,
        "house": house,
    }


async def test_sigkill_mid_hand_then_restart_finds_everything_right(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "server.log"
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'stud.sqlite3'}")
    try:
        with server(tmp_path, port, log) as proc:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                ann, ann_token = await _register(http, "ann")
                bob, bob_token = await _register(http, "bob")
                r = await http.post(
                    "/api/tables",
                    headers={"Authorization": f"Bearer {ann_token}"},
                    json={"name": "Crash", "small_bet": 100, "ante": 10, "hand_pause_ms": 100,
                          "action_timer_ms": 60_000, "rake_bps": 500, "rake_cap": 50},
                )  # fmt: skip
                assert r.status_code == 201, r.text
                table_id = r.json()["table"]["id"]
            players = [
                await _connect(port, table_id, ann_token, ann),
                await _connect(port, table_id, bob_token, bob),
            ]
            for seat, p in enumerate(players):
                await p.wait(lambda f: f.get("type") == "snapshot")
                # before sitting: the first hand's first turn may come right behind the reply
                p.seat = seat
                await p.ws.send(
                    json.dumps({"type": "sit", "seat": seat, "amount": 2000, "request_id": "s"})
                )
                reply = await p.wait(lambda f: f.get("type") in ("ok", "error"))
                assert reply["type"] == "ok", reply
            watcher = players[0]
            await watcher.wait(lambda f: watcher.count("hand_ended") >= 3, timeout=30)
            for p in players:
                p.acting = False  # the next hand stops at its first turn
            await watcher.wait(
                lambda f: (
                    watcher.count("hand_started") >= watcher.count("hand_ended") + 1
                    and watcher.count("turn") > 0
                )
            )
            started = [f for f in watcher.frames if f.get("type") == "hand_started"][-1]
            ended = [f["hand_id"] for f in watcher.frames if f.get("type") == "hand_ended"]
            live_hand = started["hand_id"]
            assert live_hand not in ended
            deadline = time.monotonic() + 10
            while True:  # the finished hands are written (and the live one's start row)
                before = await _db_state(db, table_id)
                if set(ended) <= set(before["done"]) and before["live"] == [live_hand]:
                    break
                assert time.monotonic() < deadline, before
                await asyncio.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            for p in players:
                await p.close()
        starting = dict(zip(started["seats"], started["stacks"], strict=True))
        assert before["seats"] == starting  # the database never saw the live hand's chips

        with server(tmp_path, port, log):
            after = await _db_state(db, table_id)
            assert after["done"] == before["done"]
            # the table deals on at once (its players are still seated): a new live hand
            assert after["void"] == [live_hand] and live_hand not in after["live"]
            assert after["seats"] == starting
            assert after["balances"] == before["balances"] and after["house"] == before["house"]
            back = await _connect(port, table_id, ann_token, ann)
            snap = await back.wait(lambda f: f.get("type") == "snapshot")
            assert [v["hand_id"] for v in snap["voided"]] == [live_hand]
            assert {s["seat"]: s["stack"] for s in snap["seats"]} == starting or snap["hand"]
            await back.close()
        check = subprocess.run(
            [sys.executable, "-m", "app", "ledger", "check"],
            cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        await db.dispose()
