"""What can be sent to a table's mailbox: a user's command of the wire catalog (`Ask`: the
client's own model, with who asks; the table checks what that user may do), and the table's
own mail: watchers joining and leaving, catching up, admission, its clock's timers and its
writer's notices. No player command is defined here: `app.wire.client` is their one place."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from app.tables.errors import TableError
from app.wire import client, process

C = TypeVar("C", bound=client.ClientMessage, covariant=True)


@dataclass(frozen=True, slots=True)
class NumbersReserved:
    """A block of hand numbers the table reserved (`numbers.HandNumbers`) has arrived."""

    block: range


@dataclass(frozen=True, slots=True)
class Join:
    """A client connects: who they are at this table (seat, host). `via`: the server
    process holding the socket (its sockets are forgotten if it dies: `WatchersGone`)."""

    user_id: int
    via: str = ""


@dataclass(frozen=True, slots=True)
class Unwatch:
    """A client's socket closed (the user may have others open)."""

    user_id: int
    via: str = ""


@dataclass(frozen=True, slots=True)
class WatchersGone:
    """These server processes died: their sockets watch no more (nor count as watchers)."""

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
class Ask(Generic[C]):
    """User `user_id` (`name`; their socket held by process `via`, "" for the HTTP host
    route) asks the table a command of the wire catalog, `msg`, already checked by its
    model (`app.wire.client`): the table's rule for its type answers (`table._RULES`)."""

    user_id: int
    name: str
    via: str
    msg: C


@dataclass(frozen=True, slots=True)
class Evict:
    """An operator banned this user: their seat is cashed out now, or at the end of the hand
    they are in (`hosting.evict`). Sent by the admin route through the router's
    `moderate` op, never by a client."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Shut:
    """An operator closes the table, as its host's `host_close` would (`hosting.shut`)."""


# -- from the table's own timers ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnAlarm:
    """The action timer (R19) of turn `turn_id` rang for `seat` (the engine's own
    `TimedOut` is what the hand makes of it)."""

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
class ReportAgain:
    """A tournament table's report got no orders yet: send it again (`directed.report`)."""

    token: int


@dataclass(frozen=True, slots=True)
class Wake:
    """Look again: publish what waits (events held while the lease was in doubt,
    `Table._flush`) and deal if a hand may start (a move that did not happen)."""


@dataclass(frozen=True, slots=True)
class PresenceCheck:
    """R40, a while after the table started here (a restart, a failover, a move): a seat
    whose player has no socket back at the table by then is away."""


@dataclass(frozen=True, slots=True)
class OfferRunsOut:
    """R44: the seat offered to `user_id` under `token` was not taken in time (a newer offer
    has another token: this one is stale then)."""

    user_id: int
    token: int


@dataclass(frozen=True, slots=True)
class Drain:
    """The process is stopping, or the table is being moved elsewhere (`manager.drain`,
    `manager.move`): no new hand here while `on` (a hand on plays to its end)."""

    on: bool = True


@dataclass(frozen=True, slots=True)
class Sync:
    """Answered once every message before it is handled and the table's hand records are
    written (tests, shutdown)."""


Message = (
    Admit | Join | Unwatch | Resync | Ask[Any] | TurnAlarm | StartHand | HandWritten
    | NumbersReserved | BotAct | Wake | WatchersGone | Drain | Sync | ReportAgain
    | OfferRunsOut | PresenceCheck | Evict | Shut | process.DirectorOrders
)  # fmt: skip

# What may come from another process (`app.tables.rpc`, its op "request"): a user's
# mail, never a timer's. Travels as `app.wire.process.AnyMail`.
_REMOTE = (Admit, Join, Unwatch, Resync)


def to_wire(msg: Message) -> dict[str, Any]:
    """A user's mail as JSON-ready data (`process.AnyMail`), to travel to the table's owner."""
    if isinstance(msg, Ask):
        return {
            "kind": "Ask",
            "user_id": msg.user_id,
            "name": msg.name,
            "via": msg.via,
            "msg": msg.msg.model_dump(mode="json"),
        }
    if not isinstance(msg, _REMOTE):
        raise TypeError(f"{type(msg).__name__} stays on its table's process")
    return {"kind": type(msg).__name__, **{f.name: getattr(msg, f.name) for f in fields(msg)}}


def from_wire(data: Any) -> Message:
    """The mail `to_wire` made (or the release before made, `process.upgrade_mail`), its
    command checked by the catalog's models as at the socket; anything else is refused,
    `invalid_message`."""
    try:
        mail = process.table_mail.validate_python(process.upgrade_mail(data))
    except ValidationError:
        raise TableError(
            "invalid_message", "not a table message another process may send"
        ) from None
    if isinstance(mail, process.AskMail):
        try:
            msg = client.client_message.validate_python(mail.msg)
        except ValidationError as exc:
            raise TableError(*client.refusal(exc)) from None
        return Ask(mail.user_id, mail.name, mail.via, msg)
    if isinstance(mail, process.JoinMail):
        return Join(mail.user_id, mail.via)
    if isinstance(mail, process.UnwatchMail):
        return Unwatch(mail.user_id, mail.via)
    if isinstance(mail, process.ResyncMail):
        return Resync(mail.user_id, mail.last_v, mail.epoch)
    return Admit(mail.user_id)
