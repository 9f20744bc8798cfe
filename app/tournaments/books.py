"""The director's writes and reads, each in its own transaction and every write fenced by
the director's lease (a stale director writes nothing: `LeaseLost`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select

from app.store import accounts
from app.store import tournaments as store
from app.store.db import Database
from app.store.models import PokerTable
from app.store.tournament_models import Tournament, TournamentEntry
from app.tables.bot_names import bot_seat_name
from app.tournaments.state import Entry


def seat_name(account: str, bot: bool) -> str:
    """The name a tournament entry plays under, at its table and in the standings."""
    return bot_seat_name(account, unique=True) if bot else account


class Books:
    def __init__(self, db: Database, tournament_id: int, owner: str, epoch: int) -> None:
        self.db = db
        self.id = tournament_id
        self.owner = owner
        self.epoch = epoch

    async def _fence(self, s: Any) -> None:
        await store.check_director(s, self.id, self.owner, self.epoch)

    async def tournament(self) -> Tournament:
        async with self.db.session() as s:
            return await store.get_tournament(s, self.id)

    async def entries(self) -> list[Entry]:
        async with self.db.session() as s:
            rows = await store.entries(s, self.id)
            names = await accounts.names_of(s, {r.user_id for r in rows})
        return self._entries(rows, names)

    async def close_registration(self) -> list[Entry]:
        """The start: registration closed, under the fence, and the entries it closed on."""
        async with self.db.transaction() as s:
            fence = store.DirectorFence(self.owner, self.epoch)
            rows = await store.close_registration(s, self.id, fence)
            names = await accounts.names_of(s, {r.user_id for r in rows})
        return self._entries(rows, names)

    @staticmethod
    def _entries(rows: Sequence[TournamentEntry], names: Mapping[int, str]) -> list[Entry]:
        out = []
        for order, r in enumerate(sorted(rows, key=lambda r: (r.registered_at, r.id))):
            group = f"r{r.bust_round}" if r.bust_round is not None else f"h{r.bust_hand}"
            out.append(
                Entry(
                    r.id, r.user_id, seat_name(names.get(r.user_id, "?"), r.bot), r.number, order,
                    r.status,
                    r.chips, r.bot, r.table_id, r.seat, r.moves, r.place, r.prize,
                    r.time_bank_ms or 0, r.pause_left_ms or 0, r.bust_stack or 0,
                    r.bust_hand or 0, group, r.rebuys or 0, bool(r.addon),
                )
            )  # fmt: skip
        return out

    async def entrant_seeds(self, entries: list[int]) -> list[tuple[int, str]]:
        """The seeds `entries` gave at registration (entry id, hex), by entry id."""
        async with self.db.session() as s:
            rows = await store.entries(s, self.id)
        wanted = set(entries)
        return sorted((r.id, r.seed) for r in rows if r.id in wanted and r.seed)

    async def pool(self) -> int:
        """The prize pool: every price paid in (entries, re-entries, rebuys, add-ons), less
        what was refunded. (The account's balance is that less the prizes paid so far.)"""
        async with self.db.session() as s:
            total = await s.scalar(
                select(func.coalesce(func.sum(TournamentEntry.paid), 0)).where(
                    TournamentEntry.tournament_id == self.id,
                    TournamentEntry.refunded.is_(False),
                )
            )
        return int(total or 0)

    async def open_tables(self) -> dict[int, int]:
        """The tournament's open tables and their seats."""
        async with self.db.session() as s:
            rows = await s.execute(
                select(PokerTable.id, PokerTable.max_seats).where(
                    PokerTable.tournament_id == self.id, PokerTable.status == "open"
                )
            )
            return {table_id: seats for table_id, seats in rows}

    async def save(self, values: Mapping[str, Any]) -> None:
        async with self.db.transaction() as s:
            await self._fence(s)
            await store.save_director(s, self.id, values)

    async def save_structure(self, structure: Mapping[str, Any]) -> None:
        async with self.db.transaction() as s:
            await self._fence(s)
            await store.save_structure(s, self.id, structure)

    async def pay(self, placed: Sequence[tuple[int, int, int]]) -> None:
        async with self.db.transaction() as s:
            await self._fence(s)
            await store.pay_prizes(s, self.id, placed)

    async def draw(self, purpose: str, scheme: str, commitment: str, result: Any) -> int:
        """A draw made from the tournament's committed seed (its commitment is the master
        draw's; its seed, "", is the master's, revealed at the end): what it drew from and
        what it gave, so `verify --tournament` repeats it."""
        async with self.db.transaction() as s:
            await self._fence(s)
            return await store.record_draw(s, self.id, purpose, scheme, commitment, result)

    async def reveal(self, seq: int, seed_hex: str, result: Any) -> None:
        async with self.db.transaction() as s:
            await self._fence(s)
            await store.reveal_draw(s, self.id, seq, seed_hex, result)

    async def draws(self) -> list[Any]:
        async with self.db.session() as s:
            return list(await store.draws(s, self.id))

    async def refund_all(self) -> None:
        async with self.db.transaction() as s:
            await self._fence(s)
            await store.refund_all(s, self.id, key_prefix=f"cancel:{self.id}")

    async def set_bank(self, entry_id: int, time_bank_ms: int, pause_left_ms: int) -> None:
        async with self.db.transaction() as s:
            await self._fence(s)
            await store.save_entry_clock(s, entry_id, time_bank_ms, pause_left_ms)
