"""The lobby: list public tables, create a table, join a private one by its invite, and the
host's commands over HTTP (the same commands exist on the table's WebSocket).

The table services (`TableServices`: the database, the `TableManager`, password hashing and
allowed WebSocket origins) live on `app.state.table_services`, set up by
`start_table_services` in the app's lifespan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from app.api.sockets import OpenSockets
from app.collector import Collector
from app.config import get_settings
from app.engine import money
from app.fanout import BaseFanout
from app.store import accounts
from app.store.db import Database
from app.store.passwords import Passwords
from app.tables import Clock, LedgerTableStore, Table, TableError, TableManager, TableSettings
from app.tables import messages as m


@dataclass
class TableServices:
    db: Database
    fanout: BaseFanout
    manager: TableManager
    passwords: Passwords
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    collector: Collector | None = None
    sockets: OpenSockets | None = None


async def start_table_services(
    app: FastAPI,
    *,
    db: Database,
    fanout: BaseFanout,
    clock: Clock | None = None,
    passwords: Passwords | None = None,
    allowed_origins: frozenset[str] = frozenset(),
    manager: TableManager | None = None,
    freeze_gc: bool = True,
) -> TableServices:
    """Make the table manager, restore the open tables from the database, publish it on
    `app.state.table_services`. Then the garbage collector keeps to `app.collector`'s
    schedule, so a full collection with thousands of sockets open no longer stalls every
    table for a few hundred ms every few seconds."""
    manager = manager or TableManager(LedgerTableStore(db), fanout, clock)
    await manager.restore()
    collector = None
    if freeze_gc:
        collector = Collector()
        collector.start()
    services = TableServices(
        db,
        fanout,
        manager,
        passwords or Passwords(time_cost=1, memory_kib=8192, parallelism=1),
        allowed_origins,
        collector,
    )
    services.sockets = OpenSockets(fanout, db)
    await services.sockets.start()
    app.state.table_services = services
    return services


async def stop_table_services(app: FastAPI) -> None:
    services: TableServices | None = getattr(app.state, "table_services", None)
    if services is not None:
        if services.sockets is not None:
            await services.sockets.stop()
        await services.manager.stop()
        if services.collector is not None:
            await services.collector.stop()


def get_services(conn: HTTPConnection) -> TableServices:
    services: TableServices | None = getattr(conn.app.state, "table_services", None)
    if services is None:
        raise HTTPException(503, "the table server is not running")
    return services


@dataclass(frozen=True)
class Player:
    user_id: int
    name: str
    session_id: int = 0  # the login session (a logout closes its sockets)


def token_of(conn: HTTPConnection) -> str | None:
    """The session token: `Authorization: Bearer` or the session cookie. Never a URL's query:
    URLs end up in access logs and proxies' logs (a browser's socket carries the cookie)."""
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    cookie = conn.cookies.get(get_settings().session_cookie_name)
    return cookie or None


async def authenticate(conn: HTTPConnection, services: TableServices) -> Player | None:
    token = token_of(conn)
    if not token:
        return None
    async with services.db.session() as s:
        found = await accounts.session_user(s, token)
    return None if found is None else Player(found[0].id, found[0].name, found[1].id)


async def current_player(
    request: Request, services: Annotated[TableServices, Depends(get_services)]
) -> Player:
    player = await authenticate(request, services)
    if player is None:
        raise HTTPException(401, "log in first", headers={"WWW-Authenticate": "Bearer"})
    return player


Services = Annotated[TableServices, Depends(get_services)]
CurrentPlayer = Annotated[Player, Depends(current_player)]
router = APIRouter(prefix="/api/tables", tags=["tables"])


def _cents(low: int, high: int) -> AfterValidator:
    """An amount in cents between `low` and `high`, refused in dollars as the table shows
    amounts (pydantic's own bounds would name the count of cents)."""

    def check(value: int) -> int:
        if not low <= value <= high:
            raise ValueError(f"from {money.chips(low)} to {money.chips(high)}")
        return value

    return AfterValidator(check)


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=64)]
    variant: Literal["stud", "stud8", "razz"] = "stud"
    small_bet: Annotated[int, _cents(1, 10**9)]
    big_bet: Annotated[int, _cents(1, 2 * 10**9)] | None = None
    ante: Annotated[int, _cents(0, 10**9)] = 0
    bring_in: Annotated[int, _cents(1, 10**9)] | None = None
    max_buy_in: Annotated[int, _cents(1, 10**12)] | None = None
    max_seats: Annotated[int, Field(ge=2, le=8)] = 8
    action_timer_ms: Annotated[int, Field(ge=100, le=300_000)] = 10_000
    hand_pause_ms: Annotated[int, Field(ge=0, le=60_000)] = 3_000
    rake_bps: Annotated[int, Field(ge=0, le=10_000)] = 0
    rake_cap: Annotated[int, _cents(0, 10**12)] = 0
    rake_third_street: bool = False
    timeout_action: Literal["all_in", "fold"] = "all_in"
    showdown_first_when_checked: Literal["first_to_act", "lowest_seat"] = "first_to_act"
    sit_out_limit: Annotated[int, Field(ge=0, le=1000)] = 3
    bot_delay_ms: Annotated[int, Field(ge=0, le=60_000)] = 800
    private: bool = False
    password: Annotated[str, Field(min_length=1, max_length=128)] | None = None


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invite: Annotated[str, Field(min_length=1, max_length=128)]
    password: Annotated[str, Field(max_length=128)] | None = None


def refuse(exc: TableError, status: int = 400) -> HTTPException:
    return HTTPException(status, {"code": exc.code, "message": exc.message})


def may_see(table: Table, player: Player | None) -> bool:
    if not table.settings.private:
        return True
    return player is not None and (
        player.user_id in table.members or player.user_id == table.host_user_id
    )


def find_table(services: TableServices, table_id: int, player: Player | None) -> Table:
    table = services.manager.get(table_id)
    if table is None or not may_see(table, player):
        raise HTTPException(404, "no such table")  # a private table is not confirmed
    return table


def hosted_line(table: Table) -> dict[str, Any]:
    """A lobby line for the table's host: with its invite (null for a public table)."""
    return {**table.summary(), "invite": table.invite_token}


@router.get("")
async def list_tables(request: Request, services: Services, mine: bool = False) -> dict[str, Any]:
    """The public tables; `?mine=1`: the tables you host (private ones too, with invites)."""
    if mine:
        return await my_tables(services, await current_player(request, services))
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
async def create_table(body: CreateTable, services: Services, player: CurrentPlayer) -> Any:
    values = body.model_dump(exclude={"password"})
    values["big_bet"] = values["big_bet"] or 2 * body.small_bet
    values["bring_in"] = values["bring_in"] or max(1, body.small_bet // 2)
    try:
        settings = TableSettings(**values)
    except TableError as exc:
        raise refuse(exc, 422) from None
    password_hash = None
    if body.password and body.private:
        password_hash = await services.passwords.hash(body.password)
    table = await services.manager.create(
        settings, host_user_id=player.user_id, password_hash=password_hash
    )
    return {
        "table": table.summary(),
        "invite": table.invite_token,
        "ws": f"/ws/tables/{table.id}",
    }


@router.post("/join")
async def join_table(body: JoinTable, services: Services, player: CurrentPlayer) -> Any:
    table = services.manager.by_invite(body.invite)
    if table is None:
        raise HTTPException(404, "no such table")
    if table.password_hash is not None and not await services.passwords.verify(
        table.password_hash, body.password or ""
    ):
        raise HTTPException(403, {"code": "bad_password", "message": "wrong table password"})
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


class HostCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: Literal["settings", "pause", "resume", "remove", "bots", "close"]
    changes: dict[str, Any] | None = None
    seat: Annotated[int, Field(ge=0, le=7)] | None = None
    count: Annotated[int, Field(ge=1, le=7)] | None = None


def host_message(user_id: int, body: HostCommand) -> m.Message:
    if body.command == "settings":
        return m.HostSettings(user_id, body.changes or {})
    if body.command in ("pause", "resume"):
        return m.HostPause(user_id, body.command == "pause")
    if body.command == "remove":
        if body.seat is None:
            raise HTTPException(422, "name the seat to free")
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
        raise refuse(exc, 403 if exc.code == "not_host" else 400) from None
    return {"result": result}
