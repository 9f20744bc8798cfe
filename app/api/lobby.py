"""The lobby: list public tables, create a table, join a private one by its invite, and the
host's commands over HTTP (the same commands exist on the table's WebSocket).

The table services come from `app.state` through `app.api.deps`, like every other route's.
Every refusal is `{"detail": {"code", "message"}}` (`app.api.errors`): not_authenticated
(401), no_such_table (404, also for a private table you were not admitted to),
bad_password and not_host (403), invalid_settings (422) and the table's own refusals (400).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from app.api import process_ops
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
from app.store import accounts
from app.tables import TableError, TableSettings
from app.wire import client as c

# `app.api.ws` still imports these from here.
__all__ = [
    "Player",
    "TableServices",
    "authenticate",
    "get_services",
    "router",
    "start_table_services",
    "stop_table_services",
]

router = APIRouter(prefix="/api/tables", tags=["tables"])
MAX_PASSWORD = 128
MAX_INVITE = 128


def no_such_table() -> Exception:
    return api_error(404, "no_such_table", "no such table")


# the table's process could not be reached just now: try again
UNREACHABLE = frozenset({"server_unreachable", "table_moving", "unavailable"})


def refused(exc: TableError, statuses: dict[str, int], default: int) -> Exception:
    """A routed table's refusal as HTTP: 404 for a table that is not there (or not yours to
    see), 503 while its process cannot be reached, else `statuses` or `default`."""
    if exc.code == "no_such_table":
        return no_such_table()
    status = 503 if exc.code in UNREACHABLE else statuses.get(exc.code, default)
    return from_table(exc, status)


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    invite: Annotated[str, Field(min_length=1, max_length=MAX_INVITE)]
    password: Annotated[str, Field(max_length=MAX_PASSWORD)] | None = None


async def gathered(services: TableServices, op: str, **args: Any) -> list[dict[str, Any]]:
    """Every process's lines for `op`, by table id."""
    answers = await services.peers.ask_all(op, args)
    return sorted((line for lines in answers for line in lines), key=lambda line: line["id"])


# -- the routes ---------------------------------------------------------------------------


@router.get("")
async def list_tables(
    services: Services, player: OptionalPlayer, mine: bool = False
) -> dict[str, Any]:
    """The public tables; `?mine=1`: the tables you host (private ones too, with invites)."""
    if mine:
        if player is None:
            raise api_error(401, "not_authenticated", "log in first")
        return await my_tables(services, player)
    return {"tables": await gathered(services, "lobby")}


@router.get("/mine")
async def my_tables(services: Services, player: CurrentPlayer) -> dict[str, Any]:
    return {"tables": await gathered(services, "hosted", user=player.user_id)}


@router.get("/yours")
async def your_tables(services: Services, player: CurrentPlayer) -> dict[str, Any]:
    """Every open table where you sit or that you host (private ones too): the way back to a
    private table for a seated player who is not its host. The host's lines carry the invite."""
    return {"tables": await gathered(services, "yours", user=player.user_id)}


@router.post("", status_code=201)
async def create_table(
    body: Annotated[dict[str, Any], Body(examples=[{"name": "Friday", "small_bet": 100}])],
    services: Services,
    player: CurrentPlayer,
) -> Any:
    """The fields of `TableSettings` (docs/protocol.md), and `password` for a private table.
    The table runs on this process if it has room, else on the live process with the most."""
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
    args = {"values": values, "host": player.user_id, "password_hash": password_hash}
    try:
        return await process_ops.place(services.peers, args)
    except TableError as exc:  # no process has room, or all are stopping
        raise from_table(exc, 503) from None


@router.post("/join")
async def join_table(body: JoinTable, services: Services, player: CurrentPlayer) -> Any:
    found = await services.peers.ask_all(
        "join", {"invite": body.invite, "password": body.password, "user": player.user_id}
    )
    if not found:
        raise no_such_table()
    if found[0].get("refused") == "bad_password":
        raise api_error(403, "bad_password", "wrong table password")
    return found[0]


@router.get("/invite/{token}")
async def invitation(token: str, services: Services) -> dict[str, str]:
    """Who invites you, for the login page of an invite opened logged out: the table's name
    and its host's name, nothing else. No login needed: the invite is the secret, and an
    unknown one (or a closed table's) is a 404 that says nothing about any table."""
    unknown = api_error(404, "no_such_invite", "This invite link is not valid any more")
    if len(token) > MAX_INVITE:
        raise unknown
    found = await services.peers.ask_all("invited", {"invite": token})
    if not found:
        raise unknown
    host: int = found[0]["host"]
    async with services.db.session() as session:
        names = await accounts.names_of(session, [host])
    if host not in names:
        raise unknown
    return {"table": str(found[0]["table"]), "host": names[host]}


@router.get("/{table_id}")
async def get_table(table_id: int, services: Services, player: CurrentPlayer) -> Any:
    try:
        return await services.router.ask(table_id, "view", {"user": player.user_id})
    except TableError as exc:
        raise refused(exc, {}, 503) from None


@router.post("/{table_id}/host")
async def host_command(
    table_id: int,
    body: Annotated[c.AnyHostMessage, Body()],
    services: Services,
    player: CurrentPlayer,
) -> Any:
    """The host's commands of the wire catalog (`host_settings`, `host_pause`, …), as the
    table socket takes them."""
    args = {"user": player.user_id, "name": player.name, "body": body.model_dump(mode="json")}
    try:
        result = await services.router.ask(table_id, "host", args)
    except TableError as exc:
        statuses = {"not_host": 403, "invalid_settings": 422, "invalid_message": 422}
        raise refused(exc, statuses, 400) from None
    return {"result": result}


async def _wait(table_id: int, services: TableServices, player: Player, kind: str) -> Any:
    args = {"user": player.user_id, "name": player.name, "body": {"type": kind}}
    try:
        return {"result": await services.router.ask(table_id, "wait", args)}
    except TableError as exc:
        raise refused(exc, {}, 409) from None


@router.post("/{table_id}/waiting")
async def join_waiting_list(table_id: int, services: Services, player: CurrentPlayer) -> Any:
    """Join a full public table's waiting list (R44): the catalog's `wait_join`."""
    return await _wait(table_id, services, player, "wait_join")


@router.delete("/{table_id}/waiting")
async def leave_waiting_list(table_id: int, services: Services, player: CurrentPlayer) -> Any:
    """Leave it, declining a seat offered (R44): the catalog's `wait_leave`."""
    return await _wait(table_id, services, player, "wait_leave")
