"""Table leases, on SQLite and PostgreSQL: a table is claimed only when free or
expired, each claim moves the epoch on, two claimants racing for one table get exactly one
owner, a renewal or a write under a stale epoch is refused, and a claim waits for a write
that has passed the fence (PostgreSQL's row lock; SQLite's write lock holds everything)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.store import leases
from app.store.db import Database
from app.store.errors import LeaseLost
from app.store.types import utcnow
from tests.store.cycles import garbage_cycles
from tests.store.factories import make_table

LEASE = 5.0


async def _tables(db: Database, n: int) -> list[int]:
    async with db.transaction() as s:
        return [(await make_table(s, name=f"T{i}")).id for i in range(n)]


async def _claim(
    db: Database, table_id: int, owner: str, now: datetime | None = None
) -> int | None:
    async with db.transaction() as s:
        return await leases.claim(s, table_id, owner, seconds=LEASE, now=now)


async def _check(db: Database, owner: str, epochs: dict[int, int]) -> None:
    async with db.transaction() as s:
        await leases.check(s, owner, epochs)


async def test_a_held_lease_is_not_claimed_and_a_released_one_is_with_a_higher_epoch(
    db: Database,
) -> None:
    (table,) = await _tables(db, 1)
    assert await _claim(db, table, "a") == 1
    assert await _claim(db, table, "b") is None  # held, not expired
    assert await _claim(db, table, "a") is None  # the holder renews, it does not re-claim
    await _check(db, "a", {table: 1})
    async with db.transaction() as s:
        assert await leases.release(s, "a") == 1
    with pytest.raises(LeaseLost) as refused:  # released: a's writes are fenced at once
        await _check(db, "a", {table: 1})
    assert refused.value.table_ids == frozenset({table})
    assert await _claim(db, table, "b") == 2
    await _check(db, "b", {table: 2})


async def test_an_expired_lease_goes_to_another_claimant_with_a_higher_epoch(
    db: Database,
) -> None:
    (table,) = await _tables(db, 1)
    start = utcnow()
    assert await _claim(db, table, "a", now=start) == 1
    later = start + timedelta(seconds=LEASE + 0.5)  # a stopped renewing; its lease ran out
    assert await _claim(db, table, "b", now=later) == 2
    with pytest.raises(LeaseLost):
        await _check(db, "a", {table: 1})
    await _check(db, "b", {table: 2})
    async with db.session() as s:
        lease = await leases.lease_of(s, table)
        assert lease is not None and (lease.owner, lease.epoch) == ("b", 2)
        assert lease.expires_at == later + timedelta(seconds=LEASE)


async def test_renewal_under_a_stale_epoch_is_refused(db: Database) -> None:
    first, second = await _tables(db, 2)
    start = utcnow()
    assert await _claim(db, first, "a", now=start) == 1
    assert await _claim(db, second, "a", now=start) == 1
    later = start + timedelta(seconds=LEASE + 1)
    assert await _claim(db, first, "b", now=later) == 2
    async with db.transaction() as s:  # a wakes up and renews both, in one statement
        kept = await leases.renew(s, "a", {first: 1, second: 1}, seconds=LEASE, now=later)
    assert kept == {second: 1}  # the first is lost, the second still a's
    async with db.transaction() as s:  # b holds epoch 2: a renewal naming epoch 1 is stale
        assert await leases.renew(s, "b", {first: 1}, seconds=LEASE, now=later) == {}
    async with db.session() as s:
        lease = await leases.lease_of(s, first)
        assert lease is not None and (lease.owner, lease.epoch) == ("b", 2)
        assert lease.expires_at == later + timedelta(seconds=LEASE)  # a's renewal moved nothing
        other = await leases.lease_of(s, second)
        assert other is not None and other.expires_at == later + timedelta(seconds=LEASE)


@pytest.mark.parametrize("expired", [False, True], ids=["free", "expired"])
async def test_two_claimants_racing_get_exactly_one_owner(
    db_url: str, db: Database, expired: bool
) -> None:
    """Each claimant on its own engine (its own connections), both at once, table after
    table: one wins with the next epoch, the other gets None; the row names the winner."""
    tables = await _tables(db, 8)
    if expired:  # the race is for leases a dead process left behind (the UPDATE path)
        past = utcnow() - timedelta(seconds=2 * LEASE)
        for table in tables:
            assert await _claim(db, table, "dead", now=past) == 1
    one, two = Database(db_url), Database(db_url)
    try:
        for table in tables:
            got = await asyncio.gather(_claim(one, table, "one"), _claim(two, table, "two"))
            winners = [(who, e) for who, e in zip(("one", "two"), got, strict=True) if e]
            assert len(winners) == 1, got
            who, epoch = winners[0]
            assert epoch == (2 if expired else 1)
            async with db.session() as s:
                lease = await leases.lease_of(s, table)
                assert lease is not None and (lease.owner, lease.epoch) == (who, epoch)
    finally:
        await one.dispose()
        await two.dispose()


@pytest.mark.postgresql
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_claim_waits_for_a_write_that_passed_the_fence(db_url: str) -> None:
    """PostgreSQL: the fence holds the lease row (FOR SHARE) until the write commits, so a
    claim cannot land between the check and the commit. With a short lock timeout the
    claim fails while the write is open, and succeeds once it has committed."""
    db = Database(db_url)
    try:
        (table,) = await _tables(db, 1)
        past = utcnow() - timedelta(seconds=2 * LEASE)
        assert await _claim(db, table, "a", now=past) == 1  # expired: claimable
        async with db.transaction() as writing:
            await leases.check(writing, "a", {table: 1})
            with pytest.raises(DBAPIError, match="lock timeout"):
                async with db.transaction() as s:
                    await s.execute(text("SET LOCAL lock_timeout = '200ms'"))
                    await leases.claim(s, table, "b", seconds=LEASE)
        assert await _claim(db, table, "b") == 2  # the write is done: the claim goes through
    finally:
        await db.dispose()


async def test_a_given_lease_is_the_takers_alone_and_expires_if_never_taken(
    db: Database,
) -> None:
    """A move hands the lease to a named process (`give`): the giver is fenced at once, no
    third process can claim it meanwhile (the race a release left open), the taker takes it
    under one more epoch, and a taker that never takes it does not keep it by renewing."""
    first, second = await _tables(db, 2)
    start = utcnow()
    assert await _claim(db, first, "a", now=start) == 1
    assert await _claim(db, second, "a", now=start) == 1
    async with db.transaction() as s:
        given = await leases.give(s, "a", [first, second], "b", seconds=LEASE, now=start)
    assert given == {first: 2, second: 2}
    with pytest.raises(LeaseLost):  # the giver writes nothing more
        await _check(db, "a", {first: 1})
    assert await _claim(db, first, "c", now=start) is None  # not free: b's
    async with db.transaction() as s:
        assert await leases.take_given(s, first, "c", seconds=LEASE, now=start) is None
        assert await leases.take_given(s, first, "b", seconds=LEASE, now=start) == 3
    await _check(db, "b", {first: 3})
    later = start + timedelta(seconds=LEASE / 2)
    async with db.transaction() as s:  # b renews what it runs; the second is not among it
        assert await leases.renew(s, "b", {first: 3}, seconds=LEASE, now=later) == {first: 3}
    past = start + timedelta(seconds=LEASE + 0.5)
    async with db.transaction() as s:  # never taken, and not renewed: it ran out
        assert await leases.take_given(s, second, "b", seconds=LEASE, now=past) is None
    assert await _claim(db, second, "c", now=past) == 3
    assert await _claim(db, first, "c", now=past) is None  # renewed by its taker


async def test_a_lease_not_taken_is_taken_back_and_one_taken_is_not(db: Database) -> None:
    first, second = await _tables(db, 2)
    for table in (first, second):
        assert await _claim(db, table, "a") == 1
    async with db.transaction() as s:
        assert await leases.give(s, "a", [first, second], "b", seconds=LEASE) == {
            first: 2,
            second: 2,
        }
        assert await leases.take_given(s, second, "b", seconds=LEASE) == 3
    async with db.transaction() as s:
        assert await leases.take_back(s, first, "a", ("b", 2), seconds=LEASE)
        assert not await leases.take_back(s, second, "a", ("b", 2), seconds=LEASE)
    async with db.transaction() as s:  # b comes late for the first: it is a's again
        assert await leases.take_given(s, first, "b", seconds=LEASE) is None
        assert await leases.take_given(s, first, "a", seconds=LEASE) == 3
    await _check(db, "a", {first: 3})
    await _check(db, "b", {second: 3})


async def test_a_renewal_leaves_no_garbage_cycles(db: Database) -> None:
    """Every process renews every beat: a statement built per call left its in-list's bound
    parameters in cycles, kept frozen by the collector until its full sweep (issue 26)."""
    tables = await _tables(db, 3)
    for table in tables:
        assert await _claim(db, table, "a") == 1
    held = dict.fromkeys(tables, 1)
    stamps: list[datetime] = []  # each renewal's `now`

    async def renew(seconds_on: float) -> dict[int, int]:
        async with db.transaction() as s:
            later = utcnow() + timedelta(seconds=seconds_on)
            stamps.append(later)
            return await leases.renew(s, "a", held, seconds=LEASE, now=later)

    assert await renew(1) == held  # the statement compiled and cached
    with garbage_cycles() as garbage:
        for n in range(5):
            assert await renew(2 + n) == held
    assert not garbage, f"garbage cycles left by 5 renewals: {garbage.most_common(10)}"
    async with db.transaction() as s:
        row = await leases.lease_of(s, tables[0])
        assert row is not None
        lease = timedelta(seconds=LEASE)
        assert stamps[-2] + lease < row.expires_at <= stamps[-1] + lease  # the last one's
