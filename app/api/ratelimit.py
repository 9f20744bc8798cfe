"""An in-memory sliding-window rate limiter (one process; enough for login attempts)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class SlidingWindow:
    """At most `limit` events per `window` seconds for each key."""

    def __init__(
        self, limit: int, window: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._events: dict[str, deque[float]] = {}
        self._calls = 0

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may try again; 0 when it may now."""
        events = self._prune(key)
        if events is None or len(events) < self.limit:
            return 0.0
        return max(0.0, events[0] + self.window - self.clock())

    def hit(self, key: str) -> None:
        self._events.setdefault(key, deque()).append(self.clock())
        self._calls += 1
        if self._calls % 1024 == 0:
            self._sweep()

    def reset(self, key: str) -> None:
        self._events.pop(key, None)

    def _prune(self, key: str) -> deque[float] | None:
        events = self._events.get(key)
        if events is None:
            return None
        horizon = self.clock() - self.window
        while events and events[0] <= horizon:
            events.popleft()
        if not events:
            del self._events[key]
            return None
        return events

    def _sweep(self) -> None:
        for key in list(self._events):
            self._prune(key)
