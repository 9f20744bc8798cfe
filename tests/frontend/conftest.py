"""Browser tests: a real server process (uvicorn on a free loopback port, SQLite in a temporary
folder, its mail sent to a real SMTP server on loopback) and Debian's Chromium driven by
Playwright (never a downloaded browser).

Without /usr/bin/chromium the tests are skipped, unless `CI=true`: then they fail.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.conftest import unavailable

# CI runs three workers (browsers and servers among them) on two cores: a page may take
# longer than Playwright's 5 s to show what a click caused; a real failure still fails
expect.set_options(timeout=15_000)

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]


# First, before pytest-xdist's own hook turns each test's group into its id: marked after
# that, a group is ignored and a module's tests are spread over every worker, each worker
# starting the module's server and browser again for its share.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        path = item.path
        if path.parent == here:
            # one module on one worker: its server and browser (module fixtures) start
            # once; the modules share the workers, at most one browser each
            item.add_marker(pytest.mark.xdist_group(f"browser-{path.stem}"))
            item.add_marker(pytest.mark.browser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: end-to-end tests in headless Chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing (Debian's chromium package; `make test` installs it)")
    return CHROMIUM


class Mailbox:
    """A real SMTP server (aiosmtpd, in its own thread) on 127.0.0.1 that keeps what arrives."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.port = _free_port()
        self.messages: list[EmailMessage] = []
        self._arrived = threading.Condition()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = message_from_bytes(bytes(envelope.content), policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        with self._arrived:
            self.messages.append(parsed)
            self._arrived.notify_all()
        return "250 Message accepted for delivery"

    def wait_for(self, subject: str, timeout: float = 30.0) -> EmailMessage:
        """The first message whose subject contains `subject` (waiting for it to arrive)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                for message in self.messages:
                    if subject in str(message["Subject"]):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [str(m["Subject"]) for m in self.messages]
                    raise AssertionError(f"no mail about {subject!r} in {timeout} s: {seen}")
                self._arrived.wait(left)

    def __enter__(self) -> Mailbox:
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._controller.stop()


@pytest.fixture(scope="module")
def mailbox() -> Iterator[Mailbox]:
    with Mailbox() as box:
        yield box


def server_env(data: Path, url: str, mailbox: Mailbox) -> dict[str, str]:
    """The environment of the server the browser tests use (and of commands run on its
    database: `python -m app admin grant`)."""
    return {
        **os.environ,
        "DATA_DIR": str(data),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "SMTP_URL": f"smtp://127.0.0.1:{mailbox.port}",
        "PUBLIC_BASE_URL": url,  # the verification link points back here
        "MAIL_POLL_SECONDS": "0.5",
        "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_KIB": "8192",
        "ARGON2_PARALLELISM": "1",
        # every player of a module's tests signs up from 127.0.0.1 (the limit's own tests:
        # tests/process/test_shared_limits.py, tests/api)
        "REGISTRATIONS_PER_IP": "1000",
        # a module's server stops when its tests are done: a hand still in play (a player's
        # clock running out at 10 s a turn) is not played to its end first
        "DRAIN_SECONDS": "0",
        "PYTHONUNBUFFERED": "1",
    }


@contextlib.contextmanager
def serving(data: Path, mailbox: Mailbox) -> Iterator[str]:
    """`python -m app` as its own process, as a player would run it, on `data`."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = server_env(data, url, mailbox)
    log = (data / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # a bound for a server that never comes up, not a speed check: on CI's 2 loaded cores
        # three modules' servers once took over 30 s to answer
        deadline = time.monotonic() + 180
        while True:  # readiness: the health check answers
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {(data / 'server.log').read_text()}")
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                log.flush()
                raise RuntimeError(
                    f"the server did not start in 180 s: {(data / 'server.log').read_text()}"
                )
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def server_url(
    tmp_path_factory: pytest.TempPathFactory, chromium_path: Path, mailbox: Mailbox
) -> Iterator[str]:
    """`python -m app` as its own process, as a player would run it."""
    with serving(tmp_path_factory.mktemp("browser-data"), mailbox) as url:
        yield url


@pytest.fixture(scope="module")
def browser(chromium_path: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(chromium_path), args=FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Screenshots of the key moments (`SCREENSHOTS_DIR` keeps them somewhere known)."""
    wanted = os.environ.get("SCREENSHOTS_DIR")
    if wanted:
        path = Path(wanted)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("screenshots")
