"""Event-loop stalls (issue 26): each time the loop could not run for longer than a
threshold, with what it was doing instead.

Three parts, each cheap enough to leave on in a benchmark or, with `STALL_MS`, in a server:
- a heartbeat on the loop: a task that sleeps `tick` and notes how late it woke; a wake
  later than the threshold closes a stall;
- a watchdog thread: while the heartbeat is overdue it samples the loop thread's Python
  stack (`sys._current_frames`), so a stall knows which code held the loop. It cannot sample
  inside a garbage collection (the collector holds the interpreter), hence:
- `gc.callbacks`: each collection's start, end, generation and CPU time, so a stall
  overlapped by a collection is put down to that generation;
- the kernel's account of the loop thread (`/proc/thread-self/schedstat`, read at each
  heartbeat): of each stall, how long the loop thread ran on a CPU and how long it was ready
  but waited for one (another process had the cores). What is neither was waiting for the
  interpreter (another thread held it) or blocked in a system call.

A sample belongs to the stall it was taken in (a stall's sequence number), never to the
next; a stall is reported (`report`, e.g. logged) from the watchdog thread, off the loop. The
other threads' frames count only when the thread used CPU since the last sample: one parked
in a blocking wait (a worker idle in its queue) is not who held the interpreter.

A stall's `cause` is `gc gen N` when collections cover at least half of it, else the most
sampled frame of ours (`app/…`, the innermost), else the most sampled innermost frame,
else `unsampled` (too short for the watchdog to see).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import queue
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

log = logging.getLogger("app.stalls")

# the task each loop is running (asyncio's own table; read, never written, from the watchdog)
_current_tasks: dict[asyncio.AbstractEventLoop, asyncio.Task[Any]] = getattr(
    asyncio.tasks, "_current_tasks", {}
)

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
    # the loop thread over the stall (and the heartbeat's tick before it), by the kernel:
    on_cpu: float = 0.0  # seconds it ran (collections included)
    runqueue: float = 0.0  # seconds it was ready to run but waited for a CPU
    gc_cpu: float = 0.0  # of the collections in it, the CPU seconds they took
    # how many samples, and how many distinct tasks they found running: one task in many
    # samples is one long step; many tasks, a long batch of short steps in one loop pass
    sampled: int = 0
    tasks: int = 0

    @property
    def others(self) -> str:
        """The other threads' most sampled frame (`thread/module.py:function`) while the
        loop stalled: who may have held the interpreter."""
        other = {k[6:]: n for k, n in self.samples.items() if k.startswith("other:")}
        return max(other, key=lambda k: other[k]) if other else ""

    @property
    def seconds(self) -> float:
        return self.end - self.start


def _schedstat(native_id: int) -> int | None:
    """An open descriptor of a thread's `schedstat` (None where the kernel has none)."""
    try:
        return os.open(f"/proc/self/task/{native_id}/schedstat", os.O_RDONLY)
    except OSError:
        return None


def _sched(fd: int | None) -> tuple[float, float]:
    """(seconds on a CPU, seconds waiting for one) of a thread since it began."""
    if fd is None:
        return 0.0, 0.0
    try:
        run, wait = os.pread(fd, 64, 0).split()[:2]
        return int(run) / 1e9, int(wait) / 1e9
    except (OSError, ValueError):
        return 0.0, 0.0


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
        report: Callable[[Stall], None] | None = None,
    ) -> None:
        """`on_stall` is called on the loop (keep it cheap); `report` (logging, formatting)
        on the watchdog thread."""
        self.threshold, self.tick, self.sample_every = threshold, tick, sample_every
        self.on_stall, self.report = on_stall, report
        self._reports: queue.SimpleQueue[Stall] = queue.SimpleQueue()
        self._seq = 0  # the heartbeat's count of wake-ups: which stall a sample belongs to
        self._fd: int | None = None  # the loop thread's schedstat
        self.keep = keep
        self.stalls: list[Stall] = []
        self._due = 0.0  # when the heartbeat should wake next (monotonic)
        self._samples: Counter[str] = Counter()
        self._tasks: set[int] = set()  # ids of the tasks sampled running in this stall
        self._sampled = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()  # the samples and `_seq`; never the collections'
        # collections: (start, end, generation, CPU seconds), the recent ones; appended by
        # the collector's callback without a lock: a collection may start at any allocation,
        # on any thread, also one holding `_lock` (a lock there deadlocked the server)
        self._gcs: deque[tuple[float, float, int, float]] = deque(maxlen=10_000)
        self._gc_started = 0.0
        self._gc_cpu = 0.0
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._loop_thread = 0
        self._me = 0  # the watchdog's own thread

    # -- the loop's side -----------------------------------------------------------------

    def start(self) -> None:
        self._loop_thread = threading.get_ident()
        self._loop = asyncio.get_running_loop()
        self._fd = _schedstat(threading.get_native_id())
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
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._tell()

    async def _beat(self) -> None:
        monotonic = time.monotonic
        while True:
            before = _sched(self._fd)
            await asyncio.sleep(self.tick)
            now = monotonic()
            due, self._due = self._due, now + self.tick  # no more samples for this one
            with self._lock:
                self._seq += 1
                samples, self._samples = self._samples, Counter()
                seen = (self._sampled, len(self._tasks))
                self._sampled = 0
                self._tasks.clear()
            if now - due > self.threshold:
                self._close(due, now, samples, before, seen)
            self._due = monotonic() + self.tick

    def _close(
        self,
        start: float,
        end: float,
        samples: Counter[str],
        before: tuple[float, float],
        seen: tuple[int, int],
    ) -> None:
        after = _sched(self._fd)
        gcs = [g for g in self._recent_gcs() if g[1] > start and g[0] < end]
        gc_seconds = sum(min(e, end) - max(s, start) for s, e, _, _ in gcs)
        generation = max((g for _, _, g, _ in gcs), default=-1)
        stall = Stall(
            start,
            end,
            _cause(samples, gc_seconds, generation, end - start),
            gc_seconds,
            generation,
            dict(samples),
            after[0] - before[0],
            after[1] - before[1],
            sum(cpu for *_, cpu in gcs),
            *seen,
        )
        if len(self.stalls) < self.keep:
            self.stalls.append(stall)
        if self.on_stall is not None:
            self.on_stall(stall)
        if self.report is not None:
            self._reports.put(stall)

    def _collection(self, phase: str, info: dict[str, Any]) -> None:
        now = time.monotonic()
        if phase == "start":
            self._gc_started, self._gc_cpu = now, time.thread_time()
            return
        cpu = time.thread_time() - self._gc_cpu
        # a collection in any thread holds the interpreter, so the loop too
        self._gcs.append((self._gc_started, now, int(info.get("generation", 0)), cpu))

    def _recent_gcs(self) -> list[tuple[float, float, int, float]]:
        """A copy of the collections' records (a collection on another thread may append
        while it is made: then again)."""
        while True:
            try:
                return list(self._gcs)
            except RuntimeError:  # deque mutated during iteration
                continue

    # -- the watchdog thread ---------------------------------------------------------------

    def _tell(self) -> None:
        """Report the stalls closed since the last time (on this thread, off the loop)."""
        while self.report is not None:
            try:
                stall = self._reports.get_nowait()
            except queue.Empty:
                return
            try:
                self.report(stall)
            except Exception:
                log.exception("reporting a stall failed")

    def _watch(self) -> None:
        monotonic, wait = time.monotonic, self._stop.wait
        self._me = threading.get_ident()
        names: dict[int, tuple[str, int | None]] = {}
        ran: dict[int, float] = {}  # another thread's CPU seconds at its last sample
        while not wait(self.sample_every):
            self._tell()
            if len(names) != threading.active_count():
                names = {
                    t.ident: (t.name, t.native_id)
                    for t in threading.enumerate()
                    if t.ident is not None
                }
            seq = self._seq
            if monotonic() - self._due <= self.threshold / 2:
                continue
            frames = sys._current_frames()
            frame = frames.get(self._loop_thread)
            if frame is None:
                continue
            ours, inner = _where(frame)
            task = _current_tasks.get(self._loop) if self._loop is not None else None
            others = self._others(frames, names, ran)
            with self._lock:
                if seq != self._seq:
                    continue  # the stall ended meanwhile: not its sample
                self._sampled += 1
                if task is not None:
                    self._tasks.add(id(task))
                if ours:
                    self._samples["ours:" + ours] += 1
                if inner:
                    self._samples["inner:" + inner] += 1
                for other in others:
                    self._samples["other:" + other] += 1

    def _others(
        self,
        frames: dict[int, FrameType],
        names: dict[int, tuple[str, int | None]],
        ran: dict[int, float],
    ) -> list[str]:
        """The other threads' innermost frames, of those that ran since their last sample:
        the loop thread is sampled only when it lets go of the interpreter, so a stall of
        waiting to get it back shows its holder only here; a thread parked in a blocking
        wait (no CPU used) did not hold it."""
        seen = []
        for ident, f in frames.items():
            if ident in (self._loop_thread, self._me):
                continue
            name, native = names.get(ident, (str(ident), None))
            fd = _schedstat(native) if native is not None else None
            cpu = _sched(fd)[0]
            if fd is not None:
                os.close(fd)
            was, ran[ident] = ran.get(ident), cpu
            if fd is not None and (was is None or cpu == was):
                continue  # idle since the last look (or first seen: not known yet)
            seen.append(f"{name}/{_where(f)[1]}")
        return seen


def log_stall(stall: Stall) -> None:
    log.warning(
        "event loop stalled %.0f ms: %s (%d samples, %d tasks; gc %.0f ms, %.0f ms of CPU;"
        " the loop thread ran %.0f ms, waited for a CPU %.0f ms; other threads: %s)",
        stall.seconds * 1000,
        stall.cause,
        stall.sampled,
        stall.tasks,
        stall.gc_seconds * 1000,
        stall.gc_cpu * 1000,
        stall.on_cpu * 1000,
        stall.runqueue * 1000,
        stall.others or "none seen running",
    )


def top_causes(stalls: list[Stall], n: int = 8) -> list[tuple[str, int, float, float]]:
    """(cause, count, total seconds, longest seconds), the most time first."""
    by: dict[str, list[float]] = {}
    for s in stalls:
        by.setdefault(s.cause, []).append(s.seconds)
    rows = [(c, len(v), sum(v), max(v)) for c, v in by.items()]
    rows.sort(key=lambda r: -r[2])
    return rows[:n]
