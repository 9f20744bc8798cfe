"""A table's hand numbers come from blocks it reserves ahead, so dealing never waits on the
database for a number: hands go on while the next block is on its way, and a table whose
reserve ran dry (the database away) deals again as soon as numbers come."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from app.engine import Variant
from app.fanout import create_fanout
from app.jsontext import from_json
from app.store.db import Database
from app.store.hand_models import HandRecord
from app.tables import FakeClock, LedgerTableStore, TableManager, TableSettings
from app.tables import messages as m
from app.tables.numbers import BLOCK
from app.tables.state import unkept
from tests import asks
from tests.store.hands_play import SETTINGS, play_hands, seated_table, start_hand


async def _numbers(db: Database) -> list[int]:
    async with db.session() as s:
        found = await s.scalars(select(HandRecord.number).order_by(HandRecord.started_at))
        return list(found)


async def test_hands_deal_while_the_next_block_is_reserved(db: Database) -> None:
    manager, table, clock, _ = await seated_table(db, 2)
    gate = asyncio.Event()
    real = table.numbers.reserve
    asked: list[int] = []

    async def slow(count: int) -> range:
        asked.append(count)
        await gate.wait()  # the database is slow to answer
        return await real(count)

    try:
        await play_hands(table, clock, 1)  # the first block (asked for at start) is here
        table.numbers.reserve = slow
        await play_hands(table, clock, BLOCK - 1)  # the rest of the first block
        assert asked == [BLOCK] and table.numbers.asked  # asked half-way, still waiting
        assert table.numbers.available() == 0
        gate.set()
        await play_hands(table, clock, 2)
        await table.request(m.Sync())
    finally:
        await manager.stop()
    numbers = await _numbers(db)
    assert numbers == list(range(1, BLOCK + 3))  # one table alone: no gaps


async def test_a_table_whose_reserve_ran_dry_deals_when_numbers_come(db: Database) -> None:
    manager, table, clock, _ = await seated_table(db, 2)
    real = table.numbers.reserve
    tries = 0

    async def away(count: int) -> range:
        nonlocal tries
        tries += 1
        if tries <= 2:
            raise ConnectionError("the database is away")
        return await real(count)

    try:
        await play_hands(table, clock, 1)
        table.numbers.reserve = away
        table.numbers.blocks.clear()  # what it held is used up
        table.numbers.first_backoff = 0.01
        clock.advance(1.0)
        await table.request(m.Join(0))
        assert table.state.hand is None  # no number: no hand (it could not be recorded either)
        assert table.numbers.task is not None
        await table.numbers.task  # reserved at the third try; the block is posted ...
        await table.request(m.Join(0))  # ... and handled before this message
        assert table.state.hand is not None  # dealt at once: its pause was over
        await play_hands(table, clock, 2)
        await table.request(m.Sync())
    finally:
        await manager.stop()
    assert tries == 3
    numbers = await _numbers(db)
    assert len(numbers) == 3 and numbers == sorted(numbers)


async def test_a_tables_own_hand_count_starts_at_one_and_goes_on_across_a_restart(
    db: Database,
) -> None:
    """Issue 24: numbers come in blocks per table, so a new table's first hand may be #11;
    players read the table's own count ("Hand 1 at this table"), which a restart (or a move:
    the same restore) carries on from the hands the table recorded."""
    manager, table, clock, users = await seated_table(db, 2)
    try:
        await play_hands(table, clock, 2)  # the first table holds the first block
        second = await manager.create(
            TableSettings(**SETTINGS, variant=Variant.STUD), host_user_id=users[0],
            password_hash=None,
        )  # fmt: skip
        for seat, user in enumerate(users):
            await second.request(asks.sit(user, f"stud{seat}", seat, 2000, f"s{seat}"))
        await start_hand(second, clock)
        assert second.state.hand_number is not None and second.state.hand_number > BLOCK
        assert second.state.hand_count == 1
        await table.request(m.Sync())  # both hands written
    finally:
        await manager.stop()
    later = FakeClock()
    again = TableManager(LedgerTableStore(db), create_fanout("memory://"), later)
    try:
        await again.restore()
        back = again.get(table.id)
        assert back is not None and back.state.hands_played == 0
        await start_hand(back, later)
        assert back.state.hand_count == 3
        said = [from_json(unkept(entry)[0]) for entry in back.ring]
        started = next(e for e in said if e["type"] == "hand_started")
        assert started["count"] == 3
        assert started["names"] == {"0": "stud0", "1": "stud1"}
        assert int(started["number"]) != 3  # the id stays the global number
        view = back.snapshot(users[0])["hand"]
        assert (view["count"], view["names"]) == (3, started["names"])
    finally:
        await again.stop()
