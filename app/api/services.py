"""The table services a running server holds on `app.state.table_services`: the database,
the fan-out, the `TableManager`, the router that reaches tables other processes run (with
the other live processes and the hand-over of tables between them), password hashing and
the origins allowed to open sockets. `start_table_services` makes them in the app's
lifespan (a test may start them alone)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

from app.api import process_ops, table_ops
from app.api.sockets import OpenSockets
from app.collector import Collector
from app.fanout import BaseFanout
from app.store.db import Database
from app.store.passwords import Passwords
from app.tables import Clock, LedgerTableStore, TableManager
from app.tables.handover import Handover
from app.tables.peers import Peers
from app.tables.rebalance import Balancing, Rebalancer
from app.tables.rpc import Directory, TableRouter
from app.tournaments.directors import Directors
from app.wire import process


@dataclass
class TableServices:
    db: Database
    fanout: BaseFanout
    manager: TableManager
    router: TableRouter
    peers: Peers  # the other live processes
    handover: Handover  # tables handed to another process
    passwords: Passwords
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    collector: Collector | None = None
    sockets: OpenSockets | None = None  # by login session: a logout closes them
    directors: Directors | None = None  # the tournaments this process directs
    rebalancer: Rebalancer | None = None  # tables evened out between the processes


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
    lease_seconds: float = 5.0,
    watch_expiry: bool = False,
    balancing: Balancing | None = None,
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
    peers = Peers(router)
    services = TableServices(
        db,
        fanout,
        manager,
        router,
        peers,
        Handover(router, peers),
        # the site's cost (ARGON2_*), the one accounts hash with; never a cheaper one
        passwords or getattr(app.state, "passwords", None) or Passwords(),
        allowed_origins,
        collector,
    )
    services.rebalancer = Rebalancer(services.handover, balancing or Balancing())
    table_ops.install(router)
    process_ops.install(router, manager, services.passwords)
    services.directors = directors_for(services, lease_seconds, watch_expiry)
    router.process_op("tournament", _tournament_op(services.directors))
    await router.start()
    services.sockets = OpenSockets(fanout, db)
    await services.sockets.start()
    app.state.table_services = services
    return services


def directors_for(services: TableServices, lease_seconds: float, watch_expiry: bool) -> Directors:
    """The process's tournament directors: they reach their tables through the router and
    make them where there is room, as the lobby does."""
    router = services.router

    async def ask_table(table_id: int, orders: process.DirectorOrders) -> dict[str, Any]:
        return dict(await router.ask(table_id, "direct", orders.model_dump(mode="json")))

    async def make_table(tournament_id: int, values: dict[str, Any]) -> int:
        args = {"values": values, "tournament": tournament_id}
        made = await process_ops.place(services.peers, args)
        return int(made["table"]["id"])

    return Directors(
        services.db,
        services.fanout,
        owner=router.me,
        ask_table=ask_table,
        make_table=make_table,
        lease_seconds=lease_seconds,
        watch_expiry=watch_expiry,
    )


def _tournament_op(directors: Directors) -> Any:
    async def op(args: dict[str, Any]) -> Any:
        return await directors.command(int(args["id"]), str(args["name"]), dict(args["args"]))

    return op


async def stop_table_services(app: FastAPI) -> None:
    services: TableServices | None = getattr(app.state, "table_services", None)
    if services is not None:
        if services.directors is not None:
            await services.directors.stop()
        if services.sockets is not None:
            await services.sockets.stop()
        if services.rebalancer is not None:
            await services.rebalancer.stop()
        await services.manager.stop()
        await services.router.stop()
        if services.collector is not None:
            await services.collector.stop()
