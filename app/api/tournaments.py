"""Tournaments over HTTP: the lobby's Tournaments tab, a tournament's page, making one (the
host form), registering and unregistering, and the host's commands while it runs. What the
running tournament must answer goes to its director, on whichever process holds its lease.

Every refusal is `{"detail": {"code", "message"}}`: not_authenticated (401),
no_such_tournament (404, also for a private one you were not invited to), bad_password
(403), invalid_tournament (422), and the tournament's own refusals (400)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import DB, CurrentPlayer, OptionalPlayer, PasswordHashing, Services
from app.api.errors import api_error, from_table
from app.api.services import TableServices
from app.store.errors import TournamentNotFound
from app.tables import TableError
from app.tournaments import reach, service, summary
from app.tournaments.spec import MAX_PASSWORD, TournamentSpec

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])

NOT_FOUND = {"no_such_tournament", "tournament_not_found"}
FORBIDDEN = {"bad_password", "not_host"}


def _refused(exc: TableError) -> Exception:
    if exc.code in NOT_FOUND:
        return from_table(TableError("no_such_tournament", "no such tournament"), 404)
    if exc.code in FORBIDDEN:
        return from_table(exc, 403)
    if exc.code in ("invalid_tournament", "invalid_levels"):
        return from_table(exc, 422)
    if exc.code in (
        "server_unreachable",
        "unavailable",
        "tournament_moving",
        "tournament_starting",
    ):
        return from_table(exc, 503)
    return from_table(exc, 400)


class Entering(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    request_id: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(max_length=MAX_PASSWORD)] | None = None
    invite: Annotated[str, Field(max_length=64)] | None = None


class Registering(Entering):
    # the entrant's seed for the draws (R38): 32 random bytes as 64 lower-case hex digits
    seed: Annotated[str, Field(pattern="^[0-9a-f]{64}$")] | None = None


class HostCommand(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Annotated[str, Field(pattern="^(start|freeze|resume|cancel|pause_for_me|edit_levels)$")]
    user_id: int | None = None
    seconds: Annotated[int, Field(ge=1, le=3600)] | None = None
    levels: list[Any] | None = None  # edit_levels: checked as the host form's (`edited_levels`)


async def tell(services: TableServices, tournament_id: int, name: str, args: dict[str, Any]) -> Any:
    """A command for the tournament's director, here or on the process holding its lease."""
    return await reach.tell(
        services.db, services.router, services.directors, tournament_id, name, args
    )


async def _caught(coro: Any) -> Any:
    try:
        return await coro
    except TournamentNotFound:
        raise api_error(404, "no_such_tournament", "no such tournament") from None
    except TableError as exc:
        raise _refused(exc) from None


@router.get("")
async def tournaments(db: DB, player: OptionalPlayer) -> dict[str, Any]:
    """The Tournaments tab: public ones, and the private ones you host or entered."""
    return {"tournaments": await service.lobby(db, None if player is None else player.user_id)}


@router.post("", status_code=201)
async def create(
    body: Annotated[dict[str, Any], Body(examples=[{"name": "Friday stud", "buy_in": 1000}])],
    db: DB,
    passwords: PasswordHashing,
    player: CurrentPlayer,
) -> Any:
    """The host form: the fields of `TournamentSpec` (docs/protocol.md), and `password`."""
    values = dict(body)
    password = values.pop("password", None)
    if password is not None and not (
        isinstance(password, str) and 1 <= len(password) <= MAX_PASSWORD
    ):
        raise api_error(422, "invalid_tournament", f"password: 1 to {MAX_PASSWORD} characters")
    spec = await _caught(_parse(values))
    hashed = await passwords.hash(password) if password and spec.private else None
    return await service.create(db, spec, host_user_id=player.user_id, password_hash=hashed)


async def _parse(values: dict[str, Any]) -> TournamentSpec:
    return TournamentSpec.parse(values)


@router.get("/{tournament_id}")
async def page(
    tournament_id: int, services: Services, player: OptionalPlayer, invite: str | None = None
) -> Any:
    """A tournament's page: structure, payouts, standings; while it runs, the clock."""
    user = None if player is None else player.user_id
    shown = await _caught(service.page(services.db, tournament_id, user, invite))
    if shown["status"] == "running":
        try:
            shown["live"] = await tell(services, tournament_id, "view", {})
        except TableError:
            shown["live"] = None  # its director is moving: the page asks again
    return shown


@router.post("/{tournament_id}/register")
async def register(
    tournament_id: int, body: Registering, services: Services, player: CurrentPlayer
) -> Any:
    directors = services.directors
    assert directors is not None

    async def told(tid: int, name: str, args: dict[str, Any]) -> Any:
        return await tell(services, tid, name, args)

    return await _caught(
        service.register(
            services.db, services.passwords, tournament_id, player.user_id,
            request_id=body.request_id, password=body.password, invite=body.invite,
            start=directors.start_now, tell=told, seed=body.seed,
        )
    )  # fmt: skip


@router.post("/{tournament_id}/unregister")
async def unregister(tournament_id: int, body: Entering, db: DB, player: CurrentPlayer) -> Any:
    return await _caught(
        service.unregister(db, tournament_id, player.user_id, request_id=body.request_id)
    )


class Buying(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    request_id: Annotated[str, Field(min_length=1, max_length=64)]


@router.post("/{tournament_id}/rebuy")
async def rebuy(tournament_id: int, body: Buying, services: Services, player: CurrentPlayer) -> Any:
    """R35: a rebuy (at or below the starting stack, during the rebuy period)."""
    args = {"kind": "rebuy", "user": player.user_id, "request_id": body.request_id}
    return await _caught(tell(services, tournament_id, "buy_chips", args))


@router.post("/{tournament_id}/addon")
async def addon(tournament_id: int, body: Buying, services: Services, player: CurrentPlayer) -> Any:
    """R35: the add-on, once, in the level after the rebuy period."""
    args = {"kind": "addon", "user": player.user_id, "request_id": body.request_id}
    return await _caught(tell(services, tournament_id, "buy_chips", args))


@router.post("/{tournament_id}/host")
async def host(
    tournament_id: int, body: HostCommand, services: Services, player: CurrentPlayer
) -> Any:
    """The host's commands: start early (2 players at least), freeze and resume, cancel,
    "pause for me" time for a player from their allowance, and the levels to come edited."""
    return await _caught(_host(services, tournament_id, player.user_id, body))


async def _host(services: TableServices, tournament_id: int, user: int, body: HostCommand) -> Any:
    directors = services.directors
    assert directors is not None
    t = await service.hosted(services.db, tournament_id, user)
    if body.type == "start":
        return await service.start_early(services.db, t, directors.start_now)
    if body.type == "edit_levels":

        async def told(tid: int, name: str, args: dict[str, Any]) -> Any:
            return await tell(services, tid, name, args)

        return await service.edit_levels(services.db, t, body.levels, told)
    if body.type == "cancel" and t.status == "registering":
        return await service.cancel_unstarted(services.db, t)
    if body.type in ("freeze", "resume"):
        return await tell(services, tournament_id, "freeze", {"frozen": body.type == "freeze"})
    if body.type == "cancel":
        return await tell(services, tournament_id, "cancel", {})
    if body.user_id is None or body.seconds is None:
        raise TableError("invalid_message", "pause_for_me names user_id and seconds")
    return await tell(
        services, tournament_id, "pause_for_me", {"user": body.user_id, "ms": body.seconds * 1000}
    )


@router.get("/{tournament_id}/summary", response_class=PlainTextResponse)
async def summary_text(tournament_id: int, db: DB, player: CurrentPlayer) -> str:
    """The tournament's summary in PokerStars' form, for you (your place at the end)."""
    return str(await _caught(summary.for_player(db, tournament_id, player.user_id)))
