"""Waiting for deliveries with a deadline, never a sleep."""

from __future__ import annotations

import asyncio

from app.fanout import GAP, Item, Subscription

TIMEOUT = 5.0


async def receive(sub: Subscription, timeout: float = TIMEOUT) -> Item:
    return await asyncio.wait_for(anext(sub), timeout)


async def receive_n(sub: Subscription, count: int) -> list[Item]:
    return [await receive(sub) for _ in range(count)]


async def receive_until(sub: Subscription, channel: str, fence: str) -> list[Item]:
    """Everything before `(channel, fence)`: with one publisher, order holds across
    channels, so whatever was published before the fence has arrived by then."""
    items = []
    while (item := await receive(sub)) != (channel, fence):
        items.append(item)
    return items


async def receive_gaps(sub: Subscription) -> set[str]:
    """Channels of the GAP markers at the head of the queue (one per followed channel)."""
    gaps = set()
    for _ in range(len(sub.channels)):
        channel, message = await receive(sub)
        assert message is GAP, (channel, message)
        gaps.add(channel)
    return gaps
