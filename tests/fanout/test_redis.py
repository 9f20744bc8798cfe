"""What only the Redis backend does: one shared subscription connection per process,
pipelined publishing, namespaces on the wire, surviving a lost connection, and what a
restricted ACL user is refused."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
import redis.asyncio

from app.fanout import GAP, FanoutUnavailable, channels
from app.fanout.redis_backend import RedisFanout
from tests.fanout.proxy import RedisProxy
from tests.fanout.support import TIMEOUT, receive, receive_gaps, receive_n, receive_until

TABLE = channels.table(7)
USER = channels.user(7, 3)

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


# What the fan-out needs besides scripts: pub/sub, and PING and CLIENT SETNAME (and, on newer
# Redis, CLIENT SETINFO) from the connection category.
FANOUT_COMMANDS = ["+@pubsub", "+@connection"]

MakeUser = Callable[..., Awaitable[tuple[str, str]]]


@pytest.fixture
async def acl_user(
    redis_url: str, redis_admin: redis.asyncio.Redis, namespace: str
) -> AsyncIterator[MakeUser]:
    """Makes ACL users on the shared Redis (names unique to the test, removed after it):
    `commands` as `ACL SETUSER` takes them, `channels` the glob patterns it may use. Returns
    each one's name and a URL that logs in as it. Ask for it before `make_redis`, so that its
    users outlive the fan-outs (Redis disconnects a deleted user's clients)."""
    made: list[str] = []

    async def make(*, commands: list[str], channels: list[str]) -> tuple[str, str]:
        name = f"{namespace}-{len(made)}"
        password = secrets.token_hex(16)
        made.append(name)
        assert await redis_admin.acl_setuser(
            name,
            enabled=True,
            reset=True,
            passwords=[f"+{password}"],
            commands=commands,
            channels=channels,
        )
        target = urlsplit(redis_url)
        netloc = f"{quote(name, safe='')}:{password}@{target.hostname}:{target.port or 6379}"
        return name, urlunsplit(target._replace(netloc=netloc))

    try:
        yield make
    finally:
        if made:
            await redis_admin.acl_deluser(*made)


async def refusals(admin: redis.asyncio.Redis, user: str) -> list[tuple[str, str, str, int]]:
    """(reason, context, object, count) of what Redis refused `user`, from its ACL LOG."""
    entries = await admin.acl_log(count=1000)
    return [
        (str(e["reason"]), str(e["context"]), str(e["object"]), int(str(e["count"])))
        for e in entries
        if e["username"] == user
    ]


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
    first = await fanout.subscribe(TABLE, USER)
    second = await fanout.subscribe(TABLE)
    assert await numsub(redis_admin, namespace, TABLE, USER) == [1, 1]

    await first.close()  # returns once Redis confirmed the UNSUBSCRIBE
    assert await numsub(redis_admin, namespace, TABLE, USER) == [1, 0]
    await second.remove(TABLE)
    assert await numsub(redis_admin, namespace, TABLE, USER) == [0, 0]
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
    async with fanout.subscribe(TABLE, USER) as sub:
        await fanout.publish(TABLE, "before")
        assert await receive(sub) == (TABLE, "before")

        # By id, not `CLIENT KILL TYPE pubsub`: that would hit other workers' tests too.
        (client_id,) = await subscription_connections(redis_admin, namespace)
        assert await redis_admin.client_kill_filter(_id=client_id) == 1

        assert await receive_gaps(sub) == {TABLE, USER}
        assert fanout.reconnects == 1
        await fanout.publish(USER, "after, private")
        await fanout.publish(TABLE, "after")
        assert await receive_n(sub, 2) == [(USER, "after, private"), (TABLE, "after")]
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
    later = fanout.subscribe(USER)
    later_ready = asyncio.ensure_future(later.wait_ready())
    await asyncio.wait_for(proxy.wait_refused(proxy.refused + 2), TIMEOUT)
    assert not later_ready.done()

    proxy.come_up()
    await asyncio.wait_for(later_ready, TIMEOUT)
    assert await receive(sub) == (TABLE, GAP)
    assert fanout.reconnects == 1
    await fanout.publish(USER, "to the late one")
    await fanout.publish(TABLE, "after")
    assert await receive(sub) == (TABLE, "after")
    assert await receive(later) == (USER, GAP)  # spurious for it, and harmless: a resync
    assert await receive(later) == (USER, "to the late one")
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
    acl_user: MakeUser, make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str
) -> None:
    # A real ACL user (as some managed Redis services hand out): pub/sub yes, scripts no.
    name, url = await acl_user(commands=FANOUT_COMMANDS, channels=[wire(namespace, "*")])
    fanout = make_redis(url)
    messages = [(TABLE, str(n)) for n in range(10)]
    async with fanout.subscribe(TABLE) as sub:
        await fanout.publish_many(messages)
        await fanout.publish_many(messages)
        assert await receive_n(sub, 20) == messages + messages
    # Redis refused the script once; the second burst went straight to a pipeline (Redis
    # counts repeats of one refusal in a single ACL LOG entry).
    assert await refusals(redis_admin, name) == [("command", "toplevel", "evalsha", 1)]


async def test_a_refused_publish_raises_and_a_script_refused_halfway_is_not_resent(
    acl_user: MakeUser, make_redis: MakeRedis, redis_admin: redis.asyncio.Redis, namespace: str
) -> None:
    # May run scripts and publish on the table's public channel, not on a seat's.
    name, url = await acl_user(
        commands=[*FANOUT_COMMANDS, "+evalsha", "+eval", "+script|load"],
        channels=[wire(namespace, TABLE)],
    )
    refused = make_redis(url)
    listener = make_redis()  # another process, as the default user
    async with listener.subscribe(TABLE, USER) as sub:
        with pytest.raises(FanoutUnavailable):
            await refused.publish(USER, "hole cards")
        # The script publishes the first message, then Redis stops it at the second: an
        # error from a script that ran is not a refusal, so no pipeline sends "a" again.
        with pytest.raises(FanoutUnavailable):
            await refused.publish_many([(TABLE, "a"), (USER, "b")])
        await refused.publish(TABLE, "fence")
        assert await receive_until(sub, TABLE, "fence") == [(TABLE, "a")]
    seat = wire(namespace, USER)
    assert sorted(await refusals(redis_admin, name)) == [
        ("channel", "lua", seat, 1),
        ("channel", "toplevel", seat, 1),
    ]
