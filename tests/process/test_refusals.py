"""Refusals: real server processes on one database. A second process on the same
SQLite file, or a second process on a shared PostgreSQL where either uses the in-process
fan-out (no REDIS_URL), refuses to start and says why and what to set. Processes that can
share (PostgreSQL and Redis each) both start; a process killed with -9 does not keep its
successor out."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.store.db import Database
from app.store.lease_models import ServerProcess
from app.store.leases import lease_of
from app.store.processes import live_processes
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.serverproc import ROOT, free_port, register, server, server_env

# what each refusal must say: the reason, and the setting that fixes it
SQLITE_REFUSAL = ("SQLite serves one process", "DATABASE_URL")
NO_REDIS_HERE = ("this one has no REDIS_URL", "Set REDIS_URL")
NO_REDIS_THERE = ("in-process fan-out (no REDIS_URL)", "restart it with REDIS_URL")


def refused_start(env: dict[str, str], tmp_path: Path) -> str:
    """Start `python -m app serve` and expect it to exit by itself: its output."""
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "This server will not start" in output, output
    with httpx.Client() as http, pytest.raises(httpx.HTTPError):  # it never served
        http.get(f"http://127.0.0.1:{port}/health", timeout=1)
    return output


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh migrated PostgreSQL database for the processes to share."""
    name = pg_server.new_database(template=pg_server.template)
    try:
        yield pg_server.url_for(name)
    finally:
        pg_server.drop(name)


async def _registered(url: str) -> list[ServerProcess]:
    db = Database(url)
    try:
        return await live_processes(db, lease_seconds=5.0)
    finally:
        await db.dispose()


def test_a_second_process_on_one_sqlite_database_is_refused(tmp_path: Path) -> None:
    env = server_env(tmp_path)
    with server(tmp_path, free_port(), tmp_path / "first.log", env) as first:
        output = refused_start(env, tmp_path)
        assert all(words in output for words in SQLITE_REFUSAL), output
        assert f"pid {first.pid}" in output  # it names the process in the way
        assert first.poll() is None  # the first runs on
        url = f"sqlite+aiosqlite:///{tmp_path / 'stud.sqlite3'}"
        assert [p.pid for p in asyncio.run(_registered(url))] == [first.pid]


@pytest.mark.postgresql
@pytest.mark.parametrize(
    ("first_redis", "second_redis", "says"),
    [(False, False, NO_REDIS_HERE), (True, False, NO_REDIS_HERE), (False, True, NO_REDIS_THERE)],
    ids=["both-memory", "second-memory", "first-memory"],
)
def test_memory_fanout_on_a_shared_postgresql_is_refused(
    tmp_path: Path,
    pg_url: str,
    redis_url: str,  # noqa: F811
    first_redis: bool,
    second_redis: bool,
    says: tuple[str, str],
) -> None:
    namespace = f"test-{uuid.uuid4().hex[:12]}"

    def env(with_redis: bool, data: str) -> dict[str, str]:
        return server_env(
            tmp_path / data,
            DATABASE_URL=pg_url,
            REDIS_URL=redis_url if with_redis else "",
            REDIS_NAMESPACE=namespace,
        )

    with server(tmp_path, free_port(), tmp_path / "first.log", env(first_redis, "a")) as first:
        output = refused_start(env(second_redis, "b"), tmp_path)
        assert all(words in output for words in says), output
        assert first.poll() is None
        assert [p.pid for p in asyncio.run(_registered(pg_url))] == [first.pid]


@pytest.mark.postgresql
def test_processes_with_redis_on_postgresql_share_the_database(
    tmp_path: Path,
    pg_url: str,
    redis_url: str,  # noqa: F811
) -> None:
    """Not over-refusing: two processes on PostgreSQL, both with Redis, both run."""
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    env_a, env_b = (
        server_env(
            tmp_path / d, DATABASE_URL=pg_url, REDIS_URL=redis_url, REDIS_NAMESPACE=namespace
        )
        for d in ("a", "b")
    )
    with (
        server(tmp_path, free_port(), tmp_path / "a.log", env_a) as a,
        server(tmp_path, free_port(), tmp_path / "b.log", env_b) as b,
    ):
        live = asyncio.run(_registered(pg_url))
        assert sorted(p.pid for p in live) == sorted([a.pid, b.pid])
        assert {p.fanout for p in live} == {"redis"}
        a.send_signal(signal.SIGTERM)  # a clean stop leaves the registry
        # uvicorn stops cleanly, then re-raises the signal it caught
        assert a.wait(timeout=30) in (0, -signal.SIGTERM)
        assert "Application shutdown complete" in (tmp_path / "a.log").read_text()
        assert [p.pid for p in asyncio.run(_registered(pg_url))] == [b.pid]


async def _make_table(port: int) -> int:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        _, token = await register(http, "hostess")
        r = await http.post(
            "/api/tables",
            json={"name": "Leased", "small_bet": 100},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 201, r.text
        return int(r.json()["table"]["id"])


async def _lease(url: str, table_id: int) -> tuple[str | None, int]:
    db = Database(url)
    try:
        async with db.session() as s:
            lease = await lease_of(s, table_id)
            assert lease is not None
            return lease.owner, lease.epoch
    finally:
        await db.dispose()


def test_after_kill_9_the_next_process_on_sqlite_starts_and_claims_the_tables(
    tmp_path: Path,
) -> None:
    """The dead process's fresh registration does not refuse its successor (same host, its
    pid gone): the successor starts at once and takes its tables under a higher epoch."""
    env = server_env(tmp_path)
    url = f"sqlite+aiosqlite:///{tmp_path / 'stud.sqlite3'}"
    port = free_port()
    with server(tmp_path, port, tmp_path / "first.log", env) as first:
        table_id = asyncio.run(_make_table(port))
        owner, epoch = asyncio.run(_lease(url, table_id))
        first.send_signal(signal.SIGKILL)
        first.wait()
    with server(tmp_path, free_port(), tmp_path / "second.log", env) as second:
        new_owner, new_epoch = asyncio.run(_lease(url, table_id))
        assert new_owner is not None and new_owner != owner
        assert new_epoch == epoch + 1
        assert [p.pid for p in asyncio.run(_registered(url))] == [second.pid]
