"""A process that runs no table and may claim none (`TABLE_CAPACITY=0`: the process that
directs a tournament in `benchmarks/tournament.py`) does no table work each heartbeat: no
lease renewal, no look at who died for its tables' sockets, no rebalancing round's look at
the loads. A process with a table does each of them. (Two table managers on one database
stand for the processes, as in test_router.)"""

from __future__ import annotations

from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import TableSettings
from app.tables.rebalance import Balancing, Rebalancer
from tests.store.statements import statements
from tests.tables.routed import Routed, routed

SETTINGS = TableSettings(name="Beat", small_bet=100, big_bet=200, ante=10, bring_in=50)


async def beat(p: Routed) -> None:
    """What `app.main`'s heartbeat does for the tables (besides the directors')."""
    await p.manager.heartbeat()
    await p.peers.sweep()
    await Rebalancer(p.handover, Balancing(step=2, margin=0)).round(2, 5.0, 0.0, automatic=True)


async def test_a_process_that_runs_no_table_does_no_table_work_each_heartbeat(
    sqlite_db: Database, memory_fanout: BaseFanout
) -> None:
    async with routed(sqlite_db, memory_fanout, ("director", "tables")) as (director, tables):
        director.manager.capacity = 0  # TABLE_CAPACITY=0
        table = await tables.manager.create(SETTINGS, host_user_id=None, password_hash=None)
        with statements(sqlite_db) as seen:
            await beat(director)
        assert seen == []
        assert director.manager.tables == {}  # and it claimed nothing
        with statements(sqlite_db) as seen:
            await beat(tables)
        said = " ".join(seen).lower()
        assert "update table_leases" in said  # its lease renewed
        assert "server_processes" in said  # who is alive: the sweep, the loads
        assert tables.manager.running() == [table]
