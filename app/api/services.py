"""The table services a running server holds on `app.state.table_services`: the database,
the fan-out, the `TableManager`, the router that reaches tables other processes run,
password hashing and the origins allowed to open sockets. `start_table_services` makes them
in the app's lifespan (a test may start them alone)."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import FastAPI

from app.api import table_ops
from app.api.sockets import OpenSockets
from app.collector import Collector
from app.fanout import BaseFanout
from app.store.db import Database
from app.store.passwords import Passwords
from app.tables import Clock, LedgerTableStore, TableManager
from app.tables.router import Directory, TableRouter


@dataclass
class TableServices:
    db: Database
    fanout: BaseFanout
    manager: TableManager
    router: TableRouter
    passwords: Passwords
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    collector: Collector | None = None
    sockets: OpenSockets | None = None  # by login session: a logout closes them


async def start_table_services(
    app: FastAPI,
    *,
    db: Database,
    fanout: BaseFanout,
    clock: Clock | None = None,
    passwords: Passwords | None = None,
    allowed_origins: frozenset[str] = frozenset(),
    manager: TableManager | None = None,
    directory: Directory | None = None,
    freeze_gc: bool = True,
) -> TableServices:
    """Make the table manager, restore the open tables from the database, publish it on
    `app.state.table_services`. Then the garbage collector keeps to `app.collector`'s
    schedule, so a full collection with thousands of sockets open no longer stalls every
    table for a few hundred ms every few seconds. With a `directory` (several processes on
    one database), the router carries commands for tables other processes run."""
    manager = manager or TableManager(LedgerTableStore(db), fanout, clock)
    await manager.restore()
    collector = None
    if freeze_gc:
        collector = Collector()
        collector.start()
    router = TableRouter(manager, fanout, me=manager.store.owner, directory=directory)
    services = TableServices(
        db,
        fanout,
        manager,
        router,
        # the site's cost (ARGON2_*), the one accounts hash with; never a cheaper one
        passwords or getattr(app.state, "passwords", None) or Passwords(),
        allowed_origins,
        collector,
    )
    table_ops.install(router, manager, services.passwords)
    await router.start()
    services.sockets = OpenSockets(fanout, db)
    await services.sockets.start()
    app.state.table_services = services
    return services


async def stop_table_services(app: FastAPI) -> None:
    services: TableServices | None = getattr(app.state, "table_services", None)
    if services is not None:
        if services.sockets is not None:
            await services.sockets.stop()
        await services.manager.stop()
        await services.router.stop()
        if services.collector is not None:
            await services.collector.stop()
