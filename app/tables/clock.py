"""The clock a table runs on: real time in production, a fake one that tests move by hand.

A table never sleeps: it asks the clock to call it back later (an action timer, the pause
between hands, a bot's think time) and the callback only puts a message in its mailbox.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (deadlines)."""
        ...

    def time(self) -> float:
        """Wall-clock seconds since the epoch (the 24-hour window of R19)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        """Run `callback` (which must not block) after `delay` seconds."""
        ...


class RealClock:
    """The event loop's clock."""

    def __init__(self) -> None:
        # kept: asking for the running loop costs a getpid() call on Python 3.11
        self._loop: asyncio.AbstractEventLoop | None = None

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        return loop.call_later(max(0.0, delay), callback)


class Alarm:
    """One deadline at a time on a clock, moved without a new timer each time: a deadline
    later than the timer already set waits for it and re-arms then. A table's action timer
    moves on every turn, about twenty times per ten seconds, and a timer set and cancelled
    each turn was a measurable share of a busy server's CPU."""

    __slots__ = ("_clock", "_due", "_ring", "_timer", "at")

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.at: float | None = None  # when it rings (the clock's monotonic seconds), if set
        self._ring: Callable[[], None] | None = None
        self._timer: TimerHandle | None = None
        self._due = 0.0

    def set(self, seconds: float, ring: Callable[[], None]) -> None:
        """Call `ring` (which must not block) `seconds` from now, instead of what was set."""
        seconds = max(0.0, seconds)
        self.at = self._clock.monotonic() + seconds
        self._ring = ring
        if self._timer is None or self._due > self.at:
            self._arm(seconds)

    def clear(self) -> None:
        """Ring nothing (a timer still set finds nothing to ring)."""
        self.at = self._ring = None

    def cancel(self) -> None:
        """Ring nothing and drop the timer (the owner stops)."""
        self.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, seconds: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._due = self._clock.monotonic() + seconds
        self._timer = self._clock.call_later(seconds, self._fire)

    def _fire(self) -> None:
        self._timer = None
        at, ring = self.at, self._ring
        if at is None or ring is None:
            return
        left = at - self._clock.monotonic()
        if left > 0:
            self._arm(left)
            return
        self.clear()
        ring()


class _FakeTimer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """Time moves only when a test calls `advance`; due callbacks run inside it, in order."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = 0.0
        self._epoch = start
        self._seq = itertools.count()
        self._timers: list[tuple[float, int, _FakeTimer]] = []

    def monotonic(self) -> float:
        return self._now

    def time(self) -> float:
        return self._epoch + self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        timer = _FakeTimer(self._now + max(0.0, delay), callback)
        heapq.heappush(self._timers, (timer.when, next(self._seq), timer))
        return timer

    def pending(self) -> int:
        """Timers not yet fired nor cancelled."""
        return sum(1 for _, _, t in self._timers if not t.cancelled)

    def advance(self, seconds: float) -> int:
        """Move time forward, firing every timer due by then; returns how many fired."""
        target = self._now + seconds
        fired = 0
        while self._timers and self._timers[0][0] <= target:
            when, _, timer = heapq.heappop(self._timers)
            self._now = max(self._now, when)
            if not timer.cancelled:
                timer.cancelled = True
                fired += 1
                timer.callback()
        self._now = target
        return fired
