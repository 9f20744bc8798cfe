"""Sliding-window rate limits: at most `limit` events per `window` seconds for each key.

One interface (`Limiter`), two backends (`accounts.LoginLimits` picks one):
- `MemoryLimiter`: this process alone (the embedded default, no `REDIS_URL`);
- `RedisLimiter` (`ratelimit_redis`): every process counts in the same windows in Redis, so
  N processes behind a load balancer do not give an attacker N times the attempts.

    wait = await limiter.take((LOGIN_BY_NAME, name), (LOGIN_BY_IP, address))
    if wait: ...  # refused; nothing was counted; `wait` seconds until there is room
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

_RULE_NAME = re.compile(r"[a-z0-9-]{1,32}")


@dataclass(frozen=True, slots=True)
class Rule:
    """A kind of limit: at most `limit` events per `window` seconds for each key."""

    name: str  # tells the rules apart (and names their Redis keys): "login-name"
    limit: int
    window: float

    def __post_init__(self) -> None:
        if not _RULE_NAME.fullmatch(self.name):
            raise ValueError(f"a rule name is 1-32 of a-z, 0-9 and '-': {self.name!r}")
        if self.limit < 1 or self.window <= 0:
            raise ValueError(f"a rule allows at least one event in a window: {self}")


Hit = tuple[Rule, str]  # one event under a rule, for one key (a name, an address)


class Limiter(Protocol):
    async def take(self, *hits: Hit) -> float:
        """Count one event under each of `hits`, all or none: 0.0 when every window had
        room (all counted), else the seconds until each has room (none counted)."""
        ...

    async def reset(self, rule: Rule, key: str) -> None:
        """Forget `key`'s events under `rule` (a good login clears its name's count)."""
        ...

    async def aclose(self) -> None: ...


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


class MemoryLimiter:
    """The limits of this process alone: a `SlidingWindow` per rule."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._windows: dict[Rule, SlidingWindow] = {}

    async def take(self, *hits: Hit) -> float:
        return self.take_now(*hits)

    def take_now(self, *hits: Hit) -> float:
        """`take` without a wait: no other caller can come between the look and the count."""
        wait = max((self._window(rule).retry_after(key) for rule, key in hits), default=0.0)
        if wait > 0:
            return wait
        for rule, key in hits:
            self._window(rule).hit(key)
        return 0.0

    async def reset(self, rule: Rule, key: str) -> None:
        self.reset_now(rule, key)

    def reset_now(self, rule: Rule, key: str) -> None:
        self._window(rule).reset(key)

    async def aclose(self) -> None:
        pass

    def _window(self, rule: Rule) -> SlidingWindow:
        window = self._windows.get(rule)
        if window is None:
            window = self._windows[rule] = SlidingWindow(rule.limit, rule.window, clock=self.clock)
        return window
