"""A tournament's summary text for one entrant (the page's download), and its mails to
every entrant when it ends (`mailed`)."""

from __future__ import annotations

from app.engine.tournament_summary import render_summary
from app.mail import summaries
from app.store.db import Database
from app.tables.errors import TableError


async def for_player(db: Database, tournament_id: int, user_id: int) -> str:
    async with db.session() as s:
        summary = await summaries.summary_for(s, tournament_id, user_id)
    if summary is None:
        raise TableError("no_such_tournament", "no summary of that tournament for you")
    return render_summary(summary)


async def mailed(db: Database, tournament_id: int) -> int:
    """Queue each entrant's summary mail (sent by the mail worker, in their language)."""
    async with db.transaction() as s:
        return await summaries.queue_summaries(s, tournament_id)
