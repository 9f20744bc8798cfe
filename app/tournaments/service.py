"""What players and hosts ask of tournaments, before and while they run: make one, register
and unregister, rebuys and the add-on, the lobby's lines and a tournament's page. Chips move
through the ledger only (`app.store.tournaments`); what needs the running tournament goes to
its director, wherever it runs (`Directors`, or the process that holds its lease)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine.tournament import draws, payouts
from app.engine.tournament.structure import Structure
from app.store import accounts, leases
from app.store import tournaments as store
from app.store.db import Database
from app.store.errors import StoreError
from app.store.lease_models import TournamentLease
from app.store.passwords import Passwords
from app.store.tournament_models import Tournament
from app.store.types import utcnow
from app.tables.bot_names import BOT_NAMES
from app.tables.bot_users import register_bot
from app.tables.errors import TableError
from app.tournaments.books import seat_name
from app.tournaments.spec import TournamentSpec, edited_levels

Tell = Callable[[int, str, dict[str, Any]], Awaitable[Any]]  # a command for the director
Within = Callable[[AsyncSession], Awaitable[object]]


class Start(Protocol):
    """`Directors.start_now`: run the tournament's director here if its lease is free,
    writing `within` in the claim's own transaction."""

    def __call__(self, tournament_id: int, within: Within | None = None) -> Awaitable[bool]: ...


def refusal(exc: StoreError) -> TableError:
    return TableError(exc.code, exc.message)


async def create(
    db: Database,
    spec: TournamentSpec,
    *,
    host_user_id: int | None,
    password_hash: str | None = None,
    seed: bytes | None = None,
) -> dict[str, Any]:
    """A new tournament: its row, its prize pool, and the commitment to the seed of every
    draw its director will make (R38), published before anyone registers. (The seed stays
    in the database, never shown, until the tournament ends; `seed`: a simulation's.)"""
    built = spec.build_structure()
    seed = seed or draws.new_seed()
    invite = secrets.token_urlsafe(18) if spec.private else None
    values = {
        **spec.model_dump(exclude={"structure", "rebuys", "start", "bots"}),
        "structure": built.to_dict(),
        "rebuy": spec.rebuys.model_dump() if spec.rebuys else None,
        "start_mode": spec.start,
        "bots": spec.bots,
        "host_user_id": host_user_id,
        "invite_token": invite,
        "password_hash": password_hash if spec.private else None,
        "state": {"seed": seed.hex()},
    }
    async with db.transaction() as s:
        tid = await store.create_tournament(s, values)
        await store.add_draw(s, tid, "master", draws.SCHEME, draws.commit(seed, "master"))
    if spec.bots:
        await add_bots(db, tid, spec.bots)
    return {"id": tid, "invite": invite}


async def add_bots(db: Database, tournament_id: int, count: int) -> int:
    """Bots registered like players, one transaction each (`enter_bot`)."""
    async with db.session() as s:
        t = await store.get_tournament(s, tournament_id)
    for i in range(count):
        async with db.transaction() as s:
            await enter_bot(s, t, i)
    return count


async def enter_bot(s: AsyncSession, t: Tournament, i: int) -> None:
    """The `i`th bot, in the caller's transaction: granted exactly its buy-in and fee by the
    bank first, so the prize pool holds what the ledger says."""
    user = await register_bot(s, BOT_NAMES[i % len(BOT_NAMES)], int(t.buy_in) + int(t.fee))
    await store.enter(
        s, t.id, user.id, key=f"bot:{t.id}:{user.id}", kind="entry",
        chips=int(t.starting_chips), price=int(t.buy_in), fee=int(t.fee), bot=True,
    )  # fmt: skip


async def _may_enter(db: Database, t: Tournament, user_id: int, reentry: bool) -> str:
    """The status a new entry gets, or a refusal: before the start it is registered;
    during late registration it plays at once (R35)."""
    if t.status == "registering":
        if t.opens_at is not None and utcnow() < t.opens_at:
            raise TableError(
                "registration_not_open", f"registration opens at {t.opens_at.isoformat()}"
            )
        return "registered"
    if t.status == "running" and int(t.level) < int(t.late_levels or 0):
        return "registered"
    if t.status == "running":
        raise TableError("registration_closed", "late registration is over")
    raise TableError("registration_closed", f"the tournament is {t.status}")


async def register(
    db: Database,
    passwords: Passwords,
    tournament_id: int,
    user_id: int,
    *,
    request_id: str,
    password: str | None = None,
    invite: str | None = None,
    start: Start | None = None,
    tell: Tell | None = None,
    seed: str | None = None,
) -> dict[str, Any]:
    """Enter the tournament (a re-entry once busted, while late registration lasts): the
    buy-in to its prize pool, the fee to the house, in one posting keyed by the request.
    `seed` (64 hex digits, optional): the entrant's seed, mixed into the draws made after it
    (the first seating and every draw after it, R38); revealed with the draw."""
    async with db.session() as s:
        t = await store.get_tournament(s, tournament_id)
        mine = [e for e in await store.entries(s, tournament_id) if e.user_id == user_id]
        count = sum(
            1
            for e in await store.entries(s, tournament_id)
            if e.status in ("registered", "playing")
        )
    await _check_door(passwords, t, password, invite)
    status = await _may_enter(db, t, user_id, bool(mine))
    busted = [e for e in mine if e.status == "busted"]
    if busted and not t.reentry:
        raise TableError("no_reentry", "this tournament allows no re-entry")
    if any(e.status in ("registered", "playing") for e in mine):
        raise TableError("already_registered", "you are registered already")
    if count >= int(t.max_players):
        raise TableError("tournament_full", "every seat of this tournament is taken")
    kind = "reentry" if busted else "entry"

    async def enter(s: AsyncSession) -> None:
        await store.enter(
            s, tournament_id, user_id, key=f"t{tournament_id}:u{user_id}:{request_id}",
            kind=kind, chips=int(t.starting_chips), price=int(t.buy_in), fee=int(t.fee),
            status=status, seed=seed,
        )  # fmt: skip

    filled = t.start_mode == "full" and count + 1 >= int(t.max_players)
    try:
        # the last seat taken: the sit & go starts here, the entry written in the director's
        # own claim, so no other process's heartbeat takes the tournament in between
        if not (t.status == "registering" and filled and start is not None) or not (
            await start(tournament_id, within=enter)
        ):
            async with db.transaction() as s:
                await enter(s)
    except StoreError as exc:
        raise refusal(exc) from None
    if tell is not None and (t.status == "running" or await _running(db, tournament_id)):
        await tell(tournament_id, "entries", {})  # a late entry (or one made as it started)
    return {"registered": True, "entry": kind}


async def _running(db: Database, tournament_id: int) -> bool:
    async with db.session() as s:
        return (await store.get_tournament(s, tournament_id)).status == "running"


async def _check_door(
    passwords: Passwords, t: Tournament, password: str | None, invite: str | None
) -> None:
    """A private tournament takes its password, or its invite when it has none."""
    if not t.private:
        return
    if t.password_hash is not None:
        if not await passwords.verify(t.password_hash, password or ""):
            raise TableError("bad_password", "that is not this tournament's password")
        return
    if not invite or not t.invite_token or not secrets.compare_digest(invite, t.invite_token):
        raise TableError("no_such_tournament", "no such tournament")


async def unregister(
    db: Database, tournament_id: int, user_id: int, *, request_id: str
) -> dict[str, Any]:
    """Before the start only: the buy-in and the fee come back (R35)."""
    async with db.session() as s:
        t = await store.get_tournament(s, tournament_id)
    if t.status != "registering" or t.started_at is not None:
        raise TableError("already_started", "the tournament has started: there is no unregistering")
    try:
        async with db.transaction() as s:
            await store.unregister(
                s, tournament_id, user_id, key=f"t{tournament_id}:u{user_id}:{request_id}"
            )
    except StoreError as exc:
        raise refusal(exc) from None
    return {"registered": False}


def line(t: Tournament, entrants: int) -> dict[str, Any]:
    """A lobby line (the Tournaments tab)."""
    structure = t.structure or {}
    return {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "variant": t.variant,
        "buy_in": int(t.buy_in),
        "fee": int(t.fee),
        "entrants": entrants,
        "max_players": int(t.max_players),
        "seats_left": max(0, int(t.max_players) - entrants) if t.start_mode == "full" else None,
        "starts_at": t.starts_at.isoformat() if t.starts_at else None,
        "speed": structure.get("speed"),
        "private": bool(t.private),
        "frozen": bool(t.frozen),
    }


async def lobby(db: Database, user_id: int | None) -> list[dict[str, Any]]:
    async with db.session() as s:
        rows = await store.list_tournaments(s)
        out = []
        for t in rows:
            es = await store.entries(s, t.id)
            if t.private and t.host_user_id != user_id and all(e.user_id != user_id for e in es):
                continue
            out.append(line(t, sum(1 for e in es if e.status != "unregistered")))
    return out


async def page(
    db: Database, tournament_id: int, user_id: int | None, invite: str | None = None
) -> dict[str, Any]:
    """Everything the tournament page shows but the live clock (the director adds it)."""
    async with db.session() as s:
        t = await store.get_tournament(s, tournament_id)
        es = list(await store.entries(s, tournament_id))
        names = await accounts.names_of(s, (e.user_id for e in es))
        drawn = list(await store.draws(s, tournament_id))
    invited = bool(invite and t.invite_token and secrets.compare_digest(invite, t.invite_token))
    if (
        t.private
        and not invited
        and t.host_user_id != user_id
        and all(e.user_id != user_id for e in es)
    ):
        raise TableError("no_such_tournament", "no such tournament")
    entrants = sum(1 for e in es if e.status != "unregistered")
    pool = int(t.prize_pool or 0)
    return {
        **line(t, entrants),
        "note": t.note,
        "host": t.host_user_id == user_id and user_id is not None,
        "invite": t.invite_token if t.host_user_id == user_id else None,
        "seats_per_table": t.seats_per_table,
        "starting_chips": int(t.starting_chips),
        "structure": t.structure,
        "payouts": t.payouts,
        "prize_pool": pool,
        "prizes": payouts.prizes(t.payouts, pool, max(1, entrants)) if entrants else [],
        "late_levels": t.late_levels,
        "reentry": bool(t.reentry),
        "rebuys": t.rebuy,
        "action_timer_ms": t.action_timer_ms,
        "standings": _standings(es, names),
        "you": next(
            (
                _entry(e, names)
                for e in es
                if e.user_id == user_id and e.status in ("registered", "playing")
            ),
            None,
        ),
        "draws": [
            {"seq": d.seq, "purpose": d.purpose, "commitment": d.commitment, "seed": d.seed}
            for d in drawn
            if d.purpose == "master"
        ],
        # the seeds entrants gave, mixed into every draw from the first seating on (R38):
        # revealed with that draw, so each entrant finds its own
        "entrant_seeds": next(
            ((d.result or {}).get("entrant_seeds", []) for d in drawn if d.purpose == "seats"), []
        ),
        "started_at": t.started_at.isoformat() if t.started_at else None,
        "finished_at": t.finished_at.isoformat() if t.finished_at else None,
    }


def _entry(e: Any, names: dict[int, str]) -> dict[str, Any]:
    return {
        "user_id": e.user_id, "status": e.status,
        "name": seat_name(names.get(e.user_id, "?"), bool(e.bot)),  # as at its table
        "chips": int(e.chips), "table_id": e.table_id, "place": e.place,
        "prize": None if e.prize is None else int(e.prize), "entry": e.number,
    }  # fmt: skip


def _standings(es: list[Any], names: dict[int, str]) -> list[dict[str, Any]]:
    """Players in play by chips, then the places given, best first."""
    shown = [e for e in es if e.status != "unregistered"]
    playing = sorted((e for e in shown if e.place is None), key=lambda e: -int(e.chips))
    placed = sorted((e for e in shown if e.place is not None), key=lambda e: e.place)
    return [_entry(e, names) for e in playing + placed]


async def hosted(db: Database, tournament_id: int, user_id: int) -> Tournament:
    async with db.session() as s:
        t = await store.get_tournament(s, tournament_id)
    if t.host_user_id is None or t.host_user_id != user_id:
        if t.private:
            raise TableError("no_such_tournament", "no such tournament")
        raise TableError("not_host", "only the tournament's host may do that")
    return t


async def start_early(db: Database, t: Tournament, start: Start) -> dict[str, Any]:
    """The host starts the tournament now, with the players registered (2 at least)."""
    if t.status != "registering":
        raise TableError("already_started", f"the tournament is {t.status}")
    async with db.session() as s:
        count = sum(1 for e in await store.entries(s, t.id) if e.status == "registered")
    if count < 2:
        raise TableError("too_few_players", "a tournament starts with 2 players at least")
    async with db.transaction() as s:  # a setting, not the director's: it has none yet
        await s.execute(
            update(Tournament)
            .where(Tournament.id == t.id, Tournament.status == "registering")
            .values(min_players=2)
        )
    if not await start(t.id):
        raise TableError("tournament_moving", "the tournament is starting elsewhere")
    return {"started": True}


async def cancel_unstarted(db: Database, t: Tournament) -> dict[str, Any]:
    """R36 before the start: every buy-in and fee back. The director's lease is taken for
    it, so a start cannot race the cancellation."""

    def started(status: str) -> TableError:
        return TableError("already_started", f"the tournament is {status}")

    async with _before_the_start(db, t.id, "cancel", started) as (s, _):
        await store.refund_all(s, t.id, key_prefix=f"cancel:{t.id}")
        await store.save_director(s, t.id, {"status": "cancelled", "finished_at": utcnow()})
    return {"cancelled": True}


@asynccontextmanager
async def _before_the_start(
    db: Database, tournament_id: int, verb: str, started: Callable[[str], TableError]
) -> AsyncIterator[tuple[AsyncSession, Tournament]]:
    """A change to a tournament still registering, under its director's lease (so a start
    cannot race it); `started(status)` is raised if it has started meanwhile."""
    owner = f"{verb}-{secrets.token_hex(6)}"
    async with db.transaction() as s:
        epoch = await leases.claim(s, tournament_id, owner, seconds=30, model=TournamentLease)
        if epoch is None:
            raise TableError("tournament_moving", f"the tournament is starting: {verb} it again")
        fresh = await store.get_tournament(s, tournament_id)
        if fresh.status != "registering":
            raise started(fresh.status)
        yield s, fresh
        await leases.release(s, owner, [tournament_id], model=TournamentLease)


async def edit_levels(db: Database, t: Tournament, levels: Any, tell: Tell) -> dict[str, Any]:
    """A host's edit of the levels to come (R26): before the start written here (the
    director's lease taken for it, as a cancellation is), once it runs by its director.
    The first level (the one in play) is never changed."""
    if t.status in ("finished", "cancelled"):
        raise TableError("tournament_closed", f"the tournament is {t.status}")
    if levels is None:
        raise TableError("invalid_levels", "edit_levels names the levels")
    if t.status == "running":
        return dict(await tell(t.id, "edit_levels", {"levels": levels}))

    def started(status: str) -> TableError:
        return TableError("tournament_moving", "the tournament is starting: edit it again")

    async with _before_the_start(db, t.id, "edit", started) as (s, fresh):
        built = edited_levels(Structure.from_dict(fresh.structure), 0, levels)
        await store.save_structure(s, t.id, built.to_dict())
    return {"from_level": 2, "levels": len(built.levels)}
