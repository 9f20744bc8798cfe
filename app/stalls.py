"""Event-loop stalls (issue 26): each time the loop could not run for longer than a
threshold, with what it was doing instead.

Three parts, each cheap enough to leave on in a benchmark or, with `STALL_MS`, in a server:
- a heartbeat on the loop: a task that sleeps `tick` and notes how late it woke; a wake
  later than the threshold closes a stall;
- a watchdog thread: while the heartbeat is overdue it samples the loop thread's Python
  stack (`sys._current_frames`), so a stall knows which code held the loop. It cannot sample
  inside a garbage collection (the collector holds the interpreter), hence:
- `gc.callbacks`: each collection's start, end and generation, so a stall overlapped by a
  collection is put down to that generation.

A stall's `cause` is `gc gen N` when collections cover at least half of it, else the most
sampled frame of ours (`app/…`, the innermost), else the most sampled innermost frame,
else `unsampled` (too short for the watchdog to see).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

log = logging.getLogger("app.stalls")

_APP = str(Path(__file__).resolve().parent)


@dataclass(slots=True)
class Stall:
    """The loop could not run from `start` to `end` (`time.monotonic`, seconds)."""

    start: float
    end: float
    cause: str
    gc_seconds: float = 0.0  # of it, in collections
    gc_generation: int = -1  # the oldest generation collected in it (-1: none)
    samples: dict[str, int] = field(default_factory=dict)  # sampled frame -> count

    @property
    def others(self) -> str:
        """The other threads' most sampled frame (`thread/module.py:function`) while the
        loop stalled: who may have held the interpreter."""
        other = {k[6:]: n for k, n in self.samples.items() if k.startswith("other:")}
        return max(other, key=lambda k: other[k]) if other else ""

    @property
    def seconds(self) -> float:
        return self.end - self.start


def _where(frame: FrameType | None) -> tuple[str, str]:
    """(our innermost frame, the innermost frame), as `module.py:function`."""
    innermost, ours = "", ""
    while frame is not None:
        code = frame.f_code
        name = f"{Path(code.co_filename).name}:{code.co_name}"
        if not innermost:
            innermost = name
        if not ours and code.co_filename.startswith(_APP):
            rel = Path(code.co_filename).relative_to(Path(_APP).parent)
            ours = f"{rel.as_posix()}:{code.co_name}"
        if ours:
            break
        frame = frame.f_back
    return ours, innermost


def _cause(samples: Counter[str], gc_seconds: float, gc_generation: int, seconds: float) -> str:
    if gc_generation >= 0 and gc_seconds * 2 >= seconds:
        return f"gc gen {gc_generation}"
    ours = Counter({k[5:]: n for k, n in samples.items() if k.startswith("ours:")})
    if ours:
        return ours.most_common(1)[0][0]
    inner = Counter({k[6:]: n for k, n in samples.items() if k.startswith("inner:")})
    if inner:
        return inner.most_common(1)[0][0]
    return f"gc gen {gc_generation}" if gc_generation >= 0 else "unsampled"


class StallWatch:
    """Records stalls of the running loop over `threshold` seconds (`start` on the loop,
    `stop` when done). `stalls` holds them in order; `on_stall` is called with each."""

    def __init__(
        self,
        threshold: float = 0.010,
        tick: float = 0.005,
        sample_every: float = 0.002,
        on_stall: Callable[[Stall], None] | None = None,
        keep: int = 100_000,
    ) -> None:
        self.threshold, self.tick, self.sample_every = threshold, tick, sample_every
        self.on_stall = on_stall
        self.keep = keep
        self.stalls: list[Stall] = []
        self._due = 0.0  # when the heartbeat should wake next (monotonic)
        self._samples: Counter[str] = Counter()
        self._lock = threading.Lock()
        # collections: (start, end, generation), the recent ones
        self._gcs: list[tuple[float, float, int]] = []
        self._gc_started = 0.0
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._loop_thread = 0
        self._me = 0  # the watchdog's own thread

    # -- the loop's side -----------------------------------------------------------------

    def start(self) -> None:
        self._loop_thread = threading.get_ident()
        self._due = time.monotonic() + self.tick
        gc.callbacks.append(self._collection)
        self._task = asyncio.get_running_loop().create_task(self._beat(), name="stall-watch")
        self._stop.clear()
        self._thread = threading.Thread(target=self._watch, name="stall-watch", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._thread is not None:
            self._thread.join()
        if self._collection in gc.callbacks:
            gc.callbacks.remove(self._collection)

    async def _beat(self) -> None:
        monotonic = time.monotonic
        while True:
            await asyncio.sleep(self.tick)
            now = monotonic()
            late = now - self._due
            if late > self.threshold:
                self._close(self._due, now)
            self._due = monotonic() + self.tick

    def _close(self, start: float, end: float) -> None:
        with self._lock:
            samples, self._samples = self._samples, Counter()
            gcs = [g for g in self._gcs if g[1] > start and g[0] < end]
            self._gcs = [g for g in self._gcs if g[1] > end - 1.0]
        gc_seconds = sum(min(e, end) - max(s, start) for s, e, _ in gcs)
        generation = max((g for _, _, g in gcs), default=-1)
        stall = Stall(
            start,
            end,
            _cause(samples, gc_seconds, generation, end - start),
            gc_seconds,
            generation,
            dict(samples),
        )
        if len(self.stalls) < self.keep:
            self.stalls.append(stall)
        if self.on_stall is not None:
            self.on_stall(stall)

    def _collection(self, phase: str, info: dict[str, Any]) -> None:
        now = time.monotonic()
        if phase == "start":
            self._gc_started = now
            return
        # a collection in any thread holds the interpreter, so the loop too
        with self._lock:
            self._gcs.append((self._gc_started, now, int(info.get("generation", 0))))
            if len(self._gcs) > 10_000:
                del self._gcs[:5_000]

    # -- the watchdog thread ---------------------------------------------------------------

    def _watch(self) -> None:
        monotonic, wait = time.monotonic, self._stop.wait
        self._me = threading.get_ident()
        names: dict[int, str] = {}
        while not wait(self.sample_every):
            if len(names) != threading.active_count():
                names = {t.ident: t.name for t in threading.enumerate() if t.ident is not None}
            if monotonic() - self._due <= self.threshold / 2:
                continue
            frames = sys._current_frames()
            frame = frames.get(self._loop_thread)
            if frame is None:
                continue
            ours, inner = _where(frame)
            # the other threads too: the loop thread is sampled only when it lets go of the
            # interpreter, so a stall of waiting to get it back shows its holder only here
            others = [
                f"{names.get(ident, ident)}/{_where(f)[1]}"
                for ident, f in frames.items()
                if ident not in (self._loop_thread, self._me)
            ]
            with self._lock:
                if ours:
                    self._samples["ours:" + ours] += 1
                if inner:
                    self._samples["inner:" + inner] += 1
                for other in others:
                    self._samples["other:" + other] += 1


def log_stall(stall: Stall) -> None:
    log.warning(
        "event loop stalled %.0f ms: %s (gc %.0f ms; other threads: %s)",
        stall.seconds * 1000,
        stall.cause,
        stall.gc_seconds * 1000,
        stall.others or "none seen",
    )


def top_causes(stalls: list[Stall], n: int = 8) -> list[tuple[str, int, float, float]]:
    """(cause, count, total seconds, longest seconds), the most time first."""
    by: dict[str, list[float]] = {}
    for s in stalls:
        by.setdefault(s.cause, []).append(s.seconds)
    rows = [(c, len(v), sum(v), max(v)) for c, v in by.items()]
    rows.sort(key=lambda r: -r[2])
    return rows[:n]
