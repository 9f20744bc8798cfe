"""What the table's rules work on: the table's game state (`TableState`, plain data), a
seat, and the few questions a rule may ask while it decides (`Io`).

The rules (`dealing`, `seating`, `hosting`, `directed`, `watching`, `between`) take the state
and a message, change the state they are handed, and return what must follow as effects
(`effects.py`); the `Table` (table.py), the actor, applies them: it numbers and publishes the
events, sets the timers, submits the writes and decides when a hand is dealt.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from app.engine import Hand
from app.engine.cards import Card
from app.fanout import channels
from app.tables.errors import TableError
from app.tables.lifecycle import Life
from app.tables.seeds import HandSeeds, TableSeeds
from app.tables.settings import TableSettings
from app.tables.store import Limits, TableStore
from app.wire.envelope import version_of
from app.wire.process import AddChips

if TYPE_CHECKING:
    from app.store.hands import HandStart

DeckSource = Callable[[], Sequence[Card]]


# An event in the table's ring (kept for reconnecting clients): a public event is its wire
# text alone, a seat-private one the pair (text, the one user who may see it); its number is
# the text's own (`version_of`: the envelope puts it first). At 500 tables the ring holds some
# 80,000 events: a tuple and a number beside each text were 8 MB (issue 26's memory). Plain
# strings, and tuples of a string and a number, which the collector stops tracking at their
# first young collection (a named tuple it walked at every collection until frozen).
Kept = str | tuple[str, int]


def kept(text: str, user: int | None) -> Kept:
    """The ring's entry for an event's `text`, seen by `user` alone (None: by everyone)."""
    return text if user is None else (text, user)


def unkept(entry: Kept) -> tuple[str, int | None]:
    """An entry's text, and the one user who may see it (None: public)."""
    return (entry, None) if isinstance(entry, str) else entry


def kept_v(entry: Kept) -> int:
    """An entry's event number."""
    return version_of(entry if isinstance(entry, str) else entry[0])


class ChatLine(NamedTuple):
    """A chat line the table keeps (`CHAT_KEPT`), for a report to carry the lines around it
    as they were said here (never as a client says they were)."""

    line: str  # its id at the table, sent with it (`Chat.line`)
    user_id: int
    name: str
    text: str

    def public(self) -> dict[str, Any]:
        return {"line": self.line, "user_id": self.user_id, "name": self.name, "text": self.text}


CHAT_KEPT = 100  # chat lines a table keeps for reports


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
    time_bank_ms: int = 0  # the player's time bank (R27 in tournaments, R42 at cash tables)
    bank_from: float | None = None  # when the time bank began running for this turn
    bank_hands: int = 0  # hands dealt in since the seat was taken (R42's refill)
    away: bool = False  # no socket of theirs watches the table (R40)
    timeouts: int = 0  # turns in a row the clock played for them (R40)

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
            "away": self.away,
            "time_bank_ms": self.time_bank_ms,
        }


@dataclass(slots=True)
class ShowOffer:
    """R41: the uncalled winner of a hand awarded at once may still show it, until `until`
    (the monotonic clock): the finished hand kept for it, and who won it."""

    hand: Hand
    hand_id: str
    seat: int
    user_id: int
    until: float


@dataclass(slots=True)
class SeatRequest:
    """A seat asked for at a table whose host approves seats (R43): nothing has moved yet.
    `key` and `asked` are the `sit`'s ledger key and what it asked (`seating.answered`)."""

    request: str  # the table's id for it, which the host answers
    user_id: int
    name: str
    seat: int
    amount: int
    key: str
    asked: tuple[Any, ...]

    def public(self, limits: tuple[int, int | None]) -> dict[str, Any]:
        return {
            "request": self.request,
            "user_id": self.user_id,
            "name": self.name,
            "seat": self.seat,
            "amount": self.amount,
            "min_buy_in": limits[0],
            "max_buy_in": limits[1],
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


@dataclass(slots=True)
class Step:
    """Where a rotation table stands in its game's step (R45): the hands played in it, and
    for a rotation by orbit the players dealt in at its first hand (its length)."""

    played: int = 0
    orbit: int | None = None


@dataclass(slots=True)
class Offer:
    """A free seat held for the first in line (R44) until `at` (the table's monotonic
    clock); `token` names the timer that withdraws it (an older timer is stale)."""

    seat: int
    token: int
    at: float


@dataclass(slots=True)
class WaitingList:
    """A full public table's waiting list (R44): who waits, in order (user id, name), and
    the seats held for those offered one, by user."""

    line: list[tuple[int, str]] = field(default_factory=list)
    offers: dict[int, Offer] = field(default_factory=dict)
    tokens: int = 0  # the last offer's token

    def position(self, user_id: int) -> int | None:
        """1 for the first in line; None for someone not waiting."""
        for i, (user, _) in enumerate(self.line):
            if user == user_id:
                return i + 1
        return None

    def held(self) -> set[int]:
        return {offer.seat for offer in self.offers.values()}


@dataclass(slots=True)
class TableState:
    """The table's game state: what its rules are handed, change, and read. Plain data: the
    `Table` (table.py) is the actor that holds it (`Table.state`) with everything that is not
    the game's (its mailbox, numbering, publishing, writer, clock)."""

    id: int
    settings: TableSettings
    host_user_id: int | None = None
    members: set[int] = field(default_factory=set)
    bots_play_alone: bool = False  # demo tables; else a person must be dealt in
    directed: Directed | None = None  # a tournament's table: its director's orders
    pending_settings: TableSettings | None = None  # applied when the hand ends
    life: Life = field(default_factory=Life)
    seats: dict[int, SeatInfo] = field(default_factory=dict)
    by_user: dict[int, int] = field(default_factory=dict)
    # the hand being played: its engine state, ids, players and record
    hand: Hand | None = None
    hand_id: str | None = None  # internal: the hand's rows and postings
    hand_number: int | None = None  # the hand's id for players (numbers.py)
    # the hand's count at this table (1: its first), what players read ("Hand 3 at this
    # table"): numbers come in blocks per table, so a new table's first hand may be #21
    hand_count: int | None = None
    hand_users: dict[int, int] = field(default_factory=dict)  # seat -> user for the hand
    start_stacks: dict[int, int] = field(default_factory=dict)
    recording: Recording | None = None
    fair: TableSeeds = field(default_factory=TableSeeds)  # the next announce, seed chains (R39)
    turn_id: int = 0
    button: int = -1
    hands_played: int = 0  # by this run of the table
    hands_before: int = 0  # recorded before this run (a restart, a move)
    unwritten: int = 0  # finished hands the hand writer has not written yet
    # chip requests answered, by ledger key: (what was asked, the answer), oldest first
    answered: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=dict)
    # (user, process holding the socket) -> open sockets (Join / Unwatch)
    watchers: dict[tuple[int, str], int] = field(default_factory=dict)
    watchers_told: int = 0  # watchers not seated, as last announced
    voided: list[dict[str, Any]] = field(default_factory=list)  # hands the restart cancelled
    show_offer: ShowOffer | None = None  # the last uncalled winner may still show (R41)
    # R43: seat requests waiting for the host, by request id, oldest first; requests no
    # longer waiting (id -> why), so a late answer is told what became of it
    seat_requests: dict[str, SeatRequest] = field(default_factory=dict)
    requests_gone: dict[str, str] = field(default_factory=dict)
    limits: dict[int, Limits] = field(default_factory=dict)  # R43: the host's, by user
    step: Step = field(default_factory=Step)  # a rotation table's place in its step (R45)
    waiting: WaitingList = field(default_factory=WaitingList)  # R44
    # chat: the last lines said (reports carry them), who the host muted here, and the
    # lines each reporter already reported (a second report of a line posts nothing)
    chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=CHAT_KEPT))
    muted: set[int] = field(default_factory=set)
    reported: set[tuple[int, str]] = field(default_factory=set)

    @property
    def closing(self) -> bool:
        return self.life.closing

    @property
    def closed(self) -> bool:
        return self.life.closed


@dataclass(frozen=True, slots=True)
class Io:
    """What a rule may ask while it decides, and wait for the answer of: the database (the
    ledger's answer decides a chip move), whether the table's hand records are written yet,
    the time, a fresh deck. Everything that needs no answer is an effect (`effects.py`)."""

    store: TableStore
    caught_up: Callable[[float], Awaitable[bool]]
    now: Callable[[], float]  # the monotonic clock (deadlines, time banks)
    wall: Callable[[], float]  # wall-clock seconds (R19's 24-hour window)
    deck: Callable[[], Sequence[Card] | None]  # a deck a test chose; None: the seeded deal


def seat_of(table: TableState, user_id: int) -> SeatInfo:
    seat = table.by_user.get(user_id)
    if seat is None:
        raise TableError("not_seated", "you are not seated at this table")
    return table.seats[seat]


def host_only(table: TableState, user_id: int) -> None:
    if table.host_user_id is None or user_id != table.host_user_id:
        raise TableError("not_host", "only the table's host may do that")


def in_hand(table: TableState, seat: int) -> bool:
    return table.hand is not None and seat in table.hand.by_seat


def user_in(table: TableState, seat: int) -> int:
    """The user this table holds in `seat` (the hand's, while it is played)."""
    user = table.hand_users.get(seat)
    return table.seats[seat].user_id if user is None else user


__all__ = [
    "CHAT_KEPT",
    "ChatLine",
    "DeckSource",
    "Directed",
    "Io",
    "Kept",
    "Limits",
    "Offer",
    "Recording",
    "SeatInfo",
    "SeatRequest",
    "ShowOffer",
    "Step",
    "TableState",
    "WaitingList",
    "host_only",
    "in_hand",
    "kept",
    "kept_v",
    "seat_of",
    "stacks_view",
    "unkept",
    "user_in",
]
