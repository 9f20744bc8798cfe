"""The table WebSocket's client messages, validated by pydantic (docs/protocol.md).

Every message is a JSON object with a `type`; `ref` (optional) is echoed in the answer:
``{"type": "ok", "ref": …, "result": {…}}`` or
``{"type": "error", "ref": …, "code": …, "message": …}``; an error changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

MAX_FRAME = 4096
Ref = Annotated[str, Field(max_length=64)] | None
RequestId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
MAX_CHIPS = 10**12
Chips = Annotated[int, Field(gt=0, le=MAX_CHIPS, strict=True)]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    ref: Ref = None


class Ping(_Msg):
    type: Literal["ping"]


class ResyncMsg(_Msg):
    type: Literal["resync"]
    last_v: Annotated[int, Field(ge=0)] | None = None
    epoch: Annotated[str, Field(max_length=16)] | None = None


class SitMsg(_Msg):
    type: Literal["sit"]
    seat: Annotated[int, Field(ge=0, le=7, strict=True)]
    amount: Chips
    request_id: RequestId


class TopUpMsg(_Msg):
    type: Literal["top_up"]
    amount: Chips
    request_id: RequestId


class LeaveMsg(_Msg):
    type: Literal["leave"]


class SitOutMsg(_Msg):
    type: Literal["sit_out"]


class SitInMsg(_Msg):
    type: Literal["sit_in"]


class AutoPostMsg(_Msg):
    type: Literal["auto_post"]
    on: bool


class PostAnteMsg(_Msg):
    type: Literal["post_ante"]


class ActMsg(_Msg):
    type: Literal["act"]
    hand_id: Annotated[str, Field(max_length=32)]
    turn_id: Annotated[int, Field(ge=0, strict=True)]
    action: Literal["fold", "check", "call", "bring_in", "complete", "bet", "raise", "show", "muck"]
    amount: Chips | None = None


class ChatMsg(_Msg):
    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=200)]


class HostSettingsMsg(_Msg):
    type: Literal["host_settings"]
    changes: dict[str, Any]


class HostPauseMsg(_Msg):
    type: Literal["host_pause"]
    paused: bool


class HostRemoveMsg(_Msg):
    type: Literal["host_remove"]
    seat: Annotated[int, Field(ge=0, le=7, strict=True)]


class HostBotsMsg(_Msg):
    type: Literal["host_bots"]
    count: Annotated[int, Field(ge=1, le=7, strict=True)]


class HostCloseMsg(_Msg):
    type: Literal["host_close"]


ClientMessage = Annotated[
    Ping | ResyncMsg | SitMsg | TopUpMsg | LeaveMsg | SitOutMsg | SitInMsg | AutoPostMsg
    | PostAnteMsg | ActMsg | ChatMsg | HostSettingsMsg | HostPauseMsg | HostRemoveMsg
    | HostBotsMsg | HostCloseMsg,
    Field(discriminator="type"),
]  # fmt: skip

client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def error(code: str, message: str, ref: str | None = None) -> dict[str, Any]:
    return {"type": "error", "ref": ref, "code": code, "message": message}
