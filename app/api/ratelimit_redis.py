"""Rate limits every server process shares, in Redis (`REDIS_URL`).

Each (rule, key) is one sorted set, `<namespace>:ratelimit:<rule>:<hash of the key>`, of
its events' times. One Lua script prunes, looks and counts for every hit of a `take` at
once, so two processes can never both take the last place, and sets the set to expire a
window after its newest event. Times are Redis's own clock (`TIME`), one clock for every
process, unless a test gives one. Names and addresses are hashed: a glance at Redis (or
MONITOR) shows neither (an unsalted hash: it hides them, it cannot keep them secret from
someone who guesses).

Redis down (refused, timed out): each process counts in its own window (`MemoryLimiter`)
until Redis answers again, with a warning when it starts and a line when it ends. Logins
keep working, and an attacker still gets no more than the limit per process: what every
process had before Redis. Failing closed would lock every player out during a Redis
outage; failing open would drop the limit just when someone may have knocked Redis over.
After a failure the next `retry_seconds` do not try Redis, so a dead Redis costs each
login nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import secrets
import time
from collections.abc import Callable
from typing import Final

from redis import exceptions as redis_errors
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript

from app.api.ratelimit import Hit, MemoryLimiter, Rule
from app.fanout import channels

log = logging.getLogger("app.api.ratelimit")

_FAILED: Final = (redis_errors.RedisError, OSError)

# KEYS: one sorted set per hit. ARGV[1]: now in ms ('' for Redis's TIME); ARGV[2]: this
# call's unique member suffix; then each key's limit and window (ms). Returns 0 (every hit
# counted) or the ms until all have room (none counted).
_TAKE: Final = """
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local wait = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now, 1)
  end
end
if wait > 0 then
  return wait
end
local member = now .. ':' .. ARGV[2]
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, ARGV[2 + 2 * i])
end
return 0
"""


def redis_key(namespace: str, rule: Rule, key: str) -> str:
    digest = hashlib.blake2b(key.encode(), digest_size=16, person=b"stud-ratelimit").hexdigest()
    return channels.qualify(namespace, f"ratelimit:{rule.name}:{digest}")


class RedisLimiter:
    """`Limiter` on Redis: one window per (rule, key) for every process on `namespace`."""

    def __init__(
        self,
        url: str,
        *,
        namespace: str,
        clock: Callable[[], float] | None = None,
        timeout: float = 1.0,
        retry_seconds: float = 5.0,
        fallback: MemoryLimiter | None = None,
    ) -> None:
        self.url = url
        self.namespace = namespace
        channels.qualify(namespace, "")  # a bad namespace fails here, not at the first login
        self.clock = clock  # seconds; None: Redis's clock
        self.timeout = timeout
        self.retry_seconds = retry_seconds
        # this process's own windows while Redis is down (on the same clock as Redis's)
        self.fallback = fallback or MemoryLimiter(clock=clock or time.monotonic)
        self._redis: Redis | None = None  # made on first use, in the loop that uses it
        self._take: AsyncScript | None = None  # EVALSHA, loading the script when Redis lacks it
        self._tag = secrets.token_hex(6)  # members must differ across processes
        self._seq = itertools.count()
        self._down_until: float | None = None  # monotonic; set while Redis is down

    @property
    def down(self) -> bool:
        """Counting in this process alone: Redis failed and has not answered since."""
        return self._down_until is not None

    async def take(self, *hits: Hit) -> float:
        if not hits:
            return 0.0
        if self._skip_redis():
            return self.fallback.take_now(*hits)
        args: list[str | int] = [
            "" if self.clock is None else math.floor(self.clock() * 1000),
            f"{self._tag}:{next(self._seq)}",
        ]
        for rule, _ in hits:
            args += [rule.limit, math.ceil(rule.window * 1000)]
        keys = [redis_key(self.namespace, rule, key) for rule, key in hits]
        try:
            wait_ms = await self._script()(keys, args)
        except _FAILED as exc:
            self._failed(exc)
            return self.fallback.take_now(*hits)
        self._answered()
        return int(wait_ms) / 1000

    async def reset(self, rule: Rule, key: str) -> None:
        self.fallback.reset_now(rule, key)
        if self._skip_redis():
            return
        try:
            await self._client().delete(redis_key(self.namespace, rule, key))
        except _FAILED as exc:
            self._failed(exc)
        else:
            self._answered()

    async def aclose(self) -> None:
        client, self._redis, self._take = self._redis, None, None
        if client is not None:
            await client.aclose()

    def _client(self) -> Redis:
        if self._redis is None:
            # one quick retry covers a pooled connection that went stale while Redis restarted
            self._redis = Redis.from_url(
                self.url,
                client_name=f"{self.namespace}:ratelimit",
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 1),
            )
        return self._redis

    def _script(self) -> AsyncScript:
        if self._take is None:
            self._take = self._client().register_script(_TAKE)
        return self._take

    def _skip_redis(self) -> bool:
        return self._down_until is not None and time.monotonic() < self._down_until

    def _failed(self, exc: BaseException) -> None:
        if self._down_until is None:
            log.warning(
                "rate limits: Redis is unreachable (%s); each process counts its own "
                "until it is back",
                exc,
            )
        self._down_until = time.monotonic() + self.retry_seconds

    def _answered(self) -> None:
        if self._down_until is not None:
            self._down_until = None
            log.warning("rate limits: Redis is back; every process counts together again")
