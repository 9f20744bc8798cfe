"""The leases of the tables one server process runs (`app.store.leases`): it claims a table
when it creates or restores it, renews them all each heartbeat and releases them when it
lets them go; `fence` checks, inside a write's own transaction, that the lease still names
this process under the epoch it was claimed with, so a process whose table moved on writes
nothing (`LeaseLost`). With `watch_expiry`, `holds` says whether the lease is surely still
held by this process's own clock."""

from __future__ import annotations

import time
from collections.abc import Collection

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import metrics
from app.store import leases
from app.store.db import Database
from app.store.lease_models import TableLease
from app.store.models import PokerTable
from app.store.types import utcnow
from app.tables.errors import TableError

LEASE_SECONDS = 5.0  # the default lease time (`Settings.lease_seconds`)


class TableLeases:
    """The table leases held by `owner` (this server process's registry id)."""

    def __init__(
        self, db: Database, owner: str, *, lease_seconds: float, watch_expiry: bool
    ) -> None:
        self.db = db
        self.owner = owner
        self.lease_seconds = lease_seconds
        self.epochs: dict[int, int] = {}  # table id -> the epoch this process holds it under
        # a server process renews its leases each heartbeat; with `watch_expiry` a table
        # whose lease may have run out by this process's own clock (it was paused, or cut
        # off from the database) publishes nothing until renewed (`holds`)
        self.watch_expiry = watch_expiry
        self.sure_until: dict[int, float] = {}  # table id -> monotonic time its lease is sure
        self.given: dict[int, tuple[str, int]] = {}  # table id -> (to whom, epoch): `give`

    def holds(self, table_id: int) -> bool:
        """Whether this process surely still holds the table's lease, by its own clock: a
        claim or renewal that began before `lease_seconds` ago. (Without `watch_expiry`:
        held.)"""
        if not self.watch_expiry:
            return True
        return time.monotonic() < self.sure_until.get(table_id, 0.0)

    async def fence(self, s: AsyncSession, *table_ids: int) -> None:
        """Refuse (`LeaseLost`) unless this process still holds every table's lease."""
        await leases.check(s, self.owner, {t: self.epochs.get(t, 0) for t in table_ids})

    async def claim_open(
        self, limit: int | None = None, only: Collection[int] | None = None
    ) -> list[int]:
        """Claim open tables that are free (released, or their lease expired: a dead
        owner's) or were given to this process (`give`), at most `limit` of them (and only
        those of `only`, if given): the ones this process now runs, to restore. A table
        another live process holds is left to it, and one this process holds is not claimed
        again."""
        claimed: dict[int, int] = {}
        if limit is not None and limit <= 0:
            return []
        began = time.monotonic()
        async with self.db.transaction() as s:
            free = (
                select(PokerTable.id, TableLease.owner)
                .outerjoin(TableLease, TableLease.table_id == PokerTable.id)
                .where(
                    PokerTable.status == "open",
                    or_(
                        TableLease.table_id.is_(None),
                        TableLease.owner.is_(None),
                        TableLease.owner == self.owner,
                        TableLease.expires_at <= utcnow(),
                    ),
                )
                .order_by(PokerTable.id)
            )
            if only is not None:
                free = free.where(PokerTable.id.in_(list(only)))
            for table_id, owner in list(await s.execute(free)):
                if table_id in self.epochs:
                    continue  # ours (its lease ran late): the renewal keeps it
                epoch = None
                if owner == self.owner:  # given here by its last owner (a move)
                    epoch = await leases.take_given(
                        s, table_id, self.owner, seconds=self.lease_seconds
                    )
                if epoch is None:
                    epoch = await leases.claim(s, table_id, self.owner, seconds=self.lease_seconds)
                if epoch is not None:
                    claimed[table_id] = epoch
                    if limit is not None and len(claimed) >= limit:
                        break
        self.epochs.update(claimed)  # once committed: a renewal meanwhile must not drop them
        self._sure(claimed, began)
        metrics.LEASE_CLAIMS.labels("free").inc(len(claimed))
        return sorted(claimed)

    async def claim_new(self, s: AsyncSession, table_id: int) -> int:
        """Lease a table just made in `s`; its epoch is held once `s` commits (`held`)."""
        epoch = await leases.claim(s, table_id, self.owner, seconds=self.lease_seconds)
        if epoch is None:  # a new table's id was never leased: a bug, not a race
            raise TableError("lease_lost", f"table {table_id} was already leased")
        return epoch

    def held(self, table_id: int, epoch: int, began: float) -> None:
        """The claim of a new table (`claim_new`, begun at `began`) committed."""
        self.epochs[table_id] = epoch
        self._sure([table_id], began)
        metrics.LEASE_CLAIMS.labels("new").inc()

    def _sure(self, table_ids: Collection[int], began: float) -> None:
        until = began + self.lease_seconds
        for table_id in table_ids:
            self.sure_until[table_id] = until

    async def renew(self) -> set[int]:
        """Renew every lease this process holds (one statement); returns the tables it
        lost."""
        held = dict(self.epochs)  # a table claimed while this runs is not judged by it
        began = time.monotonic()
        async with self.db.transaction() as s:
            kept = await leases.renew(s, self.owner, held, seconds=self.lease_seconds)
        self._sure(kept, began)
        lost = {t for t in set(held) - set(kept) if self.epochs.get(t) == held[t]}
        metrics.lease_renewed(len(kept), len(lost))
        for table_id in lost:
            del self.epochs[table_id]
            self.sure_until.pop(table_id, None)
        return lost

    async def release(self, table_ids: list[int]) -> None:
        """Give these tables up (between hands, on a graceful stop): another process may
        claim them at once."""
        mine = [t for t in table_ids if t in self.epochs]
        if mine:
            async with self.db.transaction() as s:
                await leases.release(s, self.owner, mine)
            for table_id in mine:
                del self.epochs[table_id]
                self.sure_until.pop(table_id, None)

    async def give(self, table_ids: list[int], to: str) -> list[int]:
        """Hand these tables' leases straight to process `to` (between hands, a move): no
        other process may claim them before `to` takes them (or they expire). Returns the
        tables given."""
        mine = [t for t in table_ids if t in self.epochs]
        if not mine:
            return []
        async with self.db.transaction() as s:
            given = await leases.give(s, self.owner, mine, to, seconds=self.lease_seconds)
        for table_id in mine:
            del self.epochs[table_id]
            self.sure_until.pop(table_id, None)
        self.given.update({t: (to, epoch) for t, epoch in given.items()})
        return sorted(given)

    async def take_back(self, table_id: int) -> bool:
        """A table given away (`give`) that its taker did not take is this process's to
        take again (`claim_open`); False when the taker took it after all."""
        given = self.given.pop(table_id, None)
        if given is None:
            return False
        async with self.db.transaction() as s:
            return await leases.take_back(
                s, table_id, self.owner, given, seconds=self.lease_seconds
            )

    async def release_all(self) -> None:
        """Give every table up (a clean stop): another process may claim them at once."""
        if self.epochs:
            async with self.db.transaction() as s:
                await leases.release(s, self.owner, list(self.epochs))
            self.epochs.clear()
            self.sure_until.clear()
