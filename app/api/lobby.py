"""The lobby: list public tables, create a table, join a private one by its invite, and the
host's commands over HTTP (the same commands exist on the table's WebSocket).

The table services come from `app.state` through `app.api.deps`, like every other route's.
Every refusal is `{"detail": {"code", "message"}}` (`app.api.errors`): not_authenticated
(401), no_such_table (404, also for a private table you were not admitted to),
bad_password and not_host (403), invalid_settings (422) and the table's own refusals (400).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import (
    CurrentPlayer,
    OptionalPlayer,
    Player,
    Services,
    authenticate,
    get_services,
)
from app.api.errors import api_error, from_table
from app.api.services import TableServices, start_table_services, stop_table_services
from app.tables import Table, TableError, TableSettings
from app.tables import messages as m
from app.wire.limits import MAX_BOTS, MAX_SEATS

# `app.api.ws` still imports these from here.
__all__ = [
    "Player",
    "TableServices",
    "authenticate",
    "get_services",
    "may_see",
    "router",
    "start_table_services",
    "stop_table_services",
]

router = APIRouter(prefix="/api/tables", tags=["tables"])
MAX_PASSWORD = 128


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    invite: Annotated[str, Field(min_length=1, max_length=128)]
    password: Annotated[str, Field(max_length=MAX_PASSWORD)] | None = None


class HostCommand(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    command: Literal["settings", "pause", "resume", "remove", "bots", "close"]
    changes: dict[str, Any] | None = None  # checked by `TableSettings.changed`
    seat: Annotated[int, Field(ge=0, lt=MAX_SEATS)] | None = None
    count: Annotated[int, Field(ge=1, le=MAX_BOTS)] | None = None


def may_see(table: Table, player: Player | None) -> bool:
    """A public table is everyone's; a private one its host's and its admitted members'."""
    if not table.settings.private:
        return True
    return player is not None and (
        player.user_id in table.members or player.user_id == table.host_user_id
    )


def find_table(services: TableServices, table_id: int, player: Player | None) -> Table:
    table = services.manager.get(table_id)
    if table is None or not may_see(table, player):
        raise no_such_table()  # a private table is not confirmed
    return table


def no_such_table() -> Exception:
    return api_error(404, "no_such_table", "no such table")


def hosted_line(table: Table) -> dict[str, Any]:
    """A lobby line for the table's host: with its invite (null for a public table)."""
    return {**table.summary(), "invite": table.invite_token}


@router.get("")
async def list_tables(
    services: Services, player: OptionalPlayer, mine: bool = False
) -> dict[str, Any]:
    """The public tables; `?mine=1`: the tables you host (private ones too, with invites)."""
    if mine:
        if player is None:
            raise api_error(401, "not_authenticated", "log in first")
        return await my_tables(services, player)
    tables = sorted(services.manager.public_tables(), key=lambda t: t.id)
    return {"tables": [t.summary() for t in tables]}


@router.get("/mine")
async def my_tables(services: Services, player: CurrentPlayer) -> dict[str, Any]:
    tables = sorted(services.manager.hosted_by(player.user_id), key=lambda t: t.id)
    return {"tables": [hosted_line(t) for t in tables]}


@router.get("/yours")
async def your_tables(services: Services, player: CurrentPlayer) -> dict[str, Any]:
    """Every open table where you sit or that you host (private ones too): the way back to a
    private table for a seated player who is not its host. The host's lines carry the invite."""
    user = player.user_id
    found = [
        t
        for t in services.manager.tables.values()
        if not t.closed and (t.host_user_id == user or user in t.by_user)
    ]
    lines = []
    for t in sorted(found, key=lambda t: t.id):
        line = hosted_line(t) if t.host_user_id == user else t.summary()
        seat = t.by_user.get(user)
        lines.append({**line, "host": t.host_user_id == user, "seat": seat})
    return {"tables": lines}


@router.post("", status_code=201)
async def create_table(
    body: Annotated[dict[str, Any], Body(examples=[{"name": "Friday", "small_bet": 100}])],
    services: Services,
    player: CurrentPlayer,
) -> Any:
    """The fields of `TableSettings` (docs/protocol.md), and `password` for a private table."""
    values = dict(body)
    password = values.pop("password", None)
    if password is not None and not (
        isinstance(password, str) and 1 <= len(password) <= MAX_PASSWORD
    ):
        raise api_error(422, "invalid_settings", f"password: 1 to {MAX_PASSWORD} characters")
    try:
        settings = TableSettings.parse(values)
    except TableError as exc:
        raise from_table(exc, 422) from None
    password_hash = None
    if password and settings.private:
        password_hash = await services.passwords.hash(password)
    try:
        table = await services.manager.create(
            settings, host_user_id=player.user_id, password_hash=password_hash
        )
    except TableError as exc:  # this process is full or stopping (server_full, server_stopping)
        raise from_table(exc, 503) from None
    return {
        "table": table.summary(),
        "invite": table.invite_token,
        "ws": f"/ws/tables/{table.id}",
    }


@router.post("/join")
async def join_table(body: JoinTable, services: Services, player: CurrentPlayer) -> Any:
    table = services.manager.by_invite(body.invite)
    if table is None:
        raise no_such_table()
    if table.password_hash is not None and not await services.passwords.verify(
        table.password_hash, body.password or ""
    ):
        raise api_error(403, "bad_password", "wrong table password")
    await table.request(m.Admit(player.user_id))
    return {"table": table.summary(), "ws": f"/ws/tables/{table.id}"}


@router.get("/{table_id}")
async def get_table(table_id: int, services: Services, player: CurrentPlayer) -> Any:
    table = find_table(services, table_id, player)
    answer: dict[str, Any] = {
        "table": table.summary(),
        "settings": table.info(),
        "seats": table.seat_list(),
    }
    if player.user_id == table.host_user_id:
        answer["invite"] = table.invite_token  # only the host may hand it out again
    return answer


def host_message(user_id: int, body: HostCommand) -> m.Message:
    if body.command == "settings":
        return m.HostSettings(user_id, body.changes or {})
    if body.command in ("pause", "resume"):
        return m.HostPause(user_id, body.command == "pause")
    if body.command == "remove":
        if body.seat is None:
            raise api_error(422, "invalid_request", "name the seat to free")
        return m.HostRemove(user_id, body.seat)
    if body.command == "bots":
        return m.HostBots(user_id, body.count or 1)
    return m.HostClose(user_id)


@router.post("/{table_id}/host")
async def host_command(
    table_id: int, body: HostCommand, services: Services, player: CurrentPlayer
) -> Any:
    table = find_table(services, table_id, player)
    try:
        result = await table.request(host_message(player.user_id, body))
    except TableError as exc:
        status = {"not_host": 403, "invalid_settings": 422}.get(exc.code, 400)
        raise from_table(exc, status) from None
    return {"result": result}
