"""Accepting mail requests into the outbox, and verifying addresses.

A player may have hand histories mailed only to a verified address, only for hands they were
dealt into (docs/rules.md R24), and at most `hands_per_hour` requests an hour (verification links:
`verifications_per_hour`). The count is of accepted requests in the database, so it holds
across server processes; the player's row is locked while counting so two requests at once
cannot both slip under the limit.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.mail.errors import (
    AlreadyVerified,
    EmailNotVerified,
    InvalidToken,
    NoHands,
    NotDealtIn,
    RateLimited,
    TokenExpired,
)
from app.mail.history import HistorySource
from app.store.db import Database
from app.store.models import User
from app.store.outbox import EmailVerification, MailKind, MailRequest, MailStatus

MAX_HANDS = 100
WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class MailLimits:
    hands_per_hour: int = 10
    verifications_per_hour: int = 3
    verify_hours: float = 48.0

    @classmethod
    def from_settings(cls, settings: Settings) -> MailLimits:
        return cls(
            hands_per_hour=settings.mail_hands_per_hour,
            verifications_per_hour=settings.mail_verifications_per_hour,
            verify_hours=settings.mail_verify_hours,
        )

    def per_hour(self, kind: MailKind) -> int:
        return self.hands_per_hour if kind is MailKind.HANDS else self.verifications_per_hour


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _user(session: AsyncSession, user_id: int, *, lock: bool = False) -> User:
    query = select(User).where(User.id == user_id)
    user = (await session.execute(query.with_for_update() if lock else query)).scalar_one()
    return user


async def _check_rate(
    session: AsyncSession, user_id: int, kind: MailKind, limits: MailLimits, now: datetime
) -> None:
    since = now - WINDOW
    count, oldest = (
        await session.execute(
            select(func.count(), func.min(MailRequest.created_at)).where(
                MailRequest.user_id == user_id,
                MailRequest.kind == kind,
                MailRequest.created_at > since,
            )
        )
    ).one()
    limit = limits.per_hour(kind)
    if count < limit:
        return
    wait = max(1, math.ceil((oldest + WINDOW - now).total_seconds())) if oldest else 60
    what = "hand-history emails" if kind is MailKind.HANDS else "verification emails"
    raise RateLimited(
        f"you may ask for {limit} {what} an hour; try again in {_minutes(wait)}", wait
    )


def _minutes(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


async def request_hands(
    db: Database,
    source: HistorySource,
    *,
    user_id: int,
    now: datetime,
    limits: MailLimits,
    numbers: Sequence[int] = (),
    last: int | None = None,
) -> MailRequest:
    """Queue an email of the hands numbered `numbers` (or of the player's `last` hands) to
    the player's verified address. Raises a `MailError` saying why not."""
    async with db.session() as session:
        user = await _user(session, user_id)
        if not user.email_verified:
            raise EmailNotVerified(
                f"verify your email address {user.email} first: ask for a verification "
                "link, then open it"
            )
        await _check_rate(session, user_id, MailKind.HANDS, limits, now)
    ids = await _hand_numbers(db, source, user_id, numbers, last)
    async with db.transaction() as session:
        user = await _user(session, user_id, lock=True)
        await _check_rate(session, user_id, MailKind.HANDS, limits, now)
        request = MailRequest(
            user_id=user_id,
            kind=MailKind.HANDS,
            to_address=user.email,
            payload={"hand_ids": ids},  # the hands' numbers (a stored name: kept)
            status=MailStatus.QUEUED,
            next_attempt_at=now,
            created_at=now,
        )
        session.add(request)
    return request


async def _hand_numbers(
    db: Database, source: HistorySource, user_id: int, numbers: Sequence[int], last: int | None
) -> list[int]:
    if last is not None:
        ids = await source.recent_hands(db, user_id, min(max(last, 1), MAX_HANDS))
        if not ids:
            raise NoHands("you have not been dealt into any finished hand yet")
        return ids
    ids = list(dict.fromkeys(numbers))
    if not ids:
        raise NoHands("name at least one hand")
    if len(ids) > MAX_HANDS:
        raise NoHands(f"at most {MAX_HANDS} hands per email")
    for number in ids:
        if await source.load(db, number, user_id) is None:
            raise NotDealtIn(
                f"you were not dealt into hand #{number} (or there is no such hand): only "
                "the players dealt into a hand may have its history emailed"
            )
    return ids


async def request_verification(
    db: Database, *, user_id: int, base_url: str, now: datetime, limits: MailLimits
) -> MailRequest:
    """Queue an email with a link that verifies the player's address. Only the token's hash
    is kept in `email_verifications`; the link itself leaves the outbox row once sent."""
    async with db.transaction() as session:
        user = await _user(session, user_id, lock=True)
        if user.email_verified:
            raise AlreadyVerified(f"your email address {user.email} is already verified")
        await _check_rate(session, user_id, MailKind.VERIFY, limits, now)
        token = secrets.token_urlsafe(32)
        session.add(
            EmailVerification(
                user_id=user_id,
                email=user.email,
                token_hash=token_hash(token),
                created_at=now,
                expires_at=now + timedelta(hours=limits.verify_hours),
            )
        )
        request = MailRequest(
            user_id=user_id,
            kind=MailKind.VERIFY,
            to_address=user.email,
            payload={
                "url": f"{base_url}/api/mail/verify?token={quote(token)}",
                "hours": limits.verify_hours,
            },
            status=MailStatus.QUEUED,
            next_attempt_at=now,
            created_at=now,
        )
        session.add(request)
    return request


async def verify(db: Database, token: str, *, now: datetime) -> str:
    """Mark the address the token was sent to as verified; returns it."""
    invalid = InvalidToken("this verification link is not valid: ask for a new one")
    if not token or len(token) > 200:
        raise invalid
    async with db.transaction() as session:
        row = (
            await session.execute(
                select(EmailVerification).where(EmailVerification.token_hash == token_hash(token))
            )
        ).scalar_one_or_none()
        if row is None:
            raise invalid
        user = await _user(session, row.user_id, lock=True)
        if user.email != row.email:
            raise InvalidToken(
                "this link was sent to an address that is no longer your account's: "
                "ask for a new one"
            )
        if row.used_at is not None:
            if user.email_verified:
                return user.email
            raise invalid
        if row.expires_at <= now:
            raise TokenExpired("this verification link has expired: ask for a new one")
        row.used_at = now
        user.email_verified = True
        return user.email


async def list_requests(db: Database, user_id: int, limit: int = 50) -> list[MailRequest]:
    """The player's latest requests, newest first."""
    async with db.session() as session:
        rows = await session.execute(
            select(MailRequest)
            .where(MailRequest.user_id == user_id)
            .order_by(MailRequest.id.desc())
            .limit(limit)
        )
        return list(rows.scalars())
