"""What only the Redis backend does: one shared subscription connection per process,
pipelined publishing, namespaces on the wire, and surviving a lost connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis.asyncio

from app.fanout import GAP, FanoutUnavailable, channels
from app.fanout.redis_backend import RedisFanout
from tests.fanout.proxy import RedisProxy
from tests.fanout.support import TIMEOUT, receive, receive_gaps, receive_n, receive_until

TABLE = channels.table(7)
SEAT = channels.seat(7, 3)

MakeRedis = Callable[..., RedisFanout]


@pytest.fixture
async def make_redis(redis_url: str, namespace: str) -> AsyncIterator[MakeRedis]:
    made: list[RedisFanout] = []

    def make(url: str | None = None, **options: Any) -> RedisFanout:
        options.setdefault("reconnect_delay", (0.01, 0.2))
        fanout = RedisFanout(url or redis_url, namespace=namespace, **options)
        made.append(fanout)
        return fanout

    yield make
    for fanout in made:
        await fanout.close()


@pytest.fixture
async def proxy(redis_url: str) -> AsyncIterator[RedisProxy]:
    target = urlsplit(redis_url)
    proxy = RedisProxy(target.hostname or "127.0.0.1", target.port or 6379)
    await proxy.start()
    yield proxy
    await proxy.close()


def wire(namespace: str, channel: str) -> str:
    return channels.qualify(namespace, channel)


async def subscription_connections(admin: redis.asyncio.Redis, namespace: str) -> list[str]:
    clients = await admin.client_list(_type="pubsub")
    return [c["id"] for c in clients if c["name"] == f"{namespace}:fanout:sub"]


async def numsub(admin: redis.asyncio.Redis, namespace: str, *names: str) -> list[int]:
    counts = await admin.pubsub_numsub(*(wire(namespace, n) for n in names))
    return [count for _, count in counts]


async def test_one_connection_carries_every_subscription(
    make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str
) -> None:
    fanout = make_redis()
    tables = [channels.table(n) for n in range(30)]
    subs = [await fanout.subscribe(name) for name in tables]
    subs += [await fanout.subscribe(TABLE) for _ in range(5)]

    assert len(await subscription_connections(redis_admin, namespace)) == 1
    assert await numsub(redis_admin, namespace, *tables, TABLE) == [1] * 31
    for sub in subs:
        await sub.close()


async def test_redis_unsubscribes_when_the_last_local_subscriber_leaves(
    make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str
) -> None:
    fanout = make_redis()
    first = await fanout.subscribe(TABLE, SEAT)
    second = await fanout.subscribe(TABLE)
    assert await numsub(redis_admin, namespace, TABLE, SEAT) == [1, 1]

    await first.close()  # returns once Redis confirmed the UNSUBSCRIBE
    assert await numsub(redis_admin, namespace, TABLE, SEAT) == [1, 0]
    await second.remove(TABLE)
    assert await numsub(redis_admin, namespace, TABLE, SEAT) == [0, 0]
    assert await redis_admin.pubsub_channels(wire(namespace, "*")) == []


async def test_churn_leaves_redis_subscribed_to_exactly_what_is_followed(
    make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str
) -> None:
    fanout = make_redis()
    names = [channels.table(n) for n in range(4)]
    kept = []

    async def churn(n: int) -> None:
        sub = fanout.subscribe(names[n % 4], names[(n + 1) % 4])
        if n % 3:
            await sub.wait_ready()
        if n % 5 == 0:
            await sub.remove(names[n % 4])
            kept.append(sub)  # still follows names[(n + 1) % 4]
        else:
            await sub.close()

    await asyncio.gather(*(churn(n) for n in range(40)))
    for sub in kept:
        await sub.wait_ready()
    followed = [1 if fanout.subscriber_count(name) else 0 for name in names]
    assert await numsub(redis_admin, namespace, *names) == followed
    for sub in kept:
        await sub.close()
    assert await redis_admin.pubsub_channels(wire(namespace, "*")) == []


async def test_namespaces_keep_deployments_on_one_redis_apart(
    make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str, redis_url: str
) -> None:
    other = RedisFanout(redis_url, namespace=f"{namespace}-other")
    try:
        async with other.subscribe(TABLE) as sub:
            # One raw connection publishes both, so the fence arrives after the first.
            await redis_admin.publish(wire(namespace, TABLE), "not for the other deployment")
            await redis_admin.publish(wire(f"{namespace}-other", TABLE), "fence")
            assert await receive_until(sub, TABLE, "fence") == []
    finally:
        await other.close()


async def test_a_burst_of_publishes_goes_out_in_one_round_trip(make_redis: MakeRedis) -> None:
    fanout = make_redis()
    async with fanout.subscribe(TABLE, queue_size=500) as sub:
        await asyncio.gather(*(fanout.publish(TABLE, str(i)) for i in range(500)))
        assert fanout.published == 500
        assert fanout.publish_round_trips <= 2
        assert await receive_n(sub, 500) == [(TABLE, str(i)) for i in range(500)]


async def test_a_killed_connection_is_replaced_and_subscribers_told_of_the_gap(
    make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str
) -> None:
    fanout = make_redis()
    async with fanout.subscribe(TABLE, SEAT) as sub:
        await fanout.publish(TABLE, "before")
        assert await receive(sub) == (TABLE, "before")

        # By id, not `CLIENT KILL TYPE pubsub`: that would hit other workers' tests too.
        (client_id,) = await subscription_connections(redis_admin, namespace)
        assert await redis_admin.client_kill_filter(_id=client_id) == 1

        assert await receive_gaps(sub) == {TABLE, SEAT}
        assert fanout.reconnects == 1
        await fanout.publish(SEAT, "after, private")
        await fanout.publish(TABLE, "after")
        assert await receive_n(sub, 2) == [(SEAT, "after, private"), (TABLE, "after")]
        new_ids = await subscription_connections(redis_admin, namespace)
        assert len(new_ids) == 1
        assert new_ids != [client_id]


async def test_redis_going_away_and_coming_back(
    make_redis: MakeRedis, proxy: RedisProxy, namespace: str
) -> None:
    fanout = make_redis(proxy.url)
    sub = await fanout.subscribe(TABLE)
    await fanout.publish(TABLE, "before")
    assert await receive(sub) == (TABLE, "before")

    proxy.go_down()
    # The reader keeps trying, backing off; publishing fails fast instead of hanging.
    await asyncio.wait_for(proxy.wait_refused(3), TIMEOUT)
    with pytest.raises(FanoutUnavailable):
        await asyncio.wait_for(fanout.publish(TABLE, "lost"), TIMEOUT)
    # Subscribing while Redis is away waits for it to come back.
    later = fanout.subscribe(SEAT)
    later_ready = asyncio.ensure_future(later.wait_ready())
    await asyncio.wait_for(proxy.wait_refused(proxy.refused + 2), TIMEOUT)
    assert not later_ready.done()

    proxy.come_up()
    await asyncio.wait_for(later_ready, TIMEOUT)
    assert await receive(sub) == (TABLE, GAP)
    assert fanout.reconnects == 1
    await fanout.publish(SEAT, "to the late one")
    await fanout.publish(TABLE, "after")
    assert await receive(sub) == (TABLE, "after")
    assert await receive(later) == (SEAT, GAP)  # spurious for it, and harmless: a resync
    assert await receive(later) == (SEAT, "to the late one")
    await sub.close()
    await later.close()


async def test_a_connection_that_stops_answering_is_detected_by_ping(
    make_redis: MakeRedis, proxy: RedisProxy
) -> None:
    fanout = make_redis(proxy.url, health_check_interval=0.1)
    publisher = make_redis()  # straight to Redis, not through the stalled proxy
    async with fanout.subscribe(TABLE) as sub:
        proxy.stall()  # the socket stays open; nothing comes back, not even PONG
        assert await receive(sub) == (TABLE, GAP)
        await publisher.publish(TABLE, "after")
        assert await receive(sub) == (TABLE, "after")


async def test_a_burst_larger_than_one_script_call_is_split_in_order(
    make_redis: MakeRedis,
) -> None:
    fanout = make_redis()
    messages = [(channels.table(n % 3), str(n)) for n in range(2500)]
    async with fanout.subscribe(*(channels.table(n) for n in range(3)), queue_size=2500) as sub:
        await fanout.publish_many(messages)
        assert fanout.publish_round_trips == 3
        assert await receive_n(sub, 2500) == messages


async def test_bursts_fall_back_to_pipelines_where_scripts_are_refused(
    make_redis: MakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    fanout = make_redis()

    async def refuse(args: list[str]) -> None:
        raise redis.exceptions.NoPermissionError("this user has no permissions to run EVALSHA")

    monkeypatch.setattr(fanout, "_publish_all", refuse)
    messages = [(TABLE, str(n)) for n in range(10)]
    async with fanout.subscribe(TABLE) as sub:
        await fanout.publish_many(messages)
        await fanout.publish_many(messages)
        assert await receive_n(sub, 20) == messages + messages


async def test_a_script_that_fails_while_running_is_not_resent(
    make_redis: MakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    fanout = make_redis()

    async def fail(args: list[str]) -> None:
        raise redis.exceptions.ResponseError("ERR Error running script: out of memory")

    monkeypatch.setattr(fanout, "_publish_all", fail)
    with pytest.raises(FanoutUnavailable):
        await fanout.publish_many([(TABLE, "a"), (TABLE, "b")])
