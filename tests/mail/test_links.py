"""Links in mail name the address the server was started on: `python -m app --port N` (the
command line over the environment), as a real process writing to its Maildir."""

from __future__ import annotations

import email
import re
import subprocess
import sys
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path

import httpx

from tests.serverproc import ROOT
from tests.serverproc import free_port as _free_port
from tests.serverproc import server_env as _env

PASSWORD = "a long pass phrase"


def _wait_for_health(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)


def _wait_for_mail(maildir: Path) -> str:
    deadline = time.monotonic() + 30
    while True:
        found = list((maildir / "new").glob("*")) if (maildir / "new").is_dir() else []
        if found:
            message = email.message_from_bytes(found[0].read_bytes(), policy=policy.default)
            assert isinstance(message, EmailMessage)
            return str(message.get_content())
        assert time.monotonic() < deadline, "no verification mail arrived"
        time.sleep(0.1)


def test_verification_link_follows_port_given_on_the_command_line(tmp_path: Path) -> None:
    port = _free_port()
    env = _env(tmp_path)
    for name in ("PUBLIC_BASE_URL", "SMTP_URL", "MAILDIR", "HOST"):
        env.pop(name, None)
    env["PORT"] = "9"  # the command line wins over the environment
    log = tmp_path / "server.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        _wait_for_health(proc, port, log)
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=10) as http:
            reply = http.post(
                "/api/register",
                json={"name": "ann", "password": PASSWORD, "email": "ann@example.com"},
            )
            assert reply.status_code == 201, reply.text
            token = http.post("/api/login", json={"name": "ann", "password": PASSWORD}).json()
            auth = {"Authorization": f"Bearer {token['token']}"}
            assert http.post("/api/mail/verification", headers=auth).status_code == 202
            mail = _wait_for_mail(tmp_path / "maildir")
            link = re.search(r"(http://\S+)/api/mail/verify\?token=(\S+)", mail)
            assert link is not None, mail
            assert link[1] == base
            verified = http.get(f"/api/mail/verify?token={link[2]}")
            assert verified.json() == {"verified": True, "email": "ann@example.com"}
    finally:
        proc.kill()
        proc.wait()
