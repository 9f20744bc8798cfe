"""Fan-out: publish a table's events once, deliver them to every socket that follows it.

Two backends behind one interface (`Fanout`), chosen by URL with `create_fanout`:
`memory://` (the embedded default, one process) and `redis://` (several processes).

    fanout = create_fanout(settings.fanout_url)
    await fanout.publish(channels.table(7), event_json)           # public
    await fanout.publish(channels.user(7, 42), down_card_json)    # private to user 42

    # a socket follows its table and its own user from the start, and nothing else: the
    # table alone decides whose cards user 42 gets, by seating them (docs/design.md)
    async with fanout.subscribe(channels.table(7), channels.user(7, 42)) as sub:
        async for channel, message in sub:
            if message is GAP:
                ...  # may have missed events: resync from the last version seen
            else:
                await websocket.send_text(message)

Delivery contract, both backends:
- Messages are text; `bytes` are UTF-8 decoded once at `publish`. Per channel, subscribers
  see messages in publishing order (also across channels, from one process).
- A subscription receives what is published after it is ready (awaited or entered).
- Every subscription has its own bounded queue (`queue_size`, default 256). Publishers
  never wait for subscribers: one that falls that far behind is dropped, its iterator
  raises `SubscriptionOverflow`, and its client resyncs on a new connection.
- `GAP` (Redis only): the connection to Redis dropped and came back; messages on that
  channel may be missing before this point. Nothing after it is lost.
- Nothing secret goes on a public channel (see `channels`); the table server enforces it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from app.fanout import channels
from app.fanout.base import (
    DEFAULT_QUEUE_SIZE,
    GAP,
    BaseFanout,
    Fanout,
    FanoutClosed,
    FanoutError,
    FanoutUnavailable,
    Item,
    Message,
    Signal,
    Subscription,
    SubscriptionOverflow,
)
from app.fanout.memory import MemoryFanout

__all__ = [
    "DEFAULT_QUEUE_SIZE",
    "GAP",
    "BaseFanout",
    "Fanout",
    "FanoutClosed",
    "FanoutError",
    "FanoutUnavailable",
    "Item",
    "MemoryFanout",
    "Message",
    "Signal",
    "Subscription",
    "SubscriptionOverflow",
    "channels",
    "create_fanout",
]

REDIS_SCHEMES = frozenset({"redis", "rediss", "unix"})


def create_fanout(
    url: str,
    *,
    namespace: str = channels.DEFAULT_NAMESPACE,
    queue_size: int = DEFAULT_QUEUE_SIZE,
    health_check_interval: float = 5.0,
    reconnect_delay: tuple[float, float] = (0.05, 5.0),
) -> BaseFanout:
    """The backend for `url` (`Settings.fanout_url`): `memory://` or a Redis URL.

    `namespace` prefixes channel names on a shared Redis; `health_check_interval` is how
    long the Redis subscription connection may stay silent before a PING (and twice that
    before it counts as dead); `reconnect_delay` bounds the back-off (first, most) in seconds.
    The memory backend has no use for the last three.
    """
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return MemoryFanout(queue_size=queue_size)
    if scheme in REDIS_SCHEMES:
        from app.fanout.redis_backend import RedisFanout

        return RedisFanout(
            url,
            namespace=namespace,
            queue_size=queue_size,
            health_check_interval=health_check_interval,
            reconnect_delay=reconnect_delay,
        )
    raise ValueError(f"unknown fan-out URL scheme {scheme!r}: use memory:// or redis://")
