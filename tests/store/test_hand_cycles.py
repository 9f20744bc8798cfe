"""A hand's writes leave no garbage cycles (issue 26): the collector (app/collector.py) freezes
what survives rather than walking it, so a cycle made at every hand would wait for the full
sweep, and the memory with it. SQLAlchemy statements built per call did leave some (bound
parameters and their comparators, ~57 objects a hand): the hand's path builds them once."""

from __future__ import annotations

from app.store import hands
from app.store.db import Database
from app.tables import messages as m
from tests.store import tournament_play
from tests.store.cycles import garbage_cycles
from tests.store.hands_play import play_hands, seated_table


async def test_ten_hands_written_leave_no_garbage_cycles(db: Database) -> None:
    manager, table, clock, _users = await seated_table(db, n=6)
    try:
        await play_hands(table, clock, 2)  # the first statements compiled and cached
        await table.request(m.Sync())
        with garbage_cycles() as garbage:
            await play_hands(table, clock, 10)
            await table.request(m.Sync())  # every hand written
        assert table.state.hands_played >= 12
        assert not garbage, f"garbage cycles left by 10 hands: {garbage.most_common(10)}"
    finally:
        await manager.stop()


async def test_tournament_hands_written_leave_no_garbage_cycles(db: Database) -> None:
    t, users, _entries, (table, _) = await tournament_play.seated(db, 3)
    stacks = [tournament_play.CHIPS] * 3

    async def one_hand(i: int) -> None:
        start = await tournament_play.start_hand(db, t, table, users, stacks)
        won = 10 if i % 2 else -10
        deltas = {users[0]: won, users[1]: -won, users[2]: 0}
        for k, user in enumerate(users):
            stacks[k] += deltas[user]
        view = {str(k): [user, stacks[k]] for k, user in enumerate(users)}
        async with db.transaction() as s:
            assert await hands.record_finished(s, tournament_play.finished(start, deltas, view))

    await one_hand(0)  # the first statements compiled and cached
    with garbage_cycles() as garbage:
        for i in range(1, 6):
            await one_hand(i)
    assert not garbage, f"garbage cycles left by 5 hands: {garbage.most_common(10)}"
