"""The directors this process runs: each tournament has at most one, leased and fenced like
a table (`tournament_leases`: the owner, an epoch that only grows, an expiry). Each
heartbeat the process renews its directors' leases (a lost one stops its director at once)
and claims what needs a director: a running tournament whose director died (kill -9: its
lease expired), a scheduled one whose start time came, a sit & go that filled up. Nothing a
director does reaches a table or the database unless its lease is surely held: it waits
while a renewal is in doubt (a process paused past its lease finds, when it wakes, that its
renewal fails, and stops its directors without having said anything)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.fanout import BaseFanout
from app.store import leases
from app.store.db import Database
from app.store.lease_models import TournamentLease
from app.store.tournament_models import Tournament, TournamentEntry
from app.store.types import UTCDateTime, utcnow
from app.tables.clock import Clock, RealClock
from app.tables.errors import TableError
from app.tournaments import summary
from app.tournaments.books import Books
from app.tournaments.director import AskTable, Director

MakeTable = Callable[[int, dict[str, Any]], Awaitable[int]]  # (tournament, settings) -> table

log = logging.getLogger("app.tournaments")


class Directors:
    def __init__(
        self,
        db: Database,
        fanout: BaseFanout,
        *,
        owner: str,
        ask_table: AskTable,
        make_table: MakeTable,
        lease_seconds: float = 5.0,
        watch_expiry: bool = False,
        clock: Clock | None = None,
        on_finish: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self.db = db
        self.fanout = fanout
        self.owner = owner
        self.ask_table = ask_table
        self.make_table = make_table
        self.lease_seconds = lease_seconds
        # a server process: a director whose lease may have run out by this process's own
        # clock says nothing until a renewal settles it (as `LedgerTableStore.holds`)
        self.watch_expiry = watch_expiry
        self.clock: Clock = clock or RealClock()
        self.on_finish = on_finish or self._mail_summaries
        self.running: dict[int, Director] = {}
        self.epochs: dict[int, int] = {}
        self.sure_until: dict[int, float] = {}
        self._placing = asyncio.Lock()
        self.stopping = False

    async def _mail_summaries(self, tournament_id: int) -> None:
        await summary.mailed(self.db, tournament_id)

    def holds(self, tournament_id: int) -> bool:
        """Surely still this process's, by its own clock (a claim or renewal that began
        within the lease time)."""
        if not self.watch_expiry:
            return tournament_id in self.epochs
        return time.monotonic() < self.sure_until.get(tournament_id, 0.0)

    def get(self, tournament_id: int) -> Director | None:
        director = self.running.get(tournament_id)
        return director if director is not None and not director.done.is_set() else None

    async def heartbeat(self) -> None:
        await self.renew()
        await self.claim_due()

    async def renew(self) -> None:
        held = dict(self.epochs)
        if not held:
            return
        began = time.monotonic()
        async with self.db.transaction() as s:
            kept = await leases.renew(
                s, self.owner, held, seconds=self.lease_seconds, model=TournamentLease
            )
        for tid in kept:
            self.sure_until[tid] = began + self.lease_seconds
        for tid in set(held) - set(kept):
            log.warning("tournament %s: this process lost its director's lease", tid)
            await self._drop(tid)
        for tid, director in list(self.running.items()):
            if director.done.is_set():
                await self._let_go(tid)

    async def claim_due(self) -> list[int]:
        """Claim the tournaments that need a director and are free: running (their
        director died or let go), or due to start."""
        if self.stopping:
            return []
        async with self.db.session() as s:
            due = list(await s.scalars(_DUE, {"now": utcnow()}))
        return [tid for tid in due if await self.start_now(tid)]

    async def start_now(
        self,
        tournament_id: int,
        within: Callable[[AsyncSession], Awaitable[object]] | None = None,
    ) -> bool:
        """Run the tournament's director here if its lease is free (a sit & go that just
        filled, a host starting early, a failover); False if another process has it.
        `within` writes in the claim's own transaction (a simulation's last entry: no other
        process's heartbeat can take the sit & go the moment it fills)."""
        if self.stopping:
            return False
        async with self._placing:
            if tournament_id in self.epochs:
                if within is not None:
                    async with self.db.transaction() as s:
                        await within(s)
                return True
            began = time.monotonic()
            async with self.db.transaction() as s:
                epoch = await leases.claim(
                    s, tournament_id, self.owner, seconds=self.lease_seconds, model=TournamentLease
                )
                if epoch is not None and within is not None:
                    await within(s)
            if epoch is None:
                return False
            self.epochs[tournament_id] = epoch
            self.sure_until[tournament_id] = began + self.lease_seconds
            director = Director(
                Books(self.db, tournament_id, self.owner, epoch),
                fanout=self.fanout,
                clock=self.clock,
                ask_table=self.ask_table,
                make_table=lambda values: self.make_table(tournament_id, values),
                on_finish=self.on_finish,
                holds=lambda: self.holds(tournament_id),
            )
            self.running[tournament_id] = director
            await director.start()
            log.info("tournament %s: directed here (epoch %s)", tournament_id, epoch)
            return True

    async def command(self, tournament_id: int, name: str, args: dict[str, Any]) -> Any:
        director = self.get(tournament_id)
        if director is None:
            raise TableError("not_here", "this process does not direct that tournament")
        return await director.request(name, args)

    async def _drop(self, tournament_id: int) -> None:
        director = self.running.pop(tournament_id, None)
        self.epochs.pop(tournament_id, None)
        self.sure_until.pop(tournament_id, None)
        if director is not None:
            await director.stop()

    async def _let_go(self, tournament_id: int) -> None:
        """A finished (or cancelled) tournament's director is done: its lease goes."""
        await self._drop(tournament_id)
        async with self.db.transaction() as s:
            await leases.release(s, self.owner, [tournament_id], model=TournamentLease)

    async def stop(self) -> None:
        """A clean stop: every director stops and its lease is released, so another process
        claims it at its next heartbeat (nothing is lost: the state is in the database)."""
        self.stopping = True
        mine = list(self.epochs)
        for tid in mine:
            await self._drop(tid)
        if mine:
            async with self.db.transaction() as s:
                await leases.release(s, self.owner, mine, model=TournamentLease)


def _due() -> Any:
    """Tournaments that need a director at `:now` and whose lease is free or expired."""
    now = bindparam("now", type_=UTCDateTime)
    entered = (
        select(func.count())
        .where(
            TournamentEntry.tournament_id == Tournament.id,
            TournamentEntry.status == "registered",
        )
        .scalar_subquery()
    )
    free = or_(
        TournamentLease.tournament_id.is_(None),
        TournamentLease.owner.is_(None),
        TournamentLease.expires_at <= now,
    )
    starting = or_(
        Tournament.status == "running",
        (Tournament.start_mode == "scheduled") & (Tournament.starts_at <= now),
        (Tournament.start_mode == "full") & (entered >= Tournament.max_players),
    )
    return (
        select(Tournament.id)
        .outerjoin(TournamentLease, TournamentLease.tournament_id == Tournament.id)
        .where(Tournament.status.in_(("registering", "running")), starting, free)
        .order_by(Tournament.id)
    )


_DUE = _due()  # built once: every process asks it each heartbeat
