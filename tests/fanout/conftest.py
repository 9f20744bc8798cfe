"""The same fan-out suite runs on `memory://` and on the real Redis.

Redis is `TEST_REDIS_URL` (tests/conftest.py). Its tests skip when Redis is down, except in
CI (`CI=true`), where they fail. Every Redis test gets its own channel namespace, so parallel
workers never hear each other.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import redis

from app.fanout import BaseFanout, MemoryFanout
from app.fanout.redis_backend import RedisFanout
from tests.conftest import REDIS_URL, unavailable

QUEUE_SIZE = 1024

FanoutFactory = Callable[[], BaseFanout]


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The Redis to test against; skips without it, fails without it in CI."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        unavailable(f"Redis at {REDIS_URL} is unreachable: {exc}")
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture
def namespace() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def redis_admin(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    """A plain client beside the fan-out, to look at and interfere with Redis."""
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture(params=["memory", "redis"])
async def make_fanout(
    request: pytest.FixtureRequest, namespace: str
) -> AsyncIterator[FanoutFactory]:
    """Makes "processes": on Redis each call is a new fan-out on the same namespace (its
    own connections); in memory there is one process, so every call gives the same one."""
    made: list[BaseFanout] = []
    if request.param == "memory":
        shared = MemoryFanout(queue_size=QUEUE_SIZE)
        made.append(shared)

        def make() -> BaseFanout:
            return shared

    else:
        url: str = request.getfixturevalue("redis_url")

        def make() -> BaseFanout:
            fanout = RedisFanout(
                url,
                namespace=namespace,
                queue_size=QUEUE_SIZE,
                reconnect_delay=(0.01, 0.2),
            )
            made.append(fanout)
            return fanout

    yield make
    for fanout in made:
        await fanout.close()


@pytest.fixture
def fanout(make_fanout: FanoutFactory) -> BaseFanout:
    return make_fanout()
