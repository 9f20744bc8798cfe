"""The table server under load: bot-played tables over real WebSockets on loopback, against a
bare FastAPI WebSocket server that only broadcasts messages of the same size to as many sockets.

    python benchmarks/server.py [--tables N] [--quick] [--no-write]

This process is the load: it prepares a fresh database (tables with seated bots, a session for
each bot), starts the server as a uvicorn subprocess (per-message compression off, as
`python -m app` runs it), opens one WebSocket per seat (each follows its seat's private
channel, as a player's browser would) and reads every frame. Then it does the same against
the bare server, at the stud run's measured message rate, size and burst.

- **Latency**: from the moment a bot's turn is taken (its think-time timer posts the action
  to the table's mailbox; the server subprocess records that instant on the shared monotonic
  clock) to the moment each socket at the table has received the event it caused. The bare
  server stamps each message with its send time.
- **CPU per delivered message**: the server process's user+system time (`/proc/<pid>/stat`)
  over the measuring window, divided by the frames the clients received in it.
- **Memory**: the server process's `VmRSS` at the end of the window (and `VmHWM`, its peak).

Writes the "Server" section of `docs/benchmarks.md` (the other sections are left alone);
`--quick` (40 tables, 8 s) only prints.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import pickle
import platform
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.machine import DOC, machine, write_section  # noqa: E402

SECTION = "## Server"
CLK_TCK = os.sysconf("SC_CLK_TCK")
SEATS = 6
CHIPS = 10_000_000  # bots never go broke during a run


# -- the server processes ------------------------------------------------------------------


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def serve_stud(port: int, record: Path) -> None:
    """The real app (`app.main:create_app`, its lifespan restores the prepared tables), with
    one addition: the instant each bot's action reaches its table's mailbox is recorded, and
    written to `record` on SIGUSR1."""
    import uvicorn

    from app.main import create_app
    from app.tables import Table
    from app.tables import messages as m

    tables, turns, stamps = array("q"), array("q"), array("d")
    # every garbage collection: when it ended and how long it took (the latency it adds)
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
    post = Table.post
    monotonic = time.monotonic

    def recording_post(self: Table, msg: m.Message) -> None:
        if type(msg) is m.BotAct:
            tables.append(self.id)
            turns.append(msg.turn_id)
            stamps.append(monotonic())
        post(self, msg)

    Table.post = recording_post  # type: ignore[method-assign]

    def dump(_signum: int, _frame: Any) -> None:
        tmp = record.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps((tables, turns, stamps, gc_ends, gc_seconds)))
        tmp.rename(record)

    signal.signal(signal.SIGUSR1, dump)
    uvicorn.run(
        create_app(),
        host="127.0.0.1",
        port=port,
        ws_per_message_deflate=False,
        ws_max_size=4096,
        log_level="warning",
        backlog=4096,
    )


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


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *args], env=env)


async def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise TimeoutError("the server did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def runqueue_seconds(pid: int) -> float:
    """Time the server's threads spent ready to run but waiting for a CPU (other processes
    on the machine had it): `/proc/<pid>/task/*/schedstat`, second field, in ns."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    kb = {k: int(v.split()[0]) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(.*)$", status, re.M)}
    return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024


# -- preparing the tables ------------------------------------------------------------------


@dataclass
class Seat:
    table_id: int
    seat: int
    token: str


async def prepare(database_url: str, tables: int, bot_delay_ms: int, pause_ms: int) -> list[Seat]:
    """Tables with six seated bots each and a session for every bot, made through the same
    store the table server uses, before the server starts (it restores them)."""
    from app.store import accounts, ledger
    from app.store.db import Database
    from app.store.migrate import upgrade
    from app.tables import LedgerTableStore, TableSettings
    from app.tables.store import UNUSABLE_HASH

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
                # tables are not in step: think times vary by table, +-25% around the nominal
                bot_delay_ms=round(bot_delay_ms * jitter.uniform(0.75, 1.25)),
                hand_pause_ms=pause_ms,
            )
            table_id = await store.create(
                settings, host_user_id=host.id, invite_token=None, password_hash=None
            )
            bots: set[int] = set()
            async with db.transaction() as s:  # what `host_bots` does, in one transaction
                for seat in range(SEATS):
                    name = f"bot-{table_id}-{seat}"
                    user = await accounts.register(
                        s,
                        name=name,
                        email=f"{name}@bots.example.com",
                        password_hash=UNUSABLE_HASH,
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
                    seats.append(Seat(table_id, seat, new.token))
                    bots.add(user.id)
            await store.save_state(table_id, members={host.id, *bots}, bots=bots, sitting_out={})
        await store.release_all()  # the server claims them when it starts
    finally:
        await db.dispose()
    return seats


# -- the load ------------------------------------------------------------------------------


@dataclass
class Counters:
    measuring: bool = False
    frames: int = 0
    chars: int = 0
    turns: int = 0
    # stud: (table, turn, arrival) of the first frame after each turn; bare: latencies
    lat_tables: array[int] = field(default_factory=lambda: array("q"))
    lat_turns: array[int] = field(default_factory=lambda: array("q"))
    lat_arrivals: array[float] = field(default_factory=lambda: array("d"))
    latencies: array[float] = field(default_factory=lambda: array("d"))
    dropped: int = 0
    runqueue: float = 0.0  # seconds the server waited for a CPU during the window
    gc_seconds: float = 0.0  # stud server: time in garbage collections during the window
    gc_longest: float = 0.0  # and the longest one


async def read_stud(ws: Any, table_id: int, c: Counters) -> None:
    """Each frame is counted; the first frame after a `turn` is that turn's action."""
    monotonic = time.monotonic
    after_turn: int | None = None
    async for text in ws:
        now = monotonic()
        if not c.measuring:
            after_turn = _turn_of(text)
            continue
        c.frames += 1
        c.chars += len(text)
        if after_turn is not None:
            c.lat_tables.append(table_id)
            c.lat_turns.append(after_turn)
            c.lat_arrivals.append(now)
        after_turn = _turn_of(text)
        if after_turn is not None:
            c.turns += 1


def _turn_of(text: str) -> int | None:
    if '"type":"turn"' not in text[:40]:
        return None
    turn: int = json.loads(text)["turn_id"]
    return turn


async def read_bare(ws: Any, c: Counters) -> None:
    monotonic = time.monotonic
    async for text in ws:
        now = monotonic()
        if c.measuring:
            c.frames += 1
            c.chars += len(text)
            c.latencies.append(now - float(text[5 : text.index(",")]))


async def connect_all(
    urls: list[str], reader: Any, parallel: int = 25, tokens: list[str] | None = None
) -> list[Any]:
    """Open every socket (a few at a time, as players arrive), each with its session token
    in the `Authorization` header when given (never in the URL); those that still fail
    after retries are left out (the report says how many connected)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidMessage, InvalidStatus

    sockets: list[Any] = []
    gate = asyncio.Semaphore(parallel)

    async def one(i: int, url: str) -> None:
        headers = {"Authorization": f"Bearer {tokens[i]}"} if tokens else None
        async with gate:
            for attempt in range(5):
                try:
                    ws = await connect(
                        url,
                        compression=None,
                        max_size=2**20,
                        open_timeout=60,
                        additional_headers=headers,
                    )
                    break
                except (OSError, TimeoutError, InvalidStatus, InvalidMessage):
                    await asyncio.sleep(0.5 * (attempt + 1))
            else:
                return
        sockets.append(ws)
        asyncio.get_running_loop().create_task(reader(ws, i))

    await asyncio.gather(*(one(i, u) for i, u in enumerate(urls)))
    return sockets


@dataclass
class Result:
    sockets: int  # connected
    wanted: int
    seconds: float
    frames: int
    mean_chars: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    samples: int
    cpu_us: float  # server CPU per delivered frame
    server_cpu: float  # share of one core
    load_cpu: float
    rss_mb: float
    hwm_mb: float
    loadavg: float = 0.0  # the machine's 1-minute load average at the end of the window
    runqueue: float = 0.0  # share of the window the server spent waiting for a CPU
    gc_share: float = 0.0  # share of the window spent in garbage collections
    gc_longest_ms: float = 0.0
    turns_per_s: float = 0.0
    burst: float = 0.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


@dataclass
class Window:
    """What one measuring window saw of the server process and its sockets."""

    connected: int
    wanted: int
    cpu: float  # server CPU seconds
    load: float  # load process CPU seconds
    wall: float
    loadavg: float
    rss: float
    hwm: float


def summarise(
    c: Counters, lat: list[float], w: Window, *, turns_per_s: float, burst: float
) -> Result:
    """One run's result from its counters and sorted latencies (seconds)."""
    frames = max(1, c.frames)
    return Result(
        sockets=w.connected,
        wanted=w.wanted,
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
        rss_mb=w.rss,
        hwm_mb=w.hwm,
        loadavg=w.loadavg,
        runqueue=c.runqueue / w.wall,
        gc_share=c.gc_seconds / w.wall,
        gc_longest_ms=c.gc_longest * 1000,
        turns_per_s=turns_per_s,
        burst=burst,
    )


async def measure(
    pid: int, c: Counters, warmup: float, seconds: float
) -> tuple[float, float, float, float]:
    """Run the window; returns (server CPU s, load CPU s, wall s, load average)."""
    await asyncio.sleep(warmup)
    cpu0, load0, t0 = cpu_seconds(pid), time.process_time(), time.monotonic()
    wait0 = runqueue_seconds(pid)
    c.measuring = True
    await asyncio.sleep(seconds)
    c.measuring = False
    cpu1, load1, t1 = cpu_seconds(pid), time.process_time(), time.monotonic()
    c.runqueue = runqueue_seconds(pid) - wait0
    return cpu1 - cpu0, load1 - load0, t1 - t0, os.getloadavg()[0]


async def run_stud(args: argparse.Namespace, work: Path) -> Result:
    url = args.database_url or f"sqlite+aiosqlite:///{work / 'bench.sqlite3'}"
    t = time.monotonic()
    seats = await prepare(url, args.tables, args.bot_delay_ms, args.hand_pause_ms)
    print(f"prepared {args.tables} tables x {SEATS} bots in {time.monotonic() - t:.1f} s")
    port = free_port()
    record = work / "acts.pickle"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DATA_DIR": str(work),
        "MAIL_WORKER_ENABLED": "false",
        "BOTS_PLAY_ALONE": "true",  # the benchmark's tables are bots only
    }
    env.pop("REDIS_URL", None)
    if args.redis_url:
        env["REDIS_URL"] = args.redis_url
    proc = spawn(["--serve", "stud", "--port", str(port), "--record", str(record)], env)
    try:
        await wait_listening(port, proc)
        c = Counters()
        urls = [f"ws://127.0.0.1:{port}/ws/tables/{s.table_id}" for s in seats]
        table_of = [s.table_id for s in seats]
        t = time.monotonic()
        sockets = await connect_all(
            urls, lambda ws, i: read_stud(ws, table_of[i], c), tokens=[s.token for s in seats]
        )
        connected = len(sockets)
        print(f"connected {connected} of {len(urls)} sockets in {time.monotonic() - t:.1f} s")
        cpu, load, wall, loadavg = await measure(proc.pid, c, args.warmup, args.seconds)
        window_end = time.monotonic()
        rss, hwm = memory_mb(proc.pid)
        proc.send_signal(signal.SIGUSR1)
        for _ in range(300):
            if record.exists():
                break
            await asyncio.sleep(0.05)
        acts_t, acts_turn, acts_at, gc_ends, gc_seconds = pickle.loads(record.read_bytes())
        start = window_end - wall
        in_window = [d for at, d in zip(gc_ends, gc_seconds, strict=True) if at >= start]
        c.gc_seconds = sum(in_window)
        c.gc_longest = max(in_window, default=0.0)
        acted = {(tb << 32) | tn: at for tb, tn, at in zip(acts_t, acts_turn, acts_at, strict=True)}
        lat = []
        for tb, tn, arrival in zip(c.lat_tables, c.lat_turns, c.lat_arrivals, strict=True):
            at = acted.get((tb << 32) | tn)
            if at is not None:
                lat.append(arrival - at)
        lat.sort()
        for ws in sockets:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)
    finally:
        stop(proc)
    return summarise(
        c, lat, Window(connected, len(seats), cpu, load, wall, loadavg, rss, hwm),
        turns_per_s=c.turns / SEATS / wall, burst=c.frames / max(1, c.turns),
    )  # fmt: skip


async def run_bare(args: argparse.Namespace, stud: Result) -> Result:
    groups = args.tables
    burst = max(1, round(stud.burst))
    rate = stud.frames / stud.seconds / stud.sockets / burst  # bursts per second per socket
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
        c = Counters()
        urls = [f"ws://127.0.0.1:{port}/ws/{n // SEATS}" for n in range(groups * SEATS)]
        sockets = await connect_all(urls, lambda ws, _i: read_bare(ws, c))
        connected = len(sockets)
        cpu, load, wall, loadavg = await measure(proc.pid, c, args.warmup, args.seconds)
        rss, hwm = memory_mb(proc.pid)
        for ws in sockets:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)
    finally:
        stop(proc)
    return summarise(
        c, sorted(c.latencies), Window(connected, len(urls), cpu, load, wall, loadavg, rss, hwm),
        turns_per_s=0.0, burst=burst,
    )  # fmt: skip


# -- the report ----------------------------------------------------------------------------


def machine_and_date() -> str:
    return f"{machine()} {platform.release()}, {datetime.now(UTC):%Y-%m-%d}"


def report(args: argparse.Namespace, stud: Result, bare: Result) -> str:
    ratio = stud.cpu_us / bare.cpu_us if bare.cpu_us else float("nan")
    ok = {
        "p99": stud.p99_ms < 50,
        "cpu": ratio <= 2,
        "rss": stud.rss_mb < 600,
    }

    def mark(key: str) -> str:
        return "met" if ok[key] else "**missed**"

    def row(name: str, r: Result) -> str:
        return (
            f"| {name} | {r.sockets} of {r.wanted} | {r.frames / r.seconds:,.0f} "
            f"| {r.mean_chars:.0f} "
            f"| {r.p50_ms:.1f} | {r.p99_ms:.1f} | {r.max_ms:.0f} | {r.cpu_us:.1f} "
            f"| {r.server_cpu:.0%} | {r.rss_mb:.0f} ({r.hwm_mb:.0f}) |"
        )

    size = "full size" if not args.quick else "--quick"
    fanout = "redis" if args.redis_url else "memory"
    db = "PostgreSQL" if args.database_url and "postgres" in args.database_url else "SQLite"
    return f"""{SECTION}

`python benchmarks/server.py --tables {args.tables}` ({size}; written by the benchmark).
Machine: {machine_and_date()}.

{args.tables} tables x {SEATS} seated bots (Stud; think time {args.bot_delay_ms} ms +-25% by
table, so that tables do not act in step; pause
between hands {args.hand_pause_ms} ms, {db}, `{fanout}://` fan-out) in one uvicorn process
(per-message compression off); one WebSocket per seat, opened with that bot's session, in a
second process (the load). Then a bare FastAPI server that only broadcasts, to as many
sockets, messages of the same mean size in bursts of {bare.burst:.0f} at the same rate.
Measured over {stud.seconds:.0f} s after {args.warmup:.0f} s of warm-up.

{HEADER}
{row("stud tables", stud)}
{row("bare broadcast", bare)}

- Latency, stud: from a bot's action reaching its table's mailbox (the instant its think
  time ends) to each seat's socket receiving the event it caused ({stud.samples:,} samples,
  {stud.turns_per_s:,.0f} actions/s). Bare: from the send to the receipt of each message.
- Targets: p99 < 50 ms: {mark("p99")} ({stud.p99_ms:.1f} ms); CPU per delivered message
  at most 2x the bare server's: {mark("cpu")} ({ratio:.2f}x); under 600 MB resident:
  {mark("rss")} ({stud.rss_mb:.0f} MB).
- The load process used {stud.load_cpu:.0%} of a core during the stud run and
  {bare.load_cpu:.0%} during the bare run (latency includes its reading time). The
  machine's load average (1 min) at the end of each window: {stud.loadavg:.1f} and
  {bare.loadavg:.1f} on {os.cpu_count()} cores; the server's threads waited for a CPU
  (ready to run, another process had it) {stud.runqueue:.0%} and {bare.runqueue:.0%} of the
  window. Other work on the machine inflates latency.
- Garbage collections in the stud server (`app/collector.py` keeps to its schedule):
  {stud.gc_share:.1%} of the window, the longest {stud.gc_longest_ms:.0f} ms.
"""


HEADER = (
    "| server | sockets | frames/s delivered | mean frame (chars) | p50 ms | p99 ms | max ms "
    "| server CPU µs/frame | server CPU (1 core) | RSS MB (peak) |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


# -- the command ---------------------------------------------------------------------------


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--tables", type=int, default=None, help="tables (default 500; quick 40)")
    parser.add_argument(
        "--quick", action="store_true", help="a small, short run (docs are not written)"
    )
    parser.add_argument("--seconds", type=float, default=None, help="measuring window")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before measuring")
    parser.add_argument("--bot-delay-ms", type=int, default=500, help="bots' think time")
    parser.add_argument("--hand-pause-ms", type=int, default=1000, help="pause between hands")
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    parser.add_argument("--redis-url", default=None, help="fan-out over Redis (default memory)")
    parser.add_argument("--no-write", action="store_true", help="do not touch docs/benchmarks.md")
    # the server subprocesses
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
        stud = await run_stud(args, work)
        print(f"stud: {stud}")
        bare = await run_bare(args, stud)
        print(f"bare: {bare}")
    text = report(args, stud, bare)
    print(text)
    if args.quick and not args.no_write:
        print(f"--quick: {DOC.relative_to(ROOT)} keeps the full-size result")
    elif not args.no_write:
        write_section(SECTION, text)
        print(f"wrote the {SECTION!r} section of {DOC.relative_to(ROOT)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    raise_fd_limit()
    if args.serve == "stud":
        serve_stud(args.port, args.record)
        return 0
    if args.serve == "bare":
        serve_bare(args.port, args.groups, args.size, args.rate, args.burst)
        return 0
    try:
        import uvloop

        return uvloop.run(bench(args))
    except ImportError:
        return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
