"""The process registry, on SQLite and PostgreSQL: who may register beside whom,
a dead process's registration (its pid gone, or silent past the lease time) removed with its
leases freed, and a heartbeat that finds its row gone says so."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.store import leases
from app.store.db import Database
from app.store.errors import ProcessRefused
from app.store.lease_models import ServerProcess
from app.store.processes import Me, deregister, heartbeat, live_processes, register
from app.store.types import utcnow
from tests.store.factories import make_table

LEASE = 5.0


def _me(fanout: str, pid: int | None = None, host: str | None = None) -> Me:
    """A process; by default on a host of its own (whose pids this one cannot look at)."""
    base = Me.here(fanout_url="memory://" if fanout == "memory" else "redis://x", capacity=10)
    return dataclasses.replace(
        base, pid=base.pid if pid is None else pid, host=host or f"host-{base.id[:8]}"
    )


async def _register(db: Database, me: Me) -> None:
    await register(db, me, lease_seconds=LEASE, heartbeat_seconds=0.01, wait=False)


async def test_who_may_run_beside_whom(db: Database) -> None:
    first = _me("redis")
    await _register(db, first)
    if db.is_sqlite:  # one process per SQLite file, whatever its fan-out
        with pytest.raises(ProcessRefused, match=r"SQLite serves one process.*DATABASE_URL"):
            await _register(db, _me("redis"))
    else:
        with pytest.raises(ProcessRefused, match=r"this one has no REDIS_URL.*Set REDIS_URL"):
            await _register(db, _me("memory"))
        second = _me("redis")
        await _register(db, second)  # Redis beside Redis: shared
        live = await live_processes(db, lease_seconds=LEASE)
        assert {p.id for p in live} == {first.id, second.id}
        await deregister(db, second)
        await deregister(db, first)
        await _register(db, _me("memory"))  # alone, in-process fan-out is fine
        with pytest.raises(ProcessRefused, match="restart it with REDIS_URL"):
            await _register(db, _me("redis"))


async def test_a_silent_registration_is_dead_and_its_leases_are_freed(db: Database) -> None:
    gone = _me("redis")
    await _register(db, gone)
    async with db.transaction() as s:
        table = (await make_table(s)).id
        assert await leases.claim(s, table, gone.id, seconds=LEASE) == 1
        await s.execute(  # it stopped heartbeating a lease time ago
            update(ServerProcess)
            .where(ServerProcess.id == gone.id)
            .values(heartbeat_at=utcnow() - timedelta(seconds=LEASE + 1))
        )
    newcomer = _me("redis")
    await _register(db, newcomer)
    assert [p.id for p in await live_processes(db, lease_seconds=LEASE)] == [newcomer.id]
    async with db.transaction() as s:  # freed: claimable at once, under a higher epoch
        assert await leases.claim(s, table, newcomer.id, seconds=LEASE) == 2
    assert not await heartbeat(db, gone)  # the woken process learns it was taken for dead
    assert await heartbeat(db, newcomer)


async def test_a_fresh_registration_whose_pid_is_gone_on_this_host_is_dead(db: Database) -> None:
    """`kill -9`, then a restart on the same host: no wait for the registration to expire."""
    exited = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                            capture_output=True, text=True, check=True)  # fmt: skip
    here = Me.here(fanout_url="memory://", capacity=10).host
    killed = _me("memory", pid=int(exited.stdout), host=here)
    await _register(db, killed)
    successor = _me("memory", pid=os.getpid(), host=here)
    await _register(db, successor)
    assert [p.id for p in await live_processes(db, lease_seconds=LEASE)] == [successor.id]
