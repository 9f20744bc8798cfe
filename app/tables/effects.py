"""What the table's rules return: the effects of handling one message, in order, for the
`Table` (the actor) to apply. A rule changes the state it is handed (`state.TableState`)
and says, with these, what must follow; it never numbers nor publishes an event, never sets
a timer, never submits a write and never decides when the next hand is dealt. The actor
applies them in `Table.apply`, one kind of consequence to one type:

- `Said`: an event of the table (public, or for one user) to number and publish;
- `Told`: a text on another channel (a report to the tournament's director);
- `DealNext`: something changed that may let a hand be dealt (after the pause, or `delay`);
- `Mail`: a message for the table's own mailbox, now or `after` seconds;
- `TurnClock` / `StopClock`: the action timer (R19) set for a turn, or stopped;
- `Record`: a hand's row (its start) or record (its finish, with its settlement) to write;
- `WriteLater`: another write behind the table's earlier ones (a cash-out, closing);
- `Freeze`: the table cannot go on just now (the database could not answer): its clocks stop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.tables import messages as m
from app.wire.events import ServerEvent

if TYPE_CHECKING:
    from app.store.hands import HandFinish, HandStart


@dataclass(frozen=True, slots=True)
class Said:
    """An event (of the catalog, or an engine event's wire object); `user`: only they may
    see it (their face-down cards), None: everyone at the table."""

    event: ServerEvent | dict[str, Any]
    user: int | None = None


@dataclass(frozen=True, slots=True)
class Told:
    channel: str
    text: str


@dataclass(frozen=True, slots=True)
class DealNext:
    delay: float | None = None  # None: the table's hand pause


@dataclass(frozen=True, slots=True)
class Mail:
    msg: m.Message
    after: float | None = None  # None: at once, behind what the mailbox holds


@dataclass(frozen=True, slots=True)
class TurnClock:
    seconds: float
    alarm: m.TurnAlarm


@dataclass(frozen=True, slots=True)
class StopClock:
    drop: bool = False  # True: the timer goes too (the table closes)


@dataclass(frozen=True, slots=True)
class Record:
    row: HandStart | HandFinish


@dataclass(frozen=True, slots=True)
class WriteLater:
    label: str
    job: Callable[[], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Freeze:
    why: str


Effect = Said | Told | DealNext | Mail | TurnClock | StopClock | Record | WriteLater | Freeze
Effects = list[Effect]


@dataclass(slots=True)
class Outcome:
    """A rule's result: the answer to whoever asked (None for mail) and the effects."""

    answer: Any = None
    effects: Effects = field(default_factory=list)


__all__ = [
    "DealNext",
    "Effect",
    "Effects",
    "Freeze",
    "Mail",
    "Outcome",
    "Record",
    "Said",
    "StopClock",
    "Told",
    "TurnClock",
    "WriteLater",
]
