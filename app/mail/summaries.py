"""A tournament's summary as one entrant gets it (PokerStars' summary form, R24's privacy:
places, names and prizes only), and the mails queued for every entrant when it ends."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine.tournament_summary import Place, SummaryText
from app.store import accounts
from app.store.models import User
from app.store.outbox import MailKind, MailRequest
from app.store.tournament_models import Tournament, TournamentEntry


async def summary_for(
    session: AsyncSession, tournament_id: int, viewer_user_id: int | None
) -> SummaryText | None:
    """The tournament's summary for this viewer (their own place at the end), or None if
    the tournament does not exist or has not started."""
    t = await session.get(Tournament, tournament_id)
    if t is None or t.started_at is None:
        return None
    rows = list(
        await session.scalars(
            select(TournamentEntry).where(
                TournamentEntry.tournament_id == tournament_id,
                TournamentEntry.status != "unregistered",
            )
        )
    )
    users = {r.user_id for r in rows}
    names = await accounts.names_of(session, users)
    viewer = None
    if viewer_user_id is not None:
        mine = [r for r in rows if r.user_id == viewer_user_id]
        if not mine:
            return None  # not an entrant: nothing of theirs to sum up
        viewer = names.get(viewer_user_id)
    places = [
        Place(r.place, names.get(r.user_id, "?"), None, int(r.prize or 0), r.number) for r in rows
    ]
    return SummaryText(
        tournament_id=t.id,
        name=t.name,
        variant=t.variant,
        buy_in=int(t.buy_in),
        fee=int(t.fee),
        entrants=len(rows),
        prize_pool=int(t.prize_pool or 0),
        started_at=t.started_at,
        finished_at=t.finished_at,
        places=places,
        viewer=viewer,
    )


async def queue_summaries(session: AsyncSession, tournament_id: int) -> int:
    """One summary mail for each person who played (bots and unverified addresses get none),
    in the outbox the mail worker sends from: its language is the player's, at sending."""
    rows = await session.execute(
        select(User.id, User.email)
        .join(TournamentEntry, TournamentEntry.user_id == User.id)
        .where(
            TournamentEntry.tournament_id == tournament_id,
            TournamentEntry.status != "unregistered",
            TournamentEntry.bot.is_(False),
            User.email_verified.is_(True),
        )
        .distinct()
    )
    count = 0
    for user_id, email in rows:
        session.add(
            MailRequest(
                user_id=user_id,
                kind=MailKind.TOURNAMENT,
                to_address=email,
                payload={"tournament_id": tournament_id},
            )
        )
        count += 1
    return count
