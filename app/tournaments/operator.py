"""What an operator may do to any tournament, public or private (docs/rules.md R36, R37):
freeze and resume it, and cancel it, also once a player is out (the chop). The operator is
whoever runs `python -m app tournaments` on the server's database; the running tournament's
director does it, wherever it runs, as for a host."""

from __future__ import annotations

from typing import Any

from app.store import tournaments as store
from app.store.db import Database
from app.tables.errors import TableError
from app.tournaments import service

ACTIONS = ("freeze", "resume", "cancel")


async def operate(db: Database, tell: service.Tell, tournament_id: int, action: str) -> Any:
    """`action` done to the tournament (`TournamentNotFound` when there is none). Before the
    start only a cancellation means anything (everyone refunded); over, nothing does."""
    if action not in ACTIONS:
        raise ValueError(f"not an operator's action: {action!r}")
    async with db.session() as s:
        t = await store.get_tournament(s, tournament_id)
    if t.status in ("finished", "cancelled"):
        raise TableError("tournament_closed", f"the tournament is {t.status}")
    if action == "cancel" and t.status == "registering":
        return await service.cancel_unstarted(db, t)
    if t.status != "running":
        raise TableError("not_running", f"the tournament is {t.status}: there is no clock to stop")
    if action == "cancel":
        return await tell(
            tournament_id, "cancel", {"operator": True, "why": "cancelled by an operator"}
        )
    return await tell(tournament_id, "freeze", {"frozen": action == "freeze"})
