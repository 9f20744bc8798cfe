"""What the server processes say to each other through the fan-out (`app.tables.rpc`):
a request on the asked process's channel, its reply on the asker's, and a table's owner
notice on the table's channel. Typed here, once, and versioned: a rolling deploy runs old
and new processes side by side, so a message without `v` (the release before this one) is
still read, and one from a newer release than this process knows is refused by name
(`unsupported_version`), never half understood.

A player's command travels as the catalog's own JSON (`app.wire.client`), with who asked
it, and is checked on arrival by the same models, with the same bounds, as at the socket.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

VERSION = 2
"""The version this process writes. 1: the release before, whose messages carry no `v`
(accepted for one release: drop `OLDEST` to 2 in the release after)."""
OLDEST = 1


class ProcessMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    v: int = OLDEST  # absent: written by the release before


class Request(ProcessMessage):
    """Run `op` on the asked process, for `table` (None: a question for the process)."""

    id: Annotated[str, Field(min_length=1, max_length=64)]
    from_: Annotated[str, Field(alias="from", min_length=1)]
    op: Annotated[str, Field(min_length=1, max_length=64)]
    table: int | None = None
    args: dict[str, Any]


class Reply(ProcessMessage):
    """The answer to request `re`: `ok`, or `error` as (code, words)."""

    re: str
    ok: Any = None
    error: tuple[str, str] | None = None


class OwnerNotice(BaseModel):
    """A new owner runs the table from now on, in `epoch` (its `v` is `envelope.NOTICE_V`:
    a table channel's numbering, not this module's version)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    owner: str
    epoch: str


def version_refused(body: dict[str, Any]) -> str | None:
    """Why a process message cannot be read here (a newer release's), or None."""
    v = body.get("v", OLDEST)
    if not isinstance(v, int) or isinstance(v, bool) or not OLDEST <= v <= VERSION:
        return f"process messages v{OLDEST} to v{VERSION} are read here, not {v!r}"
    return None


# -- a table's mail, routed to the process that runs the table (the op "request") --------


class _Mail(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AskMail(_Mail):
    """A user (their socket held by process `via`) asks the table a catalog message `msg`
    (checked on arrival with `app.wire.client.client_message`)."""

    kind: Literal["Ask"]
    user_id: int
    name: Annotated[str, Field(max_length=64)]
    via: str
    msg: dict[str, Any]


class JoinMail(_Mail):
    kind: Literal["Join"]
    user_id: int
    via: str = ""


class UnwatchMail(_Mail):
    kind: Literal["Unwatch"]
    user_id: int
    via: str = ""


class ResyncMail(_Mail):
    kind: Literal["Resync"]
    user_id: int
    last_v: int | None = None
    epoch: str | None = None


class AdmitMail(_Mail):
    kind: Literal["Admit"]
    user_id: int


AnyMail = Annotated[
    AskMail | JoinMail | UnwatchMail | ResyncMail | AdmitMail, Field(discriminator="kind")
]
table_mail: TypeAdapter[AnyMail] = TypeAdapter(AnyMail)


# -- a tournament director's orders to one of its tables (the table op "direct") ----------


class SeatOrder(_Mail):
    """Seat this entry here, with its chips (a first seating, a move, a late entry)."""

    entry_id: int
    user_id: int
    name: Annotated[str, Field(max_length=64)]
    seat: int
    chips: Annotated[int, Field(gt=0)]
    bot: bool = False
    time_bank_ms: Annotated[int, Field(ge=0)] = 0


class UnseatOrder(_Mail):
    """Take this player off the table (between hands), to `to_table`'s `seat` (a move) or
    nowhere yet (a table breaking: the draw seats them after)."""

    user_id: int
    entry_id: int
    to_table: int | None = None
    seat: int | None = None


class AddChips(_Mail):
    """A rebuy or the add-on (R35), paid for by the player: the chips join their stack
    between hands (chips behind, if a hand is on), the price and fee posted with them."""

    user_id: int
    kind: Literal["rebuy", "addon"]
    chips: Annotated[int, Field(gt=0)]
    price: Annotated[int, Field(ge=0)]
    fee: Annotated[int, Field(ge=0)]
    key: Annotated[str, Field(min_length=1, max_length=200)]


class Stakes(_Mail):
    """The level in force from the table's next hand on (R26)."""

    level: Annotated[int, Field(ge=1)]  # as players count them: 1, 2, ...
    ante: Annotated[int, Field(ge=0)]
    bring_in: Annotated[int, Field(gt=0)]
    small_bet: Annotated[int, Field(gt=0)]
    big_bet: Annotated[int, Field(gt=0)]
    variant: Literal["stud", "stud8", "razz"]
    raise_cap: bool = True  # R29: off once two players remain
    open_pair: Literal["r14", "rp10f"] = "r14"  # R30


class Finished(_Mail):
    """A player's place, for the table to tell its watchers ("You finished 7th of 60")."""

    user_id: int
    name: Annotated[str, Field(max_length=64)]
    place: Annotated[int, Field(ge=1)]
    of: Annotated[int, Field(ge=1)]
    prize: Annotated[int, Field(ge=0)]


class DirectorOrders(_Mail):
    """What a tournament's director tells one of its tables, in its lease's `epoch` (a
    table refuses orders older than the newest it took: a stale director changes nothing).
    `unseat` only between hands; `deal` lets the table deal its next hand (one hand each:
    the director answers every hand's report), `hold` takes that back while the hand waits
    out its pause (the tournament froze); `round` numbers a hand-for-hand hand."""

    tournament_id: int
    epoch: Annotated[int, Field(ge=1)]
    unseat: list[UnseatOrder] = []
    seat: list[SeatOrder] = []
    stakes: Stakes | None = None
    deal: bool = False
    # deal at once if the hand the director believes on has ended with no bust (the
    # answer carries that hand's report, `ended`): a moved player is dealt in without
    # waiting for the report's round trip (R33)
    deal_if_ended: bool = False
    hold: bool = False  # R37 (a freeze): a go whose hand is not dealt yet is taken back
    round: int | None = None
    refill_ms: Annotated[int, Field(ge=0)] = 0  # R27: added to every time bank here
    bank_cap_ms: Annotated[int, Field(ge=0)] = 0
    finished: list[Finished] = []
    bank_add: dict[str, Annotated[int, Field(gt=0)]] = {}  # user -> ms: "pause for me"
    add: list[AddChips] = []
    close: bool = False


# -- the release before: its commands were the table's dataclasses by class name ------------

_OLD_COMMANDS = {
    "Sit": "sit", "TopUp": "top_up", "Leave": "leave", "SitOut": "sit_out", "SitIn": "sit_in",
    "AutoPost": "auto_post", "PostAnte": "post_ante", "Act": "act", "Chat": "chat",
    "HostSettings": "host_settings", "HostPause": "host_pause", "HostRemove": "host_remove",
    "HostBots": "host_bots", "HostClose": "host_close",
}  # fmt: skip


def upgrade_mail(data: Any) -> Any:
    """A command in the release before's form (``{"kind": "Sit", "user_id", "name", "seat",
    "amount", "key"}``) as an `AskMail`'s data; anything else as it came."""
    if not isinstance(data, dict) or data.get("kind") not in _OLD_COMMANDS:
        return data
    fields = {k: v for k, v in data.items() if k not in ("kind", "user_id", "name")}
    if "key" in fields:
        fields["request_id"] = fields.pop("key")
    if fields.get("amount", 0) is None:
        del fields["amount"]
    return {
        "kind": "Ask",
        "user_id": data.get("user_id"),
        "name": data.get("name", ""),
        "via": "",
        "msg": {"type": _OLD_COMMANDS[data["kind"]], **fields},
    }


def upgrade_host(body: Any) -> Any:
    """The HTTP host route's body in the release before's form (``{"command": "pause"}``)
    as the catalog's host message; anything else as it came."""
    if not isinstance(body, dict) or "command" not in body:
        return body
    command = body.get("command")
    if command in ("pause", "resume"):
        return {"type": "host_pause", "paused": command == "pause"}
    if command == "settings":
        return {"type": "host_settings", "changes": body.get("changes") or {}}
    if command == "remove":
        return {"type": "host_remove", "seat": body.get("seat")}
    if command == "bots":
        return {"type": "host_bots", "count": body.get("count") or 1}
    return {"type": f"host_{command}"}
