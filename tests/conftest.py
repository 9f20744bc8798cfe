"""Shared fixtures: a fresh, migrated database per test, on SQLite and on PostgreSQL.

- `db_url`: the URL of a fresh database at the schema's head; parametrized over the backends
  (test ids `[sqlite]` and `[postgresql]`), so a test using it runs on both.
- `db`: a `Database` on `db_url`, disposed after the test.
- `empty_db_url`: a fresh empty database (no tables), for migration tests.
- `backend`: "sqlite" or "postgresql".

PostgreSQL is `TEST_POSTGRES_URL` (default postgresql+asyncpg://postgres@127.0.0.1:5432/test),
Redis `TEST_REDIS_URL` (default redis://127.0.0.1:6379/0).
Each pytest-xdist worker migrates its own template database once (`test_<worker>_<random>_t`)
and each test gets a copy (`CREATE DATABASE … TEMPLATE`), dropped afterwards, so workers and
tests never share state. SQLite copies a migrated template file the same way.

A test whose service (PostgreSQL, Redis, chromium, nginx) is missing calls `unavailable`:
skipped on a developer's machine, failed with `CI=true`. Under `CI=true` every skip is a
failure (`pytest_runtest_makereport` below): the suite has no other skips, so a skip there
can only be a service test that did not run.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest
from sqlalchemy.engine import make_url

# Tests never touch ./data or a developer's .env database: the app's default SQLite file goes
# to a temporary folder (set before anything imports app.main, which reads the settings).
_DATA_DIR = tempfile.mkdtemp(prefix="stud-test-data-")
os.environ["DATA_DIR"] = _DATA_DIR
os.environ["DATABASE_URL"] = ""  # empty: the embedded SQLite default in DATA_DIR

from app.store.db import Database  # noqa: E402
from app.store.migrate import upgrade  # noqa: E402

T = TypeVar("T")

PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# The one reading of CI: GitHub, GitLab and most runners set CI=true; some say 1 or yes.
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]


def unavailable(message: str) -> NoReturn:
    """A service this test needs is not there: a skip, or with CI=true a failure."""
    if IN_CI:
        pytest.fail(f"{message} (CI=true: this test must run)", pytrace=False)
    pytest.skip(message)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgresql: runs against the real PostgreSQL")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """With CI=true a skip fails the test: a green CI run means every service test ran, even
    one that skips by some other road than `unavailable`."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped with CI=true, which allows no skip: {reason}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_DATA_DIR, ignore_errors=True)


def run_in_thread(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion on a private event loop in another thread: safe from a
    sync fixture whatever loop pytest-asyncio has set up."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


async def _migrate(url: str) -> None:
    db = Database(url)
    try:
        await upgrade(db)
    finally:
        await db.dispose()


# --- PostgreSQL ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PgServer:
    admin_dsn: str  # asyncpg DSN of the maintenance database (`test`)
    url: Any  # SQLAlchemy URL of the maintenance database
    prefix: str  # every database this worker makes starts with it
    template: str  # migrated to head

    def url_for(self, database: str) -> str:
        return str(self.url.set(database=database).render_as_string(hide_password=False))

    async def execute(self, *statements: str) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(self.admin_dsn, timeout=5)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    def new_database(self, *, template: str | None = None) -> str:
        name = f"{self.prefix}_{secrets.token_hex(4)}"
        source = f" TEMPLATE {template}" if template else ""
        run_in_thread(
            lambda: self.execute(
                f"CREATE DATABASE {name}{source}",
                # a test database need not survive a power cut: commits 2x faster
                f"ALTER DATABASE {name} SET synchronous_commit = off",
            )
        )
        return name

    def drop(self, name: str) -> None:
        run_in_thread(lambda: self.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The PostgreSQL server with this worker's migrated template database."""
    url = make_url(PG_URL)
    admin_dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    prefix = f"test_{_worker()}_{secrets.token_hex(3)}"
    server = PgServer(admin_dsn, url, prefix, f"{prefix}_t")
    try:
        run_in_thread(lambda: server.execute("SELECT 1"))
    except Exception as exc:  # unreachable, refused, bad credentials …
        unavailable(f"PostgreSQL at {url.render_as_string()} is unreachable: {exc!r}")
    run_in_thread(lambda: server.execute(f"CREATE DATABASE {server.template}"))
    try:
        run_in_thread(lambda: _migrate(server.url_for(server.template)))
        yield server
    finally:
        server.drop(server.template)


# --- SQLite ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.sqlite3"
    run_in_thread(lambda: _migrate(f"sqlite+aiosqlite:///{path}"))
    return path


# --- the fixtures tests use -----------------------------------------------------------------


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database at the schema's head."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "stud.sqlite3"
        shutil.copyfile(template, path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    server: PgServer = request.getfixturevalue("pg_server")
    name = server.new_database(template=server.template)
    try:
        yield server.url_for(name)
    finally:
        server.drop(name)


@pytest.fixture
def empty_db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database with no tables at all."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    server: PgServer = request.getfixturevalue("pg_server")
    name = server.new_database()
    try:
        yield server.url_for(name)
    finally:
        server.drop(name)


@pytest.fixture
async def db(db_url: str) -> AsyncIterator[Database]:
    database = Database(db_url)
    try:
        yield database
    finally:
        await database.dispose()
