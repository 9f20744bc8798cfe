"""What the server processes say to each other through the fan-out (`app.tables.router`):
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
