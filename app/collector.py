"""When Python's cyclic garbage collector runs, in a server that holds thousands of
long-lived sockets and tables.

CPython's default schedule runs a full collection whenever the objects promoted to the old
generation grow by a quarter. With 3,000 sockets open that is ~650,000 objects to walk,
~400 ms with every table stopped, about every 10 s: it was the server's p99 latency. Its
young collections cost what they walk, too: the young generation holds every object made
since the last one that is still alive (15,000 to 28,000 at 500 tables, 0.25 to 0.7 µs
each), 5 to 30 ms with every table stopped, several times a second.

The schedule here (`Collector`, one per process, started with the table server):
- every `tick` seconds, whatever is alive joins the frozen, never-walked generation
  (`gc.freeze()`, a constant-time move): in steady play nothing is left for a young
  collection to walk, so none runs (`YOUNG` is a safety net for a burst of allocations
  within one tick, such as start-up's);
- every `sweep` seconds, or sooner when the resident memory has doubled (by 512 MB at
  least) since the last sweep, one full collection over everything (`gc.unfreeze()`, collect, freeze
  again) frees the garbage cycles that were frozen (a closed socket's, a session's).

Plain reference counting frees almost everything the moment it is dropped, frozen or not;
only garbage cycles wait for a sweep. So the hot paths make none: a hand's writes build
their SQL statements once (`tests/store/test_hand_cycles.py`), and `benchmarks/server.py`
counts what cycles a run makes (`BENCH_GC_SAVEALL`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("app.collector")

YOUNG = 100_000  # allocations (net of frees) within one tick before a young collection
MIDDLE = 10  # young collections per collection of the middle generation
NEVER = 1 << 30  # middle collections before CPython would consider a full one on its own
STATM = Path("/proc/self/statm")  # resident pages, second field (Linux)


def resident_bytes() -> int | None:
    """This process's resident memory, or None where the system does not say (not Linux)."""
    try:
        return int(STATM.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Collector:
    tick: float = 1.0
    sweep: float = 900.0
    # a sweep is due early once the resident memory has doubled, and by 512 MB at least: a
    # safety net against cycles made in bulk, set well above a server's own growth as its
    # tables fill (a sweep at 3,000 sockets stops every table for up to a second)
    growth: float = 1.0
    floor: int = 512 << 20
    _task: asyncio.Task[None] | None = None
    _saved: tuple[int, int, int] | None = None
    sweeps: int = 0
    last_sweep_ms: float = 0.0
    _swept_at_bytes: int | None = None

    def start(self) -> None:
        """Collect and freeze what start-up made, then keep to the schedule."""
        if self._task is not None:
            return
        self._saved = gc.get_threshold()
        gc.collect()
        gc.freeze()
        self._swept_at_bytes = resident_bytes()
        gc.set_threshold(YOUNG, MIDDLE, NEVER)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="collector")

    async def stop(self) -> None:
        """Back to CPython's own schedule (a test process goes on after the server)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
            gc.unfreeze()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self.sweep
        while True:
            await asyncio.sleep(self.tick)
            if loop.time() >= next_sweep or self.grown():
                self.full_sweep()
                next_sweep = loop.time() + self.sweep
            else:
                gc.freeze()

    def grown(self) -> bool:
        """Has the resident memory grown enough since the last sweep to make one due?"""
        now, then = resident_bytes(), self._swept_at_bytes
        if now is None or then is None:
            return False
        return now - then >= max(self.floor, int(then * self.growth))

    def full_sweep(self) -> int:
        """One collection over everything, frozen included; returns what it freed."""
        started = time.perf_counter()
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.sweeps += 1
        self.last_sweep_ms = (time.perf_counter() - started) * 1000
        self._swept_at_bytes = resident_bytes()
        log.info("collector: full sweep freed %d objects in %.0f ms", freed, self.last_sweep_ms)
        return freed
