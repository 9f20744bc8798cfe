"""The fan-out interface, the subscription every backend hands out, and the in-process
dispatch both backends share (one bounded queue per subscriber, fed without ever waiting)."""

from __future__ import annotations

import asyncio
import enum
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Generator, Iterable
from types import TracebackType
from typing import Any, Final, Literal, Protocol, Self, TypeAlias

from app.inbox import Inbox, InboxFull

log = logging.getLogger("app.fanout")

DEFAULT_QUEUE_SIZE: Final = 256


class Signal(enum.Enum):
    """What a subscription yields in place of a message."""

    GAP = "gap"


GAP: Final = Signal.GAP
"""Messages on this channel may have been lost just before this point (the Redis connection
dropped and came back). Everything after it is delivered again; resync, then carry on.
A gap may be spurious (nothing was published meanwhile); resyncing is idempotent."""

Message: TypeAlias = str | Literal[Signal.GAP]
Item: TypeAlias = tuple[str, Message]


class FanoutError(Exception):
    """Base of the fan-out's own errors."""


class FanoutClosed(FanoutError):
    """The fan-out (or this subscription) is closed."""


class FanoutUnavailable(FanoutError):
    """The backend could not take a published message (Redis unreachable)."""


class SubscriptionOverflow(FanoutError):
    """The subscriber fell `queue_size` messages behind and was dropped; it must resync."""


def as_text(message: bytes | str) -> str:
    """Messages travel as text (JSON for the WebSocket); bytes must be UTF-8."""
    return message if isinstance(message, str) else message.decode()


class Fanout(Protocol):
    """Publish to named channels (`app.fanout.channels`); subscribe to any number of them."""

    async def publish(self, channel: str, message: bytes | str) -> None:
        """Deliver `message` to every current subscriber of `channel`. Returns once the
        backend has it (memory: queued to each subscriber; Redis: accepted by the server).
        Raises `FanoutUnavailable` if Redis cannot be reached, `FanoutClosed` after close."""
        ...

    async def publish_many(self, messages: Iterable[tuple[str, bytes | str]]) -> None:
        """Publish several messages in order, in one round trip where the backend allows."""
        ...

    def subscribe(self, *channels: str, queue_size: int | None = None) -> Subscription:
        """A new subscription to `channels`. `await` it (or enter it with `async with`)
        before relying on it: that returns once the backend confirmed the subscription, so
        anything published afterwards is delivered."""
        ...

    async def close(self) -> None:
        """End every subscription (their iteration stops) and release the backend."""
        ...


class Subscription:
    """An async iterator of `(channel, message)` over the channels it follows, with its own
    bounded queue. `message` is the published text, or `GAP` (see there).

    A subscriber that lets its queue fill up is dropped at once (publishers never wait for
    it): the iterator then raises `SubscriptionOverflow`. After `remove(channel)` returns,
    nothing more from that channel is yielded, even if it was already queued.
    """

    __slots__ = ("_channels", "_closed", "_fanout", "_overflowed", "_queue", "_ready", "direct")

    def __init__(self, fanout: BaseFanout, queue_size: int) -> None:
        if queue_size < 1:
            raise ValueError(f"queue_size must be at least 1, not {queue_size}")
        self._fanout = fanout
        self._queue: Inbox[Item | None] = Inbox(queue_size)
        self._channels: set[str] = set()
        self._ready: asyncio.Future[None] | None = None
        self._closed = False
        self._overflowed = False
        # The reader's own way to take an item at delivery, while nothing is queued: True if
        # it took it (a socket writing it straight out), False to queue it as usual. It
        # spares a reader that would only pass each item on a wake-up per item.
        self.direct: Callable[[Item], bool] | None = None

    @property
    def channels(self) -> frozenset[str]:
        return frozenset(self._channels)

    @property
    def closed(self) -> bool:
        """Closed by `close()`, by the fan-out closing, or by overflow."""
        return self._closed

    @property
    def overflowed(self) -> bool:
        return self._overflowed

    def pending(self) -> int:
        """Messages queued and not yet taken."""
        return 0 if self._closed else self._queue.qsize()

    async def add(self, *channels: str) -> None:
        """Follow more channels; returns once the backend confirmed them."""
        self._check_live()
        new = [c for c in dict.fromkeys(channels) if c not in self._channels]
        if new:
            self._channels.update(new)
            confirm = self._fanout._attach(self, new)
            if confirm is not None:
                await confirm

    async def remove(self, *channels: str) -> None:
        """Stop following `channels`; nothing more from them is yielded. A no-op once closed
        or dropped, so cleanup paths need not check."""
        gone = [c for c in dict.fromkeys(channels) if c in self._channels]
        if gone:
            self._channels.difference_update(gone)
            release = self._fanout._detach(self, gone)
            if release is not None:
                await release

    async def close(self) -> None:
        """Stop following everything; a waiting iteration ends. Idempotent."""
        if self._closed:
            return
        release = self._end()
        if release is not None:
            await release

    async def wait_ready(self) -> Self:
        """Wait until the backend confirmed the channels given to `subscribe`."""
        ready = self._ready
        if ready is not None and not self._closed:
            try:
                await asyncio.shield(ready)
            except asyncio.CancelledError:
                if ready.cancelled():  # the fan-out closed under us, we weren't cancelled
                    raise FanoutClosed("fan-out closed before the subscription was ready") from None
                raise
            self._ready = None
        return self

    def __await__(self) -> Generator[Any, None, Self]:
        return self.wait_ready().__await__()

    async def __aenter__(self) -> Self:
        try:
            return await self.wait_ready()
        except BaseException:
            await self.close()
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Item:
        if self._ready is not None and not self._closed:
            await self.wait_ready()
        queue = self._queue
        while True:
            if self._overflowed:
                raise SubscriptionOverflow(
                    f"subscriber fell {queue.maxsize} messages behind and was dropped"
                )
            if self._closed:
                raise StopAsyncIteration
            item = queue.get_nowait() if queue.qsize() else await queue.get()
            if item is not None and item[0] in self._channels:
                return item

    def take(self) -> list[Item]:
        """Everything queued now, in order (maybe nothing): the items iterating would yield,
        for a reader that sends them in one go (`ready` says when to look again). Raises
        `SubscriptionOverflow` or `StopAsyncIteration` where iterating would."""
        if self._overflowed:
            raise SubscriptionOverflow(
                f"subscriber fell {self._queue.maxsize} messages behind and was dropped"
            )
        if self._closed:
            raise StopAsyncIteration
        following = self._channels
        queued = self._queue.take_all()
        return [item for item in queued if item is not None and item[0] in following]

    def ready(self) -> asyncio.Future[None]:
        """Done once something is queued (or the subscription ended): then `take`."""
        return self._queue.ready()

    # Called by the fan-out.

    def _deliver(self, item: Item) -> None:
        direct = self.direct
        if (
            direct is not None
            and self._queue.empty()
            and item[0] in self._channels
            and direct(item)
        ):
            return
        try:
            self._queue.put_nowait(item)
        except InboxFull:
            self._overflow()

    def _overflow(self) -> None:
        if self._closed:
            return
        log.info(
            "fan-out: dropping a subscriber %d messages behind on %s",
            self._queue.maxsize,
            sorted(self._channels),
        )
        self._overflowed = True
        release = self._end()
        if release is not None:
            self._fanout._spawn(release)

    def _end(self) -> Coroutine[Any, Any, None] | None:
        """Close without waiting: unregister, discard what is queued, wake the reader."""
        self._closed = True
        gone = list(self._channels)
        self._channels.clear()
        release = self._fanout._detach(self, gone)
        self._fanout._live.discard(self)
        queue = self._queue
        queue.clear()
        queue.put_nowait(None)
        return release

    def _check_live(self) -> None:
        if self._overflowed:
            raise SubscriptionOverflow("subscriber was dropped")
        if self._closed:
            raise FanoutClosed("subscription is closed")


class BaseFanout(ABC):
    """What the backends share: local dispatch, channel -> subscribers, fed synchronously.

    A backend adds `publish`/`publish_many` and its transport through `_subscribed` /
    `_unsubscribed` (a channel got its first / lost its last local subscriber) and
    `_shutdown`, and calls `_dispatch` for each message that arrives.
    """

    def __init__(self, *, queue_size: int = DEFAULT_QUEUE_SIZE) -> None:
        if queue_size < 1:
            raise ValueError(f"queue_size must be at least 1, not {queue_size}")
        self._queue_size = queue_size
        # Copy-on-write tuples: a subscriber dropped mid-dispatch can't disturb the loop.
        self._subs: dict[str, tuple[Subscription, ...]] = {}
        self._live: set[Subscription] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    @abstractmethod
    async def publish(self, channel: str, message: bytes | str) -> None: ...

    @abstractmethod
    async def publish_many(self, messages: Iterable[tuple[str, bytes | str]]) -> None: ...

    def subscribe(self, *channels: str, queue_size: int | None = None) -> Subscription:
        self._check_open()
        sub = Subscription(self, self._queue_size if queue_size is None else queue_size)
        self._live.add(sub)
        new = list(dict.fromkeys(channels))
        sub._channels.update(new)
        confirm = self._attach(sub, new)
        if confirm is not None:
            sub._ready = self._spawn(confirm)
        return sub

    @property
    def reachable(self) -> bool:
        """Whether what is published now reaches the other processes' subscribers as far as
        this process can tell (`redis://`: its subscription connection is up)."""
        return True

    def subscriber_count(self, channel: str) -> int:
        """Local subscribers of `channel` (for tests and metrics)."""
        return len(self._subs.get(channel, ()))

    @property
    def channels(self) -> frozenset[str]:
        """Channels with at least one local subscriber."""
        return frozenset(self._subs)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for sub in list(self._live):
            sub._end()
        self._subs.clear()
        await self._shutdown()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # Transport hooks.

    def _subscribed(self, channels: list[str]) -> Coroutine[Any, Any, None] | None:
        """`channels` got a local subscriber; the result, if any, confirms them."""
        return None

    def _unsubscribed(self, channels: list[str]) -> Coroutine[Any, Any, None] | None:
        """`channels` lost their last local subscriber."""
        return None

    async def _shutdown(self) -> None:
        """Release the transport; subscriptions have already ended."""
        return None

    # Internals.

    def _check_open(self) -> None:
        if self._closed:
            raise FanoutClosed("fan-out is closed")

    def _attach(self, sub: Subscription, channels: list[str]) -> Coroutine[Any, Any, None] | None:
        self._check_open()
        subs = self._subs
        for channel in channels:
            subs[channel] = (*subs.get(channel, ()), sub)
        return self._subscribed(channels) if channels else None

    def _detach(self, sub: Subscription, channels: list[str]) -> Coroutine[Any, Any, None] | None:
        subs = self._subs
        emptied = []
        for channel in channels:
            current = subs.get(channel)
            if current is None:
                continue
            rest = tuple(s for s in current if s is not sub)
            if rest:
                subs[channel] = rest
            else:
                del subs[channel]
                emptied.append(channel)
        if emptied and not self._closed:
            return self._unsubscribed(emptied)
        return None

    def _dispatch(self, channel: str, message: str) -> None:
        subs = self._subs.get(channel)
        if subs:
            item = (channel, message)
            for sub in subs:
                sub._deliver(item)

    def _signal_gap(self) -> None:
        """Tell every subscriber that each of its channels may have lost messages."""
        for channel, subs in list(self._subs.items()):
            item: Item = (channel, GAP)
            for sub in subs:
                sub._deliver(item)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._reap)
        return task

    def _reap(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None and not isinstance(exc, FanoutError):
            log.error("fan-out: background task failed", exc_info=exc)
