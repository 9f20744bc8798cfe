"""The server as a real process on loopback, and WebSocket players that play their own turns.

`server()` starts `python -m app serve` with its own data folder (SQLite unless the caller's
environment names another database) and stops it by process id; `Player` is a scripted
client that records every frame and answers its turns (bring in, check or call, muck).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "a long pass phrase"
Frame = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATA_DIR=str(data_dir),
        DATABASE_URL="",
        REDIS_URL="",
        ARGON2_TIME_COST="1",
        ARGON2_MEMORY_KIB="8192",
        ARGON2_PARALLELISM="1",
        # tables move only when a test moves them (a rebalancing round racing a test's own
        # move under a loaded CI made the move report "not taken"); test_rebalance turns it on
        REBALANCE_STEP="0",
    )
    env.update(extra)
    return env


@contextmanager
def server(
    data_dir: Path,
    port: int,
    log: Path,
    env: dict[str, str] | None = None,
    host: str = "127.0.0.1",  # any loopback address (127.x.y.z): replicas behind one name
) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--host", host, "--port", str(port)],
            cwd=ROOT,
            env=env or server_env(data_dir),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://{host}:{port}/health", timeout=1).status_code == 200:
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


def ledger_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m app ledger check` on the server's database."""
    return subprocess.run(
        [sys.executable, "-m", "app", "ledger", "check"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


async def register(http: httpx.AsyncClient, name: str) -> tuple[int, str]:
    r = await http.post(
        "/api/register",
        json={"name": name, "password": PASSWORD, "email": f"{name}@example.com"},
    )
    assert r.status_code == 201, r.text
    r = await http.post("/api/login", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    body = r.json()
    http.cookies.clear()  # each player speaks with its own bearer token
    return int(body["user"]["id"]), body["token"]


async def open_socket(port: int, table_id: int, token: str, query: str = "") -> ClientConnection:
    return await connect(
        f"ws://127.0.0.1:{port}/ws/tables/{table_id}{query}",
        origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
        additional_headers={"Authorization": f"Bearer {token}"},
        max_size=2**20,
    )


class Player:
    """A WebSocket client that keeps every frame and answers its own turns while `acting`:
    bring in, check or call, muck."""

    def __init__(self, ws: ClientConnection, user_id: int) -> None:
        self.ws = ws
        self.user_id = user_id
        self.seat: int | None = None
        self.frames: list[Frame] = []
        self.changed = asyncio.Event()
        self.acting = True
        self.task = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, port: int, table_id: int, token: str, user_id: int) -> Player:
        return cls(await open_socket(port, table_id, token), user_id)

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                frame = json.loads(text)
                self.frames.append(frame)
                self.changed.set()
                if frame.get("type") == "snapshot":
                    self.seat = frame["you"]["seat"]
                    hand = frame.get("hand")
                    if hand and hand.get("legal") and self.acting:  # joined during our turn
                        frame = {"type": "turn", "seat": self.seat, **hand}
                elif frame.get("type") == "seats":
                    # seated after the snapshot (a tournament's moved player): the browser
                    # finds its seat the same way, by its user id among the seats
                    mine = [s["seat"] for s in frame["seats"] if s["user_id"] == self.user_id]
                    self.seat = mine[0] if mine else None
                if frame.get("type") == "turn" and frame["seat"] == self.seat and self.acting:
                    await self.before_acting(frame)
                    await self.ws.send(json.dumps(self.answer(frame)))
        finally:
            self.changed.set()

    async def before_acting(self, turn: Frame) -> None:
        """A hook for scripted attackers: runs just before this player answers a turn."""

    @staticmethod
    def answer(turn: Frame) -> Frame:
        legal = turn["legal"]
        action = next((a for a in ("bring_in", "muck", "show", "check") if legal.get(a)), "call")
        return {
            "type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"],
            "action": action,
        }  # fmt: skip

    def count(self, kind: str) -> int:
        return sum(1 for f in self.frames if f.get("type") == kind)

    async def wait(
        self, predicate: Callable[[Frame], bool], timeout: float = 20, start: int = 0
    ) -> Frame:
        """The first frame (from index `start`) that `predicate` accepts."""

        async def find() -> Frame:
            i = start
            while True:
                while i < len(self.frames):
                    if predicate(self.frames[i]):
                        return self.frames[i]
                    i += 1
                if self.task.done():
                    raise ConnectionError("the socket closed")
                self.changed.clear()
                await self.changed.wait()

        return await asyncio.wait_for(find(), timeout)

    async def call(self, msg: Frame, timeout: float = 20) -> Frame:
        """Send `msg` with a fresh `ref` and return its reply (ok or error)."""
        ref = f"r{len(self.frames)}-{id(msg)}"
        await self.ws.send(json.dumps({**msg, "ref": ref}))
        return await self.wait(
            lambda f: f.get("ref") == ref and f.get("type") in ("ok", "error"), timeout
        )

    async def close(self) -> None:
        self.task.cancel()
        await self.ws.close()


def leaked_down_cards(frames: list[Frame], own_seat: int | None) -> list[Frame]:
    """Down cards of another seat than `own_seat` (None: an observer) that reached a client."""
    return [
        f
        for f in frames
        if f.get("type") == "card_dealt"
        and not f["face_up"]
        and f.get("card")
        and f["seat"] != own_seat
    ]
