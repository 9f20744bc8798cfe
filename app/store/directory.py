"""Where each table runs and which processes have room: what the table router asks the
database (`app.tables.rpc`). A table's owner is its lease's, while the lease is current;
a process's room is its capacity less the tables it holds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select

from app.store.db import Database
from app.store.lease_models import ServerProcess, TableLease
from app.store.models import PokerTable
from app.store.types import utcnow


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """A table as the database knows it: open or not, and its live owner (None: nobody runs it
    now; its owner died or let it go, and the next claim brings it back)."""

    open: bool
    owner: str | None


@dataclass(frozen=True, slots=True)
class Load:
    """A live process as the balancing sees it: its capacity, the open tables it runs (by
    its current leases) and when it registered."""

    process: str
    capacity: int
    tables: int
    since: datetime


@dataclass(frozen=True, slots=True)
class Room:
    process: str
    free: int  # tables it may still take


class Directory:
    def __init__(self, db: Database, *, lease_seconds: float) -> None:
        self.db = db
        self.lease_seconds = lease_seconds

    async def whereabouts(self, table_id: int) -> Whereabouts:
        async with self.db.session() as s:
            row = (
                await s.execute(
                    select(PokerTable.status, TableLease.owner, TableLease.expires_at)
                    .outerjoin(TableLease, TableLease.table_id == PokerTable.id)
                    .where(PokerTable.id == table_id)
                )
            ).first()
        if row is None:
            return Whereabouts(False, None)
        status, owner, expires = row
        live = owner if owner is not None and expires is not None and expires > utcnow() else None
        return Whereabouts(status == "open", live)

    async def loads(self) -> list[Load]:
        """The live processes (by heartbeat), oldest first, with the open tables each runs."""
        now = utcnow()
        held = (
            select(TableLease.owner, func.count().label("n"))
            .join(PokerTable, PokerTable.id == TableLease.table_id)
            .where(
                TableLease.owner.is_not(None),
                TableLease.expires_at > now,
                PokerTable.status == "open",
            )
            .group_by(TableLease.owner)
            .subquery()
        )
        async with self.db.session() as s:
            rows = await s.execute(
                select(ServerProcess.id, ServerProcess.capacity, held.c.n, ServerProcess.started_at)
                .outerjoin(held, held.c.owner == ServerProcess.id)
                .where(ServerProcess.heartbeat_at > now - timedelta(seconds=self.lease_seconds))
                .order_by(ServerProcess.started_at)
            )
            return [Load(pid, capacity, n or 0, since) for pid, capacity, n, since in rows]

    async def rooms(self) -> list[Room]:
        """The live processes, the one with the most room first."""
        rooms = [Room(ld.process, max(0, ld.capacity - ld.tables)) for ld in await self.loads()]
        return sorted(rooms, key=lambda r: -r.free)
