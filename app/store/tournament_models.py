"""Tournaments: the tournament's settings and the director's state, its entries, and its
provably fair draws (the director's lease is `lease_models.TournamentLease`).

A tournament's tables are ordinary `poker_tables` rows with its `tournament_id`; their seats
hold tournament chips, never a player's balance. The only money is the buy-ins and fees:
player -> the tournament's prize pool account (`prize_pool:<id>`) and the house, back on a
refund, pool -> player for a prize (`app.store.tournaments`). Chips are counted on the
entries: `tournaments.issued` is every chip ever handed out (entries, rebuys, add-ons, less
the entries unregistered), and the entries' chips always sum to it (`ledger check`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import JSON, BigInteger, Boolean, Integer, String, Text

from app.store.base import Base
from app.store.types import UTCDateTime, utcnow


class TournamentStatus(StrEnum):
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class EntryStatus(StrEnum):
    REGISTERED = "registered"  # paid, not seated yet
    PLAYING = "playing"  # in play: at a table, or in transit between two (table_id NULL)
    BUSTED = "busted"  # out, with the hand it went out in
    UNREGISTERED = "unregistered"  # refunded before playing


OVER = (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
LIVE = (EntryStatus.REGISTERED, EntryStatus.PLAYING)  # at most one per player and tournament


VARIANTS = ("stud", "stud8", "razz", "rotation")  # a rotation deals the three by level
START_MODES = ("scheduled", "full")  # at a time, or once max_players are in


PRICES = "buy_in >= 0 AND fee >= 0 AND starting_chips > 0"
PLAYERS = "min_players >= 2 AND max_players >= min_players AND seats_per_table BETWEEN 2 AND 8"
COUNTS = "late_levels >= 0 AND bots >= 0 AND issued >= 0 AND prize_pool >= 0"


def _among(column: str, values: Iterable[str]) -> CheckConstraint:
    """The CHECK that `column` holds one of `values`, named after it."""
    listed = ", ".join(f"'{value}'" for value in values)
    return CheckConstraint(f"{column} IN ({listed})", name=column)


def _when() -> Mapped[datetime | None]:
    return mapped_column(UTCDateTime, default=None)


class Tournament(Base):
    __tablename__ = "tournaments"
    __table_args__ = (
        _among("variant", VARIANTS),
        _among("status", TournamentStatus),
        _among("start_mode", START_MODES),
        CheckConstraint(PRICES, name="prices"),
        CheckConstraint(PLAYERS, name="players"),
        CheckConstraint(COUNTS, name="counts"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(Text, default="")
    host_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite_token: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)
    variant: Mapped[str] = mapped_column(String(8))
    seats_per_table: Mapped[int] = mapped_column(Integer)
    buy_in: Mapped[int] = mapped_column(BigInteger)  # to the prize pool
    fee: Mapped[int] = mapped_column(BigInteger)  # to the house
    starting_chips: Mapped[int] = mapped_column(BigInteger)
    structure: Mapped[dict[str, Any]] = mapped_column(JSON)  # the engine's Structure.to_dict
    payouts: Mapped[str] = mapped_column(String(32))
    min_players: Mapped[int] = mapped_column(Integer)
    max_players: Mapped[int] = mapped_column(Integer)
    start_mode: Mapped[str] = mapped_column(String(16))
    opens_at: Mapped[datetime | None] = _when()
    starts_at: Mapped[datetime | None] = _when()
    late_levels: Mapped[int] = mapped_column(Integer, default=0)
    reentry: Mapped[bool] = mapped_column(Boolean, default=False)
    rebuy: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    action_timer_ms: Mapped[int] = mapped_column(Integer)
    time_bank_ms: Mapped[int] = mapped_column(Integer)
    # what each level adds to every time bank (R27)
    time_bank_refill_ms: Mapped[int] = mapped_column(Integer, default=5_000, server_default="5000")
    pause_allowance_ms: Mapped[int] = mapped_column(Integer)
    hand_pause_ms: Mapped[int] = mapped_column(Integer)
    bot_delay_ms: Mapped[int] = mapped_column(Integer)
    bots: Mapped[int] = mapped_column(Integer, default=0)  # seats the host asked bots to fill
    # the director's: the state of play
    status: Mapped[str] = mapped_column(String(16), default=TournamentStatus.REGISTERING)
    frozen: Mapped[bool] = mapped_column(Boolean, default=False)
    level: Mapped[int] = mapped_column(Integer, default=0)
    # the clock: time spent in the current level while running, as of `clock_at` (None
    # while the clock is stopped)
    level_elapsed_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    clock_at: Mapped[datetime | None] = _when()
    level_hands: Mapped[int] = mapped_column(Integer, default=0)
    hand_for_hand: Mapped[bool] = mapped_column(Boolean, default=False)
    prize_pool: Mapped[int] = mapped_column(BigInteger, default=0)
    prizes: Mapped[list[int] | None] = mapped_column(JSON, default=None)  # fixed at the start
    break_order: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = _when()
    finished_at: Mapped[datetime | None] = _when()
    state: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # the director's own
    # the store's: every tournament chip handed out (entries, rebuys, add-ons), less those
    # of entries unregistered; the entries' chips sum to it
    issued: Mapped[int] = mapped_column(BigInteger, default=0)


# what the director writes (`tournaments.save_director`); the rest are settings and the store's
DIRECTOR_COLUMNS = (
    "status", "frozen", "level", "level_elapsed_ms", "clock_at", "level_hands",
    "hand_for_hand", "prize_pool", "prizes", "break_order", "started_at", "finished_at",
    "state",
)  # fmt: skip
SETTING_COLUMNS = tuple(
    c.key
    for c in Tournament.__table__.columns
    if c.key not in (*DIRECTOR_COLUMNS, "id", "created_at", "issued")
)


class TournamentEntry(Base):
    """One paid entry: a player's first (`number` 1) or a re-entry (2, 3, …)."""

    __tablename__ = "tournament_entries"
    __table_args__ = (
        UniqueConstraint("tournament_id", "user_id", "number"),
        UniqueConstraint("tournament_id", "place"),  # places given once
        # a player has at most one live entry in a tournament
        Index(
            "uq_tournament_entries_live",
            "tournament_id",
            "user_id",
            unique=True,
            sqlite_where=text("status IN ('registered', 'playing')"),
            postgresql_where=text("status IN ('registered', 'playing')"),
        ),
        Index("ix_tournament_entries_table_id", "table_id"),
        Index("ix_tournament_entries_user_id", "user_id"),
        _among("status", EntryStatus),
        CheckConstraint("chips >= 0", name="chips_nonnegative"),
        CheckConstraint("number >= 1", name="number"),
        CheckConstraint("paid >= 0 AND fees >= 0 AND (prize IS NULL OR prize >= 0)", name="money"),
        CheckConstraint("(table_id IS NULL) = (seat IS NULL)", name="seated"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default=EntryStatus.REGISTERED)
    chips: Mapped[int] = mapped_column(BigInteger, default=0)  # the stack as last written
    table_id: Mapped[int | None] = mapped_column(ForeignKey("poker_tables.id"), default=None)
    seat: Mapped[int | None] = mapped_column(Integer, default=None)
    moves: Mapped[int] = mapped_column(Integer, default=0)  # times moved to another table
    place: Mapped[int | None] = mapped_column(Integer, default=None)
    prize: Mapped[int | None] = mapped_column(BigInteger, default=None)
    bust_hand: Mapped[int | None] = mapped_column(BigInteger, default=None)  # hand number
    bust_round: Mapped[int | None] = mapped_column(Integer, default=None)  # hand-for-hand round
    bust_stack: Mapped[int | None] = mapped_column(BigInteger, default=None)  # at its start
    rebuys: Mapped[int] = mapped_column(Integer, default=0)
    addon: Mapped[bool] = mapped_column(Boolean, default=False)
    # the entrant's seed for the tournament's draws (hex; optional, given at registration)
    seed: Mapped[str | None] = mapped_column(String(64), default=None)
    bot: Mapped[bool] = mapped_column(
        Boolean, default=False
    )  # a bot's entry (sit & go fill, tests)
    time_bank_ms: Mapped[int] = mapped_column(BigInteger)
    pause_left_ms: Mapped[int] = mapped_column(BigInteger)
    registered_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # the money: prices paid into the pool, fees to the house (entry, rebuys, add-on), and
    # whether both went back (unregistered, or the tournament cancelled)
    paid: Mapped[int] = mapped_column(BigInteger, default=0)
    fees: Mapped[int] = mapped_column(BigInteger, default=0)
    refunded: Mapped[bool] = mapped_column(Boolean, default=False)


class TournamentDraw(Base):
    """A random draw (seats, table breaks): its commitment published before use, its seed
    revealed after (R38)."""

    __tablename__ = "tournament_draws"
    __table_args__ = (UniqueConstraint("tournament_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, … in the tournament
    purpose: Mapped[str] = mapped_column(String(64))
    scheme: Mapped[str] = mapped_column(String(32))
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str | None] = mapped_column(String(64), default=None)  # hex, once used
    result: Mapped[Any] = mapped_column(JSON, nullable=True, default=None)
    made_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
