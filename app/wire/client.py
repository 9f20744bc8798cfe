"""Every message a client sends on the table socket, validated by pydantic.

Each is a JSON object with a `type`; `ref` (optional) is echoed in the answer. Unknown
fields are refused. A model's docstring is its note in docs/protocol.md and its `example`
the document's example (a test validates each example against its model).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from app.engine import money
from app.wire.limits import (
    CHANGES_DEPTH,
    CHAT_LINE_MAX,
    CHAT_MAX,
    EPOCH_MAX,
    HAND_ID_MAX,
    MAX_BOTS,
    MAX_CHIPS,
    MAX_SEATS,
    REF_MAX,
    REQUEST_ID_MAX,
    REQUEST_ID_PATTERN,
)

Ref = Annotated[str, Field(max_length=REF_MAX)] | None
RequestId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=REQUEST_ID_MAX,
        pattern=REQUEST_ID_PATTERN,
        description="the client's key: a retry with the same id moves chips once",
    ),
]
Chips = Annotated[int, Field(gt=0, le=MAX_CHIPS, strict=True, description="in cents")]
Seat = Annotated[int, Field(ge=0, lt=MAX_SEATS, strict=True)]


def _shallow(changes: dict[str, Any]) -> dict[str, Any]:
    """Settings are plain values: a wrong one is the table's to name (`invalid_settings`),
    but one nested deeper than any JSON text the servers pass each other may hold is not
    carried at all. Looked at without recursion (the parser allows 1024 levels)."""
    level: list[Any] = [changes]
    for _ in range(CHANGES_DEPTH):
        level = [
            inner
            for value in level
            if isinstance(value, dict | list)
            for inner in (value.values() if isinstance(value, dict) else value)
        ]
        if not level:
            return changes
    raise ValueError(f"nested more than {CHANGES_DEPTH} deep")


Action = Literal["fold", "check", "call", "bring_in", "complete", "bet", "raise", "show", "muck"]


class ClientMessage(BaseModel):
    """The fields every message may carry."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    type: str
    ref: Ref = Field(default=None, description="echoed in the answer")
    example: ClassVar[dict[str, Any]]


class Ping(ClientMessage):
    """`result: {"pong": true}`"""

    type: Literal["ping"]
    example: ClassVar[dict[str, Any]] = {"type": "ping"}


class ResyncMsg(ClientMessage):
    """The events missed after `last_v` of table `epoch`, or a snapshot;
    `result: {"v": <the last event now sent>}`"""

    type: Literal["resync"]
    last_v: Annotated[int, Field(ge=0, description="the last event number seen")] | None = None
    epoch: (
        Annotated[str, Field(max_length=EPOCH_MAX, description="the snapshot's epoch")] | None
    ) = None
    example: ClassVar[dict[str, Any]] = {"type": "resync", "last_v": 120, "epoch": "9f2c01ab"}


class SitMsg(ClientMessage):
    """Buy in and sit; at least 10 small bets (R3), at most `max_buy_in` and your balance.
    `request_id` makes a retried buy-in move chips once: a repeat is answered with the first
    answer and changes nothing; the same id with another seat or amount (or on a `top_up`)
    is refused, `request_id_reused`. At a private table whose host approves seats (R43) it
    waits for the host: `result: {"waiting": true, "request", "seat", "stack": 0}`, and
    nothing moves until the host says yes (`seat_answer`)"""

    type: Literal["sit"]
    seat: Seat
    amount: Chips
    request_id: RequestId
    example: ClassVar[dict[str, Any]] = {
        "type": "sit", "seat": 3, "amount": 2000, "request_id": "b-81f2"
    }  # fmt: skip


class TopUpMsg(ClientMessage):
    """Between hands; during a hand you are in, it is queued for its end (`queued: true`),
    unless your balance cannot pay it with those already queued (`insufficient_funds`)"""

    type: Literal["top_up"]
    amount: Chips
    request_id: RequestId
    example: ClassVar[dict[str, Any]] = {"type": "top_up", "amount": 500, "request_id": "t-1"}


class LeaveMsg(ClientMessage):
    """Stack back to your balance now, or at the end of the hand you are in (your turns
    then check or fold)"""

    type: Literal["leave"]
    example: ClassVar[dict[str, Any]] = {"type": "leave"}


class SitOutMsg(ClientMessage):
    """Keep the seat, be dealt no hands"""

    type: Literal["sit_out"]
    example: ClassVar[dict[str, Any]] = {"type": "sit_out"}


class SitInMsg(ClientMessage):
    """Be dealt in again from the next hand"""

    type: Literal["sit_in"]
    example: ClassVar[dict[str, Any]] = {"type": "sit_in"}


class AutoPostMsg(ClientMessage):
    """R6: with it off, answer each `post_ante_due`"""

    type: Literal["auto_post"]
    on: bool = Field(description="post the ante by yourself for every hand")
    example: ClassVar[dict[str, Any]] = {"type": "auto_post", "on": False}


class PostAnteMsg(ClientMessage):
    """ "I'm in" for the next hand (R6)"""

    type: Literal["post_ante"]
    example: ClassVar[dict[str, Any]] = {"type": "post_ante"}


class ActMsg(ClientMessage):
    """`amount` is the "to" amount on this street (omit it when only one is legal;
    `legal.bets` and `legal.raises` hold two amounts, small and big, under R14's
    fourth-street option)"""

    type: Literal["act"]
    hand_id: Annotated[str, Field(max_length=HAND_ID_MAX, description="the hand it answers")]
    turn_id: Annotated[int, Field(ge=0, strict=True, description="the turn it answers")]
    action: Action
    amount: Chips | None = None
    example: ClassVar[dict[str, Any]] = {
        "type": "act", "hand_id": "c0ffee…", "turn_id": 34, "action": "raise", "amount": 200
    }  # fmt: skip


class ShowMsg(ClientMessage):
    """R41: the uncalled winner shows the hand they won, after the award (`show_offered`
    says until when); the cards go to everyone and into the hand's record"""

    type: Literal["show"]
    hand_id: Annotated[str, Field(max_length=HAND_ID_MAX, description="the hand won")]
    example: ClassVar[dict[str, Any]] = {"type": "show", "hand_id": "c0ffee…"}


Hex64 = Annotated[
    str, Field(min_length=64, max_length=64, pattern="^[0-9a-f]{64}$", description="hex")
]


class SeedMsg(ClientMessage):
    """A seated player's seed for the hand whose sealed deck is `sealed` (seeded-v2,
    docs/fairness.md): `commit` is the hash of the seed you will send next; a seed counts
    only if it hashes to your previous `commit` (the first message of a chain only registers
    its `commit`). `result: {"seed_ok": true, "used", "pending", "sealed"}` (`"reason": "first
    of a chain"`); refused `seed_late` (that hand started: kept for the next),
    `seed_mismatch` (not your chain's: the chain restarts at the new commit), `unknown_deal`"""

    type: Literal["seed"]
    seed: Hex64
    commit: Hex64
    sealed: Hex64
    example: ClassVar[dict[str, Any]] = {
        "type": "seed", "seed": "5e" * 32, "commit": "c0" * 32, "sealed": "d1" * 32
    }  # fmt: skip


class WaitJoinMsg(ClientMessage):
    """Join a full public table's waiting list (R44); also `POST /api/tables/{id}/waiting`.
    `result: {"waiting": <your place, 1 first>, "count"}`; refused `already_seated`,
    `already_waiting`, `seat_free` (sit instead), `no_waiting_list` (a private or tournament
    table), `waiting_list_full`. When a seat frees, the first in line is offered it
    (`seat_offered`): take it with `sit` within the offer's time"""

    type: Literal["wait_join"]
    example: ClassVar[dict[str, Any]] = {"type": "wait_join"}


class WaitLeaveMsg(ClientMessage):
    """Leave the waiting list (R44), declining a seat offered to you, which goes to the next
    in line; also `DELETE /api/tables/{id}/waiting`. `result: {"waiting": false, "declined":
    <the seat offered, or null>}`; refused `not_waiting`"""

    type: Literal["wait_leave"]
    example: ClassVar[dict[str, Any]] = {"type": "wait_leave"}


class ChatMsg(ClientMessage):
    """Said to everyone at the table, your seat and name with it"""

    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=CHAT_MAX)]
    example: ClassVar[dict[str, Any]] = {"type": "chat", "text": "gl"}


class ReportChatMsg(ClientMessage):
    """Report a chat line said at this table (`line`: the chat event's) to the operators,
    with the lines around it as the table kept them"""

    type: Literal["report_chat"]
    line: Annotated[str, Field(min_length=1, max_length=CHAT_LINE_MAX)]
    example: ClassVar[dict[str, Any]] = {"type": "report_chat", "line": "3f9a0c1d2e4b5a69"}


class HostSettingsMsg(ClientMessage):
    """Host only; checked like a new table's settings, applied between hands"""

    type: Literal["host_settings"]
    changes: Annotated[dict[str, Any], AfterValidator(_shallow)] = Field(
        description="any table setting but `private`"
    )
    example: ClassVar[dict[str, Any]] = {"type": "host_settings", "changes": {"ante": 20}}


class HostPauseMsg(ClientMessage):
    """Host only; no new hand starts while paused"""

    type: Literal["host_pause"]
    paused: bool
    example: ClassVar[dict[str, Any]] = {"type": "host_pause", "paused": True}


class HostRemoveMsg(ClientMessage):
    """Host only; the seat's stack back to its owner"""

    type: Literal["host_remove"]
    seat: Seat
    example: ClassVar[dict[str, Any]] = {"type": "host_remove", "seat": 3}


class HostBotsMsg(ClientMessage):
    """Host only; bots buy in for 20 small bets and check/call"""

    type: Literal["host_bots"]
    count: Annotated[
        int, Field(ge=1, le=MAX_BOTS, strict=True, description="at most the free seats")
    ]
    example: ClassVar[dict[str, Any]] = {"type": "host_bots", "count": 2}


class HostMuteMsg(ClientMessage):
    """Host only; a player's chat refused at this table (`muted: false` lifts it)"""

    type: Literal["host_mute"]
    user_id: Annotated[int, Field(ge=1, strict=True)]
    muted: Annotated[bool, Field(strict=True)] = True
    example: ClassVar[dict[str, Any]] = {"type": "host_mute", "user_id": 7, "muted": True}


class HostCloseMsg(ClientMessage):
    """Host only; every stack back to its owner"""

    type: Literal["host_close"]
    example: ClassVar[dict[str, Any]] = {"type": "host_close"}


class SeatWithdrawMsg(ClientMessage):
    """R43: take back your seat request that waits for the host; nothing had moved, and
    nothing moves. `result: {"withdrawn": true}`"""

    type: Literal["seat_withdraw"]
    example: ClassVar[dict[str, Any]] = {"type": "seat_withdraw"}


class HostSeatAnswerMsg(ClientMessage):
    """Host only (R43): yes or no to a waiting seat request (its `request` from
    `seat_requests`). Yes posts the buy-in and seats the player (`result: {"approved": true,
    "seat", "stack"}`; a refusal of the ledger's, as `insufficient_funds`, ends the request:
    `{"approved": false, "reason", "message"}`); no changes nothing. A request no longer
    waiting (answered, withdrawn, its seat taken meanwhile, never made): `no_such_request`,
    saying which"""

    type: Literal["host_seat_answer"]
    request: Annotated[
        str, Field(min_length=1, max_length=REQUEST_ID_MAX, pattern=REQUEST_ID_PATTERN)
    ]
    approve: bool
    example: ClassVar[dict[str, Any]] = {
        "type": "host_seat_answer", "request": "q-3f9a1c", "approve": True
    }  # fmt: skip


class HostLimitsMsg(ClientMessage):
    """Host only (R43): one player's buy-in limits at this table, inside the table's (R3);
    both null: the table's own again. They bind the player's buy-ins and top-ups"""

    type: Literal["host_limits"]
    user_id: Annotated[int, Field(ge=1, strict=True)]
    min_buy_in: Chips | None = None
    max_buy_in: Chips | None = None
    example: ClassVar[dict[str, Any]] = {
        "type": "host_limits", "user_id": 7, "min_buy_in": 2000, "max_buy_in": 4000
    }  # fmt: skip


# The catalog, once: a new message is a model here and a line in this union (the table's
# commands then a rule and a line in `app.tables.table`'s map).
AnyClientMessage = Annotated[
    Ping | ResyncMsg | SitMsg | TopUpMsg | LeaveMsg | SitOutMsg | SitInMsg | AutoPostMsg
    | PostAnteMsg | ActMsg | ShowMsg | SeedMsg | ChatMsg | ReportChatMsg | HostSettingsMsg
    | HostPauseMsg | HostRemoveMsg | HostBotsMsg | HostMuteMsg | HostCloseMsg | SeatWithdrawMsg
    | HostSeatAnswerMsg | HostLimitsMsg | WaitJoinMsg | WaitLeaveMsg,
    Field(discriminator="type"),
]  # fmt: skip

MESSAGES: tuple[type[ClientMessage], ...] = get_args(get_args(AnyClientMessage)[0])

# The host's commands, also taken by the HTTP host route (`POST /api/tables/{id}/host`).
AnyHostMessage = Annotated[
    HostSettingsMsg
    | HostPauseMsg
    | HostRemoveMsg
    | HostBotsMsg
    | HostMuteMsg
    | HostCloseMsg
    | HostSeatAnswerMsg
    | HostLimitsMsg,
    Field(discriminator="type"),
]

# The waiting list's commands, also taken by the lobby's route (`/api/tables/{id}/waiting`).
AnyWaitMessage = Annotated[WaitJoinMsg | WaitLeaveMsg, Field(discriminator="type")]

client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(AnyClientMessage)
wait_message: TypeAdapter[AnyWaitMessage] = TypeAdapter(AnyWaitMessage)
host_message: TypeAdapter[AnyHostMessage] = TypeAdapter(AnyHostMessage)


def refusal(exc: ValidationError) -> tuple[str, str]:
    """The error code and words for a message its model refused: the same wherever it is
    checked (at the socket, or on the process a routed command arrives at)."""
    first = exc.errors()[0]
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return "unknown_type", "unknown message type"
    loc = first["loc"]
    where = ".".join(str(x) for x in loc)
    what = first["msg"]
    if loc and loc[-1] == "amount":  # in dollars, as the table shows amounts
        what = f"a whole number of cents, {money.chips(1)} to {money.chips(MAX_CHIPS)}"
    return "invalid_message", f"{where}: {what}" if where else what


def type_of(model: type[ClientMessage]) -> str:
    """The `type` a message model accepts (its one `Literal`)."""
    names: tuple[str, ...] = getattr(model.model_fields["type"].annotation, "__args__", ())
    return names[0]
