"""Reaching a tournament's director wherever it runs: here (`Directors`), else on the
process whose lease names it, through the router (the host's page and the operator's
command line both ask it this way)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.store.db import Database
from app.store.lease_models import TournamentLease
from app.store.types import utcnow
from app.tables.errors import TableError
from app.tables.rpc import TableRouter
from app.tournaments.directors import Directors


async def director_process(db: Database, tournament_id: int) -> str | None:
    """The process that directs the tournament now: its unexpired lease's owner."""
    async with db.session() as s:
        owner: str | None = await s.scalar(
            select(TournamentLease.owner).where(
                TournamentLease.tournament_id == tournament_id,
                TournamentLease.expires_at > utcnow(),
            )
        )
    return owner


async def tell(
    db: Database,
    router: TableRouter,
    directors: Directors | None,
    tournament_id: int,
    name: str,
    args: dict[str, Any],
) -> Any:
    """A command for the tournament's director, here or on the process holding its lease."""
    if directors is not None and directors.get(tournament_id) is not None:
        return await directors.command(tournament_id, name, args)
    owner = await director_process(db, tournament_id)
    if owner is None or (owner == router.me and directors is not None):
        raise TableError("tournament_moving", "the tournament's director is moving: try again")
    return await router.ask_process(
        owner, "tournament", {"id": tournament_id, "name": name, "args": args}
    )
