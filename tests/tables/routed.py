"""Table managers on one database and one fan-out, standing for server processes: each
registered, with its router and its hand-over ops (test_router, test_rebalance_holds)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from app.fanout import BaseFanout
from app.store.db import Database
from app.store.directory import Directory
from app.store.lease_models import ServerProcess
from app.store.types import utcnow
from app.tables import FakeClock, LedgerTableStore, TableManager
from app.tables.handover import Handover
from app.tables.peers import Peers
from app.tables.rpc import TableRouter


@dataclass
class Routed:
    manager: TableManager
    router: TableRouter
    peers: Peers
    handover: Handover


@contextlib.asynccontextmanager
async def routed(
    db: Database, fanout: BaseFanout, names: tuple[str, ...] = ("a", "b", "c")
) -> AsyncIterator[list[Routed]]:
    made: list[Routed] = []
    async with db.transaction() as s:
        for name in names:
            now = utcnow()
            s.add(ServerProcess(id=name, host="here", pid=0, started_at=now, heartbeat_at=now,
                                fanout="redis", capacity=10))  # fmt: skip
    directory = Directory(db, lease_seconds=60)
    try:
        for name in names:
            manager = TableManager(
                LedgerTableStore(db, owner=name, lease_seconds=60), fanout, FakeClock(), capacity=10
            )
            router = TableRouter(manager, fanout, me=name, directory=directory, timeout=2.0)
            peers = Peers(router)
            handover = Handover(router, peers)  # it answers "claim", "move" and "room"
            await router.start()
            made.append(Routed(manager, router, peers, handover))
        yield made
    finally:
        for p in made:
            await p.manager.stop()
            await p.router.stop()
