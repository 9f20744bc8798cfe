"""Several real server processes on one PostgreSQL database (a fresh one) and one Redis (a
namespace of its own), for the several-process tests: start them, find which one runs a table,
stop them every way a process stops, and check what every client was sent.

`cluster()` starts them; `Cluster.seated` makes the usual stage: a table run by process 0,
its two players connected to the processes named (1 and 2 unless told), two hands played
and the third stopped at its first turn."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from sqlalchemy import select

from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import ServerProcess, TableLease
from app.store.models import Seat
from tests.conftest import PgServer
from tests.serverproc import (
    Frame,
    Player,
    free_port,
    leaked_down_cards,
    ledger_check,
    register,
    server,
    server_env,
)

LEASE = 3.0  # seconds: short, so a test waits little for a dead owner's lease to run out
HEARTBEAT = 0.5
SLACK = 6.0  # a loaded 2-core machine: bounds are lease + one heartbeat, plus this margin
TABLE = {
    "name": "Cluster", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
    "action_timer_ms": 60_000,
}  # fmt: skip
T = TypeVar("T")


async def until(check: Callable[[], Awaitable[T | None]], what: str, timeout: float = 30) -> T:
    """Poll `check` until it returns something truthy (a condition, not a sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


@dataclass
class Stage:
    """A table run by process 0; its players on other processes, stopped at a live turn."""

    table_id: int
    players: list[Player]
    tokens: dict[int, str]  # user -> token
    turn: Frame  # the turn the live hand stopped at
    stacks: dict[int, int]  # seat -> stack before the live hand
    lease: TableLease  # the table's lease then (process 0's)

    @property
    def live(self) -> str:
        """The hand in play, stopped at `turn`."""
        return str(self.turn["hand_id"])

    @property
    def mover(self) -> Player:
        """The player whose turn `turn` is."""
        return next(p for p in self.players if p.seat == self.turn["seat"])


@dataclass
class Cluster:
    tmp: Path
    url: str
    db: Database
    envs: list[dict[str, str]]
    ports: list[int]
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    stack: ExitStack = field(default_factory=ExitStack)

    def log(self, i: int) -> str:
        return (self.tmp / f"p{i}.log").read_text(errors="replace")

    def start(self, i: int) -> None:
        """Start process `i` (again: a new process on the same port and settings)."""
        proc = self.stack.enter_context(
            server(self.tmp, self.ports[i], self.tmp / f"p{i}.log", self.envs[i])
        )
        if i < len(self.procs):
            self.procs[i] = proc
        else:
            self.procs.append(proc)

    def http(self, i: int, token: str | None = None) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.AsyncClient(base_url=f"http://127.0.0.1:{self.ports[i]}", headers=headers)

    async def user(self, i: int, name: str) -> tuple[int, str]:
        async with self.http(i) as http:
            return await register(http, name)

    async def create(self, i: int, token: str, **settings: Any) -> int:
        async with self.http(i, token) as http:
            r = await http.post("/api/tables", json={**TABLE, **settings})
        assert r.status_code == 201, r.text
        return int(r.json()["table"]["id"])

    async def lease(self, table_id: int) -> TableLease | None:
        async with self.db.session() as s:
            return await s.get(TableLease, table_id, populate_existing=True)

    async def runner(self, table_id: int) -> int | None:
        """Which of the processes runs the table now (by its registered pid)."""
        lease = await self.lease(table_id)
        if lease is None or lease.owner is None:
            return None
        async with self.db.session() as s:
            pid = await s.scalar(select(ServerProcess.pid).where(ServerProcess.id == lease.owner))
        pids = [p.pid for p in self.procs]
        return pids.index(pid) if pid in pids else None

    async def status(self, hand_id: str) -> HandStatus | None:
        async with self.db.session() as s:
            found: HandStatus | None = await s.scalar(
                select(HandRecord.status).where(HandRecord.id == hand_id)
            )
            return found

    async def voided(self) -> list[str]:
        async with self.db.session() as s:
            return list(
                await s.scalars(select(HandRecord.id).where(HandRecord.status == HandStatus.VOID))
            )

    async def until_status(self, hand_id: str, status: HandStatus, what: str) -> None:
        """Wait until the hand's record has `status`."""

        async def reached() -> bool:
            return await self.status(hand_id) == status

        await until(reached, what)

    async def seats(self, table_id: int) -> dict[int, int]:
        async with self.db.session() as s:
            rows = await s.execute(
                select(Seat.seat_no, Seat.stack).where(Seat.table_id == table_id)
            )
            return {n: st for n, st in rows}

    @property
    def namespace(self) -> str:
        return self.envs[0]["REDIS_NAMESPACE"]

    def ledger_ok(self) -> None:
        check = ledger_check(self.envs[0])
        assert check.returncode == 0, check.stdout + check.stderr

    def signal(self, i: int, sig: signal.Signals) -> None:
        self.procs[i].send_signal(sig)

    async def moved_from(self, table_id: int, old: TableLease, timeout: float) -> TableLease:
        """The table's lease once another process than `old`'s holds it."""

        async def moved() -> TableLease | None:
            lease = await self.lease(table_id)
            ok = lease is not None and lease.owner not in (None, old.owner)
            return lease if ok else None

        return await until(moved, f"another process claims table {table_id}", timeout)

    async def seated(self, at: tuple[int, int] = (1, 2), **settings: Any) -> Stage:
        """Process 0 runs a table (of `TABLE` and `settings`); ann plays through process
        `at[0]`, bob through `at[1]`. Two hands are played, the third stops at its first turn
        (its start row written)."""
        ann, ann_token = await self.user(0, "ann")
        bob, bob_token = await self.user(0, "bob")
        table_id = await self.create(0, ann_token, **settings)
        assert await self.runner(table_id) == 0
        players = [
            await Player.connect(self.ports[at[0]], table_id, ann_token, ann),
            await Player.connect(self.ports[at[1]], table_id, bob_token, bob),
        ]
        for seat, p in enumerate(players):
            await p.wait(lambda f: f.get("type") == "snapshot")
            p.seat = seat
            reply = await p.call({"type": "sit", "seat": seat, "amount": 2000, "request_id": "s"})
            assert reply["type"] == "ok", reply
        watcher = players[0]
        await watcher.wait(lambda f: watcher.count("hand_ended") >= 2, timeout=40)
        for p in players:
            p.acting = False  # the next hand stops at its first turn
        turn = await watcher.wait(
            lambda f: (
                f.get("type") == "turn"
                and watcher.count("hand_started") >= watcher.count("hand_ended") + 1
            )
        )

        await self.until_status(turn["hand_id"], HandStatus.LIVE, "the live hand's start row")
        stacks = await self.seats(table_id)
        lease = await self.lease(table_id)
        assert lease is not None and lease.owner is not None
        return Stage(table_id, players, {ann: ann_token, bob: bob_token}, turn, stacks, lease)


@asynccontextmanager
async def cluster(
    tmp_path: Path,
    pg_server: PgServer,
    redis: str,
    n: int = 3,
    each: dict[int, dict[str, str]] | None = None,
    route: Callable[[str], str] | None = None,
) -> AsyncIterator[Cluster]:
    """`n` processes on a fresh database and a Redis namespace of their own; `each`: more
    settings for process i; `route`: the database URL the processes use, made from the
    real one (a proxy's), while the test's own connection (`Cluster.db`) goes direct."""
    name = pg_server.new_database(template=pg_server.template)
    # a process stopped inside a transaction must not hold its row locks for ever
    await pg_server.execute(f"ALTER DATABASE {name} SET idle_in_transaction_session_timeout = '1s'")
    url = pg_server.url_for(name)
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    envs = [
        server_env(
            tmp_path / f"d{i}", DATABASE_URL=route(url) if route else url, REDIS_URL=redis,
            REDIS_NAMESPACE=namespace,
            LEASE_SECONDS=str(LEASE), HEARTBEAT_SECONDS=str(HEARTBEAT), DRAIN_SECONDS="30",
            **(each or {}).get(i, {}),
        )
        for i in range(n)
    ]  # fmt: skip
    db = Database(url)
    c = Cluster(tmp_path, url, db, envs, [free_port() for _ in range(n)])
    try:
        with c.stack:
            for i in range(n):
                c.start(i)
            yield c
    finally:
        await db.dispose()
        pg_server.drop(name)


def check_frames(player: Player) -> None:
    """What one client was sent is one table's story: no other seat's down card; from each
    snapshot on, every numbered event follows the one before it (no event of another owner
    slips in between); no hand number is dealt twice."""
    assert leaked_down_cards(player.frames, player.seat) == []
    last: int | None = None
    numbers: list[str] = []
    for f in player.frames:
        if f.get("type") == "snapshot":
            last = int(f["v"])
            continue
        if "v" in f and last is not None:
            assert f["v"] == last + 1, f"event {f['v']} after {last}: {f}"
            last = int(f["v"])
        if f.get("type") == "hand_started":
            numbers.append(str(f["number"]))
    assert len(numbers) == len(set(numbers)), f"a hand number dealt twice: {numbers}"
