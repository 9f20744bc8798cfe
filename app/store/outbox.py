"""The mail outbox: requests to email hand histories (or a verification link), each attempt to
send one, and the email-verification tokens (only their hashes).

A request row is the promise that a message will go out: it is written in the same database as
everything else, and a worker (`app.mail.worker`) claims it with a lease (`lease_owner`,
`lease_until`) so that two server processes never send the same row at once.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, Integer, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base
from app.store.types import BigId, UTCDateTime, utcnow


class MailKind(StrEnum):
    HANDS = "hands"  # one or more hand histories
    VERIFY = "verify"  # the email-verification link
    TOURNAMENT = "tournament"  # a tournament's summary, to one entrant


class MailStatus(StrEnum):
    QUEUED = "queued"  # waiting for its (next) attempt
    SENT = "sent"
    FAILED = "failed"  # given up: `last_error` says why


class AttemptOutcome(StrEnum):
    SENT = "sent"
    RETRY = "retry"  # a temporary failure: another attempt is scheduled
    FAILED = "failed"  # a permanent failure, or the last attempt


class MailRequest(Base):
    __tablename__ = "mail_requests"
    __table_args__ = (
        CheckConstraint("kind IN ('hands', 'verify', 'tournament')", name="kind"),
        CheckConstraint("status IN ('queued', 'sent', 'failed')", name="status"),
        Index("ix_mail_requests_due", "status", "next_attempt_at"),
        Index("ix_mail_requests_user_created", "user_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    to_address: Mapped[str] = mapped_column(String(254))
    # kind "hands": {"hand_ids": [...]}, the hands' numbers (a stored name, kept);
    # kind "verify": {"token": ..., "url": ...} until sent; kind "tournament":
    # {"tournament_id": ...}
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default=MailStatus.QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    lease_owner: Mapped[str | None] = mapped_column(String(64), default=None)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    message_id: Mapped[str | None] = mapped_column(String(255), default=None)
    created_at: Mapped[datetime] = mapped_column(
        UTCDateTime, default=utcnow, server_default=func.current_timestamp()
    )
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class MailAttempt(Base):
    """One try at sending a request, and how it went."""

    __tablename__ = "mail_attempts"
    __table_args__ = (CheckConstraint("outcome IN ('sent', 'retry', 'failed')", name="outcome"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    request_id: Mapped[int] = mapped_column(
        ForeignKey("mail_requests.id", ondelete="CASCADE"), index=True
    )
    attempt_no: Mapped[int] = mapped_column(Integer)
    worker: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime)
    outcome: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str] = mapped_column(Text, default="")


class EmailVerification(Base):
    """A verification link sent to `email`; only the token's SHA-256 is kept."""

    __tablename__ = "email_verifications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(
        UTCDateTime, default=utcnow, server_default=func.current_timestamp()
    )
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
