"""Prometheus metrics of this server process (issue 25), with the official `prometheus_client`.

Every metric of ours is named `stud_…` (beside the library's `process_…`: CPU, memory) and
lives in `REGISTRY`, served on `METRICS_PORT`
(`serve_metrics`), never on the public port. Labels are bounded: a state, an outcome, a
kind; never a table, a user or a process (Prometheus adds the process as `instance`).

Three kinds of metric, by what they cost where they are counted:
- on the hot path (per act and per frame sent): plain integers in `HOT` and the bucket
  counts of `ACTION_SECONDS`, a `FastHistogram`, read by `HotCollector` on a scrape: an
  increment is a few tens of nanoseconds, where a `prometheus_client.Counter` takes a lock;
- elsewhere (per hand, per lease renewal, per login, per mail): the library's own
  `Counter` and `Histogram`;
- state (tables by state, the writer's backlog, the database pool, sockets open): read on
  a scrape from what `watch` was given (`StateCollector`), nothing on the hot path.

A scrape runs in the library's HTTP thread: the collectors only copy (`list(...)`) and
read what the event loop's objects hold, and never call into them.
"""

from __future__ import annotations

import bisect
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    start_http_server,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

log = logging.getLogger("app.metrics")

REGISTRY = CollectorRegistry(auto_describe=True)
STALL_SECONDS = 60.0  # a table with players that dealt no hand this long is stalled
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


# -- the hot path: plain integers, read on a scrape ------------------------------------------


@dataclass(slots=True)
class Hot:
    """Counters bumped on the hot path (`HOT.frames += 1`): one event loop writes them."""

    sockets: int = 0  # table sockets open
    frames: int = 0  # event frames sent to table sockets
    frame_bytes: int = 0
    on: bool = True  # False: the hot path counts nothing (benchmarks/server.py --no-metrics)


HOT = Hot()


@dataclass(slots=True)
class FastHistogram:
    """A histogram an event loop observes without a lock: bucket counts and a sum, exposed
    as a Prometheus histogram (cumulative buckets) by `HotCollector`."""

    bounds: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0

    def __post_init__(self) -> None:
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound (+Inf)

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value

    def buckets(self) -> list[tuple[str, float]]:
        counts = list(self.counts)
        cumulative, out = 0, []
        for bound, count in zip((*map(str, self.bounds), "+Inf"), counts, strict=True):
            cumulative += count
            out.append((bound, float(cumulative)))
        return out


ACTION_SECONDS = FastHistogram(LATENCY_BUCKETS)
_acted: contextvars.ContextVar[float] = contextvars.ContextVar("stud_acted", default=0.0)


def acting() -> None:
    """A player's (or bot's) action was accepted by the table running in this task: the
    clock runs until what it said is handed to the fan-out (`published`)."""
    if HOT.on:
        _acted.set(time.perf_counter())


def published() -> None:
    """The table running in this task handed what it said to the fan-out."""
    began = _acted.get()
    if began:
        ACTION_SECONDS.observe(time.perf_counter() - began)
        _acted.set(0.0)


def frames_sent(frames: int, chars: int) -> None:
    """Event frames went to a table socket (counted once a batch, not once a frame)."""
    if HOT.on:
        HOT.frames += frames
        HOT.frame_bytes += chars


class HotCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "stud_event_frames_sent", "event frames sent to table sockets", value=HOT.frames
        )
        yield CounterMetricFamily(
            "stud_event_bytes_sent",
            "bytes of event frames sent to table sockets",
            value=HOT.frame_bytes,
        )
        yield GaugeMetricFamily("stud_sockets_open", "table sockets open", value=HOT.sockets)
        histogram = ACTION_SECONDS
        buckets = histogram.buckets()
        yield HistogramMetricFamily(
            "stud_action_publish_seconds",
            "seconds from an action the table accepted to its events handed to the fan-out",
            buckets=buckets,
            sum_value=histogram.total,
        )


# -- elsewhere: the library's own counters and histograms -------------------------------------

HANDS_DEALT = Counter("stud_hands_dealt", "hands dealt", registry=REGISTRY)
HANDS_VOIDED = Counter(
    "stud_hands_voided", "hands found unsettled when a table was claimed", registry=REGISTRY
)
TURNS_TIMED_OUT = Counter("stud_turns_timed_out", "turns that timed out", registry=REGISTRY)
PROTECTIONS_USED = Counter(
    "stud_r19_protections_used",
    "R19 all-in protections used by a timed-out turn",
    registry=REGISTRY,
)
SENDS_DROPPED = Counter(
    "stud_socket_sends_dropped",
    "table sockets closed because their client fell behind or stopped reading",
    registry=REGISTRY,
)
GAPS_RESYNCED = Counter(
    "stud_fanout_gaps_resynced",
    "table sockets caught up after a gap in the fan-out",
    registry=REGISTRY,
)
WRITE_SECONDS = Histogram(
    "stud_hand_writer_write_seconds",
    "seconds the hand writer took to write a table's write (retries included)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
LOOP_STALL_SECONDS = Histogram(
    "stud_loop_stall_seconds",
    "event-loop stalls over STALL_MS, by what held the loop: a garbage collection or code",
    ["kind"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)  # kind: gc, code
DB_WAIT_SECONDS = Histogram(
    "stud_db_pool_wait_seconds",
    "seconds a session waited for a pooled database connection (its count: the checkouts)",
    buckets=(0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0),
    registry=REGISTRY,
)
LEASE_CLAIMS = Counter(
    "stud_lease_claims", "table leases claimed", ["kind"], registry=REGISTRY
)  # kind: new (a table made here), free (released, or its owner died)
LEASE_RENEWALS = Counter("stud_lease_renewals", "table leases renewed", registry=REGISTRY)
LEASE_LOSSES = Counter(
    "stud_lease_losses", "table leases this process found taken by another", registry=REGISTRY
)
FAILOVERS = Counter(
    "stud_lease_failovers",
    "tables a running process claimed because their owner died or let them go",
    registry=REGISTRY,
)
REBALANCED = Counter(
    "stud_lease_rebalanced",
    "tables this process handed to another between hands to even out the load",
    registry=REGISTRY,
)
ROUTED = Counter(
    "stud_routed_commands", "commands sent to the process running their table", registry=REGISTRY
)
ROUTED_SECONDS = Histogram(
    "stud_routed_command_seconds",
    "seconds a routed command took to be answered",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
ROUTED_TIMEOUTS = Counter(
    "stud_routed_command_timeouts", "routed commands nobody answered in time", registry=REGISTRY
)
REDIS_ERRORS = Counter(
    "stud_redis_errors", "Redis fan-out failures", ["op"], registry=REGISTRY
)  # op: publish, subscribe
MAIL_OUTCOMES = Counter(
    "stud_mail_attempts", "mail sending attempts", ["outcome"], registry=REGISTRY
)  # outcome: sent, retry, failed
LOGIN_FAILURES = Counter(
    "stud_login_failures", "logins refused: wrong name or password", registry=REGISTRY
)
RATE_LIMITED = Counter(
    "stud_rate_limit_refusals", "requests refused by a rate limit", ["what"], registry=REGISTRY
)  # what: the limit's bounded description


MAIL_OUTBOX = Gauge(
    "stud_mail_outbox", "mail requests queued, as the mail worker last counted", registry=REGISTRY
)


def now() -> float:
    return time.perf_counter()


def since(began: float) -> float:
    return time.perf_counter() - began


# -- state, read on a scrape ------------------------------------------------------------------


def _copied(source: Callable[[], Iterable[Any]]) -> list[Any]:
    """`list(source())`, tried again if the event loop changed it meanwhile."""
    for _ in range(5):
        try:
            return list(source())
        except RuntimeError:  # "changed size during iteration"
            continue
    return []


@dataclass(slots=True)
class Watched:
    """What `StateCollector` reads: the tables this process runs, the hand writer's queues
    and the database pool (set by `watch`)."""

    tables: Callable[[], Iterable[Any]] | None = None
    queues: Callable[[], Iterable[Any]] | None = None
    pool: Any = None


WATCHED = Watched()


def watch(
    *,
    tables: Callable[[], Iterable[Any]] | None = None,
    queues: Callable[[], Iterable[Any]] | None = None,
    pool: Any = None,
) -> None:
    """Have a scrape read the tables (`Table`s, or things with their attributes), the hand
    writer's queues (each with a `jobs` deque) and the database pool (SQLAlchemy's)."""
    WATCHED.tables, WATCHED.queues, WATCHED.pool = tables, queues, pool


def _state(table: Any) -> str:
    if getattr(table, "frozen", None) is not None:
        return "frozen"
    lifecycle = getattr(table, "lifecycle", None)
    return str(getattr(lifecycle, "value", lifecycle))


def _in_play(seat: Any) -> bool:
    """A seat a hand would deal in (`dealing.dealt_in`'s rule)."""
    ready = getattr(seat, "auto_post", True) or getattr(seat, "posted", False)
    return not seat.sitting_out and not getattr(seat, "leaving", False) and seat.stack > 0 and ready


def _game(table: Any) -> Any:
    """What a scrape reads of a table's game: its state (the actor's `state`)."""
    return getattr(table, "state", table)


def _players_sit(table: Any) -> bool:
    """Two seats or more a hand would deal in, a person among them (bots alone do not
    deal), the host has not paused it, and a tournament's director said deal (a break
    is no stall)."""
    game = _game(table)
    seats = [s for s in list(game.seats.values()) if _in_play(s)]
    directed = game.directed
    dealing = not game.life.paused and (directed is None or directed.go)
    return dealing and len(seats) >= 2 and any(not s.bot for s in seats)


class StateCollector(Collector):
    """Tables by state, stalled tables, the writer's backlog and the database pool."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.hands: dict[int, tuple[int | None, float]] = {}  # table id -> hand number, since
        self.lock = threading.Lock()

    def collect(self) -> Iterator[Metric]:
        with self.lock:  # two scrapes at once must not share `hands` half-updated
            yield from self._tables()
        yield from self._storage()

    def _tables(self) -> Iterator[Metric]:
        by_state = GaugeMetricFamily(
            "stud_tables", "tables this process runs, by state", labels=["state"]
        )
        tables = _copied(WATCHED.tables) if WATCHED.tables is not None else []
        counts: dict[str, int] = {}
        tables = [t for t in tables if _state(t) != "closed"]  # gone: not run here
        for table in tables:
            counts[_state(table)] = counts.get(_state(table), 0) + 1
        for state in sorted(counts):
            by_state.add_metric([state], counts[state])
        yield by_state
        yield GaugeMetricFamily(
            "stud_tables_stalled",
            f"tables with players seated that dealt no hand for {STALL_SECONDS:.0f} s (not paused)",
            value=self._stalled(tables),
        )

    def _stalled(self, tables: list[Any]) -> int:
        now, seen, stalled = self.clock(), {}, 0
        for table in tables:
            number = _game(table).hand_number
            before = self.hands.get(table.id)
            since = before[1] if before is not None and before[0] == number else now
            seen[table.id] = (number, since)
            if _players_sit(table) and now - since >= STALL_SECONDS:
                stalled += 1
        self.hands = seen
        return stalled

    def _storage(self) -> Iterator[Metric]:
        queues = _copied(WATCHED.queues) if WATCHED.queues is not None else []
        yield GaugeMetricFamily(
            "stud_hand_writer_backlog",
            "writes queued in the hand writer, not yet in the database",
            value=sum(len(q.jobs) for q in queues),
        )
        checkedout = getattr(WATCHED.pool, "checkedout", None)
        yield GaugeMetricFamily(
            "stud_db_pool_in_use",
            "database connections checked out of the pool",
            value=checkedout() if callable(checkedout) else 0,
        )


REGISTRY.register(HotCollector())
REGISTRY.register(StateCollector())
# the process's own CPU seconds, memory and open files (`process_…`), from /proc on a scrape:
# the dashboard's CPU per delivered frame
ProcessCollector(registry=REGISTRY)


def serve_metrics(host: str, port: int) -> Callable[[], None]:
    """Serve `REGISTRY` on `http://host:port/metrics` (the library's HTTP server, in its
    own thread); returns what stops it."""
    server, thread = start_http_server(port, addr=host, registry=REGISTRY)
    log.info("metrics on http://%s:%s/metrics", host, port)

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return stop


# every label value there is, from the start: a scrape shows each series at 0 before it moves
for _kind in ("new", "free"):
    LEASE_CLAIMS.labels(_kind)
for _op in ("publish", "subscribe"):
    REDIS_ERRORS.labels(_op)
for _outcome in ("sent", "retry", "failed"):
    MAIL_OUTCOMES.labels(_outcome)
for _what in ("login", "registration"):
    RATE_LIMITED.labels(_what)
for _kind in ("gc", "code"):
    LOOP_STALL_SECONDS.labels(_kind)


def timed_out(protected: bool) -> None:
    """A turn timed out (and an R19 all-in protection kept the player in, if `protected`)."""
    TURNS_TIMED_OUT.inc()
    if protected:
        PROTECTIONS_USED.inc()


def lease_renewed(kept: int, lost: int) -> None:
    LEASE_RENEWALS.inc(kept)
    LEASE_LOSSES.inc(lost)


def routed() -> float:
    """A command goes to the process running its table: its clock starts."""
    ROUTED.inc()
    return time.perf_counter()
