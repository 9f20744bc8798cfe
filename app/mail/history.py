"""What mail needs from the hand histories: a small interface (tests plug in their own), and
`StoredHistory`, the real one over the stored hands."""

from __future__ import annotations

from typing import Protocol

from app.store import hands
from app.store.db import Database
from app.store.history import load_hand_history


class HandHistory(Protocol):
    """One hand as a player dealt into it may see it afterwards (docs/rules.md R24: the cards of
    everyone who reached the showdown, mucked or not; never a folded player's down cards)."""

    @property
    def pokerstars_text(self) -> str: ...

    @property
    def phh(self) -> str: ...


class HistorySource(Protocol):
    """Hands are named by their numbers (what the table and the hand list show)."""

    async def load(self, db: Database, number: int, viewer_user_id: int) -> HandHistory | None:
        """The hand's history for `viewer_user_id`, or None when there is no such hand or the
        viewer was not dealt into it."""
        ...

    async def recent_hands(self, db: Database, user_id: int, limit: int) -> list[int]:
        """The numbers of the last `limit` finished hands `user_id` was dealt into, newest
        first."""
        ...


class StoredHistory:
    """The hands the table server stored (`app.store.hands`), rendered for the viewer by
    `app.store.history` (R24: every showdown seat's cards, mucked too; no folded down cards
    but the viewer's own)."""

    async def load(self, db: Database, number: int, viewer_user_id: int) -> HandHistory | None:
        return await load_hand_history(db, number, viewer_user_id)

    async def recent_hands(self, db: Database, user_id: int, limit: int) -> list[int]:
        async with db.session() as session:
            rows, _ = await hands.list_hands(session, user_id, limit=limit)
        return [row.number for row in rows]
