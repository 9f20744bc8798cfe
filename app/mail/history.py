"""What mail needs from the hand histories: a small interface, so mail does not depend on how
hands are stored. `app.api.mail` plugs in the real source."""

from __future__ import annotations

from typing import Protocol

from app.store.db import Database


class HandHistory(Protocol):
    """One hand as a player dealt into it may see it afterwards (RULES.md R24: the cards of
    everyone who reached the showdown, mucked or not; never a folded player's down cards)."""

    @property
    def pokerstars_text(self) -> str: ...

    @property
    def phh(self) -> str: ...


class HistorySource(Protocol):
    async def load(self, db: Database, hand_id: str, viewer_user_id: int) -> HandHistory | None:
        """The hand's history for `viewer_user_id`, or None when there is no such hand or the
        viewer was not dealt into it."""
        ...

    async def recent_hand_ids(self, db: Database, user_id: int, limit: int) -> list[str]:
        """The ids of the last `limit` finished hands `user_id` was dealt into, newest first."""
        ...


class NoHistory:
    """A source with no hands at all (used until hand histories are stored)."""

    async def load(self, db: Database, hand_id: str, viewer_user_id: int) -> HandHistory | None:
        return None

    async def recent_hand_ids(self, db: Database, user_id: int, limit: int) -> list[str]:
        return []
