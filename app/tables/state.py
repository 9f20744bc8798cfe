"""What the table's rules work on: a seat, the table's life cycle, and the narrow view of a
table (`TableState`) that `dealing`, `seating`, `hosting` and `publishing` are given.

The rules never number nor publish an event and never decide what the table does next: they
change the state they are given, `say` what happened (the `Table` numbers those events and
publishes them once the message is handled) and ask for what must follow (`want_hand`); the
`Table` (table.py) alone runs the life cycle. None of those modules imports another of them
except `hosting`, which seats bots and frees seats through `seating`.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from app.engine import Hand
from app.engine.cards import Card
from app.fanout import channels
from app.tables import messages as m
from app.tables.clock import Alarm, Clock
from app.tables.numbers import HandNumbers
from app.tables.seeds import HandSeeds, TableSeeds
from app.tables.settings import TableSettings
from app.tables.store import TableStore
from app.wire.events import ServerEvent
from app.wire.process import AddChips

if TYPE_CHECKING:
    from app.store.hands import HandFinish, HandStart

DeckSource = Callable[[], Sequence[Card]]


class Kept(NamedTuple):
    """An event in the table's ring (kept for reconnecting clients): its number, its type
    beside its wire text (so no reader parses or sniffs the text), and the one user who may
    see it (None: public)."""

    v: int
    type: str
    text: str
    user: int | None


class Lifecycle(enum.Enum):
    """Where a table is in its life; the allowed moves are `MOVES`, made by `Table.become`."""

    OPEN = "open"  # no hand, none on its way: waits for players (or the host, or numbers)
    STARTING = "starting"  # the next hand is due after the pause
    IN_HAND = "in_hand"
    SAVING = "saving"  # the next hand waits for earlier hands' records (`MAX_UNWRITTEN`)
    CLOSING = "closing"  # closes when the hand being played ends
    CLOSED = "closed"


MOVES: dict[Lifecycle, frozenset[Lifecycle]] = {
    Lifecycle.OPEN: frozenset(
        {Lifecycle.STARTING, Lifecycle.IN_HAND, Lifecycle.CLOSING, Lifecycle.CLOSED}
    ),
    Lifecycle.STARTING: frozenset(
        {Lifecycle.OPEN, Lifecycle.IN_HAND, Lifecycle.SAVING, Lifecycle.CLOSING, Lifecycle.CLOSED}
    ),
    Lifecycle.SAVING: frozenset({Lifecycle.STARTING, Lifecycle.CLOSING, Lifecycle.CLOSED}),
    # to CLOSED in a hand: its lease went to another process, which voids the hand
    Lifecycle.IN_HAND: frozenset({Lifecycle.OPEN, Lifecycle.CLOSING, Lifecycle.CLOSED}),
    Lifecycle.CLOSING: frozenset({Lifecycle.CLOSED}),
    Lifecycle.CLOSED: frozenset(),
}


@dataclass(slots=True)
class SeatInfo:
    seat: int
    user_id: int
    name: str
    stack: int
    key: str  # this sitting's id: the cash-out's idempotency key
    bot: bool = False
    sitting_out: bool = False
    auto_post: bool = True
    posted: bool = False  # auto_post off: said "I'm in" for the next hand
    sat_out_hands: int = 0
    leaving: bool = False
    top_ups: list[tuple[int, str]] = field(default_factory=list)
    time_bank_ms: int = 0  # a tournament player's time bank (R27)
    bank_from: float | None = None  # when the time bank began running for this turn

    def public(self, stack: int | None = None) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "user_id": self.user_id,
            "name": self.name,
            "stack": self.stack if stack is None else stack,
            "sitting_out": self.sitting_out,
            "auto_post": self.auto_post,
            "bot": self.bot,
            "leaving": self.leaving,
        }


@dataclass(slots=True)
class Recording:
    """The hand being played, for its record: the deck and the master salt stay in memory
    until the end."""

    start: HandStart
    deck: list[Card]
    salt: bytes
    inputs: list[list[Any]] = field(default_factory=list)
    seeds: HandSeeds | None = None  # seeded-v2: the announce and seeds it was dealt from


def stacks_view(table: TableState) -> dict[str, list[int]]:
    """The table's view of its seats, ``{"seat": [user id, stack]}``, as stored beside the
    ledger's with every chip move (`ledger check` compares them)."""
    return {str(seat): [info.user_id, info.stack] for seat, info in table.seats.items()}


@dataclass(slots=True)
class Directed:
    """What a tournament table knows of its director's orders."""

    tournament_id: int
    epoch: int = 0  # the newest director epoch whose orders it took
    go: bool = False  # it may deal its next hand (one hand a go)
    round: int | None = None  # the hand-for-hand round of the next hand
    level: int = 0
    ended_at: float = 0.0  # when the last hand ended (the pause before the next runs from it)
    reported: int | None = None  # the hand number last reported, until orders answer it
    report_token: int = 0  # the report reminder that counts
    behind: list[AddChips] = field(default_factory=list)  # chips behind (R35)

    @property
    def channel(self) -> str:
        return channels.director(self.tournament_id)


class TableState(Protocol):
    """The table as its rules see it (`Table` is the one implementation)."""

    id: int
    settings: TableSettings
    pending_settings: TableSettings | None
    store: TableStore
    clock: Clock
    deck_source: DeckSource
    numbers: HandNumbers
    turn_alarm: Alarm
    host_user_id: int | None
    members: set[int]
    seats: dict[int, SeatInfo]
    by_user: dict[int, int]
    hand: Hand | None
    hand_id: str | None
    hand_number: int | None
    hand_users: dict[int, int]
    start_stacks: dict[int, int]
    recording: Recording | None
    fair: TableSeeds  # the next hand's announce and the players' seed chains (seeded-v2)
    turn_id: int
    button: int
    hands_played: int
    unwritten: int
    paused: bool
    lifecycle: Lifecycle
    answered: dict[str, tuple[tuple[Any, ...], dict[str, Any]]]
    viewers: dict[tuple[int, str], int]  # (user, process holding the socket) -> sockets
    observers: int
    version: int
    published: int
    epoch: str
    ring: deque[Kept]
    voided: list[dict[str, Any]]
    directed: Directed | None  # a tournament's table: its director's orders

    @property
    def closed(self) -> bool: ...
    @property
    def closing(self) -> bool: ...
    def record_start(self, start: HandStart) -> None: ...
    def record_finish(self, finish: HandFinish) -> None: ...
    def write_later(self, label: str, job: Callable[[], Awaitable[Any]]) -> None: ...
    async def caught_up(self, timeout: float) -> bool: ...
    def say(self, event: ServerEvent | dict[str, Any], seat: int | None = None) -> None: ...
    def send(self, channel: str, text: str) -> None: ...
    def become(self, stage: Lifecycle) -> None: ...
    def want_hand(self, delay: float | None = None) -> None: ...
    def post(self, msg: m.Message) -> None: ...
    def seat_of(self, user_id: int) -> SeatInfo: ...
    def host_only(self, user_id: int) -> None: ...
    def in_hand(self, seat: int) -> bool: ...
    def seat_list(self) -> list[dict[str, Any]]: ...
    def info(self) -> dict[str, Any]: ...
    def observer_count(self) -> int: ...
    def freeze(self, why: str) -> None: ...


__all__ = [
    "MOVES",
    "DeckSource",
    "Directed",
    "Kept",
    "Lifecycle",
    "Recording",
    "SeatInfo",
    "TableState",
    "stacks_view",
]
