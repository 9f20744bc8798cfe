"""Stud sit & gos across real server processes on the real PostgreSQL and Redis: a
sit & go of 20 (18 bots, two people on scripted sockets) on three processes, each table run
where there was room, its director on the process that took the last seat; the people's
sockets on other processes than their tables'. Every place is given once and paid once,
the prizes are the payout scheme's, `ledger check` passes, and no user ever has two seats.
(The director's own rules: tests/tournaments; one process: `tournaments simulate`.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import cluster
from tests.process.tournament import (
    check_story,
    seed_seating_both_at_first_break,
    sng_on,
    watching_seats,
)

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster"), pytest.mark.timeout(900)]

# the process that takes the last registration (0) directs and runs no table, so a kill of
# the director and a kill of a table's owner are two things; the others have room for all
CAPACITY = {0: {"TABLE_CAPACITY": "0"}, 1: {"TABLE_CAPACITY": "3"}, 2: {"TABLE_CAPACITY": "3"}}
REBUYS = {"levels": 3, "price": 1000, "fee": 100}  # R35: ann and bob rebuy once, at the start


async def test_a_sit_and_go_of_20_plays_to_a_winner_on_three_processes(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    """ann and bob start at the table that breaks first (the seed's draw) with a rebuy
    each, so both are still playing when it breaks: each is moved to another table, their
    socket gets `moved` and then that table's snapshot, and they act there."""
    async with cluster(tmp_path, pg_server, redis_url, each=CAPACITY) as c:
        sng = await sng_on(c, seed=seed_seating_both_at_first_break(), rebuys=REBUYS)
        try:
            assert await sng.director() == 0
            runners = await sng.runners()
            assert len(runners) == 3 and set(runners.values()) == {1, 2}
            humans = await sng.connect_humans()
            for human in humans:
                bought = await sng.rebuy(0, human.user_id)
                assert bought["kind"] == "rebuy" and bought["chips"] == 1500
            async with watching_seats(sng) as looks:
                await sng.finished()
            assert looks[0] > 10  # looked at while it ran, not once at the end
            es = await sng.check_result()
            assert sum(e.rebuys for e in es) == 2
            for human in humans:
                moves = human.moves_followed()
                assert moves, f"user {human.user_id} saw {human.tables_seen()}"
                for _, to in moves:
                    assert human.taken_at(to), f"user {human.user_id} never acted at {to}"
                assert human.count("hello") == 0
                check_story(human)
        finally:
            await sng.close()
