"""Table leases: every table has at most one owner process, and the database says which.

A lease row holds the owner (a `ServerProcess.id`), an epoch and an expiry. `claim` takes a
table only when it is free (no row, or released) or its lease expired, and moves the epoch
on by one: the epoch is the fencing token. The owner `renew`s all its leases in one
statement about every second; a process that stops renewing loses its tables after the
lease time, to whoever claims them next.

Every write a table makes runs `check` first, in the write's own transaction: the lease row
must still name this owner and the epoch the table was claimed under, else `LeaseLost` and
the transaction writes nothing. `check` holds the rows it read (`FOR SHARE` on PostgreSQL;
SQLite's write lock, taken at BEGIN, holds everything), so a claim cannot slip in between
the check and the commit: a claim waits for the write, and a write after the claim sees it.

Times are the processes' own clocks (UTC): they must agree to well within the lease time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.errors import LeaseLost
from app.store.lease_models import TableLease
from app.store.types import utcnow

_NO_SYNC = {"synchronize_session": False}


async def claim(
    session: AsyncSession,
    table_id: int,
    owner: str,
    *,
    seconds: float,
    now: datetime | None = None,
) -> int | None:
    """Make `owner` the table's owner until `now + seconds` if the table is free or its lease
    expired: the new epoch (one more than any before), or None when another process holds it
    (`owner` itself included: a holder renews, it does not claim again)."""
    now = now or utcnow()
    expires = now + timedelta(seconds=seconds)
    conn = await session.connection()
    insert_new = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    first: int | None = await session.scalar(
        insert_new(TableLease)
        .values(table_id=table_id, owner=owner, epoch=1, expires_at=expires)
        .on_conflict_do_nothing(index_elements=["table_id"])
        .returning(TableLease.epoch)
    )
    if first is not None:
        return first
    # PostgreSQL: two claimants of one expired lease both reach this UPDATE; the second waits
    # for the first's commit, then finds the row no longer free and claims nothing
    epoch: int | None = await session.scalar(
        update(TableLease)
        .where(
            TableLease.table_id == table_id,
            or_(TableLease.owner.is_(None), TableLease.expires_at <= now),
        )
        .values(owner=owner, epoch=TableLease.epoch + 1, expires_at=expires)
        .returning(TableLease.epoch)
        .execution_options(**_NO_SYNC)
    )
    return epoch


async def renew(
    session: AsyncSession,
    owner: str,
    held: Mapping[int, int],
    *,
    seconds: float,
    now: datetime | None = None,
) -> dict[int, int]:
    """Extend every lease `owner` still holds to `now + seconds`, in one statement. `held` is
    what the owner believes it holds (table -> epoch); returns the part of it still true.
    A table missing from the answer is lost: another process claimed it, or it was released."""
    expires = (now or utcnow()) + timedelta(seconds=seconds)
    # rows locked in table order, as `check` reads them: a renewal and a write of several
    # tables never wait for each other in a circle
    mine = (
        select(TableLease.table_id)
        .where(TableLease.owner == owner)
        .order_by(TableLease.table_id)
        .with_for_update()
    )
    rows = await session.execute(
        update(TableLease)
        .where(TableLease.owner == owner, TableLease.table_id.in_(mine.scalar_subquery()))
        .values(expires_at=expires)
        .returning(TableLease.table_id, TableLease.epoch)
        .execution_options(**_NO_SYNC)
    )
    current = {table_id: epoch for table_id, epoch in rows}
    return {t: e for t, e in held.items() if current.get(t) == e}


async def release(
    session: AsyncSession,
    owner: str,
    table_ids: Collection[int] | None = None,
    *,
    now: datetime | None = None,
) -> int:
    """Give up `owner`'s leases (all, or `table_ids`): free to claim at once. The epoch stays,
    so the next claim still moves it on. Returns how many were released."""
    stmt = update(TableLease).where(TableLease.owner == owner)
    if table_ids is not None:
        stmt = stmt.where(TableLease.table_id.in_(list(table_ids)))
    result = await session.execute(
        stmt.values(owner=None, expires_at=now or utcnow()).execution_options(**_NO_SYNC)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def release_owners(session: AsyncSession, owners: Collection[str]) -> int:
    """Free the leases of processes known to be dead (their registration is gone)."""
    if not owners:
        return 0
    result = await session.execute(
        update(TableLease)
        .where(TableLease.owner.in_(list(owners)))
        .values(owner=None, expires_at=utcnow())
        .execution_options(**_NO_SYNC)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def check(session: AsyncSession, owner: str, epochs: Mapping[int, int]) -> None:
    """The fence: raise `LeaseLost` unless every table in `epochs` is still `owner`'s under
    that epoch. Call it inside the write's transaction, before the write; the rows stay
    held until the transaction ends."""
    if not epochs:
        return
    rows = await session.execute(
        select(TableLease.table_id, TableLease.owner, TableLease.epoch)
        .where(TableLease.table_id.in_(list(epochs)))
        .order_by(TableLease.table_id)
        .with_for_update(read=True)
    )
    current = {table_id: (who, epoch) for table_id, who, epoch in rows}
    stale = frozenset(t for t, e in epochs.items() if current.get(t) != (owner, e))
    if stale:
        names = ", ".join(str(t) for t in sorted(stale))
        raise LeaseLost(
            f"table {names} is no longer run by this server process (its lease moved on)",
            table_ids=stale,
        )


async def lease_of(session: AsyncSession, table_id: int) -> TableLease | None:
    """The table's lease row as it is now (tests, operators)."""
    row: TableLease | None = await session.scalar(
        select(TableLease)
        .where(TableLease.table_id == table_id)
        .execution_options(populate_existing=True)
    )
    return row
