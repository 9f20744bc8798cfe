"""The registry of live server processes, and the start-up refusals it makes possible.

Each server process registers at start (`register`) and heartbeats about every second
(`Registration`); a row whose heartbeat is older than the lease time belongs to a dead
process. Before registering, a process looks at the live ones and refuses to start when it
cannot share the database with them:

- on SQLite only one process may run (one file, one writer, no shared fan-out);
- on PostgreSQL every process must use the Redis fan-out: with the in-process one, events of
  a table reach only the players connected to its own process.

A registration that is still fresh may be a process that just died (`kill -9`): on the same
host, a row whose pid no longer runs (or is our own pid: a restarted container) is dead at
once, and its table leases are freed; otherwise the newcomer watches the row for about one
heartbeat and refuses only if it is still beating, and waits for it to expire if not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, text, update

from app.store import leases
from app.store.db import Database
from app.store.errors import ProcessRefused
from app.store.lease_models import ServerProcess, TableLease
from app.store.types import utcnow

log = logging.getLogger("app.store.processes")

_LOCK_ID = 0x53545550  # pg_advisory_xact_lock key for registering ("STUP")


@dataclass(frozen=True, slots=True)
class Me:
    """This process, as it registers."""

    id: str
    host: str
    pid: int
    fanout: str  # "memory" or "redis"
    capacity: int

    @classmethod
    def here(cls, *, fanout_url: str, capacity: int) -> Me:
        kind = "memory" if fanout_url.startswith("memory://") else "redis"
        return cls(secrets.token_hex(16), socket.gethostname(), os.getpid(), kind, capacity)


def pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it runs
    return True


def _is_dead(row: ServerProcess, me: Me, now: datetime, lease: float) -> bool:
    if row.heartbeat_at <= now - timedelta(seconds=lease):
        return True
    # the same host: its pid tells (our own pid there is a predecessor, e.g. a restarted container)
    return row.host == me.host and (row.pid == me.pid or not pid_running(row.pid))


def _describe(row: ServerProcess) -> str:
    return f"pid {row.pid} on host {row.host!r}, started {row.started_at:%Y-%m-%d %H:%M:%S} UTC"


def refusal(me: Me, backend: str, other: ServerProcess) -> str | None:
    """Why `me` cannot run beside `other` on this database (None: it can)."""
    if backend == "sqlite":
        return (
            f"another server process ({_describe(other)}) is running on this SQLite "
            "database. SQLite serves one process: stop the other one, or run every process "
            "on PostgreSQL and Redis (set DATABASE_URL=postgresql+asyncpg://… and "
            "REDIS_URL=redis://… for each)."
        )
    if me.fanout == "memory":
        return (
            f"another server process ({_describe(other)}) is running on this database, and "
            "this one has no REDIS_URL: with the in-process fan-out a table's events reach "
            "only its own process's players. Set REDIS_URL (the same Redis for every "
            "process) to run several."
        )
    if other.fanout == "memory":
        return (
            f"another server process ({_describe(other)}) is running on this database with "
            "the in-process fan-out (no REDIS_URL): restart it with REDIS_URL set (the same "
            "Redis as this one) before starting more processes."
        )
    return None


async def register(
    db: Database, me: Me, *, lease_seconds: float, heartbeat_seconds: float, wait: bool = True
) -> None:
    """Add `me` to the registry, or raise `ProcessRefused` (with what to set) when a live
    process cannot share the database with it. Dead processes' rows go, and their leases
    are freed. Without `wait`, a fresh registration in the way refuses at once."""
    seen: dict[str, datetime] = {}  # a blocking process's heartbeat when first looked at
    deadline = time.monotonic() + lease_seconds + 2 * heartbeat_seconds
    while True:
        async with db.transaction() as s:
            if not db.is_sqlite:  # two processes starting together register one at a time
                await s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_ID})
            now = utcnow()
            rows = list(await s.scalars(select(ServerProcess)))
            dead = [r.id for r in rows if _is_dead(r, me, now, lease_seconds)]
            if dead:
                await s.execute(delete(ServerProcess).where(ServerProcess.id.in_(dead)))
                await leases.release_owners(s, dead)
            blocking = [
                (row, why)
                for row in rows
                if row.id not in dead and (why := refusal(me, db.backend, row)) is not None
            ]
            if not blocking:
                s.add(
                    ServerProcess(
                        id=me.id,
                        host=me.host,
                        pid=me.pid,
                        started_at=now,
                        heartbeat_at=now,
                        fanout=me.fanout,
                        capacity=me.capacity,
                    )
                )
                return
            beating = [
                why for row, why in blocking if row.id in seen and row.heartbeat_at > seen[row.id]
            ]
            if beating or not wait or time.monotonic() > deadline:
                raise ProcessRefused(
                    f"This server will not start: {(beating or [blocking[0][1]])[0]}"
                )
            for row, _ in blocking:
                seen.setdefault(row.id, row.heartbeat_at)
        await asyncio.sleep(heartbeat_seconds)


async def heartbeat(db: Database, me: Me) -> bool:
    """Say `me` is alive; False if its row is gone (it was taken for dead)."""
    async with db.transaction() as s:
        result = await s.execute(
            update(ServerProcess)
            .where(ServerProcess.id == me.id)
            .values(heartbeat_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]


async def deregister(db: Database, me: Me) -> None:
    """Leave the registry (a clean stop): the next process need not wait."""
    async with db.transaction() as s:
        await s.execute(delete(ServerProcess).where(ServerProcess.id == me.id))


async def live_processes(db: Database, *, lease_seconds: float) -> list[ServerProcess]:
    async with db.session() as s:
        since = utcnow() - timedelta(seconds=lease_seconds)
        rows = await s.scalars(
            select(ServerProcess)
            .where(ServerProcess.heartbeat_at > since)
            .order_by(ServerProcess.started_at)
        )
        return list(rows)


Renew = Callable[[], Awaitable[object]]


class Registration:
    """This process in the registry: registered by `start`, a heartbeat (and the table
    leases' renewal, `renew`) every `heartbeat_seconds`, gone after `stop`."""

    def __init__(
        self,
        db: Database,
        me: Me,
        *,
        lease_seconds: float,
        heartbeat_seconds: float,
        renew: Renew | None = None,
    ) -> None:
        self.db = db
        self.me = me
        self.lease_seconds = lease_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self.renew = renew
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await register(
            self.db, self.me,
            lease_seconds=self.lease_seconds, heartbeat_seconds=self.heartbeat_seconds,
        )  # fmt: skip
        self._task = asyncio.get_running_loop().create_task(self._beat(), name="heartbeat")

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                if not await heartbeat(self.db, self.me):
                    # taken for dead (paused past the lease time): back in if nothing
                    # conflicts; the tables were freed meanwhile and the renewal drops them
                    log.error("this process's registration had expired; registering again")
                    await register(
                        self.db,
                        self.me,
                        lease_seconds=self.lease_seconds,
                        heartbeat_seconds=self.heartbeat_seconds,
                        wait=False,
                    )
                if self.renew is not None:
                    await self.renew()
            except asyncio.CancelledError:
                raise
            except ProcessRefused as exc:
                # another process took this one's place (SQLite, `memory://`): its tables are
                # gone; it stops (SIGTERM: the graceful stop) rather than serve sockets of none
                log.critical("%s; stopping", exc)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            except Exception as exc:  # the database is away: try again next beat
                log.warning("heartbeat failed (%s): retrying", type(exc).__name__)

    def set_renew(self, renew: Renew) -> None:
        self.renew = renew

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        try:
            await deregister(self.db, self.me)
        except Exception as exc:  # the row expires by itself
            log.warning("could not leave the process registry (%s)", type(exc).__name__)


async def where(db: Database) -> list[tuple[ServerProcess, list[int]]]:
    """Every registered process, live or not, with the tables its leases say it runs (what
    `python -m app tables where` prints and the admin page shows)."""
    async with db.session() as s:
        processes = list(await s.scalars(select(ServerProcess).order_by(ServerProcess.started_at)))
        leases = list(
            await s.execute(
                select(TableLease.owner, TableLease.table_id).where(
                    TableLease.expires_at > utcnow()
                )
            )
        )
    runs: dict[str | None, list[int]] = {}
    for owner, table_id in leases:
        runs.setdefault(owner, []).append(table_id)
    return [(p, sorted(runs.get(p.id, []))) for p in processes]


def describe(p: ServerProcess, tables: list[int], now: datetime, lease_seconds: float) -> str:
    """One line of `where`: a process silent for a lease time is dead (as the others judge
    it), though its row stays until the next process registers."""
    age = (now - p.heartbeat_at).total_seconds()
    state = "live" if age < lease_seconds else "silent, dead"
    return (
        f"{p.id}  pid {p.pid} on {p.host}  capacity {p.capacity}  tables {tables}  "
        f"heartbeat {age:.1f} s ago ({state})"
    )
