"""Hand records: one row per hand dealt (live, done or void) and one per player dealt in.

A hand's row is written twice. At the start, only what is not secret: the table, stakes,
button, seats with their starting stacks and the deal's commitment (status ``live``). At the
end, in the same transaction as its ledger settlement: every event in order (down cards
included), the inputs that drove it, the result, and the deck and salt that open the
commitment (status ``done``). A ``live`` row found at start-up is a hand the server died in:
it becomes ``void`` (its chips never moved).

Every hand has a short number that grows (`number`): what players see and use to find it.
Tables take numbers a block at a time from the one `HandCounter` row (see `hands.reserve_numbers`);
the `id` is an unguessable string that stays inside the server.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base
from app.store.types import UTCDateTime, utcnow


class HandStatus(StrEnum):
    LIVE = "live"  # being played: nothing secret is stored
    DONE = "done"  # finished and settled
    VOID = "void"  # interrupted (server stopped): no chips moved


class HandRecord(Base):
    __tablename__ = "hands"
    __table_args__ = (
        CheckConstraint("status IN ('live', 'done', 'void')", name="status"),
        CheckConstraint("variant IN ('stud', 'stud8', 'razz')", name="variant"),
        Index("ix_hands_table_started", "table_id", "started_at"),
        Index("ix_hands_status_ended", "status", "ended_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # internal, never shown
    number: Mapped[int] = mapped_column(BigInteger, unique=True)  # the hand's number, shown
    table_id: Mapped[int] = mapped_column(ForeignKey("poker_tables.id"))
    table_name: Mapped[str] = mapped_column(String(64))
    max_seats: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(8))
    # ante, bring_in, small_bet, big_bet, rake_bps, rake_cap, rake_third_street, ...
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    button: Mapped[int] = mapped_column(Integer)
    # [{"seat", "user_id", "name", "stack"}]: starting stacks, by seat
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    commitment: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(8), default=HandStatus.LIVE)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # written when the hand is over: the master salt (hex; operators only) and the deck
    salt: Mapped[str | None] = mapped_column(String(64), default=None)
    deck: Mapped[str | None] = mapped_column(String(104), default=None)
    # seeded-v2 (written when the hand is over): deal_committed's public fields and, for
    # the operators, the server seed, the seeds and the slot cards (app.tables.seeds)
    deal: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    events: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=None)
    inputs: Mapped[list[list[Any]] | None] = mapped_column(JSON, default=None)
    # {"pots", "awards", "stacks", "deltas", "showdown", "street"}
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    rake: Mapped[int] = mapped_column(BigInteger, default=0)
    void_reason: Mapped[str | None] = mapped_column(String(200), default=None)
    # a tournament's hand: its tournament and level (its chips are tournament chips)
    tournament_id: Mapped[int | None] = mapped_column(Integer, index=True, default=None)
    level: Mapped[int | None] = mapped_column(Integer, default=None)


class HandPlayer(Base):
    """A user dealt into a hand: what a player's history lists."""

    __tablename__ = "hand_players"
    __table_args__ = (Index("ix_hand_players_user_started", "user_id", "started_at"),)

    hand_id: Mapped[str] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    seat_no: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)


class HandCounter(Base):
    """One row: the next hand number no table holds yet. A table reserves a block by moving
    it on (`UPDATE … RETURNING`), so several server processes never share a number."""

    __tablename__ = "hand_counter"
    __table_args__ = (
        CheckConstraint("id = 1", name="one_row"),
        CheckConstraint("next_number >= 1", name="positive"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    next_number: Mapped[int] = mapped_column(BigInteger)
