"""The table server under load: tables played by their players over real WebSockets on
loopback, against a bare FastAPI WebSocket server that only broadcasts messages of the same
size to as many sockets.

    python benchmarks/server.py [--tables N] [--quick] [--no-write]
    python benchmarks/server.py --processes N [--tables N] [--quick] [--no-write]

This process is the load: it prepares a fresh database (tables with six seated players, a
session for each), starts the server (per-message compression off, as `python -m app` runs
it), opens one WebSocket per seat (each follows its seat's private channel, as a player's
browser would; `benchmarks/wsclient.py`, a client light enough that one process can read
every socket without its own delay swamping the server's), reads every frame and plays its
seat's turns from the client side
(`benchmarks/players.py`: a think time, then `act`). Then it does the same against the bare
server, at the stud run's measured message rate, size and burst.

`--processes N` runs, back to back in one invocation and on one fresh PostgreSQL database
(made at the start, dropped at the end):
1. the server as one process with the in-process fan-out (`memory://`), the baseline;
2. the server as N processes sharing that database and Redis (its own `REDIS_NAMESPACE`),
   each claiming about 1/N of the tables (`TABLE_CAPACITY`), every socket opened on a
   process picked at random, so most players' commands travel to their table's owner
   through Redis and every event reaches the other processes through Redis;
3. the bare broadcast server at the baseline's rate;
and writes them side by side, with what Redis and PostgreSQL did over each window.

- **Latency**: from the instant a player's socket is handed its `act` to the instant each
  socket at the table receives the event it caused (all on this process's monotonic clock).
  The bare server stamps each message with its send time.
- **CPU per delivered frame**: the server processes' user+system time (`/proc/<pid>/stat`),
  all of them together, over the measuring window, divided by the frames the clients
  received in it. Redis's and PostgreSQL's CPU are read the same way and reported apart.
- **Memory**: the server processes' `VmRSS` at the end of the window (and `VmHWM`, peak).

`--metrics off` counts nothing per act or frame in the server (`app.metrics.HOT.on`) and
serves no metrics; the default (`on`) serves them on a `METRICS_PORT`, as in production. The
issue's before-and-after, back to back on one machine:

    python benchmarks/server.py --metrics off --no-write; python benchmarks/server.py --no-write

Writes the "Server" section of `docs/benchmarks.md` (`--processes`: the "Server: N
processes" section); the other sections are left alone. `--quick` (40 tables, 8 s) only
prints.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import pickle
import random
import re
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import cluster, processes_report, stall_report, wsclient  # noqa: E402
from benchmarks.machine import DOC, write_section  # noqa: E402
from benchmarks.meters import (  # noqa: E402
    PgMeter,
    PgUse,
    RedisMeter,
    RedisUse,
    cpu_of,
    machine_busy_seconds,
    memory_mb,
    runqueue_seconds,
)
from benchmarks.players import BareReader, Play, Player, Reader  # noqa: E402
from benchmarks.report import (  # noqa: E402
    SEATS,
    Result,
    machine_and_date,
    mark,
    play_notes,
    wrap,
)
from benchmarks.wsclient import Socket  # noqa: E402

SECTION = "## Server"
CHIPS = 10_000_000  # players never go broke during a run


# -- the server processes ------------------------------------------------------------------


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def serve_stud(port: int, record: Path, metrics_on: bool = True) -> None:
    """The real app (`app.main:create_app`, its lifespan claims and restores the prepared
    tables), with one addition: every garbage collection (when it ended, how long it took)
    is recorded, and written to `record` on SIGUSR1, with the event-loop stalls when
    `STALL_MS` is set (`app.stalls`). `metrics_on=False`: nothing is counted per act or
    frame (`app.metrics.HOT.on`), and no `METRICS_PORT` is given."""
    import uvicorn

    from app import metrics
    from app.main import create_app

    metrics.HOT.on = metrics_on

    gc_ends, gc_seconds = array("d"), array("d")
    gc_started = [0.0]

    def collection(phase: str, _info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            gc_started[0] = now
        else:
            gc_ends.append(time.monotonic())
            gc_seconds.append(now - gc_started[0])

    gc.callbacks.append(collection)

    application = create_app()

    def dump(_signum: int, _frame: Any) -> None:
        watch = getattr(application.state, "stalls", None)
        spans = (
            [
                (
                    s.start,
                    s.end,
                    s.cause,
                    s.gc_seconds,
                    s.others,
                    s.on_cpu,
                    s.runqueue,
                    s.sampled,
                    s.tasks,
                )
                for s in watch.stalls
            ]
            if watch
            else []
        )
        tmp = record.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps((gc_ends, gc_seconds, spans)))
        tmp.rename(record)

    signal.signal(signal.SIGUSR1, dump)
    probe_to = os.environ.get("BENCH_GC_PROBE")
    if probe_to:
        gc_probe(Path(probe_to))
    traced_to = os.environ.get("BENCH_TRACEMALLOC")
    if traced_to:  # where the memory is, by the line that allocated it, at the window's end
        import tracemalloc

        tracemalloc.start(1)

        def traced_dump(signum: int, frame: Any) -> None:
            memory_by_line(Path(traced_to))
            dump(signum, frame)

        signal.signal(signal.SIGUSR1, traced_dump)
    saveall_to = os.environ.get("BENCH_GC_SAVEALL")
    if saveall_to:  # the garbage cycles made in the window (SIGUSR2 to SIGUSR1), by type

        def garbage_dump(signum: int, frame: Any) -> None:
            garbage_since(Path(saveall_to))
            dump(signum, frame)

        signal.signal(signal.SIGUSR2, lambda *_: garbage_from_now())
        signal.signal(signal.SIGUSR1, garbage_dump)
    profile_to = os.environ.get("BENCH_PROFILE")
    if profile_to:  # cProfile over the measuring window only (SIGUSR2 starts it), to FILE.pid
        # (each of --processes N writes its own)
        import cProfile

        # the loop thread's CPU time, not the wall clock: on a shared machine a function
        # descheduled mid-call would be charged for the other processes' turns
        profiler = cProfile.Profile(time.thread_time)

        def profile(_signum: int, _frame: Any) -> None:
            profiler.enable()

        def dump_profile(signum: int, frame: Any) -> None:
            profiler.disable()
            profiler.dump_stats(f"{profile_to}.{os.getpid()}")
            dump(signum, frame)

        signal.signal(signal.SIGUSR2, profile)
        signal.signal(signal.SIGUSR1, dump_profile)
    uvicorn.run(
        application,
        host="127.0.0.1",
        port=port,
        ws_per_message_deflate=False,
        ws_max_size=4096,
        log_level="warning",
        backlog=4096,
    )


def memory_by_line(to: Path) -> None:
    """A diagnosis (tracing slows every allocation): the 60 lines holding the most memory."""
    import tracemalloc

    stats = tracemalloc.take_snapshot().statistics("lineno")
    total = sum(s.size for s in stats)
    rows = [{"line": str(s.traceback[0]), "kb": s.size // 1024, "n": s.count} for s in stats]
    to.write_text(json.dumps({"traced_mb": total / 2**20, "top": rows[:60]}, indent=1))


def garbage_from_now() -> None:
    gc.unfreeze()
    gc.collect()
    gc.garbage.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)


def garbage_since(to: Path) -> None:
    """A diagnosis: every object of a garbage cycle since `garbage_from_now`, by type (the
    collector's freezing is undone first, so that the last collection sees them all)."""
    from collections import Counter

    gc.unfreeze()
    gc.collect()
    gc.set_debug(0)
    kinds = Counter(type(o).__name__ for o in gc.garbage)
    # which statement a cycle came from: its bound parameters' names and values
    binds = Counter(
        re.sub(r"%\(\d+ (\w+)\)s", r"\1", str(getattr(o, "key", "")))
        + f"={str(getattr(o, 'value', ''))[:40]}"
        for o in gc.garbage
        if type(o).__name__ == "BindParameter"
    )
    to.write_text(
        json.dumps(
            {
                "objects": len(gc.garbage),
                "types": kinds.most_common(40),
                "binds": binds.most_common(20),
            }
        )
    )
    gc.garbage.clear()


def gc_probe(to: Path) -> None:
    """A diagnosis, not a measurement (it slows each young collection): at each young
    collection, what the collected generations hold (types, and how many references they
    point along, which the collector visits), and its CPU time; appended to `to` as JSON."""
    from collections import Counter

    state: dict[str, Any] = {}

    def probe(phase: str, info: dict[str, Any]) -> None:
        gen = int(info.get("generation", 0))
        if gen > 1:
            return
        if phase == "start":
            objs = [o for g in range(gen + 1) for o in gc.get_objects(g)]
            types = Counter(type(o).__name__ for o in objs)
            refs: Counter[str] = Counter()
            for o in objs:
                refs[type(o).__name__] += len(gc.get_referents(o))
            state.update(gen=gen, n=len(objs), types=types.most_common(8))
            state.update(refs=refs.most_common(8), total_refs=sum(refs.values()))
            state["cpu"] = time.thread_time()
            state["wall"] = time.perf_counter()
            return
        state["cpu_ms"] = (time.thread_time() - state["cpu"]) * 1000
        state["wall_ms"] = (time.perf_counter() - state["wall"]) * 1000
        state["collected"] = info.get("collected")
        with to.open("a") as f:
            f.write(json.dumps({k: v for k, v in state.items() if k not in ("cpu", "wall")}) + "\n")

    gc.callbacks.append(probe)


def serve_bare(port: int, groups: int, size: int, rate: float, burst: int) -> None:
    """Only broadcasts: each group of sockets gets `burst` messages of `size` bytes `rate`
    times a second, each stamped with its send time."""
    import uvicorn

    members: list[list[WebSocket]] = [[] for _ in range(groups)]
    app = FastAPI()

    @app.websocket("/ws/{group}")
    async def sock(ws: WebSocket, group: int) -> None:
        await ws.accept()
        members[group].append(ws)
        try:
            while True:
                await ws.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            members[group].remove(ws)

    async def broadcast(group: int) -> None:
        loop = asyncio.get_running_loop()
        interval = 1.0 / rate
        await asyncio.sleep(random.random() * interval)
        due = loop.time()
        while True:
            due += interval
            await asyncio.sleep(max(0.0, due - loop.time()))
            for _ in range(burst):
                head = f'{{"t":{time.monotonic():.6f},"p":"'
                text = head + "x" * max(0, size - len(head) - 2) + '"}'
                for ws in tuple(members[group]):
                    with contextlib.suppress(Exception):
                        await ws.send_text(text)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(broadcast(g)) for g in range(groups)]
        yield
        for task in tasks:
            task.cancel()

    app.router.lifespan_context = lifespan
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        ws_per_message_deflate=False,
        ws_max_size=4096,
        log_level="warning",
        backlog=4096,
        ws=os.environ.get("BENCH_WS", "auto"),
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def spawn(args: list[str], env: dict[str, str], log: Path | None = None) -> subprocess.Popen[bytes]:
    """A server subprocess; its output goes to `log` when given (a failure prints it)."""
    command = [sys.executable, str(Path(__file__).resolve()), *args]
    if log is None:
        return subprocess.Popen(command, env=env)
    with log.open("ab") as out:
        return subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)


async def wait_listening(
    port: int, proc: subprocess.Popen[bytes], timeout: float = 120, log: Path | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            said = log.read_text(errors="replace")[-4000:] if log and log.exists() else ""
            raise RuntimeError(f"the server exited with {proc.returncode}\n{said}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise TimeoutError("the server did not start")


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """Ctrl+C to each (a clean stop: its tables' leases are released), then wait."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# -- preparing the tables ------------------------------------------------------------------


@dataclass
class Seat:
    table_id: int
    seat: int
    token: str
    think: float  # seconds this seat's player thinks before acting (its table's)


async def prepare(database_url: str, tables: int, think_ms: int, pause_ms: int) -> list[Seat]:
    """Tables with six seated players each and a session for every player, made through
    the same store the table server uses, before the server starts (it claims them)."""
    from app.store import accounts, ledger
    from app.store.db import Database
    from app.store.migrate import upgrade
    from app.tables import LedgerTableStore, TableSettings

    db = Database(database_url)
    await upgrade(db)
    store = LedgerTableStore(db)
    seats: list[Seat] = []
    jitter = random.Random(5)
    try:
        async with db.transaction() as s:
            host = await accounts.register(
                s,
                name="bench-host",
                email="host@bench.example.com",
                password_hash="!",
                starting_balance=0,
            )
        for n in range(tables):
            settings = TableSettings(
                name=f"bench {n}",
                small_bet=100,
                big_bet=200,
                ante=10,
                bring_in=50,
                max_seats=SEATS,
                hand_pause_ms=pause_ms,
            )
            table_id = await store.create(
                settings, host_user_id=host.id, invite_token=None, password_hash=None
            )
            # tables are not in step: think times vary by table, +-25% around the nominal
            think = think_ms * jitter.uniform(0.75, 1.25) / 1000
            players: set[int] = set()
            async with db.transaction() as s:  # six buy-ins, in one transaction
                for seat in range(SEATS):
                    name = f"p-{table_id}-{seat}"
                    user = await accounts.register(
                        s,
                        name=name,
                        email=f"{name}@players.example.com",
                        password_hash="!",
                        starting_balance=CHIPS,
                    )
                    await ledger.buy_in(
                        s,
                        user_id=user.id,
                        table_id=table_id,
                        amount=CHIPS,
                        key=f"bench:{table_id}:{seat}",
                        seat_no=seat,
                    )
                    new = await accounts.open_session(s, user.id, lifetime=timedelta(days=1))
                    seats.append(Seat(table_id, seat, new.token, think))
                    players.add(user.id)
            await store.save_state(
                table_id, members={host.id, *players}, bots=set(), sitting_out={}
            )
        await store.release_all()  # the server claims them when it starts
    finally:
        await db.dispose()
    return seats


# -- the load ------------------------------------------------------------------------------


async def connect_all(
    urls: list[str], readers: list[Reader], parallel: int = 25, tokens: list[str] | None = None
) -> list[Socket]:
    """Open every socket (a few at a time, as players arrive), each with its session token
    in the `Authorization` header when given (never in the URL), its messages going to its
    reader; those that still fail after retries are left out (the report says how many
    connected)."""
    sockets: list[Socket] = []
    gate = asyncio.Semaphore(parallel)

    async def one(i: int, url: str) -> None:
        headers = {"Authorization": f"Bearer {tokens[i]}"} if tokens else None
        reader = readers[i]
        async with gate:
            for attempt in range(5):
                try:
                    sock = await wsclient.connect(url, reader.on_text, headers, timeout=60)
                    break
                except (OSError, TimeoutError, wsclient.HandshakeError):
                    await asyncio.sleep(0.5 * (attempt + 1))
            else:
                return
        reader.sock = sock
        sock.closed.add_done_callback(lambda _: reader.on_closed())
        sockets.append(sock)

    await asyncio.gather(*(one(i, u) for i, u in enumerate(urls)))
    return sockets


async def close_all(sockets: list[Socket]) -> None:
    await asyncio.gather(*(sock.close() for sock in sockets))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


@dataclass
class Window:
    """What one measuring window saw of the server processes and the machine."""

    cpu: float  # server CPU seconds, all processes
    load: float  # this process's CPU seconds
    wall: float
    loadavg: float
    runqueue: float  # server seconds waiting for a CPU
    busy: float  # the whole machine's busy CPU seconds
    lag_p99: float = float("nan")  # the load's event loop: how late a 10 ms timer fired (s)
    lag_max: float = float("nan")
    redis: RedisUse | None = None
    pg: PgUse | None = None


async def measure(
    pids: list[int],
    start: Callable[[], None],
    end: Callable[[], None],
    seconds: float,
    pg: PgMeter | None = None,
    redis: RedisMeter | None = None,
) -> Window:
    """One window: `start` and `end` switch the load's counting on and off."""
    pg0 = await pg.read() if pg else None
    redis0 = await redis.read() if redis else None
    wait0 = sum(runqueue_seconds(pid) for pid in pids)
    # the load's own garbage collections would pause every socket's reading at once and
    # count as the server's latency: none during the window (it makes little cyclic garbage)
    gc.collect()
    gc.freeze()
    gc.disable()
    busy0 = machine_busy_seconds()
    cpu0, load0, t0 = cpu_of(pids), time.process_time(), time.monotonic()
    start()
    lags = array("d")
    ticker = asyncio.get_running_loop().create_task(_lag(lags))
    try:
        await asyncio.sleep(seconds)
    finally:
        ticker.cancel()
        end()
        gc.enable()
        gc.unfreeze()
    cpu1, load1, t1 = cpu_of(pids), time.process_time(), time.monotonic()
    busy = machine_busy_seconds() - busy0
    wait = sum(runqueue_seconds(pid) for pid in pids) - wait0
    w = Window(cpu1 - cpu0, load1 - load0, t1 - t0, os.getloadavg()[0], wait, busy)
    w.lag_p99 = percentile(sorted(lags), 0.99)
    w.lag_max = max(lags, default=float("nan"))
    if pg and pg0:
        w.pg = PgMeter.use(pg0, await pg.read())
    if redis and redis0:
        w.redis = RedisMeter.use(redis0, await redis.read())
    return w


async def _lag(lags: array[float]) -> None:
    """How late this (the load's) event loop runs a 10 ms timer: a late loop reads every
    socket late, which the latencies then count."""
    while True:
        due = time.monotonic() + 0.01
        await asyncio.sleep(0.01)
        lags.append(max(0.0, time.monotonic() - due))


def others(w: Window) -> float:
    """Cores' worth of CPU that neither the servers, the load, Redis nor the run's database
    used during the window: other work on the machine."""
    ours = w.cpu + w.load
    if w.redis:
        ours += w.redis.cpu
    if w.pg:
        ours += w.pg.cpu + w.pg.background_cpu
    return max(0.0, w.busy - ours) / w.wall


@dataclass
class Servers:
    """How one run's server is set up: one process or several, on which database/fan-out."""

    name: str
    database_url: str
    processes: int = 1
    redis_url: str | None = None
    namespace: str | None = None
    route: str = "random"  # several processes: sockets on a random process, or the owner's
    pg: PgMeter | None = None
    redis: RedisMeter | None = None


def server_env(servers: Servers, work: Path, capacity: int) -> dict[str, str]:
    work.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "DATABASE_URL": servers.database_url,
        "DATA_DIR": str(work),
        "MAIL_WORKER_ENABLED": "false",
        "TABLE_CAPACITY": str(capacity),
    }
    env.pop("REDIS_URL", None)
    env.pop("BOTS_PLAY_ALONE", None)  # the players are people, playing from their sockets
    if servers.redis_url:
        env["REDIS_URL"] = servers.redis_url
        env["REDIS_NAMESPACE"] = servers.namespace or f"bench-{secrets.token_hex(6)}"
    return env


async def run_stud(args: argparse.Namespace, work: Path, seats: list[Seat], sv: Servers) -> Result:
    n = sv.processes
    tables = len({s.table_id for s in seats})
    capacity = -(-tables // n)  # each process claims about 1/n of the tables
    procs: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    records: list[Path] = []
    rng = random.Random(7)
    try:
        t = time.monotonic()
        for i in range(n):  # one at a time: each claims its share before the next starts
            slug = f"{n}-{'redis' if sv.redis_url else 'memory'}-{i}"
            port, record, log = free_port(), work / f"{slug}.gc", work / f"{slug}.log"
            env = server_env(sv, work / slug, capacity if n > 1 else tables)
            argv = ["--serve", "stud", "--port", str(port), "--record", str(record)]
            argv += ["--metrics", args.metrics]
            if args.metrics == "on":  # served (and so counted) as in production
                env["METRICS_PORT"] = str(free_port())
            if args.stalls:
                env["STALL_MS"] = str(args.stalls)
            procs.append(spawn(argv, env, log))
            ports.append(port)
            records.append(record)
            await wait_listening(port, procs[-1], log=log)
        owners = await cluster.owners(sv.database_url, [p.pid for p in procs])
        placement = [sum(1 for o in owners.values() if o == i) for i in range(n)]
        print(f"{sv.name}: {n} process(es) up in {time.monotonic() - t:.1f} s, tables {placement}")

        def port_for(s: Seat) -> int:
            if n == 1:
                return ports[0]
            if sv.route == "owner":
                return ports[owners.get(s.table_id, 0)]
            return ports[rng.randrange(n)]

        chosen = [port_for(s) for s in seats]
        remote = sum(
            1 for s, p in zip(seats, chosen, strict=True) if p != ports[owners.get(s.table_id, 0)]
        ) / max(1, len(seats))
        p = Play()
        urls = [
            f"ws://127.0.0.1:{port}/ws/tables/{s.table_id}"
            for s, port in zip(seats, chosen, strict=True)
        ]
        t = time.monotonic()
        players: list[Reader] = [Player(s.table_id, s.seat, s.think, p) for s in seats]
        sockets = await connect_all(urls, players, tokens=[s.token for s in seats])
        print(f"{sv.name}: {len(sockets)} of {len(urls)} sockets in {time.monotonic() - t:.1f} s")
        opened = sum(memory_mb(proc.pid)[0] for proc in procs)
        await asyncio.sleep(args.warmup)
        # where the memory figure is made: the sockets opening, or the tables playing on
        warm = sum(memory_mb(proc.pid)[0] for proc in procs)
        print(f"{sv.name}: RSS {opened:.0f} MB with the sockets open, {warm:.0f} MB warmed up")

        def start() -> None:
            p.measuring = True
            if os.environ.get("BENCH_PROFILE") or os.environ.get("BENCH_GC_SAVEALL"):
                for proc in procs:
                    proc.send_signal(signal.SIGUSR2)

        def end() -> None:
            p.measuring = False

        pids = [proc.pid for proc in procs]
        w = await measure(pids, start, end, args.seconds, sv.pg, sv.redis)
        window_end = time.monotonic()
        rss = hwm = 0.0
        for pid in pids:
            r, h = memory_mb(pid)
            rss, hwm = rss + r, hwm + h
        gc_total, gc_longest, spans = await gc_in_window(procs, records, window_end - w.wall)
        p.closing = True
        await close_all(sockets)
    finally:
        stop(procs)
    lat = sorted(p.latencies)
    last: dict[int, float] = {}
    for key, x in zip(p.keys, p.latencies, strict=True):
        if x > last.get(key, 0.0):
            last[key] = x
    whole = sorted(last.values())
    frames = max(1, p.frames)
    p99 = percentile(lat, 0.99)
    tail = [
        (p.sent[k], p.sent[k] + x)
        for k, x in zip(p.keys, p.latencies, strict=True)
        if x >= p99 and k in p.sent
    ]
    return Result(
        name=sv.name if args.metrics == "on" else f"{sv.name}, metrics off",
        sockets=len(sockets),
        wanted=len(seats),
        seconds=w.wall,
        frames=p.frames,
        mean_chars=p.chars / frames,
        p50_ms=percentile(lat, 0.5) * 1000,
        p99_ms=percentile(lat, 0.99) * 1000,
        max_ms=(lat[-1] if lat else float("nan")) * 1000,
        samples=len(lat),
        cpu_us=w.cpu / frames * 1e6,
        server_cpu=w.cpu / w.wall,
        load_cpu=w.load / w.wall,
        rss_mb=rss,
        hwm_mb=hwm,
        processes=n,
        loadavg=w.loadavg,
        others=others(w),
        load_lag_p99_ms=w.lag_p99 * 1000,
        load_lag_max_ms=w.lag_max * 1000,
        runqueue=w.runqueue / w.wall,
        gc_share=gc_total / w.wall,
        gc_longest_ms=gc_longest * 1000,
        all_p50_ms=percentile(whole, 0.5) * 1000,
        all_p99_ms=percentile(whole, 0.99) * 1000,
        acts_per_s=p.acts / w.wall,
        hands_per_s=p.hands / w.wall,
        timeouts=p.timeouts // SEATS,
        dropped=p.dropped,
        errors=dict(p.errors),
        burst=p.frames / max(1, p.turns),  # frames a socket gets per turn
        remote=remote,
        placement=placement,
        redis=w.redis,
        pg=w.pg,
        stalls=[asdict(c) for c in stall_report.causes(spans, tail)] if args.stalls else [],
    )


async def gc_in_window(
    procs: list[subprocess.Popen[bytes]], records: list[Path], since: float
) -> tuple[float, float, list[stall_report.Span]]:
    """The servers' garbage collections that ended in the window (total and longest, s),
    and their event-loop stalls that ended in it."""
    for proc in procs:
        proc.send_signal(signal.SIGUSR1)
    total, longest = 0.0, 0.0
    spans: list[stall_report.Span] = []
    for record in records:
        for _ in range(300):
            if record.exists():
                break
            await asyncio.sleep(0.05)
        else:
            continue
        ends, seconds, stalls = pickle.loads(record.read_bytes())
        inside = [d for at, d in zip(ends, seconds, strict=True) if at >= since]
        total += sum(inside)
        longest = max(longest, *inside, 0.0)
        spans += [s for s in stalls if s[1] >= since]
    return total, longest, spans


async def run_bare(args: argparse.Namespace, stud: Result) -> Result:
    groups = args.tables
    burst = max(1, round(stud.burst))
    rate = stud.frames / stud.seconds / max(1, stud.sockets) / burst  # bursts/s per socket
    port = free_port()
    proc = spawn(
        [
            "--serve", "bare", "--port", str(port), "--groups", str(groups),
            "--size", str(round(stud.mean_chars)), "--rate", f"{rate:.6f}",
            "--burst", str(burst),
        ],
        dict(os.environ),
    )  # fmt: skip
    try:
        await wait_listening(port, proc)
        c = Play()
        urls = [f"ws://127.0.0.1:{port}/ws/{n // SEATS}" for n in range(groups * SEATS)]
        sockets = await connect_all(urls, [BareReader(c) for _ in urls])
        await asyncio.sleep(args.warmup)

        def start() -> None:
            c.measuring = True

        def end() -> None:
            c.measuring = False

        w = await measure([proc.pid], start, end, args.seconds)
        rss, hwm = memory_mb(proc.pid)
        await close_all(sockets)
    finally:
        stop([proc])
    lat = sorted(c.latencies)
    frames = max(1, c.frames)
    return Result(
        name="bare broadcast",
        sockets=len(sockets),
        wanted=len(urls),
        seconds=w.wall,
        frames=c.frames,
        mean_chars=c.chars / frames,
        p50_ms=percentile(lat, 0.5) * 1000,
        p99_ms=percentile(lat, 0.99) * 1000,
        max_ms=(lat[-1] if lat else float("nan")) * 1000,
        samples=len(lat),
        cpu_us=w.cpu / frames * 1e6,
        server_cpu=w.cpu / w.wall,
        load_cpu=w.load / w.wall,
        rss_mb=rss,
        hwm_mb=hwm,
        loadavg=w.loadavg,
        others=others(w),
        runqueue=w.runqueue / w.wall,
        burst=burst,
    )


# -- the report ----------------------------------------------------------------------------


HEADER = (
    "| server | sockets | frames/s delivered | mean frame (chars) | p50 ms | p99 ms | max ms "
    "| server CPU µs/frame | server CPU (1 core) | RSS MB (peak) |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def row(r: Result) -> str:
    return (
        f"| {r.name} | {r.sockets} of {r.wanted} | {r.frames / r.seconds:,.0f} "
        f"| {r.mean_chars:.0f} "
        f"| {r.p50_ms:.1f} | {r.p99_ms:.1f} | {r.max_ms:.0f} | {r.cpu_us:.1f} "
        f"| {r.server_cpu:.0%} | {r.rss_mb:.0f} ({r.hwm_mb:.0f}) |"
    )


def report(args: argparse.Namespace, stud: Result, bare: Result) -> str:
    ratio = stud.cpu_us / bare.cpu_us if bare.cpu_us else float("nan")
    size = "full size" if not args.quick else "--quick"
    fanout = "redis" if args.redis_url else "memory"
    db = "PostgreSQL" if args.database_url and "postgres" in args.database_url else "SQLite"
    return wrap(
        f"""{SECTION}

`python benchmarks/server.py --tables {args.tables}` ({size}; written by the benchmark).
Machine: {machine_and_date()}.

"""
        f"{args.tables} tables x {SEATS} seated players (Stud; each player acts from its own"
        f" socket after a think time of {args.think_ms} ms +-25% by table, so that tables do"
        f" not act in step; pause between hands {args.hand_pause_ms} ms, {db}, `{fanout}://`"
        " fan-out) in one uvicorn process (per-message compression off); one WebSocket per"
        " seat, opened with that player's session, in a second process (the load), which"
        " plays the turns. Then a bare FastAPI server that only broadcasts, to as many"
        f" sockets, messages of the same mean size in bursts of {bare.burst:.0f} at the same"
        f" rate. Measured over {stud.seconds:.0f} s after {args.warmup:.0f} s of warm-up."
        f"""

{HEADER}
{row(stud)}
{row(bare)}

"""
        "- Latency, stud: from the player's socket sending its `act` to each socket at the"
        f" table receiving the event it caused ({play_notes(stud)}). Bare: from the send to"
        " the receipt of each message.\n"
        f"- Targets (issue 26): p99 under 30 ms: {mark(stud.p99_ms < 30)}"
        f" ({stud.p99_ms:.1f} ms); max under 150 ms: {mark(stud.max_ms < 150)}"
        f" ({stud.max_ms:.0f} ms); CPU per delivered message at most 1.5x the bare server's:"
        f" {mark(ratio <= 1.5)} ({ratio:.2f}x); resident memory at most 367 MB:"
        f" {mark(stud.rss_mb <= 367)} ({stud.rss_mb:.0f} MB).\n"
        f"- The load process used {stud.load_cpu:.0%} of a core during the stud run and"
        f" {bare.load_cpu:.0%} during the bare run (latency includes its reading time). The"
        f" machine's load average (1 min) at the end of each window: {stud.loadavg:.1f} and"
        f" {bare.loadavg:.1f} on {os.cpu_count()} cores; the server's threads waited for a"
        f" CPU (ready to run, another process had it) {stud.runqueue:.0%} and"
        f" {bare.runqueue:.0%} of the window; other work on the machine used"
        f" {stud.others:.2f} and {bare.others:.2f} cores' worth of CPU. Other work on the"
        " machine inflates latency.\n"
        "- Garbage collections in the stud server (`app/collector.py` keeps to its"
        f" schedule): {stud.gc_share:.1%} of the window, the longest"
        f" {stud.gc_longest_ms:.0f} ms.\n" + (stalls_text(args, stud) if args.stalls else "")
    )


def stalls_text(args: argparse.Namespace, stud: Result) -> str:
    rows = [stall_report.Cause(**c) for c in stud.stalls]  # type: ignore[arg-type]
    return (
        f"\nEvent-loop stalls over {args.stalls:g} ms in the stud server during the window"
        " (`--stalls`, the server's `STALL_MS`: `app/stalls.py` samples the loop's stack"
        " from a watchdog thread, times each garbage collection, and reads the kernel's"
        " account of the loop thread: how long of each stall it ran on a CPU, and how long"
        " it was ready but waited for one). Each delivery in the"
        " p99 tail is put down to the stall that overlapped it most:\n\n"
        f"{stall_report.table(rows)}\n"
    )


SWEEP_SECTION = "## Server: sweep"


def sweep_report(args: argparse.Namespace, results: list[tuple[int, Result]]) -> str:
    # a size counts if it kept every player: p99 in bounds, no socket dropped, no turn lost
    under = [
        n
        for n, r in results
        if r.p99_ms < 50 and r.sockets == r.wanted and not r.dropped and not r.timeouts
    ]
    capacity = max(under, default=0)
    lines = [
        "| tables | sockets | frames/s | p50 ms | p99 ms | max ms | CPU µs/frame "
        "| server CPU (1 core) | RSS MB | dropped | turns timed out | load average |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, r in results:
        lines.append(
            f"| {n} | {r.sockets} of {r.wanted} | {r.frames / r.seconds:,.0f} | {r.p50_ms:.1f} "
            f"| {r.p99_ms:.1f} | {r.max_ms:.0f} | {r.cpu_us:.1f} | {r.server_cpu:.0%} "
            f"| {r.rss_mb:.0f} | {r.dropped} | {r.timeouts} | {r.loadavg:.1f} |"
        )
    table = "\n".join(lines)
    return wrap(
        f"""{SWEEP_SECTION}

`python benchmarks/server.py --sweep {",".join(str(n) for n, _ in results)}` (written by the
benchmark). Machine: {machine_and_date()}.

"""
        "One server process on SQLite with the in-process fan-out, each size on a fresh"
        f" database: 6 players a table acting from their own sockets (think {args.think_ms} ms),"
        f" measured over {args.seconds:.0f} s after {args.warmup:.0f} s of warm-up.\n\n"
        f"{table}\n\n"
        f"**Tables per core: {capacity}** (the largest size whose p99 stayed under 50 ms with"
        " every socket connected, none dropped by the server and no turn timed out; one"
        " process runs on one core). The estimate for N processes uses it.\n"
    )


async def bench_sweep(args: argparse.Namespace) -> int:
    results: list[tuple[int, Result]] = []
    for n in args.sweep:
        with tempfile.TemporaryDirectory(prefix="stud-bench-") as tmp:
            work = Path(tmp)
            url = f"sqlite+aiosqlite:///{work / 'bench.sqlite3'}"
            seats = await prepare(url, n, args.think_ms, args.hand_pause_ms)
            r = await run_stud(args, work, seats, Servers(f"{n} tables", url))
            print(f"{n} tables: {r}")
            results.append((n, r))
    save_json(args, [r for _, r in results])
    text = sweep_report(args, results)
    print(text)
    if not args.no_write:
        write_section(SWEEP_SECTION, text)
        print(f"wrote the {SWEEP_SECTION!r} section of {DOC.relative_to(ROOT)}")
    return 0


# -- the command ---------------------------------------------------------------------------


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--tables", type=int, default=None, help="tables (default 500; quick 40)")
    parser.add_argument(
        "--quick", action="store_true", help="a small, short run (docs are not written)"
    )
    parser.add_argument("--seconds", type=float, default=None, help="measuring window")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before measuring")
    parser.add_argument("--think-ms", type=int, default=500, help="players' think time")
    parser.add_argument("--hand-pause-ms", type=int, default=1000, help="pause between hands")
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    parser.add_argument("--redis-url", default=None, help="fan-out over Redis (default memory)")
    parser.add_argument("--no-write", action="store_true", help="do not touch docs/benchmarks.md")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument(
        "--processes", type=int, default=None,
        help="N server processes on PostgreSQL and Redis, against one with memory://",
    )  # fmt: skip
    parser.add_argument(
        "--route", choices=["random", "owner"], default="random",
        help="--processes: open each socket on a random process (default) or its table's owner",
    )  # fmt: skip
    parser.add_argument(
        "--postgres", default=cluster.POSTGRES,
        help="--processes: a database on the PostgreSQL server to make the run's database from",
    )  # fmt: skip
    parser.add_argument(
        "--redis", default=cluster.REDIS, help="--processes: the Redis the processes share"
    )
    parser.add_argument(
        "--only-processes", action="store_true",
        help="--processes: skip the one-process baseline and the bare server (a smoke run)",
    )  # fmt: skip
    parser.add_argument(
        "--stalls", type=float, default=None, metavar="MS",
        help="the server records each event-loop stall over MS (its STALL_MS), and the report"
        " gives their causes and their share of the p99 tail",
    )  # fmt: skip
    parser.add_argument(
        "--sweep", type=lambda v: [int(x) for x in v.split(",")], default=None,
        metavar="N,N,...", help="one process on SQLite at each number of tables, in turn",
    )  # fmt: skip
    # the server subprocesses
    parser.add_argument(
        "--metrics",
        choices=["on", "off"],
        default="on",
        help="the server's metrics (issue 25): on (served on a METRICS_PORT; frames, bytes "
        "and action latency counted) or off (nothing counted per act or frame): run both "
        "back to back and compare CPU per delivered frame",
    )
    parser.add_argument("--serve", choices=["stud", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--record", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--groups", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--rate", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--burst", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tables is None:
        args.tables = 40 if args.quick else 500
    if args.seconds is None:
        args.seconds = 8.0 if args.quick else 30.0
    if args.warmup is None:
        args.warmup = 3.0 if args.quick else 10.0
    return args


async def bench(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="stud-bench-") as tmp:
        work = Path(tmp)
        url = args.database_url or f"sqlite+aiosqlite:///{work / 'bench.sqlite3'}"
        t = time.monotonic()
        seats = await prepare(url, args.tables, args.think_ms, args.hand_pause_ms)
        print(f"prepared {args.tables} tables x {SEATS} players in {time.monotonic() - t:.1f} s")
        fanout = "redis" if args.redis_url else "memory"
        sv = Servers(f"stud tables ({fanout}://)", url, redis_url=args.redis_url)
        stud = await run_stud(args, work, seats, sv)
        print(f"stud: {stud}")
        bare = await run_bare(args, stud)
        print(f"bare: {bare}")
    save_json(args, [stud, bare])
    text = report(args, stud, bare)
    print(text)
    if args.quick and not args.no_write:
        print(f"--quick: {DOC.relative_to(ROOT)} keeps the full-size result")
    elif not args.no_write:
        write_section(SECTION, text)
        print(f"wrote the {SECTION!r} section of {DOC.relative_to(ROOT)}")
    return 0


async def bench_processes(args: argparse.Namespace) -> int:
    """The baseline (one process, `memory://`), N processes on Redis, and the bare server,
    one after the other on one fresh PostgreSQL database."""

    pg = cluster.Postgres(args.postgres)
    name = await pg.create()
    url = pg.url_for(name)
    namespace = f"bench-{secrets.token_hex(6)}"
    results: list[Result] = []
    try:
        with tempfile.TemporaryDirectory(prefix="stud-bench-") as tmp:
            work = Path(tmp)
            t = time.monotonic()
            seats = await prepare(url, args.tables, args.think_ms, args.hand_pause_ms)
            print(
                f"prepared {args.tables} tables x {SEATS} players in {time.monotonic() - t:.1f} s"
            )
            pg_meter = PgMeter(pg.admin_dsn, name)
            redis_meter = RedisMeter(args.redis)
            runs = [
                Servers("1 process, memory://", url, pg=pg_meter, redis=redis_meter),
                Servers(
                    f"{args.processes} processes, redis://", url, processes=args.processes,
                    redis_url=args.redis, namespace=namespace, route=args.route,
                    pg=pg_meter, redis=redis_meter,
                ),
            ]  # fmt: skip
            if args.only_processes:
                runs = runs[1:]
            for sv in runs:
                results.append(await run_stud(args, work, seats, sv))
                print(f"{sv.name}: {results[-1]}")
            if not args.only_processes:
                results.append(await run_bare(args, results[0]))
                print(f"bare: {results[-1]}")
    finally:
        await pg.drop(name)
    save_json(args, results)
    text = processes_report.report(args, results)
    print(text)
    if (args.quick or args.only_processes) and not args.no_write:
        print(f"--quick: {DOC.relative_to(ROOT)} keeps the full-size result")
    elif not args.no_write:
        write_section(processes_report.SECTION, text)
        print(f"wrote the {processes_report.SECTION!r} section of {DOC.relative_to(ROOT)}")
    return 0


def save_json(args: argparse.Namespace, results: list[Result]) -> None:
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    raise_fd_limit()
    if args.serve == "stud":
        serve_stud(args.port, args.record, metrics_on=args.metrics == "on")
        return 0
    if args.serve == "bare":
        serve_bare(args.port, args.groups, args.size, args.rate, args.burst)
        return 0
    if args.sweep:
        run = bench_sweep(args)
    elif args.processes:
        run = bench_processes(args)
    else:
        run = bench(args)
    try:
        import uvloop

        return uvloop.run(run)
    except ImportError:
        return asyncio.run(run)


if __name__ == "__main__":
    sys.exit(main())
