"""SMTP with TLS and a login, spoken to a real server (aiosmtpd) on loopback whose certificate
comes from a test CA (trustme) that only `SMTP_CA_FILE` makes trusted: STARTTLS and implicit
TLS deliver with the right password; a wrong one is refused and the mail waits for a retry;
the password never goes out before TLS; a certificate that does not verify is refused."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from fastapi import FastAPI
from sqlalchemy import select

from app.api.mail import start_mail
from app.config import Settings
from app.mail.history import StoredHistory
from app.mail.requests import MailLimits, request_hands
from app.mail.transport import SmtpConfig, SmtpTransport, TemporaryFailure
from app.mail.worker import MailWorker, WorkerConfig
from app.store.db import Database
from app.store.outbox import MailAttempt, MailRequest
from app.store.types import utcnow
from tests.mail.support import FakeClock, free_port, make_player, store_showdown_hand

USER = "stud-mailer"
PASSWORD = "s3cret:p@ss"  # percent-encoded in the URL
SENDER = "hands@stud.test"
LIMITS = MailLimits(hands_per_hour=100, verifications_per_hour=100)
HISTORY = StoredHistory()  # the real one: hands as stored

# aiosmtpd's own warning for the smtps server (see `TlsSmtpServer`), whose AUTH is over TLS
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@dataclass(frozen=True)
class Login:
    user: str
    accepted: bool
    tls: str | None  # the TLS version the AUTH came over, None in clear


@dataclass(frozen=True)
class Delivery:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    user: str | None  # who had logged in
    tls: str | None

    @property
    def message(self) -> EmailMessage:
        parsed = message_from_bytes(self.data, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


def _tls_version(server: Any) -> str | None:
    # the transport in use now: after STARTTLS, the TLS one
    ssl_object = server.transport.get_extra_info("ssl_object")
    return None if ssl_object is None else str(ssl_object.version())


class TlsSmtpServer:
    """aiosmtpd on 127.0.0.1 that wants TLS and a login as `USER`/`PASSWORD`: TLS from the
    first byte (`implicit`, as smtps:// expects), else STARTTLS before any other command,
    AUTH included (as smtp+starttls:// expects)."""

    def __init__(self, cert: trustme.LeafCert, *, implicit: bool) -> None:
        self.port = free_port()
        self.logins: list[Login] = []
        self.received: list[Delivery] = []
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
        # aiosmtpd sees only its own STARTTLS: on a socket that was TLS from the start it
        # would never offer AUTH if told to want TLS for it (`logins` shows it was TLS)
        tls: dict[str, Any] = (
            {"ssl_context": context, "auth_require_tls": False}
            if implicit
            else {"tls_context": context, "require_starttls": True, "auth_require_tls": True}
        )
        self._controller = Controller(
            self,
            hostname="127.0.0.1",
            port=self.port,
            authenticator=self._authenticate,
            auth_required=True,
            **tls,
        )

    def _authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
    ) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        accepted = (auth_data.login, auth_data.password) == (USER.encode(), PASSWORD.encode())
        self.logins.append(Login(auth_data.login.decode(), accepted, _tls_version(server)))
        if not accepted:  # not handled: aiosmtpd answers 535 itself
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=auth_data)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        # recorded before the 250 goes out: once the client has it, the delivery is here
        user = session.auth_data.login.decode() if session.authenticated else None
        self.received.append(
            Delivery(
                envelope.mail_from,
                list(envelope.rcpt_tos),
                bytes(envelope.content),
                user,
                _tls_version(server),
            )
        )
        return "250 Message accepted for delivery"

    async def start(self) -> None:
        await asyncio.to_thread(self._controller.start)

    async def stop(self) -> None:
        await asyncio.to_thread(self._controller.stop)

    def url(self, scheme: str, password: str = PASSWORD) -> str:
        return f"{scheme}://{quote(USER, safe='')}:{quote(password, safe='')}@127.0.0.1:{self.port}"


MakeServer = Callable[..., Awaitable[TlsSmtpServer]]


@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> Path:
    path = tmp_path / "smtp-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


@pytest.fixture
async def make_server(ca: trustme.CA) -> AsyncIterator[MakeServer]:
    started: list[TlsSmtpServer] = []

    async def make(scheme: str, *, name: str = "127.0.0.1") -> TlsSmtpServer:
        """A server for `scheme`, its certificate (from `ca`) issued for `name`."""
        server = TlsSmtpServer(ca.issue_cert(name), implicit=scheme == "smtps")
        await server.start()
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            await server.stop()


async def _queue_hand(db: Database, now: Any) -> int:
    """bob asks for a stored hand he called down and mucked; its number."""
    users = {s: await make_player(db, name) for s, name in enumerate(["ann", "bob", "cy"])}
    number = await store_showdown_hand(db, {s: u.id for s, u in users.items()})
    await request_hands(db, HISTORY, user_id=users[1].id, now=now, limits=LIMITS, numbers=[number])
    return number


async def _rows(db: Database) -> tuple[list[MailRequest], list[MailAttempt]]:
    async with db.session() as session:
        requests = list(await session.scalars(select(MailRequest).order_by(MailRequest.id)))
        attempts = list(await session.scalars(select(MailAttempt).order_by(MailAttempt.id)))
    return requests, attempts


def _message() -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = SENDER, "bob@example.com", "hello"
    message.set_content("hello\n")
    return message


@pytest.mark.parametrize("scheme", ["smtp+starttls", "smtps"])
async def test_the_right_password_delivers_over_tls(
    scheme: str, db: Database, make_server: MakeServer, ca_file: Path
) -> None:
    server = await make_server(scheme)
    number = await _queue_hand(db, utcnow())
    # the worker as the server starts it, from the settings
    settings = Settings(
        smtp_url=server.url(scheme),
        smtp_ca_file=ca_file,
        mail_from=SENDER,
        site_name="Stud Club",
        mail_worker_enabled=False,
    )
    app = FastAPI()
    app.state.mail_history = HISTORY
    assert await start_mail(app, db, settings).run_once() == 1

    [login] = server.logins
    assert login.user == USER and login.accepted
    assert login.tls is not None and login.tls.startswith("TLSv1")  # AUTH went over TLS
    [got] = server.received
    assert (got.mail_from, got.rcpt_tos, got.user, got.tls) == (
        SENDER,
        ["bob@example.com"],
        USER,
        login.tls,
    )
    message = got.message
    assert message["Subject"] == f"Stud Club: hand #{number}"
    body = message.get_body(("plain",))
    assert (
        body is not None and f"PokerStars Hand #{number}: 7 Card Stud Limit" in body.get_content()
    )
    [request], [attempt] = await _rows(db)
    assert request.status == "sent" and attempt.outcome == "sent"
    assert attempt.detail.startswith(f"accepted by 127.0.0.1:{server.port}")


async def test_a_wrong_password_is_refused_and_the_mail_waits_for_a_retry(
    db: Database,
    clock: FakeClock,
    make_server: MakeServer,
    ca_file: Path,
) -> None:
    server = await make_server("smtp+starttls")
    await _queue_hand(db, clock())

    def worker(url: str) -> MailWorker:
        return MailWorker(
            db,
            SmtpTransport.from_url(url, timeout=5, ca_file=ca_file),
            HISTORY,
            config=WorkerConfig(sender=SENDER),
            clock=clock,
            backoff=lambda attempt: timedelta(seconds=60),
        )

    assert await worker(server.url("smtp+starttls", password="wrong")).run_once() == 1
    assert server.logins and all(
        (login.user, login.accepted) == (USER, False) and login.tls for login in server.logins
    )
    assert server.received == []
    # the operator's to fix, not the player's: kept and tried again later
    [request], [attempt] = await _rows(db)
    assert (request.status, request.attempts, attempt.outcome) == ("queued", 1, "retry")
    assert "the mail server refused our login: 535" in (request.last_error or "")
    assert request.next_attempt_at == clock() + timedelta(seconds=60)

    # the password put right: the retry, once due, delivers
    fixed = worker(server.url("smtp+starttls"))
    assert await fixed.run_once() == 0
    clock.advance(60)
    assert await fixed.run_once() == 1
    assert [(d.rcpt_tos, d.user) for d in server.received] == [(["bob@example.com"], USER)]
    [request], attempts = await _rows(db)
    assert (request.status, request.attempts) == ("sent", 2)
    assert [a.outcome for a in attempts] == ["retry", "sent"]


async def test_without_starttls_the_password_never_goes_out_in_clear(
    make_server: MakeServer, ca_file: Path
) -> None:
    server = await make_server("smtp+starttls")
    plain = SmtpTransport.from_url(server.url("smtp"), timeout=5, ca_file=ca_file)
    with pytest.raises(TemporaryFailure):
        await plain.send(_message(), sender=SENDER, recipient="bob@example.com")
    # the server offers AUTH only after STARTTLS, so a plain client had nothing to log in to
    assert server.logins == [] and server.received == []


@pytest.mark.parametrize("scheme", ["smtp+starttls", "smtps"])
@pytest.mark.parametrize(
    ("trusted", "name"),
    [(False, "127.0.0.1"), (True, "mail.example.org")],
    ids=["unknown-ca", "other-host"],
)
async def test_a_certificate_that_does_not_verify_is_refused(
    scheme: str, trusted: bool, name: str, make_server: MakeServer, ca_file: Path
) -> None:
    server = await make_server(scheme, name=name)
    transport = SmtpTransport.from_url(
        server.url(scheme), timeout=5, ca_file=ca_file if trusted else None
    )
    with pytest.raises(TemporaryFailure, match="CERTIFICATE_VERIFY_FAILED"):
        await transport.send(_message(), sender=SENDER, recipient="bob@example.com")
    assert server.logins == [] and server.received == []  # no password to an unknown server


def test_a_missing_ca_file_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SMTP_CA_FILE"):
        SmtpConfig.from_url("smtps://mail.test", ca_file=tmp_path / "missing.pem")
