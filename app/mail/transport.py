"""Where messages go: an SMTP server (`SMTP_URL`) or, without one, a local Maildir.

`SMTP_URL` is ``smtp://[user:password@]host[:port]`` (plain, port 25),
``smtp+starttls://…`` (STARTTLS required, port 587) or ``smtps://…`` (TLS from the start,
port 465). User and password are percent-decoded. The server's certificate is verified
against the system's CAs, plus those in `SMTP_CA_FILE` (a PEM bundle) when it is set: a
server with a private or self-signed CA.

A transport raises `TemporaryFailure` (try again later: the server is down, busy, or answered
4xx) or `PermanentFailure` (a 5xx refusal that retrying will not change).
"""

from __future__ import annotations

import asyncio
import mailbox
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

import aiosmtplib


class DeliveryError(Exception):
    """A message that did not go out; `str()` is the reason a player may read."""


class TemporaryFailure(DeliveryError):
    pass


class PermanentFailure(DeliveryError):
    pass


class Transport(Protocol):
    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> str:
        """Deliver `message` to `recipient`; return a short note (the server's answer)."""
        ...


_PORTS = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    use_tls: bool
    start_tls: bool
    username: str | None
    password: str | None
    ca_file: Path | None = None  # CAs to trust besides the system's

    @classmethod
    def from_url(cls, url: str, *, ca_file: Path | None = None) -> SmtpConfig:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _PORTS:
            raise ValueError(
                f"SMTP_URL must start with smtp://, smtp+starttls:// or smtps://, not {scheme!r}"
            )
        if not parts.hostname:
            raise ValueError("SMTP_URL has no host")
        # at start, not as a retried "could not reach the mail server" on every message
        if ca_file is not None and not ca_file.is_file():
            raise ValueError(f"SMTP_CA_FILE {ca_file} is not a file")
        return cls(
            host=parts.hostname,
            port=parts.port or _PORTS[scheme],
            use_tls=scheme == "smtps",
            start_tls=scheme == "smtp+starttls",
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password is not None else None,
            ca_file=ca_file,
        )


class SmtpTransport:
    def __init__(self, config: SmtpConfig, *, timeout: float = 30.0) -> None:
        self.config = config
        self.timeout = timeout

    @classmethod
    def from_url(
        cls, url: str, *, timeout: float = 30.0, ca_file: Path | None = None
    ) -> SmtpTransport:
        return cls(SmtpConfig.from_url(url, ca_file=ca_file), timeout=timeout)

    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> str:
        c = self.config
        try:
            _, answer = await aiosmtplib.send(
                message,
                sender=sender,
                recipients=[recipient],
                hostname=c.host,
                port=c.port,
                username=c.username,
                password=c.password,
                use_tls=c.use_tls,
                start_tls=c.start_tls,
                cert_bundle=str(c.ca_file) if c.ca_file is not None else None,
                timeout=self.timeout,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            refusals = exc.recipients
            codes = [r.code for r in refusals]
            reason = "; ".join(f"{r.code} {r.message}" for r in refusals)
            if codes and all(500 <= code < 600 for code in codes):
                raise PermanentFailure(f"the mail server refused the address: {reason}") from exc
            raise TemporaryFailure(f"the mail server deferred the address: {reason}") from exc
        except aiosmtplib.SMTPAuthenticationError as exc:  # the operator's to fix: keep trying
            raise TemporaryFailure(f"the mail server refused our login: {exc.code}") from exc
        except aiosmtplib.SMTPResponseException as exc:
            detail = f"{exc.code} {exc.message}"
            if 500 <= exc.code < 600:
                raise PermanentFailure(f"the mail server refused the message: {detail}") from exc
            raise TemporaryFailure(f"the mail server deferred the message: {detail}") from exc
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            raise TemporaryFailure(
                f"could not reach the mail server {c.host}:{c.port}: {exc}"
            ) from exc
        return f"accepted by {c.host}:{c.port}: {answer}"


class MaildirTransport:
    """Writes each message into a Maildir (`new/`): the embedded default, nothing is lost."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _add(self, message: EmailMessage, recipient: str) -> str:
        box = mailbox.Maildir(self.path, create=True)
        return box.add(message)

    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> str:
        try:
            key = await asyncio.to_thread(self._add, message, recipient)
        except OSError as exc:
            raise TemporaryFailure(f"could not write to the Maildir {self.path}: {exc}") from exc
        return f"written to the Maildir {self.path} as {key}"


def transport_for(smtp_url: str | None, maildir: Path, *, ca_file: Path | None = None) -> Transport:
    if smtp_url:
        return SmtpTransport.from_url(smtp_url, ca_file=ca_file)
    return MaildirTransport(maildir)
