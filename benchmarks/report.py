"""What both reports of the server benchmark share (`server.py` writes the one-process
section, `processes_report.py` the N-process one): a run's `Result` and the page's wording."""

from __future__ import annotations

import platform
import textwrap
from dataclasses import dataclass, field
from datetime import UTC, datetime

from benchmarks.machine import machine
from benchmarks.meters import PgUse, RedisUse

SEATS = 6


@dataclass
class Result:
    name: str
    sockets: int  # connected
    wanted: int
    seconds: float
    frames: int
    mean_chars: float
    p50_ms: float  # each delivery
    p99_ms: float
    max_ms: float
    samples: int
    cpu_us: float  # server CPU (all its processes) per delivered frame
    server_cpu: float  # share of one core
    load_cpu: float
    rss_mb: float  # all server processes together
    hwm_mb: float
    processes: int = 1
    loadavg: float = 0.0  # the machine's 1-minute load average at the end of the window
    others: float = 0.0  # cores' worth of CPU the rest of the machine used in the window
    load_lag_p99_ms: float = float("nan")  # the load's own event loop lag (it adds to latency)
    load_lag_max_ms: float = float("nan")
    runqueue: float = 0.0  # share of the window the servers spent waiting for a CPU
    gc_share: float = 0.0  # share of the window spent in garbage collections
    gc_longest_ms: float = 0.0
    all_p50_ms: float = float("nan")  # until the last of the table's sockets had the event
    all_p99_ms: float = float("nan")
    acts_per_s: float = 0.0
    hands_per_s: float = 0.0
    timeouts: int = 0  # turns no act answered in time (should be 0)
    dropped: int = 0  # sockets the server closed or lost during the run (should be 0)
    errors: dict[str, int] = field(default_factory=dict)  # refused acts
    burst: float = 0.0  # frames delivered per turn
    remote: float = 0.0  # share of sockets on a process that does not own their table
    placement: list[int] = field(default_factory=list)  # tables per process
    redis: RedisUse | None = None
    pg: PgUse | None = None
    stalls: list[dict[str, object]] = field(default_factory=list)  # `--stalls`: by cause


def machine_and_date() -> str:
    return f"{machine()} {platform.release()}, {datetime.now(UTC):%Y-%m-%d}"


def wrap(text: str, width: int = 92) -> str:
    """Paragraphs and bullets wrapped as the rest of the page is; tables left alone."""

    def one(line: str) -> str:
        if line.startswith("|") or len(line) <= width:
            return line
        indent = line[: len(line) - len(line.lstrip())]
        more = indent + ("  " if line.lstrip().startswith("- ") else "")
        return textwrap.fill(line, width, subsequent_indent=more, break_on_hyphens=False)

    return "\n".join(one(line) for line in text.split("\n"))


def mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def play_notes(r: Result) -> str:
    refused = ", ".join(f"{k} {v}" for k, v in sorted(r.errors.items())) or "none"
    return (
        f"{r.samples:,} deliveries of {r.acts_per_s:,.0f} acts/s, {r.hands_per_s:,.1f} hands/s;"
        f" until the last of a table's six sockets had it: p50 {r.all_p50_ms:.1f} ms, p99"
        f" {r.all_p99_ms:.1f} ms; turns timed out: {r.timeouts}; acts refused: {refused};"
        f" sockets dropped by the server: {r.dropped}; the load's own event loop ran late by"
        f" up to {r.load_lag_max_ms:.0f} ms (p99 {r.load_lag_p99_ms:.0f} ms), which the"
        " latencies include"
    )
