"""The fan-out contract, proved on both backends (the `make_fanout` fixture is
parametrized over memory:// and redis://)."""

from __future__ import annotations

import asyncio

import pytest

from app.fanout import (
    BaseFanout,
    FanoutClosed,
    Subscription,
    SubscriptionOverflow,
    channels,
)
from tests.fanout.conftest import FanoutFactory
from tests.fanout.support import TIMEOUT, receive, receive_n, receive_until

TABLE = channels.table(7)
USER_1 = channels.user(7, 1)
USER_2 = channels.user(7, 2)


async def test_a_published_message_reaches_a_subscriber_as_text(
    make_fanout: FanoutFactory,
) -> None:
    publisher, listener = make_fanout(), make_fanout()
    async with listener.subscribe(TABLE) as sub:
        await publisher.publish(TABLE, '{"type": "event", "v": 1}')
        await publisher.publish(TABLE, "♠A ♥K".encode())
        assert await receive_n(sub, 2) == [
            (TABLE, '{"type": "event", "v": 1}'),
            (TABLE, "♠A ♥K"),
        ]


async def test_bytes_that_are_not_utf8_are_refused_at_publish(fanout: BaseFanout) -> None:
    with pytest.raises(UnicodeDecodeError):
        await fanout.publish(TABLE, b"\xff\xfe")


async def test_each_channel_keeps_its_publishing_order(make_fanout: FanoutFactory) -> None:
    publisher, listener = make_fanout(), make_fanout()
    names = [channels.table(n) for n in range(3)]
    count = 150

    async def publish_to(channel: str) -> None:
        for i in range(0, count, 3):  # single publishes and small bursts, interleaved
            await publisher.publish(channel, str(i))
            await publisher.publish_many([(channel, str(i + 1)), (channel, str(i + 2))])

    async with listener.subscribe(*names) as sub:
        await asyncio.gather(*(publish_to(name) for name in names))
        items = await receive_n(sub, 3 * count)
    for name in names:
        assert [m for c, m in items if c == name] == [str(i) for i in range(count)]


async def test_every_subscriber_gets_every_message(make_fanout: FanoutFactory) -> None:
    publisher = make_fanout()
    subs = [await make_fanout().subscribe(TABLE) for _ in range(5)]
    messages = [f"event {i}" for i in range(40)]
    await publisher.publish_many((TABLE, m) for m in messages)
    for sub in subs:
        assert await receive_n(sub, len(messages)) == [(TABLE, m) for m in messages]
        await sub.close()


async def test_a_user_hears_their_own_channel_and_never_another_users(
    fanout: BaseFanout,
) -> None:
    seat_1 = await fanout.subscribe(TABLE, USER_1)
    seat_2 = await fanout.subscribe(TABLE, USER_2)
    observer = await fanout.subscribe(TABLE)
    await fanout.publish(USER_1, "your door card: As")
    await fanout.publish(USER_2, "your door card: Kd")
    await fanout.publish(TABLE, "v3")
    await fanout.publish(TABLE, "fence")

    assert await receive_until(seat_1, TABLE, "fence") == [
        (USER_1, "your door card: As"),
        (TABLE, "v3"),
    ]
    assert await receive_until(seat_2, TABLE, "fence") == [
        (USER_2, "your door card: Kd"),
        (TABLE, "v3"),
    ]
    assert await receive_until(observer, TABLE, "fence") == [(TABLE, "v3")]


async def test_a_live_subscription_adds_and_removes_channels(fanout: BaseFanout) -> None:
    witness = await fanout.subscribe(TABLE)
    async with fanout.subscribe(TABLE) as sub:
        await fanout.publish(USER_1, "before sitting down")  # not followed yet
        await fanout.publish(TABLE, "v1")
        assert await receive(sub) == (TABLE, "v1")

        await sub.add(USER_1)  # sat down
        assert sub.channels == {TABLE, USER_1}
        await fanout.publish(USER_1, "down card")
        await fanout.publish(TABLE, "v2")
        assert await receive_n(sub, 2) == [(USER_1, "down card"), (TABLE, "v2")]

        await fanout.publish(USER_1, "queued, then stood up")
        await fanout.publish(TABLE, "fence 1")
        # Once the witness has the fence, both messages sit unread in `sub`'s queue.
        await receive_until(witness, TABLE, "fence 1")
        assert sub.pending() == 2
        await sub.remove(USER_1)  # stood up: nothing more from the seat, queued or not
        assert sub.channels == {TABLE}
        await fanout.publish(USER_1, "after standing up")
        await fanout.publish(TABLE, "fence 2")
        assert await receive_until(sub, TABLE, "fence 2") == [(TABLE, "fence 1")]
    await witness.close()


async def test_adding_a_channel_twice_or_removing_an_unknown_one_changes_nothing(
    fanout: BaseFanout,
) -> None:
    async with fanout.subscribe(TABLE) as sub:
        await sub.add(TABLE)
        await sub.remove(USER_2)
        await fanout.publish(TABLE, "once")
        await fanout.publish(TABLE, "fence")
        assert await receive_until(sub, TABLE, "fence") == [(TABLE, "once")]
        assert fanout.subscriber_count(TABLE) == 1


async def test_a_subscription_is_ready_however_it_is_waited_for(fanout: BaseFanout) -> None:
    awaited = await fanout.subscribe(TABLE)
    async with fanout.subscribe(TABLE) as entered:
        iterated = fanout.subscribe(TABLE)  # iteration waits for readiness itself
        first = asyncio.ensure_future(receive(iterated))
        await iterated.wait_ready()
        await fanout.publish(TABLE, "hello")
        for sub in (awaited, entered):
            assert await receive(sub) == (TABLE, "hello")
        assert await first == (TABLE, "hello")
    await awaited.close()
    await iterated.close()


async def test_closing_a_subscription_releases_it_and_ends_its_iteration(
    fanout: BaseFanout,
) -> None:
    sub = await fanout.subscribe(TABLE, USER_1)
    stays = await fanout.subscribe(TABLE)
    assert fanout.subscriber_count(TABLE) == 2
    waiting = asyncio.ensure_future(anext(sub))
    await asyncio.sleep(0)  # one loop turn: the reader is now parked on its empty queue

    await sub.close()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(waiting, TIMEOUT)
    assert sub.closed
    assert sub.channels == frozenset()
    assert fanout.subscriber_count(TABLE) == 1
    assert fanout.subscriber_count(USER_1) == 0
    assert fanout.channels == {TABLE}
    await sub.close()  # idempotent
    with pytest.raises(FanoutClosed):
        await sub.add(TABLE)

    await fanout.publish(TABLE, "still here")
    assert await receive(stays) == (TABLE, "still here")
    await stays.close()
    assert fanout.channels == frozenset()


async def test_a_channel_can_be_followed_again_after_everyone_left(
    fanout: BaseFanout,
) -> None:
    for round_no in range(3):
        async with fanout.subscribe(TABLE) as sub:
            await fanout.publish(TABLE, f"round {round_no}")
            assert await receive(sub) == (TABLE, f"round {round_no}")


async def test_many_subscribers_coming_and_going_leave_the_right_ones(
    fanout: BaseFanout,
) -> None:
    async def churn(n: int) -> None:
        sub = fanout.subscribe(TABLE)
        if n % 2:
            await sub.wait_ready()
        await sub.close()

    keeper: Subscription | None = None

    async def keep() -> None:
        nonlocal keeper
        keeper = await fanout.subscribe(TABLE)

    await asyncio.gather(*(churn(n) for n in range(20)), keep(), *(churn(n) for n in range(20)))
    assert keeper is not None
    assert fanout.subscriber_count(TABLE) == 1
    await fanout.publish(TABLE, "to the keeper")
    assert await receive(keeper) == (TABLE, "to the keeper")
    await keeper.close()


async def test_a_slow_subscriber_is_dropped_and_never_slows_the_publisher(
    make_fanout: FanoutFactory,
) -> None:
    publisher, listener = make_fanout(), make_fanout()
    slow = await listener.subscribe(TABLE, queue_size=4)
    fast = await listener.subscribe(TABLE)
    burst = [f"event {i}" for i in range(20)]

    # The slow one never reads; publishing still finishes promptly.
    await asyncio.wait_for(publisher.publish_many((TABLE, m) for m in burst), TIMEOUT)
    for message in burst[:5]:
        await asyncio.wait_for(publisher.publish(TABLE, message), TIMEOUT)
    # Once the fast one has everything, the slow one has been offered everything too.
    assert await receive_n(fast, 25) == [(TABLE, m) for m in burst + burst[:5]]

    assert slow.overflowed
    assert slow.closed
    assert slow.pending() == 0  # its backlog was freed
    with pytest.raises(SubscriptionOverflow):
        await receive(slow)
    with pytest.raises(SubscriptionOverflow):
        await slow.add(USER_1)
    await slow.remove(TABLE)  # cleanup on a dropped subscription is harmless
    await slow.close()
    assert listener.subscriber_count(TABLE) == 1

    await publisher.publish(TABLE, "after the drop")
    assert await receive(fast) == (TABLE, "after the drop")
    await fast.close()


async def test_closing_the_fanout_ends_every_subscription(make_fanout: FanoutFactory) -> None:
    fanout = make_fanout()
    sub = await fanout.subscribe(TABLE)
    idle = fanout.subscribe()  # no channels yet
    waiting = asyncio.ensure_future(anext(sub))
    await asyncio.sleep(0)  # one loop turn: the reader is now parked on its empty queue

    await fanout.close()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(waiting, TIMEOUT)
    with pytest.raises(StopAsyncIteration):
        await receive(idle)
    assert fanout.channels == frozenset()
    with pytest.raises(FanoutClosed):
        await fanout.publish(TABLE, "late")
    with pytest.raises(FanoutClosed):
        fanout.subscribe(TABLE)
    await fanout.close()  # idempotent


async def test_a_caller_cancelled_while_subscribing_leaves_others_undisturbed(
    fanout: BaseFanout,
) -> None:
    others = await fanout.subscribe(TABLE)
    for _ in range(5):
        sub = await fanout.subscribe(USER_2)
        adding = asyncio.ensure_future(sub.add(USER_1))
        await asyncio.sleep(0)  # one loop turn: `add` is under way
        adding.cancel()
        await asyncio.gather(adding, return_exceptions=True)
        await sub.close()
    await fanout.publish(TABLE, "undisturbed")
    assert await receive(others) == (TABLE, "undisturbed")  # no GAP first
    await others.close()


async def _take(sub: Subscription) -> list[tuple[str, object]]:
    """What `take` has once `ready` says something is in."""
    while not (items := sub.take()):
        await asyncio.wait_for(sub.ready(), TIMEOUT)
    return list(items)


async def test_take_is_everything_queued_in_order_from_followed_channels(
    make_fanout: FanoutFactory,
) -> None:
    publisher, listener = make_fanout(), make_fanout()
    async with listener.subscribe(TABLE, USER_1) as sub:
        assert sub.take() == []
        await publisher.publish_many([(TABLE, "1"), (USER_1, "2"), (TABLE, "3")])
        got: list[tuple[str, object]] = []
        while len(got) < 3:  # Redis may hand them over in more than one piece
            got += await _take(sub)
        assert got == [(TABLE, "1"), (USER_1, "2"), (TABLE, "3")]
        await sub.remove(USER_1)
        await publisher.publish_many([(USER_1, "hidden"), (TABLE, "5")])
        assert await _take(sub) == [(TABLE, "5")]
    with pytest.raises(StopAsyncIteration):
        sub.take()


async def test_a_dropped_subscriber_gets_overflow_from_take_too(fanout: BaseFanout) -> None:
    slow = await fanout.subscribe(TABLE, queue_size=2)
    witness = await fanout.subscribe(TABLE)
    await fanout.publish_many((TABLE, str(i)) for i in range(5))
    # Redis hands messages over later, maybe in pieces; local dispatch feeds every
    # subscriber in one go, so once the witness has the last one, so had the slow one.
    got: list[tuple[str, object]] = []
    while len(got) < 5:
        got += await _take(witness)
    assert slow.ready().done()  # a waiting reader wakes to find out
    with pytest.raises(SubscriptionOverflow):
        slow.take()
