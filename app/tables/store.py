"""The port through which a table reaches the database (`TableStore`) and what it gets back
(`StoredTable`, `StoredSeat`): its settings, its seats, and every chip it moves. The real one
is `app.tables.ledger_store.LedgerTableStore`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from app.store import hands
from app.tables.settings import TableSettings


@dataclass(slots=True)
class StoredSeat:
    seat_no: int
    user_id: int
    name: str
    stack: int
    sitting_out: bool
    is_bot: bool


@dataclass(slots=True)
class StoredTable:
    table_id: int
    settings: TableSettings
    host_user_id: int | None
    invite_token: str | None
    password_hash: str | None
    members: set[int] = field(default_factory=set)
    seats: list[StoredSeat] = field(default_factory=list)
    button: int = -1  # the button of the table's last hand (R5 moves it on)
    hands_recorded: int = 0  # its finished hands recorded so far (the table-local count)
    voided: list[dict[str, Any]] = field(default_factory=list)  # hands voided at start-up
    tournament_id: int | None = None  # a tournament's table
    limits: dict[int, Limits] = field(default_factory=dict)  # the host's per player (R43)
    muted: set[int] = field(default_factory=set)  # players the host muted at this table
    waiting: list[tuple[int, str]] = field(default_factory=list)  # its waiting list (R44)
    # its last finished hand's variant and place in the rotation (R45), if it has one
    last_hand: dict[str, Any] | None = None


class TableStore(Protocol):
    owner: str  # the server process the store writes for (its leases name it)

    async def create(
        self,
        settings: TableSettings,
        *,
        host_user_id: int | None,
        invite_token: str | None,
        password_hash: str | None,
        tournament_id: int | None = None,
    ) -> int: ...
    async def claim_open(
        self, limit: int | None = None, only: Collection[int] | None = None
    ) -> list[int]: ...
    def holds(self, table_id: int) -> bool: ...
    async def renew_leases(self) -> set[int]: ...
    async def release(self, table_ids: list[int]) -> None: ...
    async def release_all(self) -> None: ...
    async def give(self, table_ids: list[int], to: str) -> list[int]: ...
    async def take_back(self, table_id: int) -> bool: ...
    async def load_open(self, table_ids: Collection[int] | None = None) -> list[StoredTable]: ...
    async def buy_in(
        self, table_id: int, user_id: int, seat_no: int, amount: int, key: str, stacks: Stacks
    ) -> bool: ...
    async def top_up(
        self, table_id: int, user_id: int, amount: int, key: str, stacks: Stacks
    ) -> bool: ...
    async def cash_out(self, table_id: int, user_id: int, key: str, stacks: Stacks) -> int: ...
    async def seat_entries(
        self, table_id: int, seats: Mapping[int, int], stacks: Stacks
    ) -> None: ...
    async def unseat_entries(
        self, table_id: int, entry_ids: Sequence[int], stacks: Stacks
    ) -> dict[int, int]: ...
    async def add_entry_chips(
        self, table_id: int, user_id: int, chips: EntryChips, stacks: Stacks
    ) -> bool: ...
    async def claim_protection(
        self, table_id: int, user_id: int, hand_id: str, now: float
    ) -> bool: ...
    async def save_settings(self, table_id: int, settings: TableSettings) -> None: ...
    async def save_state(
        self,
        table_id: int,
        *,
        members: set[int],
        bots: set[int],
        sitting_out: dict[int, bool],
        limits: dict[int, Limits] | None = None,
        muted: set[int] | None = None,
    ) -> None: ...
    async def save_waiting(self, table_id: int, line: list[list[Any]]) -> None: ...
    async def chat_muted(self, user_id: int) -> datetime | None: ...
    async def report_chat(
        self, table_id: int, reporter: int, reported: int, line: str, context: list[Any]
    ) -> int: ...
    async def log_host(
        self,
        table_id: int,
        host: tuple[int, str],
        action: str,
        target: int | None,
        detail: dict[str, Any],
    ) -> None: ...
    async def close(self, table_id: int) -> None: ...
    async def reserve_numbers(self, count: int) -> range: ...
    async def record_start(self, start: hands.HandStart) -> None: ...
    async def record_hand(self, finish: hands.HandFinish) -> None: ...
    async def record_many(self, items: list[hands.HandStart | hands.HandFinish]) -> None: ...
    async def record_shown(self, table_id: int, hand_id: str, shown: dict[str, Any]) -> None: ...
    async def void_interrupted(self, table_ids: Collection[int]) -> list[dict[str, Any]]: ...
    async def balance(self, user_id: int) -> int: ...
    async def make_bot(self, table_id: int, first: str, chips: int) -> tuple[int, str]: ...


Limits = tuple[int | None, int | None]  # a player's (min, max) buy-in set by the host (R43)
Stacks = dict[str, list[int]]
"""The table's own view of its seats after a chip move, ``{"seat": [user id, stack]}``: stored
with the move, in its transaction, so `ledger check` can compare the table with the ledger."""


@dataclass(frozen=True, slots=True)
class EntryChips:
    """A rebuy or add-on bought at a tournament's table (`tournaments.enter`)."""

    tournament_id: int
    kind: str  # "rebuy" or "addon"
    chips: int
    price: int
    fee: int
    key: str
