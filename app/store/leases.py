"""Leases: every table, and every tournament's director, has at most one owner process, and
the database says which.

A lease row holds the owner (a `ServerProcess.id`), an epoch and an expiry. `claim` takes a
thing only when it is free (no row, or released) or its lease expired, and moves the epoch
on by one: the epoch is the fencing token. The owner `renew`s its leases in one statement
about every second; a process that stops renewing loses them after the lease time, to
whoever claims them next. An owner handing a thing to a named process `give`s it the lease
(a new epoch, in one statement) and the taker takes it under one more: between the giver
letting go and the taker running it, no third process can claim it; a taker that never
takes it lets it expire like a dead owner, and one that declines lets the giver take it
back (`take_back`).

Every write a table (or a director) makes runs `check` first, in the write's own
transaction: the lease row must still name this owner and the epoch it was claimed under,
else `LeaseLost` and the transaction writes nothing. `check` holds the rows it read
(`FOR SHARE` on PostgreSQL; SQLite's write lock, taken at BEGIN, holds everything), so a
claim cannot slip in between the check and the commit: a claim waits for the write, and a
write after the claim sees it.

Each function takes the lease table as `model`: `TableLease` (the default, keyed by table
id) or `TournamentLease` (keyed by tournament id); the rules are the same.

Times are the processes' own clocks (UTC): they must agree to well within the lease time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime, timedelta

from sqlalchemy import BindParameter, Select, bindparam, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.dml import ReturningUpdate

from app.store.errors import LeaseLost
from app.store.lease_models import Lease, TableLease, TournamentLease
from app.store.types import utcnow

_NO_SYNC = {"synchronize_session": False}
MODELS: tuple[type[Lease], ...] = (TableLease, TournamentLease)


async def claim(
    session: AsyncSession,
    key: int,
    owner: str,
    *,
    seconds: float,
    now: datetime | None = None,
    model: type[Lease] = TableLease,
) -> int | None:
    """Make `owner` the owner of table (or tournament) `key` until `now + seconds` if it is
    free or its lease expired: the new epoch (one more than any before), or None when
    another process holds it (`owner` itself included: a holder renews, it does not claim
    again)."""
    now = now or utcnow()
    expires = now + timedelta(seconds=seconds)
    column = model.key()
    conn = await session.connection()
    insert_new = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    first: int | None = await session.scalar(
        insert_new(model)
        .values({column: key, model.owner: owner, model.epoch: 1, model.expires_at: expires})
        .on_conflict_do_nothing(index_elements=[column])
        .returning(model.epoch)
    )
    if first is not None:
        return first
    # PostgreSQL: two claimants of one expired lease both reach this UPDATE; the second waits
    # for the first's commit, then finds the row no longer free and claims nothing
    epoch: int | None = await session.scalar(
        update(model)
        .where(column == key, or_(model.owner.is_(None), model.expires_at <= now))
        .values({model.owner: owner, model.epoch: model.epoch + 1, model.expires_at: expires})
        .returning(model.epoch)
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
    model: type[Lease] = TableLease,
) -> dict[int, int]:
    """Extend the leases of `held` that `owner` still holds to `now + seconds`, in one
    statement. `held` is what the owner believes it holds (key -> epoch); returns the part
    of it still true. A key missing from the answer is lost: another process claimed it, or
    it was released. A lease given to `owner` (`give`) and not yet taken is not renewed: a
    taker that never takes it must not keep it from everyone else."""
    expires = (now or utcnow()) + timedelta(seconds=seconds)
    rows = await session.execute(
        _renewal(model), {"b_owner": owner, "b_held": list(held), "b_expires": expires}
    )
    current = {key: epoch for key, epoch in rows}
    return {k: e for k, e in held.items() if current.get(k) == e}


async def release(
    session: AsyncSession,
    owner: str,
    keys: Collection[int] | None = None,
    *,
    now: datetime | None = None,
    model: type[Lease] = TableLease,
) -> int:
    """Give up `owner`'s leases (all, or those of `keys`): free to claim at once. The epoch
    stays, so the next claim still moves it on. Returns how many were released."""
    stmt = update(model).where(model.owner == owner)
    if keys is not None:
        stmt = stmt.where(model.key().in_(list(keys)))
    result = await session.execute(
        stmt.values({model.owner: None, model.expires_at: now or utcnow()}).execution_options(
            **_NO_SYNC
        )
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def give(
    session: AsyncSession,
    owner: str,
    keys: Collection[int],
    to: str,
    *,
    seconds: float,
    now: datetime | None = None,
    model: type[Lease] = TableLease,
) -> dict[int, int]:
    """Hand `owner`'s leases of `keys` straight to process `to`, each under a new epoch,
    until `now + seconds`: `owner` writes nothing more under its own, and no process but
    `to` may claim them before they expire (`to` takes them: `take_given`). Returns the
    keys given, with their new epochs (a key `owner` no longer held is left out)."""
    expires = (now or utcnow()) + timedelta(seconds=seconds)
    column = model.key()
    rows = await session.execute(
        update(model)
        .where(model.owner == owner, column.in_(list(keys)))
        .values({model.owner: to, model.epoch: model.epoch + 1, model.expires_at: expires})
        .returning(column, model.epoch)
        .execution_options(**_NO_SYNC)
    )
    return {key: epoch for key, epoch in rows}


async def take_given(
    session: AsyncSession,
    key: int,
    owner: str,
    *,
    seconds: float,
    now: datetime | None = None,
    model: type[Lease] = TableLease,
) -> int | None:
    """`owner` takes the lease another process gave it (`give`), unexpired, until `now +
    seconds`: its new epoch (one more again, so the giver can tell it was taken), or None
    when it is not `owner`'s (or ran out: then `claim` it like any free one)."""
    now = now or utcnow()
    column = model.key()
    epoch: int | None = await session.scalar(
        update(model)
        .where(column == key, model.owner == owner, model.expires_at > now)
        .values({model.epoch: model.epoch + 1, model.expires_at: now + timedelta(seconds=seconds)})
        .returning(model.epoch)
        .execution_options(**_NO_SYNC)
    )
    return epoch


async def take_back(
    session: AsyncSession,
    key: int,
    owner: str,
    given: tuple[str, int],
    *,
    seconds: float,
    now: datetime | None = None,
    model: type[Lease] = TableLease,
) -> bool:
    """`owner` gave this lease away (`given`: to whom, under which epoch) and the taker did
    not take it: it is given back to `owner`, to take (`take_given`, which moves the epoch
    on). False when the taker took it meanwhile (the epoch moved: or it expired and was
    claimed)."""
    to, epoch = given
    column = model.key()
    expires = (now or utcnow()) + timedelta(seconds=seconds)
    back = await session.scalar(
        update(model)
        .where(column == key, model.owner == to, model.epoch == epoch)
        .values({model.owner: owner, model.expires_at: expires})
        .returning(model.epoch)
        .execution_options(**_NO_SYNC)
    )
    return back is not None


async def release_owners(session: AsyncSession, owners: Collection[str]) -> int:
    """Free the leases, of tables and of tournaments, of processes known to be dead (their
    registration is gone)."""
    if not owners:
        return 0
    released = 0
    for model in MODELS:
        result = await session.execute(
            update(model)
            .where(model.owner.in_(list(owners)))
            .values({model.owner: None, model.expires_at: utcnow()})
            .execution_options(**_NO_SYNC)
        )
        released += int(result.rowcount or 0)  # type: ignore[attr-defined]
    return released


async def check(
    session: AsyncSession,
    owner: str,
    epochs: Mapping[int, int],
    *,
    model: type[Lease] = TableLease,
) -> None:
    """The fence: raise `LeaseLost` unless every key in `epochs` is still `owner`'s under
    that epoch. Call it inside the write's transaction, before the write; the rows stay
    held until the transaction ends."""
    if not epochs:
        return
    rows = await session.execute(_fence(model), {"keys": list(epochs)})
    current = {key: (who, epoch) for key, who, epoch in rows}
    stale = frozenset(k for k, e in epochs.items() if current.get(k) != (owner, e))
    if stale:
        names = ", ".join(str(k) for k in sorted(stale))
        raise LeaseLost(
            f"{model.noun} {names} is no longer run by this server process (its lease moved on)",
            ids=stale,
            noun=model.noun,
        )


_RENEWALS: dict[type[Lease], ReturningUpdate[int, int]] = {}


def _renewal(model: type[Lease]) -> ReturningUpdate[int, int]:
    """`renew`'s statement, built once a model, as `_fence`'s: every process renews every
    beat (its in-list of keys left garbage cycles each time)."""
    stmt = _RENEWALS.get(model)
    if stmt is None:
        column = model.key()
        owner: BindParameter[str] = bindparam("b_owner")
        # rows locked in key order, as `check` reads them: a renewal and a write of several
        # tables never wait for each other in a circle
        mine = (
            select(column)
            .where(model.owner == owner, column.in_(bindparam("b_held", expanding=True)))
            .order_by(column)
            .with_for_update()
        )
        stmt = _RENEWALS[model] = (
            update(model)
            .where(model.owner == owner, column.in_(mine.scalar_subquery()))
            .values({model.expires_at: bindparam("b_expires")})
            .returning(column, model.epoch)
            .execution_options(**_NO_SYNC)
        )
    return stmt


_FENCES: dict[type[Lease], Select[int, str | None, int]] = {}


def _fence(model: type[Lease]) -> Select[int, str | None, int]:
    """The fence's query, built once a model: a statement built per call leaves garbage
    cycles (SQLAlchemy's bound parameters and their comparators) for the collector, at every
    table's every write."""
    query = _FENCES.get(model)
    if query is None:
        column = model.key()
        query = _FENCES[model] = (
            select(column, model.owner, model.epoch)
            .where(column.in_(bindparam("keys", expanding=True)))
            .order_by(column)
            .with_for_update(read=True)
        )
    return query


async def lease_of(
    session: AsyncSession, key: int, *, model: type[Lease] = TableLease
) -> Lease | None:
    """The lease row of table (or tournament) `key` as it is now (tests, operators)."""
    row: Lease | None = await session.scalar(
        select(model).where(model.key() == key).execution_options(populate_existing=True)
    )
    return row
