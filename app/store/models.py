"""The tables of the house: accounts, sessions, the double-entry ledger, poker tables and seats.

Money columns are integers in the table's smallest chip unit. The database itself refuses a
negative balance (player, escrow, house, prize pool) and a negative stack: the code checks
first to give a clear error, the CHECK constraints are the guarantee. Later migrations add
hands, the mail outbox, processes and table leases, and tournaments; keep this module in step
with `migrations/versions`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
    func,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.store.base import Base as Base  # every model module derives from it
from app.store.types import BigId, UTCDateTime, utcnow


def _created() -> Mapped[datetime]:
    return mapped_column(UTCDateTime, default=utcnow, server_default=func.current_timestamp())


class AccountKind(StrEnum):
    PLAYER = "player"  # a user's chips off the tables
    ESCROW = "escrow"  # the chips seated at one table
    HOUSE = "house"  # rake
    BANK = "bank"  # issues play money; the only account that may go negative
    PRIZE_POOL = "prize_pool"  # one tournament's buy-ins, until paid out as prizes


class TxKind(StrEnum):
    SIGNUP_GRANT = "signup_grant"
    DAILY_TOPUP = "daily_topup"
    BUY_IN = "buy_in"
    CASH_OUT = "cash_out"
    HAND_SETTLEMENT = "hand_settlement"
    TRANSFER = "transfer"  # generic: operator adjustments, grants
    TOURNAMENT_ENTRY = "tournament_entry"  # an entry, re-entry, rebuy or add-on: price and fee
    TOURNAMENT_REFUND = "tournament_refund"  # both back (unregistered, or cancelled)
    TOURNAMENT_PRIZE = "tournament_prize"  # the prize pool pays a place
    ADJUSTMENT = "adjustment"  # an operator corrects a balance (bank <-> player), with a reason


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    # casefolded name: names are unique whatever their case
    name_key: Mapped[str] = mapped_column(String(32), unique=True)
    email: Mapped[str] = mapped_column(String(254), index=True)
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = _created()
    # the site's and the emails' language: "en", "nl" or "de" (accounts.LANGUAGES)
    language: Mapped[str] = mapped_column(String(5), default="en", server_default="en")
    # moderation (migration 0900): "operator" may use the admin page; a ban refuses every
    # login and session; a mute refuses chat until then (`moderation.FOREVER`: for good)
    role: Mapped[str] = mapped_column(String(16), default="player", server_default="player")
    banned_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    muted_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class AuthSession(Base):
    """One login. The bearer token and the cookie carry the same token; only its hash is kept."""

    __tablename__ = "auth_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = _created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


# the ledger_accounts CHECKs (migration 0700 widened them for prize pools)
ACCOUNT_KINDS = "kind IN ('player', 'escrow', 'house', 'bank', 'prize_pool')"
ACCOUNT_OWNERS = (
    "(kind = 'player' AND user_id IS NOT NULL AND table_id IS NULL)"
    " OR (kind = 'escrow' AND table_id IS NOT NULL AND user_id IS NULL)"
    " OR (kind IN ('house', 'bank', 'prize_pool') AND user_id IS NULL AND table_id IS NULL)"
)


class LedgerAccount(Base):
    __tablename__ = "ledger_accounts"
    __table_args__ = (
        CheckConstraint(ACCOUNT_KINDS, name="kind"),
        CheckConstraint(ACCOUNT_OWNERS, name="owner"),
        # The guarantee behind "a balance never goes below zero": only the issuer may.
        CheckConstraint("kind = 'bank' OR balance >= 0", name="balance_nonnegative"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    # "bank", "house", "player:<user id>", "escrow:<table id>", "prize_pool:<tournament id>"
    code: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    table_id: Mapped[int | None] = mapped_column(ForeignKey("poker_tables.id"), default=None)
    balance: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    created_at: Mapped[datetime] = _created()


class LedgerTransaction(Base):
    __tablename__ = "ledger_transactions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    # "<kind>:<caller's key>": a retried request posts once
    idempotency_key: Mapped[str] = mapped_column(String(255), unique=True)
    memo: Mapped[str] = mapped_column(String(500), default="", server_default="")
    created_at: Mapped[datetime] = _created()


class LedgerEntry(Base):
    __tablename__ = "ledger_entries"
    __table_args__ = (
        UniqueConstraint("transaction_id", "account_id"),
        CheckConstraint("amount <> 0", name="amount_nonzero"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("ledger_transactions.id"))
    account_id: Mapped[int] = mapped_column(ForeignKey("ledger_accounts.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)


class PokerTable(Base):
    """A table's settings (docs/rules.md R1–R4, R19, R22, R25), so it comes back after a restart."""

    __tablename__ = "poker_tables"
    __table_args__ = (
        CheckConstraint("variant IN ('stud', 'stud8', 'razz')", name="variant"),
        CheckConstraint("small_bet > 0 AND big_bet >= small_bet", name="bets"),
        CheckConstraint("ante >= 0 AND bring_in > 0 AND bring_in <= small_bet", name="forced"),
        CheckConstraint("max_seats BETWEEN 2 AND 8", name="max_seats"),
        CheckConstraint("rake_bps BETWEEN 0 AND 10000 AND rake_cap >= 0", name="rake"),
        CheckConstraint("action_timer_ms > 0 AND hand_pause_ms >= 0", name="timers"),
        CheckConstraint("timeout_action IN ('all_in', 'fold')", name="timeout_action"),
        CheckConstraint(
            "showdown_first_when_checked IN ('first_to_act', 'lowest_seat')", name="showdown"
        ),
        CheckConstraint("status IN ('open', 'closed')", name="status"),
        CheckConstraint("max_buy_in IS NULL OR max_buy_in > 0", name="max_buy_in"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    variant: Mapped[str] = mapped_column(String(8), default="stud")
    small_bet: Mapped[int] = mapped_column(BigInteger)
    big_bet: Mapped[int] = mapped_column(BigInteger)
    ante: Mapped[int] = mapped_column(BigInteger, default=0)
    bring_in: Mapped[int] = mapped_column(BigInteger)
    max_buy_in: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_seats: Mapped[int] = mapped_column(Integer, default=8)
    action_timer_ms: Mapped[int] = mapped_column(Integer, default=10_000)
    hand_pause_ms: Mapped[int] = mapped_column(Integer, default=3_000)
    rake_bps: Mapped[int] = mapped_column(Integer, default=0)
    rake_cap: Mapped[int] = mapped_column(BigInteger, default=0)
    rake_third_street: Mapped[bool] = mapped_column(Boolean, default=False)
    timeout_action: Mapped[str] = mapped_column(String(16), default="all_in")
    showdown_first_when_checked: Mapped[str] = mapped_column(String(16), default="first_to_act")
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite_token: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)
    host_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    # a tournament's table: its seats hold tournament chips, outside the ledger
    tournament_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id"), index=True, default=None
    )
    status: Mapped[str] = mapped_column(String(16), default="open")
    # settings added later without a migration; typed columns are preferred
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # the table's own stacks, {"seat": [user id, stack]}, written with each chip move it
    # makes; `ledger check` compares them with the seats (the ledger's)
    stacks: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = _created()

    # loaded by `app.store.table_rows` (get_table, open_tables); never lazily
    seats: Mapped[list[Seat]] = relationship(
        order_by="Seat.seat_no", lazy="raise_on_sql", viewonly=True
    )

    @property
    def min_buy_in(self) -> int:
        """R3: at least ten small bets."""
        return 10 * self.small_bet


class Seat(Base):
    """A player seated at a table with their stack; the table's escrow holds exactly these."""

    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("table_id", "seat_no"),
        UniqueConstraint("table_id", "user_id"),
        CheckConstraint("seat_no >= 0", name="seat_no"),
        CheckConstraint("stack >= 0", name="stack_nonnegative"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("poker_tables.id"))
    seat_no: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    stack: Mapped[int] = mapped_column(BigInteger, default=0)
    sitting_out: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = _created()


# The mail outbox's tables live in their own module, and so do the hand records', the
# leases' and the tournaments'; importing them here registers them.
from app.store import hand_models as _hand_models  # noqa: E402, F401
from app.store import lease_models as _lease_models  # noqa: E402, F401
from app.store import moderation_models as _moderation_models  # noqa: E402, F401
from app.store import outbox as _outbox  # noqa: E402, F401
from app.store import tournament_models as _tournament_models  # noqa: E402, F401


class AllInProtection(Base):
    """R19: an all-in protection a player used (at most two in any 24 hours, every table)."""

    __tablename__ = "all_in_protections"
    __table_args__ = (
        UniqueConstraint("user_id", "hand_id"),  # a hand protects a player once
        Index("ix_all_in_protections_user_used", "user_id", "used_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    hand_id: Mapped[str] = mapped_column(String(32))
    used_at: Mapped[datetime] = mapped_column(UTCDateTime)
