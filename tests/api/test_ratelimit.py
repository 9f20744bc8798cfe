"""Rate limits, both backends (`memory`, and the real Redis), on a clock the test moves.

On Redis every `make()` is another "process": its own limiter and connections on the same
namespace; in memory there is one process, so every call gives the same limiter. Redis
alone: its keys name no name or address and expire; its own clock runs the windows; a
Redis that refuses or hangs leaves each process counting its own, and when it is back they
count together again.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import redis
import redis.asyncio

from app.api.ratelimit import Limiter, MemoryLimiter, Rule
from app.api.ratelimit_redis import RedisLimiter
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.fanout.proxy import RedisProxy

LOGIN = Rule("login-name", 3, 60.0)
ADDRESS = Rule("login-ip", 5, 60.0)

Make = Callable[[], Limiter]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def namespace() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def redis_admin(redis_url: str, namespace: str) -> AsyncIterator[redis.asyncio.Redis]:  # noqa: F811
    """A plain client beside the limiters; removes the test's keys afterwards."""
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    yield client
    keys = [key async for key in client.scan_iter(match=f"{namespace}:*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "redis"])
async def make(request: pytest.FixtureRequest, namespace: str, clock: Clock) -> AsyncIterator[Make]:
    made: list[Limiter] = []
    if request.param == "memory":
        shared = MemoryLimiter(clock=clock)
        made.append(shared)

        def make() -> Limiter:
            return shared

    else:
        url: str = request.getfixturevalue("redis_url")

        def make() -> Limiter:
            limiter = RedisLimiter(url, namespace=namespace, clock=clock)
            made.append(limiter)
            return limiter

    yield make
    for limiter in made:
        await limiter.aclose()
    if request.param == "redis":
        with redis.Redis.from_url(url) as admin:
            keys = list(admin.scan_iter(match=f"{namespace}:*"))
            if keys:
                admin.delete(*keys)


async def test_a_key_gets_its_limit_per_window_then_waits(make: Make, clock: Clock) -> None:
    limiter = make()
    for _ in range(3):  # at 0, 10 and 20 s
        assert await limiter.take((LOGIN, "ann")) == 0
        clock.now += 10
    assert await limiter.take((LOGIN, "ann")) == pytest.approx(30.0)  # the first, 60 s on
    assert await limiter.take((LOGIN, "bob")) == 0  # another key, its own window
    clock.now += 29.5
    assert await limiter.take((LOGIN, "ann")) == pytest.approx(0.5)
    clock.now += 0.5  # the first attempt left the window: one place
    assert await limiter.take((LOGIN, "ann")) == 0
    assert await limiter.take((LOGIN, "ann")) == pytest.approx(10.0)  # then the second's
    clock.now += 60  # every one of them left
    for _ in range(3):
        assert await limiter.take((LOGIN, "ann")) == 0


async def test_processes_share_one_limit(make: Make, clock: Clock) -> None:
    first, second = make(), make()
    assert await first.take((LOGIN, "ann")) == 0
    assert await second.take((LOGIN, "ann")) == 0
    assert await first.take((LOGIN, "ann")) == 0
    assert await second.take((LOGIN, "ann")) == pytest.approx(60.0)
    assert await first.take((LOGIN, "ann")) == pytest.approx(60.0)
    await second.reset(LOGIN, "ann")  # a good login on one process clears it for all
    assert await first.take((LOGIN, "ann")) == 0


async def test_processes_racing_for_the_last_places_take_no_more(make: Make) -> None:
    limiters = [make() for _ in range(4)]
    waits = await asyncio.gather(*(limiters[i % 4].take((ADDRESS, "10.0.0.1")) for i in range(20)))
    assert waits.count(0) == ADDRESS.limit


async def test_a_refused_take_counts_nothing_anywhere(make: Make) -> None:
    limiter = make()
    for _ in range(3):
        assert await limiter.take((LOGIN, "ann"), (ADDRESS, "10.0.0.1")) == 0
    # the name is full: the address is not counted either
    for _ in range(4):
        assert await limiter.take((LOGIN, "ann"), (ADDRESS, "10.0.0.1")) > 0
    assert await limiter.take((ADDRESS, "10.0.0.1")) == 0
    assert await limiter.take((ADDRESS, "10.0.0.1")) == 0
    assert await limiter.take((ADDRESS, "10.0.0.1")) > 0  # 3 + 2: full now


async def test_reset_forgets_one_key_under_one_rule(make: Make) -> None:
    limiter = make()
    for _ in range(3):
        assert await limiter.take((LOGIN, "ann"), (ADDRESS, "10.0.0.1")) == 0
        assert await limiter.take((LOGIN, "bob")) == 0
    await limiter.reset(LOGIN, "ann")
    assert await limiter.take((LOGIN, "ann")) == 0
    assert await limiter.take((LOGIN, "bob")) > 0
    for _ in range(2):
        assert await limiter.take((ADDRESS, "10.0.0.1")) == 0
    assert await limiter.take((ADDRESS, "10.0.0.1")) > 0


# --- Redis alone ----------------------------------------------------------------------------


async def test_redis_keys_hide_names_and_addresses_and_expire(
    redis_url: str,  # noqa: F811
    namespace: str,
    redis_admin: redis.asyncio.Redis,
) -> None:
    limiter = RedisLimiter(redis_url, namespace=namespace)
    try:
        assert await limiter.take((LOGIN, "Ann.Secret"), (ADDRESS, "10.9.8.7")) == 0
    finally:
        await limiter.aclose()
    keys = [key async for key in redis_admin.scan_iter(match=f"{namespace}:*")]
    assert len(keys) == 2
    assert {key.split(":")[2] for key in keys} == {"login-name", "login-ip"}
    for key in keys:
        stored = key + repr(await redis_admin.zrange(key, 0, -1))
        assert "Ann" not in stored and "Secret" not in stored and "10.9.8.7" not in stored
        assert 0 < await redis_admin.pttl(key) <= 60_000  # gone a window after the last


async def test_redis_windows_run_on_redis_s_clock(
    redis_url: str,  # noqa: F811
    namespace: str,
    redis_admin: redis.asyncio.Redis,
) -> None:
    short = Rule("short", 2, 0.3)
    first = RedisLimiter(redis_url, namespace=namespace)
    second = RedisLimiter(redis_url, namespace=namespace)
    try:
        assert await first.take((short, "ann")) == 0
        assert await second.take((short, "ann")) == 0
        wait = await first.take((short, "ann"))
        assert 0 < wait <= 0.3
        deadline = time.monotonic() + 10
        while await second.take((short, "ann")) > 0:  # a refused take counts nothing
            assert time.monotonic() < deadline, "the window never moved on"
            await asyncio.sleep(0.02)
    finally:
        await first.aclose()
        await second.aclose()


@pytest.fixture
async def proxy(redis_url: str) -> AsyncIterator[RedisProxy]:  # noqa: F811
    host, port = redis_url.split("//")[1].split("/")[0].split(":")
    front = RedisProxy(host, int(port))
    await front.start()
    yield front
    await front.close()


async def test_without_redis_each_process_counts_its_own_until_it_is_back(
    redis_url: str,  # noqa: F811
    namespace: str,
    redis_admin: redis.asyncio.Redis,
    proxy: RedisProxy,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Fail over to this process's own window, not open (no limit) nor closed (no logins)."""
    caplog.set_level(logging.WARNING, logger="app.api.ratelimit")

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "app.api.ratelimit"]

    limiter = RedisLimiter(proxy.url, namespace=namespace, clock=clock, retry_seconds=0)
    other = RedisLimiter(redis_url, namespace=namespace, clock=clock)  # Redis still answers it
    try:
        assert await limiter.take((LOGIN, "ann")) == 0  # in Redis
        proxy.go_down()
        for _ in range(3):  # this process's own window: the full limit again, no more
            assert await limiter.take((LOGIN, "ann")) == 0
        assert limiter.down
        assert await limiter.take((LOGIN, "ann")) == pytest.approx(60.0)
        assert len(said()) == 1 and "unreachable" in said()[0]  # once, not per login
        assert await other.take((LOGIN, "ann")) == 0  # nothing reached Redis meanwhile: 2

        proxy.come_up()
        assert await limiter.take((LOGIN, "ann")) == 0  # Redis's window again: 3
        assert not limiter.down
        assert len(said()) == 2 and "back" in said()[1]
        assert await other.take((LOGIN, "ann")) == pytest.approx(60.0)  # shared again
    finally:
        await limiter.aclose()
        await other.aclose()


class SilentServer:
    """Takes connections and never answers: a hung Redis."""

    def __init__(self) -> None:
        self.connections = 0
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/0"

    async def _accept(self, _: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writers.append(writer)

    async def close(self) -> None:
        self._server.close()
        for writer in self._writers:
            writer.transport.abort()
        await self._server.wait_closed()


async def test_a_hung_redis_does_not_hang_logins(namespace: str) -> None:
    silent = SilentServer()
    url = await silent.start()
    limiter = RedisLimiter(url, namespace=namespace, timeout=0.2, retry_seconds=3600)
    try:
        assert await asyncio.wait_for(limiter.take((LOGIN, "ann")), 10) == 0  # timed out
        assert limiter.down and silent.connections >= 1
        tried = silent.connections
        # until `retry_seconds` after the failure: this process's window, no Redis at all
        assert await limiter.take((LOGIN, "ann")) == 0
        assert await limiter.take((LOGIN, "ann")) == 0
        assert await limiter.take((LOGIN, "ann")) > 0
        await limiter.reset(LOGIN, "ann")
        assert await limiter.take((LOGIN, "ann")) == 0
        assert silent.connections == tried
    finally:
        await limiter.aclose()
        await silent.close()
