"""Every event the table sends, and its answers to a client: slotted dataclasses (the table
builds many a second: no validation on the way out, and not frozen, whose `__init__` costs
about five times a plain one's; an event is built, turned into its `body()` and dropped).
Each has its `type`, its `audience` and `body()`, the wire object without the envelope's
`v` (`app.wire.envelope`).

Audiences: ``public`` (everyone at the table), ``seat`` (the user in one seat only; the
others get the bare ``{"v":n}`` in its place), ``player`` (one user at the table, seated or
not, likewise), ``user`` (the one client a reply answers).

The engine's events (`app.engine.events`) are already typed; on the wire the table adds
`hand_id` to each of them, `number` to `hand_started` and `pots` to the `POT_EVENTS`
(`engine_body`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from app.engine import Event
from app.engine.views import POT_EVENTS

Audience = Literal["public", "seat", "player", "user"]


def _doc(text: str) -> dict[str, str]:
    return {"doc": text}


@dataclass(slots=True)
class ServerEvent:
    type: ClassVar[str]
    audience: ClassVar[Audience]

    def body(self) -> dict[str, Any]:
        raise NotImplementedError


# -- the table's events ------------------------------------------------------------------


@dataclass(slots=True)
class DealCommitted(ServerEvent):
    """Just before each hand's `hand_started`: the commitment to the order of the deck the
    hand is dealt from, fixed before the first card (docs/fairness.md)."""

    type: ClassVar[str] = "deal_committed"
    audience: ClassVar[Audience] = "public"
    hand_id: str
    commitment: str = field(metadata=_doc("64 hex digits: seeded-v2's sealed deck D"))
    scheme: str = field(metadata=_doc('"seeded-v2" ("sha256-per-card-v1" before)'))
    server_seed_hash: str | None = field(
        default=None, metadata=_doc("seeded-v2: SHA-256 of this hand's server seed, hex")
    )
    seeds: list[dict[str, Any]] | None = field(
        default=None, metadata=_doc("seeded-v2: the player seeds used, {seat, seed_hash}")
    )
    commits: list[dict[str, Any]] | None = field(
        default=None,
        metadata=_doc("seeded-v2: every seated player's chain head, {seat, commit}"),
    )
    next: dict[str, Any] | None = field(
        default=None,
        metadata=_doc("seeded-v2: the next hand's announce, {sealed, server_seed_hash}"),
    )

    def body(self) -> dict[str, Any]:
        return {
            "type": "deal_committed",
            "hand_id": self.hand_id,
            "commitment": self.commitment,
            "scheme": self.scheme,
            "server_seed_hash": self.server_seed_hash,
            "seeds": self.seeds,
            "commits": self.commits,
            "next": self.next,
        }


@dataclass(slots=True)
class Turn(ServerEvent):
    """A seat is to act: what it may do and for how long. `phase` `showdown`/`uncontested`
    means a show-or-muck (or show / don't show) decision."""

    type: ClassVar[str] = "turn"
    audience: ClassVar[Audience] = "public"
    hand_id: str
    turn_id: int = field(metadata=_doc("an `act` names it"))
    seat: int
    phase: str = field(metadata=_doc("betting, showdown or uncontested"))
    timer_ms: int
    legal: dict[str, Any] = field(
        metadata=_doc("fold, check, call, bring_in, complete, bets, raises, show, muck")
    )

    def body(self) -> dict[str, Any]:
        return {
            "type": "turn",
            "hand_id": self.hand_id,
            "turn_id": self.turn_id,
            "seat": self.seat,
            "phase": self.phase,
            "timer_ms": self.timer_ms,
            "legal": self.legal,
        }


@dataclass(slots=True)
class DownCards(ServerEvent):
    """After a deal with face-down cards: how many each seat still in the hand holds."""

    type: ClassVar[str] = "down_cards"
    audience: ClassVar[Audience] = "public"
    hand_id: str
    counts: dict[str, int] = field(metadata=_doc("by seat"))

    def body(self) -> dict[str, Any]:
        return {"type": "down_cards", "hand_id": self.hand_id, "counts": self.counts}


@dataclass(slots=True)
class Seats(ServerEvent):
    """The seats changed (as in the snapshot)."""

    type: ClassVar[str] = "seats"
    audience: ClassVar[Audience] = "public"
    seats: list[dict[str, Any]]

    def body(self) -> dict[str, Any]:
        return {"type": "seats", "seats": self.seats}


@dataclass(slots=True)
class TableChanged(ServerEvent):
    """The table's settings or state changed (as in the snapshot); `saving: true` while it
    waits for its earlier hands' records before dealing the next."""

    type: ClassVar[str] = "table"
    audience: ClassVar[Audience] = "public"
    table: dict[str, Any]

    def body(self) -> dict[str, Any]:
        return {"type": "table", "table": self.table}


@dataclass(slots=True)
class Observers(ServerEvent):
    """The number of people watching without a seat changed."""

    type: ClassVar[str] = "observers"
    audience: ClassVar[Audience] = "public"
    count: int

    def body(self) -> dict[str, Any]:
        return {"type": "observers", "count": self.count}


@dataclass(slots=True)
class Chat(ServerEvent):
    """A chat line; `seat` is null for someone watching; `line` is its id at the table (what
    `report_chat` names)."""

    type: ClassVar[str] = "chat"
    audience: ClassVar[Audience] = "public"
    user_id: int
    name: str
    seat: int | None
    text: str
    line: str = ""

    def body(self) -> dict[str, Any]:
        return {
            "type": "chat",
            "user_id": self.user_id,
            "name": self.name,
            "seat": self.seat,
            "text": self.text,
            "line": self.line,
        }


LeftReason = Literal["left", "removed", "sat_out", "table_closed", "busted", "moved"]


@dataclass(slots=True)
class Left(ServerEvent):
    """A player left their seat with `amount` back to their balance; `reason` `removed` is
    by the host or by an operator (a ban), `sat_out` after more than `sit_out_limit` hands
    sat out."""

    type: ClassVar[str] = "left"
    audience: ClassVar[Audience] = "public"
    seat: int
    user_id: int
    amount: int
    reason: LeftReason

    def body(self) -> dict[str, Any]:
        return {
            "type": "left",
            "seat": self.seat,
            "user_id": self.user_id,
            "amount": self.amount,
            "reason": self.reason,
        }


@dataclass(slots=True)
class HandVoided(ServerEvent):
    """Once per hand the server was playing here when it stopped: cancelled, every stack
    back to what it was when it began (`stacks`, by seat)."""

    type: ClassVar[str] = "hand_voided"
    audience: ClassVar[Audience] = "public"
    hand_id: str
    number: str = field(metadata=_doc("the hand's number, a string of digits"))
    table_id: int
    reason: str
    stacks: dict[str, int]

    def body(self) -> dict[str, Any]:
        return {
            "type": "hand_voided",
            "hand_id": self.hand_id,
            "number": self.number,
            "table_id": self.table_id,
            "reason": self.reason,
            "stacks": self.stacks,
        }


@dataclass(slots=True)
class TableResumed(ServerEvent):
    """The table could not reach its players for a while (its lease in doubt, the fan-out or
    the database away) and stopped its clocks meanwhile: nobody timed out, no hand was dealt.
    It reaches them again; whoever is to act gets the whole clock (a new `turn` follows)."""

    type: ClassVar[str] = "resumed"
    audience: ClassVar[Audience] = "public"
    reason: str = field(metadata=_doc('"lease", "fanout" or "database"'))
    paused_ms: int = field(metadata=_doc("how long the clocks were stopped"))

    def body(self) -> dict[str, Any]:
        return {"type": "resumed", "reason": self.reason, "paused_ms": self.paused_ms}


@dataclass(slots=True)
class Closed(ServerEvent):
    """The table closed: every stack is back with its owner."""

    type: ClassVar[str] = "closed"
    audience: ClassVar[Audience] = "public"

    def body(self) -> dict[str, Any]:
        return {"type": "closed"}


@dataclass(slots=True)
class PostAnteDue(ServerEvent):
    """R6: a player with automatic posting off is asked to post for the next hand."""

    type: ClassVar[str] = "post_ante_due"
    audience: ClassVar[Audience] = "public"
    seat: int

    def body(self) -> dict[str, Any]:
        return {"type": "post_ante_due", "seat": self.seat}


@dataclass(slots=True)
class DealRevealed(ServerEvent):
    """Right after `hand_ended`: the deal's commitment opened as far as everyone saw the
    cards (the up cards and the hands shown; docs/fairness.md)."""

    type: ClassVar[str] = "deal_revealed"
    audience: ClassVar[Audience] = "public"
    hand_id: str
    reveal: dict[str, Any] = field(metadata=_doc("scheme, commitment, reshuffle_seed, positions"))

    def body(self) -> dict[str, Any]:
        return {"type": "deal_revealed", "hand_id": self.hand_id, "reveal": self.reveal}


@dataclass(slots=True)
class SeatDealRevealed(DealRevealed):
    """The same to each player dealt in whose hand was not shown, also opening their own
    down cards."""

    audience: ClassVar[Audience] = "seat"
    seat: int = field(kw_only=True, metadata={"doc": "whom it is for", "sent": False})


@dataclass(slots=True)
class WaitingListChanged(ServerEvent):
    """The table's waiting list changed (R44): who waits, in order, and the seats held for
    those offered one (as in the snapshot's `waiting`)."""

    type: ClassVar[str] = "waiting_list"
    audience: ClassVar[Audience] = "public"
    line: list[dict[str, Any]] = field(metadata=_doc("{user_id, name}, the first in line first"))
    offered: list[int] = field(metadata=_doc("the seats held for an offer"))

    def body(self) -> dict[str, Any]:
        return {"type": "waiting_list", "line": self.line, "offered": self.offered}


@dataclass(slots=True)
class SeatOffered(ServerEvent):
    """To the first in line alone (R44): this seat is yours to take with `sit` within `ms`;
    after that, or on `wait_leave`, it goes to the next in line."""

    type: ClassVar[str] = "seat_offered"
    audience: ClassVar[Audience] = "player"
    seat: int
    ms: int = field(metadata=_doc("the time left to take it"))

    def body(self) -> dict[str, Any]:
        return {"type": "seat_offered", "seat": self.seat, "ms": self.ms}


@dataclass(slots=True)
class SeatOfferEnded(ServerEvent):
    """To the player offered a seat (R44): the offer is over, not taken: `expired` (they are
    off the list) or `declined` (`wait_leave`)."""

    type: ClassVar[str] = "seat_offer_ended"
    audience: ClassVar[Audience] = "player"
    seat: int
    reason: Literal["expired", "declined"]

    def body(self) -> dict[str, Any]:
        return {"type": "seat_offer_ended", "seat": self.seat, "reason": self.reason}


# -- a client's own frames: not numbered ----------------------------------------------------


@dataclass(slots=True)
class Snapshot(ServerEvent):
    """On connect (or a resync the table's kept events cannot answer): the whole table as
    this user may see it."""

    type: ClassVar[str] = "snapshot"
    audience: ClassVar[Audience] = "user"
    v: int = field(metadata=_doc("the table's last event number"))
    epoch: str = field(metadata=_doc("names this run of the table; a resync names it"))
    table: dict[str, Any]
    seats: list[dict[str, Any]]
    hand: dict[str, Any] | None = field(
        metadata=_doc(
            "the hand being played, as this user may see it; with `number`, `count` and"
            " `names` as in its `hand_started`"
        )
    )
    you: dict[str, Any] = field(
        metadata=_doc("user_id, seat, info, waiting (your place in line or null), offer")
    )
    voided: list[dict[str, Any]] = field(metadata=_doc("as the `hand_voided` events"))
    observers: int
    log: list[dict[str, Any]] = field(
        metadata=_doc("the latest hand's events so far, as sent live")
    )
    log_complete: bool = field(metadata=_doc("false when the hand's start is no longer kept"))
    next_deal: dict[str, Any] | None = field(
        default=None,
        metadata=_doc("the next hand's announce: sealed, server_seed_hash (seeded-v2)"),
    )
    seat_requests: list[dict[str, Any]] = field(
        default_factory=list,
        metadata=_doc("R43: as `seat_requests`: the host's every one, a requester's own"),
    )
    waiting: dict[str, Any] | None = field(
        default=None, metadata=_doc("the waiting list (R44): line, offered")
    )

    def body(self) -> dict[str, Any]:
        return {
            "type": "snapshot",
            "v": self.v,
            "epoch": self.epoch,
            "table": self.table,
            "seats": self.seats,
            "hand": self.hand,
            "you": self.you,
            "voided": self.voided,
            "observers": self.observers,
            "log": self.log,
            "log_complete": self.log_complete,
            "next_deal": self.next_deal,
            "seat_requests": self.seat_requests,
            "waiting": self.waiting,
        }


@dataclass(slots=True)
class Ok(ServerEvent):
    """The answer to a message the table carried out."""

    type: ClassVar[str] = "ok"
    audience: ClassVar[Audience] = "user"
    ref: str | None = field(metadata=_doc("the message's `ref`"))
    result: Any = field(metadata=_doc("what the message did; its own shape per message"))

    def body(self) -> dict[str, Any]:
        return {"type": "ok", "ref": self.ref, "result": self.result}


def sentence(message: str) -> str:
    """A refusal's text for people starts with a capital; one that starts with a name for
    programs (``small_bet: …``, ``body.seat: …``) is left as it is, as are the codes."""
    first = message.split(" ", 1)[0]
    if first.isalpha() and first[:1].islower():  # "name:", "small_bet:" name a field
        return message[0].upper() + message[1:]
    return message


@dataclass(slots=True)
class Error(ServerEvent):
    """The answer to a message refused: it changed nothing."""

    type: ClassVar[str] = "error"
    audience: ClassVar[Audience] = "user"
    ref: str | None = field(metadata=_doc("the message's `ref`"))
    code: str
    message: str = field(metadata=_doc("in English; amounts in dollars and cents"))

    def body(self) -> dict[str, Any]:
        message = sentence(self.message)
        return {"type": "error", "ref": self.ref, "code": self.code, "message": message}


@dataclass(slots=True)
class PlayerMoved(ServerEvent):
    """The tournament's director moved this player to another of its tables (balancing, a
    table breaking, the final table): their page follows them there (`follow`)."""

    type: ClassVar[str] = "moved"
    audience: ClassVar[Audience] = "public"
    user_id: int
    name: str
    to_table: int
    seat: int = field(metadata=_doc("the seat taken there"))

    def body(self) -> dict[str, Any]:
        return {
            "type": "moved",
            "user_id": self.user_id,
            "name": self.name,
            "to_table": self.to_table,
            "seat": self.seat,
        }


@dataclass(slots=True)
class PlayerFinished(ServerEvent):
    """A tournament player is out, in this place of `of` entrants, with this prize (R31)."""

    type: ClassVar[str] = "finished"
    audience: ClassVar[Audience] = "public"
    user_id: int
    name: str
    place: int
    of: int
    prize: int = field(metadata=_doc("in cents of play money; 0 out of the money"))

    def body(self) -> dict[str, Any]:
        return {
            "type": "finished",
            "user_id": self.user_id,
            "name": self.name,
            "place": self.place,
            "of": self.of,
            "prize": self.prize,
        }


@dataclass(slots=True)
class TournamentInfo(ServerEvent):
    """A tournament table's level, its stakes and how the tournament stands (R26, R32,
    R37): sent when it changes and in every snapshot."""

    type: ClassVar[str] = "tournament"
    audience: ClassVar[Audience] = "public"
    tournament_id: int
    level: int
    stakes: dict[str, Any] = field(metadata=_doc("ante, bring_in, small_bet, big_bet, variant"))
    waiting: bool = field(
        metadata=_doc(
            "the table waits for the director (hand-for-hand, balancing, a break, frozen)"
        )
    )
    round: int | None = field(metadata=_doc("the hand-for-hand round, or null"))

    def body(self) -> dict[str, Any]:
        return {
            "type": "tournament",
            "tournament_id": self.tournament_id,
            "level": self.level,
            "stakes": self.stakes,
            "waiting": self.waiting,
            "round": self.round,
        }


@dataclass(slots=True)
class TimeBank(ServerEvent):
    """The player to act ran out of the action clock and is using their time bank (R27)."""

    type: ClassVar[str] = "time_bank"
    audience: ClassVar[Audience] = "public"
    seat: int
    turn_id: int
    ms: int = field(metadata=_doc("the time bank's time now running"))

    def body(self) -> dict[str, Any]:
        return {"type": "time_bank", "seat": self.seat, "turn_id": self.turn_id, "ms": self.ms}


@dataclass(slots=True)
class ShowOffered(ServerEvent):
    """R41: the uncalled winner was awarded the pot at once; they may still show the hand
    (`show`) for `ms`, while the next hand comes at its usual pause."""

    type: ClassVar[str] = "show_offered"
    audience: ClassVar[Audience] = "public"
    hand_id: str
    seat: int
    ms: int = field(metadata=_doc("how long the winner may still show"))

    def body(self) -> dict[str, Any]:
        return {"type": "show_offered", "hand_id": self.hand_id, "seat": self.seat, "ms": self.ms}


@dataclass(slots=True)
class SeatRequests(ServerEvent):
    """R43: the seat requests waiting for the host's answer, each `{request, user_id, name,
    seat, amount, min_buy_in, max_buy_in}` (the player's limits now): to the host every one,
    to a requester their own (none once it is answered or withdrawn). Sent when they change,
    and in the snapshot."""

    type: ClassVar[str] = "seat_requests"
    audience: ClassVar[Audience] = "user"
    requests: list[dict[str, Any]]

    def body(self) -> dict[str, Any]:
        return {"type": "seat_requests", "requests": self.requests}


@dataclass(slots=True)
class SeatAnswer(ServerEvent):
    """R43: to a requester, what became of their seat request: `approved` (seated, the buy-in
    posted), else why not (`declined` by the host, `seat_taken` before the host answered,
    or the refusal's code, as `insufficient_funds`)."""

    type: ClassVar[str] = "seat_answer"
    audience: ClassVar[Audience] = "user"
    request: str
    seat: int
    approved: bool
    reason: str | None = field(default=None, metadata=_doc("why not; null when approved"))

    def body(self) -> dict[str, Any]:
        return {
            "type": "seat_answer",
            "request": self.request,
            "seat": self.seat,
            "approved": self.approved,
            "reason": self.reason,
        }


TABLE_EVENTS: tuple[type[ServerEvent], ...] = (
    DealCommitted, Turn, DownCards, Seats, TableChanged, Observers, Chat, Left, HandVoided,
    TableResumed, Closed, PostAnteDue, DealRevealed, SeatDealRevealed, PlayerMoved,
    PlayerFinished, TournamentInfo, TimeBank, ShowOffered, SeatRequests, SeatAnswer,
    WaitingListChanged, SeatOffered, SeatOfferEnded,
)  # fmt: skip
REPLIES: tuple[type[ServerEvent], ...] = (Snapshot, Ok, Error)


# -- the engine's events on the wire ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    """What the table adds to `hand_started` beside its number: the hand's count at this
    table and the names of the players dealt in (a player who leaves mid-hand keeps theirs
    in the hand's log, after a reload too)."""

    count: int
    names: dict[str, str]


ENGINE_ADDED: dict[str, tuple[str, type, str]] = {
    # field: (the events it is added to ("*": all), its type, its doc)
    "hand_id": ("*", str, "the hand it belongs to"),
    "number": ("hand_started", str, "the hand's number, a string of digits"),
    "count": (
        "hand_started",
        int,
        "the hand's count at this table (1: its first hand), what players read; `number`"
        " stays its id",
    ),
    "names": ("hand_started", dict[str, str], "each seat dealt in: its player's name"),
    "pots": (
        " ".join(sorted(POT_EVENTS)),
        list[dict[str, Any]],
        "main and side pots (amount, eligible) as the betting round that ended left them",
    ),
}


def engine_body(
    event: Event,
    hand_id: str | None,
    number: str | None = None,
    pots: list[dict[str, Any]] | None = None,
    started: Started | None = None,
) -> tuple[dict[str, Any], int | None]:
    """An engine event's wire object and the one seat that may see it (None: public)."""
    body = event.to_dict()
    audience: int | None = body.pop("audience")
    body["hand_id"] = hand_id
    if number is not None:
        body["number"] = number
        if started is not None:
            body["count"] = started.count
            body["names"] = started.names
    elif pots is not None:
        body["pots"] = pots
    return body, audience
