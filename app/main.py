"""The ASGI application: wires the floors of the house together."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import logredact, metrics, stalls
from app.api import accounts, admin, history, lobby, proof, session_ledger, static, tournaments, ws
from app.api import mail as mail_api
from app.api.errors import install_handlers
from app.api.security import SiteGuard
from app.api.services import TableServices, start_table_services, stop_table_services
from app.api.wsout import ServerSend
from app.config import Settings, get_settings
from app.fanout import create_fanout
from app.store.db import Database
from app.store.directory import Directory
from app.store.migrate import ensure_schema
from app.store.processes import Me, Registration
from app.tables import LedgerTableStore, TableManager
from app.tables.rebalance import Balancing


async def _database(settings: Settings) -> Database:
    """The database, its schema current (or a refusal to start that says why)."""
    # a process stopped mid-write must not hold its lease rows' locks past its lease
    db = Database(
        settings.effective_database_url, idle_transaction_seconds=settings.lease_seconds / 2
    )
    await ensure_schema(db, auto_upgrade=settings.auto_migrate)  # or refuse to start
    return db


async def _register(db: Database, settings: Settings) -> tuple[Me, Registration]:
    """This process in the process registry, or `ProcessRefused` (the database disposed)."""
    me = Me.here(fanout_url=settings.fanout_url, capacity=settings.table_capacity)
    registration = Registration(
        db, me, lease_seconds=settings.lease_seconds, heartbeat_seconds=settings.heartbeat_seconds
    )
    try:
        await registration.start()  # or ProcessRefused: says why, and what to set
    except BaseException:
        await db.dispose()
        raise
    return me, registration


def _metrics(manager: TableManager, db: Database, settings: Settings) -> Callable[[], None]:
    """Scrapes read this process's tables, hand writer and pool; with `METRICS_PORT`, they
    are served there (on `METRICS_HOST`), never on the public port. Returns what stops it."""
    metrics.watch(
        tables=lambda: list(manager.tables.values()),
        queues=lambda: list(manager.writer.queues.values()),
        pool=db.engine.pool,
    )
    if settings.metrics_port is None:
        return lambda: None
    return metrics.serve_metrics(settings.metrics_host, settings.metrics_port)


def _stalls(application: FastAPI, settings: Settings) -> stalls.StallWatch | None:
    """With `STALL_MS`: each event-loop stall over it logged with its cause, and counted."""
    if settings.stall_ms is None:
        return None

    def seen(stall: stalls.Stall) -> None:
        kind = "gc" if stall.cause.startswith("gc ") else "code"
        metrics.LOOP_STALL_SECONDS.labels(kind).observe(stall.seconds)

    # logged from the watchdog thread: formatting and writing a line held the loop itself
    watch = stalls.StallWatch(
        threshold=settings.stall_ms / 1000, on_stall=seen, report=stalls.log_stall
    )
    watch.start()
    application.state.stalls = watch
    return watch


def _watching(
    application: FastAPI, manager: TableManager, db: Database, settings: Settings
) -> Callable[[], Awaitable[None]]:
    """The operator's eyes: metrics, and with `STALL_MS` the stall watch. Returns what
    stops them."""
    stop_metrics = _metrics(manager, db, settings)
    watch = _stalls(application, settings)

    async def stop() -> None:
        if watch is not None:
            await watch.stop()
        stop_metrics()

    return stop


def _beat(manager: TableManager, services: TableServices) -> Callable[[], Awaitable[None]]:
    """What each heartbeat does besides beating."""

    async def beat() -> None:
        # renew this process's leases, claim free tables while there is room, forget the
        # sockets of processes that died, and even the tables out
        await manager.heartbeat()
        await services.peers.sweep()
        if services.rebalancer is not None:  # a round in the background, if one is due
            services.rebalancer.tick()
        if services.directors is not None:  # tournaments: renew, and claim what is due
            await services.directors.heartbeat()

    return beat


def _balancing(settings: Settings) -> Balancing:
    """How the tables are evened out between the processes (`app.tables.rebalance`)."""
    return Balancing(
        step=settings.rebalance_step,
        margin=settings.rebalance_margin,
        hold_down=settings.lease_seconds,  # a joining process's start-up claims come first
        seconds=settings.drain_seconds,
    )


@asynccontextmanager
async def table_server(application: FastAPI) -> AsyncIterator[None]:
    """The table server's lifespan: database, the process registry (or a refusal to start
    beside a process this one cannot share the database with), fan-out, every open table
    claimed and restored. Skipped when a test has already started the services on
    `app.state`."""
    if getattr(application.state, "table_services", None) is not None:
        yield
        return
    settings: Settings = application.state.settings
    db = await _database(settings)
    application.state.db = db
    me, registration = await _register(db, settings)
    fanout = create_fanout(settings.fanout_url, namespace=settings.redis_namespace)
    store = LedgerTableStore(
        db, owner=me.id, lease_seconds=settings.lease_seconds, watch_expiry=True
    )
    manager = TableManager(
        store, fanout, bots_play_alone=settings.bots_play_alone, capacity=settings.table_capacity
    )
    services = await start_table_services(
        application,
        db=db,
        fanout=fanout,
        allowed_origins=settings.allowed_origin_set,
        passwords=application.state.passwords,  # table passwords cost what logins do
        manager=manager,
        # several processes (they need Redis): a table may run on another one
        directory=None
        if me.fanout == "memory"
        else Directory(db, lease_seconds=settings.lease_seconds),
        lease_seconds=settings.lease_seconds,
        watch_expiry=True,
        balancing=_balancing(settings),
    )

    registration.set_renew(_beat(manager, services))
    # SIGTERM: each table goes to another process between hands (`app.cli.serve`)
    hand_over = services.handover.hand_over
    application.state.drain = lambda: manager.drain(settings.drain_seconds, then=hand_over)
    mail_api.start_mail(application, db, settings)  # sends what is pending, then new requests
    stop_watching = _watching(application, manager, db, settings)
    try:
        yield
    finally:
        await stop_watching()
        application.state.drain = None
        await mail_api.stop_mail(application)
        await stop_table_services(application)  # the tables' leases are released
        await registration.stop()
        await fanout.close()
        await application.state.login_limits.limiter.aclose()
        await db.dispose()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    logredact.install()  # no token or invite in an access log line
    application = FastAPI(title=f"{settings.site_name}: Seven Card Stud", lifespan=table_server)
    accounts.install(application, settings)  # sets app.state.settings
    install_handlers(application)
    application.add_middleware(SiteGuard, allowed_origins=settings.allowed_origin_set)
    application.add_middleware(ServerSend)  # outermost: sees the server's own `send`
    application.include_router(lobby.router)
    application.include_router(ws.router)
    application.include_router(history.router)
    application.include_router(session_ledger.router)
    application.include_router(proof.router)
    application.include_router(tournaments.router)
    application.include_router(admin.router)
    mail_api.install(application, settings)

    @application.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    static.install(application)  # the browser client at `/`: after the API routes

    return application


app = create_app()
