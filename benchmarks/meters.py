"""What a benchmark window reads off the machine: CPU time of processes (`/proc/<pid>/stat`),
their time waiting for a CPU, their memory, and what the shared PostgreSQL and Redis did
(their processes' CPU and their own counters) over the window."""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads); 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def runqueue_seconds(pid: int) -> float:
    """Time the process's threads spent ready to run but waiting for a CPU (other processes
    on the machine had it): `/proc/<pid>/task/*/schedstat`, second field, in ns."""
    total = 0
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    kb = {k: int(v.split()[0]) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(.*)$", status, re.M)}
    return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024


def cpu_of(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (every core, every process: `/proc/stat`'s
    first line less idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLK_TCK


# -- PostgreSQL ----------------------------------------------------------------------------


@dataclass
class PgReading:
    backends: dict[int, float]  # our database's backends: pid -> CPU seconds
    background: float  # the server's shared processes (WAL writer, checkpointer, ...)
    commits: int  # pg_stat_database.xact_commit of our database
    rows_written: int  # tuples inserted + updated of our database
    wal_bytes: int  # pg_stat_wal: the whole server's
    active: float  # pg_stat_database.active_time: seconds its backends ran statements


@dataclass
class PgUse:
    cpu: float  # our backends' CPU seconds over the window
    background_cpu: float  # the shared processes' (other databases' work counts there too)
    commits: int
    rows_written: int
    wal_bytes: int
    active: float  # statement time (wall: includes waiting for a CPU or the disk)


class PgMeter:
    """Reads the CPU of the PostgreSQL backends serving `database` (by pid, from
    `pg_stat_activity`) and its counters. PostgreSQL runs on this machine, so its processes'
    `/proc/<pid>/stat` is readable."""

    def __init__(self, admin_dsn: str, database: str) -> None:
        self.admin_dsn = admin_dsn
        self.database = database

    async def read(self) -> PgReading:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(self.admin_dsn, timeout=10)
        try:
            rows = await conn.fetch(
                "SELECT pid, datname, backend_type FROM pg_stat_activity WHERE pid <> "
                "pg_backend_pid()"
            )
            stat = await conn.fetchrow(
                "SELECT xact_commit, tup_inserted + tup_updated AS written, active_time "
                "FROM pg_stat_database WHERE datname = $1",
                self.database,
            )
            wal = await conn.fetchval("SELECT wal_bytes FROM pg_stat_wal")
        finally:
            await conn.close()
        backends = {r["pid"]: cpu_seconds(r["pid"]) for r in rows if r["datname"] == self.database}
        shared = ("checkpointer", "background writer", "walwriter")
        background = cpu_of([r["pid"] for r in rows if r["backend_type"] in shared])
        return PgReading(
            backends,
            background,
            int(stat["xact_commit"]),
            int(stat["written"]),
            int(wal or 0),
            float(stat["active_time"] or 0) / 1000,
        )

    @staticmethod
    def use(before: PgReading, after: PgReading) -> PgUse:
        """Over the window: a backend that came or went during it counts from its first
        reading (none normally: the servers' pools keep their connections)."""
        cpu = sum(t - before.backends.get(pid, 0.0) for pid, t in after.backends.items())
        return PgUse(
            cpu,
            after.background - before.background,
            after.commits - before.commits,
            after.rows_written - before.rows_written,
            after.wal_bytes - before.wal_bytes,
            after.active - before.active,
        )


# -- Redis ---------------------------------------------------------------------------------


@dataclass
class RedisReading:
    cpu: float  # redis-server's CPU seconds (/proc; its own INFO says the same)
    publishes: int  # PUBLISH commands the server ran (all clients')
    publish_usec: int  # and the time it spent in them
    scripts: int  # EVALSHA calls: the fan-out publishes a burst as one script call
    commands: int  # every command (all clients')
    net_in: int
    net_out: int


@dataclass
class RedisUse:
    cpu: float
    publishes: int
    publish_usec: int
    scripts: int
    commands: int
    net_in: int
    net_out: int


class RedisMeter:
    """redis-server's CPU over the window and its command counters. Both are the whole
    server's: whatever else uses this Redis during the window counts too."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def read(self) -> RedisReading:
        import redis.asyncio as aioredis

        client: Any = aioredis.Redis.from_url(self.url)
        try:
            server = await client.info("server")
            stats = await client.info("stats")
            commands = await client.info("commandstats")
        finally:
            await client.aclose()
        publish = commands.get("cmdstat_publish", {})
        return RedisReading(
            cpu_seconds(int(server["process_id"])),
            int(publish.get("calls", 0)),
            int(publish.get("usec", 0)),
            int(commands.get("cmdstat_evalsha", {}).get("calls", 0)),
            int(stats["total_commands_processed"]),
            int(stats["total_net_input_bytes"]),
            int(stats["total_net_output_bytes"]),
        )

    @staticmethod
    def use(before: RedisReading, after: RedisReading) -> RedisUse:
        return RedisUse(
            after.cpu - before.cpu,
            after.publishes - before.publishes,
            after.publish_usec - before.publish_usec,
            after.scripts - before.scripts,
            after.commands - before.commands,
            after.net_in - before.net_in,
            after.net_out - before.net_out,
        )
