"""What can be sent to a table's mailbox. Players' commands name the user they come from;
the table checks what that user may do. Timer messages come from the table's own clock."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from app.tables.errors import TableError


@dataclass(frozen=True, slots=True)
class NumbersReserved:
    """A block of hand numbers the table reserved (`numbers.HandNumbers`) has arrived."""

    block: range


@dataclass(frozen=True, slots=True)
class Join:
    """A client connects: who they are at this table (seat, host). `via`: the server
    process holding the socket (its sockets are forgotten if it dies: `ViewersGone`)."""

    user_id: int
    via: str = ""


@dataclass(frozen=True, slots=True)
class Unwatch:
    """A client's socket closed (the user may have others open)."""

    user_id: int
    via: str = ""


@dataclass(frozen=True, slots=True)
class ViewersGone:
    """These server processes died: their sockets watch no more (the observer count)."""

    via: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Admit:
    """A private table lets this user in (a valid invite or password): kept with the table."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Resync:
    """What the client missed after version `last_v` of table `epoch`, or a snapshot."""

    user_id: int
    last_v: int | None = None
    epoch: str | None = None


@dataclass(frozen=True, slots=True)
class Sit:
    user_id: int
    name: str
    seat: int
    amount: int
    key: str  # the client's request id: the buy-in posts once whatever the retries


@dataclass(frozen=True, slots=True)
class TopUp:
    user_id: int
    amount: int
    key: str


@dataclass(frozen=True, slots=True)
class Leave:
    user_id: int


@dataclass(frozen=True, slots=True)
class SitOut:
    user_id: int


@dataclass(frozen=True, slots=True)
class SitIn:
    user_id: int


@dataclass(frozen=True, slots=True)
class AutoPost:
    """R6: switch automatic ante posting on or off."""

    user_id: int
    on: bool


@dataclass(frozen=True, slots=True)
class PostAnte:
    """R6 with automatic posting off: "I'm in" for the next hand."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Act:
    user_id: int
    hand_id: str
    turn_id: int
    action: str
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class Chat:
    user_id: int
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class HostSettings:
    user_id: int
    changes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HostPause:
    user_id: int
    paused: bool


@dataclass(frozen=True, slots=True)
class HostRemove:
    user_id: int
    seat: int


@dataclass(frozen=True, slots=True)
class HostBots:
    user_id: int
    count: int


@dataclass(frozen=True, slots=True)
class HostClose:
    user_id: int


# -- from the table's own timers ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimedOut:
    seat: int
    turn_id: int


@dataclass(frozen=True, slots=True)
class StartHand:
    token: int


@dataclass(frozen=True, slots=True)
class HandWritten:
    """The hand writer is done with one of this table's finished hands (written or given up)."""


@dataclass(frozen=True, slots=True)
class BotAct:
    seat: int
    hand_id: str
    turn_id: int


@dataclass(frozen=True, slots=True)
class Wake:
    """Look again: publish what waits (events held while the lease was in doubt,
    `Table._flush`) and deal if a hand may start (a move that did not happen)."""


@dataclass(frozen=True, slots=True)
class Sync:
    """Answered once every message before it is handled and the table's hand records are
    written (tests, shutdown)."""


Message = (
    Admit | Join | Unwatch | Resync | Sit | TopUp | Leave | SitOut | SitIn | AutoPost | PostAnte
    | Act | Chat | HostSettings | HostPause | HostRemove | HostBots | HostClose | TimedOut
    | StartHand | HandWritten | NumbersReserved | BotAct | Wake | ViewersGone | Sync
)  # fmt: skip

# What may come from another process (a player's command routed to the table's owner,
# `app.tables.router`): the players' and host's messages, never a timer's.
REMOTE: dict[str, type[Message]] = {
    kind.__name__: kind
    for kind in (
        Admit, Join, Unwatch, Resync, Sit, TopUp, Leave, SitOut, SitIn, AutoPost, PostAnte,
        Act, Chat, HostSettings, HostPause, HostRemove, HostBots, HostClose,
    )
}  # fmt: skip


def to_wire(msg: Message) -> dict[str, Any]:
    """A player's message as JSON-ready data, to travel to the table's owner."""
    return {"kind": type(msg).__name__, **{f.name: getattr(msg, f.name) for f in fields(msg)}}


def from_wire(data: Any) -> Message:
    """The message `to_wire` made; anything else is refused."""
    if not isinstance(data, dict):
        raise TableError("invalid_message", "not a table message")
    values = dict(data)
    kind = REMOTE.get(values.pop("kind", None))
    if kind is None:
        raise TableError("invalid_message", "not a message another process may send")
    try:
        return kind(**values)
    except TypeError:
        raise TableError("invalid_message", f"malformed {kind.__name__}") from None
