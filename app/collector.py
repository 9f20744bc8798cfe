"""When Python's cyclic garbage collector runs, in a server that holds thousands of
long-lived sockets and tables.

CPython's default schedule runs a full collection whenever the objects promoted to the old
generation grow by a quarter. With 3,000 sockets open that is ~650,000 objects to walk,
~400 ms with every table stopped, about every 10 s: it was the server's p99 latency.

The schedule here (`Collector`, one per process, started with the table server):
- the young generations are collected as usual, a little less often (`YOUNG`, `MIDDLE`:
  measured at 500 tables, 3,000 allocations and 4 make the longest pause ~35 ms for ~3% of
  the CPU; 20,000 and 10 cost 1.5% but paused up to 110 ms);
- the old generation is never collected on CPython's initiative; instead, every `settle`
  seconds what survived (long-lived by then) joins the frozen, never-walked generation
  (`gc.freeze()`, a constant-time move);
- every `sweep` seconds one full collection over everything (`gc.unfreeze()`, collect,
  freeze again) frees garbage cycles among long-lived objects, e.g. a closed socket's.

Plain reference counting frees almost everything the moment it is dropped, frozen or not;
only garbage cycles wait for a collection, and only those among objects older than
`settle` seconds wait as long as `sweep`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from dataclasses import dataclass

log = logging.getLogger("app.collector")

YOUNG = 3_000  # allocations (net of frees) between collections of the youngest generation
MIDDLE = 4  # young collections per collection of the middle generation
NEVER = 1 << 30  # middle collections before CPython would consider a full one on its own


@dataclass
class Collector:
    settle: float = 30.0
    sweep: float = 900.0
    _task: asyncio.Task[None] | None = None
    _saved: tuple[int, int, int] | None = None
    sweeps: int = 0
    last_sweep_ms: float = 0.0

    def start(self) -> None:
        """Collect and freeze what start-up made, then keep to the schedule."""
        if self._task is not None:
            return
        self._saved = gc.get_threshold()
        gc.collect()
        gc.freeze()
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
            await asyncio.sleep(self.settle)
            if loop.time() >= next_sweep:
                self.full_sweep()
                next_sweep = loop.time() + self.sweep
            else:
                gc.collect(1)
                gc.freeze()

    def full_sweep(self) -> int:
        """One collection over everything, frozen included; returns what it freed."""
        started = time.perf_counter()
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.sweeps += 1
        self.last_sweep_ms = (time.perf_counter() - started) * 1000
        log.info("collector: full sweep freed %d objects in %.0f ms", freed, self.last_sweep_ms)
        return freed
