"""Typed errors of the store: each carries a stable `code` and a message a player can read."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every refusal the store makes on purpose (never a bug or an outage)."""

    code = "store_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- accounts -------------------------------------------------------------------------------


class AccountError(StoreError):
    code = "account_error"


class InvalidName(AccountError):
    code = "invalid_name"


class NameTaken(AccountError):
    code = "name_taken"


class WeakPassword(AccountError):
    code = "weak_password"


class InvalidEmail(AccountError):
    code = "invalid_email"


class InvalidLanguage(AccountError):
    code = "invalid_language"


class UserNotFound(AccountError):
    code = "no_such_player"


class Banned(AccountError):
    """A banned player's login (`moderation.ban`)."""

    code = "banned"


# --- ledger ---------------------------------------------------------------------------------


class LedgerError(StoreError):
    """A ledger operation was refused; nothing was written."""

    code = "ledger_error"


class InvalidAmount(LedgerError):
    code = "invalid_amount"


class UnbalancedTransaction(LedgerError):
    code = "unbalanced_transaction"


class AccountNotFound(LedgerError):
    code = "account_not_found"


class InsufficientFunds(LedgerError):
    """The move would take an account (or a seat's stack) below zero."""

    code = "insufficient_funds"

    def __init__(self, message: str, *, account: str = "", balance: int = 0, needed: int = 0):
        super().__init__(message)
        self.account = account
        self.balance = balance
        self.needed = needed


class IdempotencyConflict(LedgerError):
    """The key was already posted with different entries: a caller bug, never a retry."""

    code = "idempotency_conflict"


class TableNotFound(LedgerError):
    code = "table_not_found"


class TableClosed(LedgerError):
    code = "table_closed"


class NotSeated(LedgerError):
    code = "not_seated"


class SeatTaken(LedgerError):
    code = "seat_taken"


class InvalidSeat(LedgerError):
    code = "invalid_seat"


class BuyInOutOfRange(LedgerError):
    code = "buy_in_out_of_range"


class TopUpNotAllowed(LedgerError):
    code = "topup_not_allowed"


class TopUpAlreadyClaimed(LedgerError):
    code = "topup_already_claimed"


class TournamentTable(LedgerError):
    """A cash move (buy-in, top-up, cash-out, a settlement) at a tournament's table: its
    seats hold tournament chips, never a player's balance."""

    code = "tournament_table"


# --- tournaments ----------------------------------------------------------------------------


class TournamentNotFound(LedgerError):
    code = "tournament_not_found"


class TournamentClosed(LedgerError):
    """The tournament is over (finished or cancelled): no entry, seat or draw any more."""

    code = "tournament_closed"


class TournamentFull(LedgerError):
    code = "tournament_full"


class AlreadyRegistered(LedgerError):
    """The player has a live entry (registered or playing) in this tournament already."""

    code = "already_registered"


class NotRegistered(LedgerError):
    """The player (or entry) has no entry in the state the request needs."""

    code = "not_registered"


class AddOnTaken(LedgerError):
    code = "add_on_taken"


class TournamentStarting(LedgerError):
    """The director closed registration to draw the seats: an entry made now would be in
    neither the draw nor late registration (which opens once the tournament runs)."""

    code = "tournament_starting"


class AlreadyStarted(LedgerError):
    """The tournament has started (its seats drawn, or being drawn): no unregistering."""

    code = "already_started"


class EntryElsewhere(LedgerError):
    """The entry is seated at another table (or another seat) already."""

    code = "entry_elsewhere"


class PlaceTaken(LedgerError):
    """A place is given once, and an entry gets one place and one prize."""

    code = "place_taken"


class DrawNotFound(LedgerError):
    code = "draw_not_found"


class DrawRevealed(LedgerError):
    """A draw's seed is revealed once; another seed for it is refused."""

    code = "draw_revealed"


# --- several processes ----------------------------------------------------------------------


class LeaseLost(StoreError):
    """A lease moved on (another process claimed the table, or the tournament's director,
    or it was released): a write under the old epoch is refused, in its own transaction,
    and nothing is written. `ids`: the tables (or tournaments, by `noun`) it names."""

    code = "lease_lost"

    def __init__(
        self, message: str, *, ids: frozenset[int] = frozenset(), noun: str = "table"
    ) -> None:
        super().__init__(message)
        self.ids = ids
        self.noun = noun

    @property
    def table_ids(self) -> frozenset[int]:
        return self.ids if self.noun == "table" else frozenset()

    @property
    def tournament_ids(self) -> frozenset[int]:
        return self.ids if self.noun == "tournament" else frozenset()


# --- schema ---------------------------------------------------------------------------------


class SchemaError(RuntimeError):
    """The database schema does not match this code (too new, or behind with auto-upgrade off)."""


class ProcessRefused(RuntimeError):
    """Another live server process uses this database in a way this one cannot share (SQLite,
    or in-process fan-out): this process must not run tables. The message says what to set."""
