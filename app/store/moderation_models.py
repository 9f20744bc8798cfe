"""The operators' records: the moderation log (append-only: who did what to whom, why and
when) and the chat lines players reported, with the lines around them as the table kept
them. The role, the ban and the mute are columns of `users` (`models.User`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base
from app.store.types import UTCDateTime, utcnow


class ModerationEntry(Base):
    """One action of an operator (or of a private table's host): never updated nor deleted
    (the code has no statement that would; PostgreSQL refuses both, migration 0900)."""

    __tablename__ = "moderation_log"
    __table_args__ = (Index("ix_moderation_log_target", "target_user_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # who: a user (an operator, a host), or None for the command line
    actor_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    actor: Mapped[str] = mapped_column(String(64))  # their name then, or "command line"
    action: Mapped[str] = mapped_column(String(32))  # "ban", "mute", "host_remove", …
    target_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    table_id: Mapped[int | None] = mapped_column(Integer, default=None)
    reason: Mapped[str] = mapped_column(String(500), default="")
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class ChatReport(Base):
    """A chat line a player reported, with the lines said around it at that table (as the
    table kept them: never the reporter's copy)."""

    __tablename__ = "chat_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    reporter_user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    reported_user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    table_id: Mapped[int] = mapped_column(Integer)
    line: Mapped[str] = mapped_column(String(32))  # the reported line's id at its table
    # [{"line", "user_id", "name", "text"}, …] in the order said, the reported one among them
    context: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    handled_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
