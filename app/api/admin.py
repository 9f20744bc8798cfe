"""The operators' routes (`/api/admin/…`, the admin page `/admin`): players, bans, mutes,
balance adjustments, closing and moving tables, the processes, chat reports and the
moderation log (docs/design.md, "Moderation").

Every route depends on `operator`: the role is read from the database at each request (a
revoked operator's open session loses it at once; nothing a client sends can claim it), and
a state change from another site is refused before it reaches here (`app.api.security`).
Every action is written to the moderation log in the transaction that makes it.

Refusals: not_authenticated (401), not_operator (403), no_such_player (404),
invalid_amount, insufficient_funds and idempotency_conflict (409), the table's own (400),
unavailable (503).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from app.api.deps import DB, AppSettings, Authenticated, Services, current_auth
from app.api.errors import api_error, from_store, from_table
from app.store import ledger, moderation, processes
from app.store.errors import IdempotencyConflict, InsufficientFunds, LedgerError, UserNotFound
from app.store.types import utcnow
from app.tables import TableError
from app.wire.limits import MAX_CHIPS, REQUEST_ID_MAX, REQUEST_ID_PATTERN

router = APIRouter(prefix="/api/admin", tags=["admin"])

Reason = Annotated[str, Field(max_length=moderation.REASON_MAX)]


async def operator(
    conn: HTTPConnection, auth: Annotated[Authenticated, Depends(current_auth)], db: DB
) -> moderation.Actor:
    """The logged-in operator, else 403 `not_operator`: read from the database now, never
    from the session or the request."""
    async with db.session() as s:
        if not await moderation.is_operator(s, auth.user.id):
            raise api_error(403, "not_operator", "only an operator may do that")
    return moderation.Actor(auth.user.id, auth.user.name)


Operator = Annotated[moderation.Actor, Depends(operator)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a forged field (a role) is refused, not ignored


class ReasonBody(Body):
    reason: Reason = ""


class MuteBody(Body):
    minutes: Annotated[int | None, Field(ge=1, le=10**7, strict=True)] = None  # None: for good
    reason: Reason = ""


class AdjustBody(Body):
    amount: Annotated[int, Field(ge=-MAX_CHIPS, le=MAX_CHIPS, strict=True)]
    key: Annotated[str, Field(min_length=1, max_length=REQUEST_ID_MAX, pattern=REQUEST_ID_PATTERN)]
    reason: Annotated[str, Field(min_length=1, max_length=moderation.REASON_MAX)]


class MoveBody(Body):
    to: Annotated[str | None, Field(max_length=64)] = None
    seconds: Annotated[float, Field(gt=0, le=120)] = 30.0


def _not_found(exc: UserNotFound) -> Exception:
    return from_store(exc, 404)


@router.get("/me")
async def whoami(actor: Operator) -> dict[str, Any]:
    """Whether the logged-in player is an operator (the page asks before it draws)."""
    return {"id": actor.user_id, "name": actor.name, "operator": True}


@router.get("/players")
async def search_players(
    actor: Operator, db: DB, q: Annotated[str, Query(max_length=64)] = ""
) -> dict[str, Any]:
    async with db.session() as s:
        return {"players": await moderation.search(s, q)}


@router.get("/players/{user_id}")
async def player(user_id: int, actor: Operator, db: DB) -> dict[str, Any]:
    try:
        async with db.session() as s:
            found = await moderation.player(s, user_id)
            found["log"] = await moderation.read_log(s, target=user_id, limit=50)
    except UserNotFound as exc:
        raise _not_found(exc) from None
    return found


@router.post("/players/{user_id}/mute")
async def mute(user_id: int, body: MuteBody, actor: Operator, db: DB) -> dict[str, Any]:
    until = (
        moderation.FOREVER if body.minutes is None else utcnow() + timedelta(minutes=body.minutes)
    )
    try:
        async with db.transaction() as s:
            await moderation.mute(s, user_id, until, actor, body.reason)
    except UserNotFound as exc:
        raise _not_found(exc) from None
    return {"muted_until": until.isoformat()}


@router.post("/players/{user_id}/unmute")
async def unmute(user_id: int, body: ReasonBody, actor: Operator, db: DB) -> dict[str, Any]:
    try:
        async with db.transaction() as s:
            await moderation.mute(s, user_id, None, actor, body.reason)
    except UserNotFound as exc:
        raise _not_found(exc) from None
    return {"muted_until": None}


@router.post("/players/{user_id}/ban")
async def ban(
    user_id: int, body: ReasonBody, actor: Operator, db: DB, services: Services
) -> dict[str, Any]:
    """Ban: every session revoked and each one's sockets closed on every process (the
    fan-out's logout word), and the player's seats cashed out (at the end of a hand they
    play in). A table that cannot be reached now is named in `unreached`: the ban stands,
    and the player can no longer act there."""
    if user_id == actor.user_id:
        raise api_error(409, "own_account", "you cannot ban yourself")
    try:
        async with db.transaction() as s:
            revoked = await moderation.ban(s, user_id, actor, body.reason)
            tables = await moderation.seated_at(s, user_id)
    except UserNotFound as exc:
        raise _not_found(exc) from None
    if services.sockets is not None:
        for session_id in revoked:
            await services.sockets.session_ended(session_id)
    seats, unreached = [], []
    for table_id in tables:
        try:
            answer = await services.router.ask(
                table_id, "moderate", {"do": "evict", "user": user_id}
            )
            seats.append({"table": table_id, **answer})
        except TableError as exc:
            unreached.append({"table": table_id, "code": exc.code, "message": exc.message})
    return {"banned": True, "sessions": len(revoked), "seats": seats, "unreached": unreached}


@router.post("/players/{user_id}/unban")
async def unban(user_id: int, body: ReasonBody, actor: Operator, db: DB) -> dict[str, Any]:
    try:
        async with db.transaction() as s:
            await moderation.unban(s, user_id, actor, body.reason)
    except UserNotFound as exc:
        raise _not_found(exc) from None
    return {"banned": False}


@router.post("/players/{user_id}/adjust")
async def adjust(user_id: int, body: AdjustBody, actor: Operator, db: DB) -> dict[str, Any]:
    """A posting of its own kind from or to the bank; the same `key` again posts nothing."""
    try:
        async with db.transaction() as s:
            posted = await moderation.adjust(s, user_id, body.amount, body.key, actor, body.reason)
        async with db.session() as s:
            balance = await ledger.player_balance(s, user_id)
    except UserNotFound as exc:
        raise _not_found(exc) from None
    except (IdempotencyConflict, InsufficientFunds) as exc:
        raise from_store(exc, 409) from None
    except LedgerError as exc:
        raise from_store(exc, 422) from None
    return {
        "transaction": posted.transaction_id,
        "replayed": posted.replayed,
        "balance": balance,
    }


@router.post("/tables/{table_id}/close")
async def close_table(
    table_id: int, body: ReasonBody, actor: Operator, db: DB, services: Services
) -> dict[str, Any]:
    """Close a table as its host would: at once between hands, else when the hand ends."""
    try:
        answer = await services.router.ask(table_id, "moderate", {"do": "shut"})
    except TableError as exc:
        raise from_table(exc, 404 if exc.code == "no_such_table" else 400) from None
    async with db.transaction() as s:
        await moderation.record(s, actor, "close_table", table_id=table_id, reason=body.reason)
    return dict(answer)


@router.get("/processes")
async def where(actor: Operator, db: DB, settings: AppSettings) -> dict[str, Any]:
    """What `python -m app tables where` prints: every registered process and its tables."""
    now = utcnow()
    found = await processes.where(db)
    return {
        "processes": [
            {
                "id": p.id,
                "host": p.host,
                "pid": p.pid,
                "capacity": p.capacity,
                "tables": tables,
                "live": (now - p.heartbeat_at).total_seconds() < settings.lease_seconds,
                "line": processes.describe(p, tables, now, settings.lease_seconds),
            }
            for p, tables in found
        ]
    }


@router.post("/tables/{table_id}/move")
async def move_table(
    table_id: int, body: MoveBody, actor: Operator, db: DB, services: Services
) -> dict[str, Any]:
    """The operators' move (`python -m app tables move`): the owner hands the table over
    between hands to `to` (else the process with most room)."""
    router_ = services.router
    if router_.directory is None:
        raise api_error(409, "single_process", "moving a table needs several processes")
    where_ = await router_.directory.whereabouts(table_id)
    if not where_.open or where_.owner is None:
        raise api_error(404, "no_such_table", f"table {table_id} is not running anywhere now")
    args = {"table": table_id, "to": body.to, "seconds": body.seconds}
    try:
        answer = await router_.ask_process(where_.owner, "move", args)
    except TableError as exc:
        raise from_table(exc, 409) from None
    async with db.transaction() as s:
        detail = {"from": where_.owner, "to": answer.get("target"), "moved": answer["moved"]}
        await moderation.record(s, actor, "move_table", table_id=table_id, detail=detail)
    return {"moved": bool(answer["moved"]), "from": where_.owner, "target": answer.get("target")}


@router.get("/reports")
async def reports(actor: Operator, db: DB) -> dict[str, Any]:
    async with db.session() as s:
        return {"reports": await moderation.reports(s)}


@router.get("/log")
async def log(actor: Operator, db: DB) -> dict[str, Any]:
    async with db.session() as s:
        return {"log": await moderation.read_log(s, limit=200)}
