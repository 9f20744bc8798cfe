"""Several server processes on one database: the registry of live processes and the leases
that give each table, and each tournament's director, its one owner with a fencing epoch.
See `app.store.processes` and `app.store.leases`."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, Integer, String, inspect
from sqlalchemy.orm import InstrumentedAttribute, Mapped, declared_attr, mapped_column

from app.store.base import Base
from app.store.types import UTCDateTime


class ServerProcess(Base):
    """A running server process: live while its heartbeat is younger than the lease time."""

    __tablename__ = "server_processes"
    __table_args__ = (CheckConstraint("fanout IN ('memory', 'redis')", name="fanout"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # random, per start
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime)
    fanout: Mapped[str] = mapped_column(String(8))  # "memory" (in-process) or "redis"
    capacity: Mapped[int] = mapped_column(Integer)  # tables it will run


class Lease:
    """Who runs a thing (a table, a tournament's director). `epoch` grows on every claim and
    never goes back: a write carries the epoch its thing was claimed under and is refused
    once another claim has moved it on. `owner` is a `ServerProcess.id` (no foreign key: a
    dead process's row is deleted while its leases stay, to be claimed); None when released.
    Each lease table adds its key: its primary key, the id of what it leases."""

    noun: ClassVar[str]  # what is leased, as a refusal names it
    __tablename__: str

    owner: Mapped[str | None] = mapped_column(String(32), default=None)
    epoch: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @declared_attr.directive
    def __table_args__(cls) -> tuple[Any, ...]:
        return (
            CheckConstraint("epoch >= 1", name="epoch"),
            Index(f"ix_{cls.__tablename__}_owner", "owner"),
        )

    @classmethod
    def key(cls) -> InstrumentedAttribute[int]:
        """The key column (`table_id`, `tournament_id`)."""
        (column,) = inspect(cls).primary_key
        found: InstrumentedAttribute[int] = getattr(cls, column.key)
        return found


class TableLease(Lease, Base):
    """Who runs a table."""

    __tablename__ = "table_leases"
    noun = "table"

    table_id: Mapped[int] = mapped_column(ForeignKey("poker_tables.id"), primary_key=True)


class TournamentLease(Lease, Base):
    """Who directs a tournament (its clock, seating and prizes): the same rules as a table's."""

    __tablename__ = "tournament_leases"
    noun = "tournament"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
