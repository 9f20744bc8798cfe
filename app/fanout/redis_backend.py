"""`redis://` (also `rediss://`, `unix://`): several server processes share one Redis.

Per process, whatever the number of WebSockets:
- One connection carries every subscription. A reader task hands each message to the local
  subscribers' bounded queues (exactly as `memory://` does), so a slow subscriber is dropped,
  never waited for. A channel is SUBSCRIBEd when it gets its first local subscriber and
  UNSUBSCRIBEd when it loses its last.
- One writer task publishes: whatever piles up while a round trip is in flight goes out
  together, as one EVALSHA of a script that PUBLISHes each message (a pipeline where
  scripts are refused), so a burst costs one round trip and one reply, not one per message
  (the Python client, not Redis, is the bottleneck). One writer also keeps the order.
  `publish` returns once Redis took the message; a failure raises `FanoutUnavailable`
  (after one immediate retry, so a message may rarely arrive twice: clients dedupe by
  version).
- If the subscription connection drops, or stops answering PING, the reader reconnects
  (at once, then with exponential back-off and jitter), subscribes everything again and,
  once Redis confirmed it and before any newer message, puts `GAP` on every channel.
- Channel names on the wire carry the namespace (`channels.qualify`); subscribers see the
  logical names.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections import deque
from collections.abc import Coroutine, Iterable
from typing import Any, Final

from redis import exceptions as redis_errors
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from app import metrics
from app.fanout import channels
from app.fanout.base import (
    DEFAULT_QUEUE_SIZE,
    BaseFanout,
    FanoutClosed,
    FanoutUnavailable,
    as_text,
)

log = logging.getLogger("app.fanout")

_FAILED: Final = (redis_errors.RedisError, OSError)
_CLOSE_TIMEOUT: Final = 5.0
# One EVALSHA publishes a whole burst: one reply instead of one per message (~4 µs of client
# CPU per message here, against ~18 µs in a pipeline and ~170 µs awaited one by one).
_PUBLISH_ALL: Final = "for i = 1, #ARGV, 2 do redis.call('PUBLISH', ARGV[i], ARGV[i + 1]) end"
_MAX_BURST: Final = 1000  # messages per script call: keeps each call well under a millisecond


def _settle(future: asyncio.Future[None], error: BaseException | None = None) -> None:
    if not future.done():
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


def _refused(exc: redis_errors.ResponseError) -> bool:
    """Redis turned the script call away before running any of it."""
    return isinstance(exc, redis_errors.NoPermissionError) or "unknown command" in str(exc)


def _retrieve(future: asyncio.Future[None]) -> None:
    """Mark an error as seen: every waiter may have been cancelled."""
    if not future.cancelled():
        future.exception()


class RedisFanout(BaseFanout):
    """Publish/subscribe through Redis, one subscription connection per process."""

    def __init__(
        self,
        url: str,
        *,
        namespace: str = channels.DEFAULT_NAMESPACE,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        health_check_interval: float = 5.0,
        reconnect_delay: tuple[float, float] = (0.05, 5.0),
    ) -> None:
        super().__init__(queue_size=queue_size)
        self._prefix = channels.qualify(namespace, "")
        self._health_check_interval = health_check_interval
        self._delay_min, self._delay_max = reconnect_delay
        name = f"{namespace}:fanout"
        # One quick retry covers a pooled connection that went stale while Redis restarted.
        self._redis = Redis.from_url(
            url, client_name=f"{name}:pub", retry=Retry(NoBackoff(), 1), socket_keepalive=True
        )
        self._pool = ConnectionPool.from_url(
            url,
            client_name=f"{name}:sub",
            decode_responses=True,
            encoding_errors="replace",
            socket_keepalive=True,
        )
        # RESP2 whatever the URL says: subscription traffic then arrives as plain replies
        # from `read_response` (RESP3 would route it through redis-py's push handlers).
        self._pool.update_connection_kwargs(protocol=2)
        # Subscribing: commands on the shared connection go out under `_lock`.
        self._lock = asyncio.Lock()
        self._conn: AbstractConnection | None = None
        self._server: set[str] = set()  # channels SUBSCRIBEd on the current connection
        # Per channel, one future per SUBSCRIBE (True) / UNSUBSCRIBE (False) awaiting its reply.
        self._acks: dict[str, deque[tuple[bool, asyncio.Future[None]]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._received = 0  # replies read; the watchdog's sign of life
        self._stalled = False  # set by the watchdog when it cancels a read that hangs
        self.reconnects = 0  # times the subscription connection came back (each gave a GAP)
        # Publishing: everything in `_outbox` is settled together through `_sent`.
        self._outbox: list[tuple[str, str]] = []
        self._sent: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._publish_all = self._redis.register_script(_PUBLISH_ALL)
        self._scripting = True  # until Redis refuses scripts (ACL, a Redis-like server)
        self.publish_round_trips = 0  # with `published`, shows how well bursts batch
        self.published = 0

    # Publishing.

    async def publish(self, channel: str, message: bytes | str) -> None:
        await self._post([(channel, as_text(message))])

    async def publish_many(self, messages: Iterable[tuple[str, bytes | str]]) -> None:
        await self._post([(channel, as_text(message)) for channel, message in messages])

    async def _post(self, batch: list[tuple[str, str]]) -> None:
        self._check_open()
        if not batch:
            return
        prefix = self._prefix
        self._outbox.extend((prefix + channel, message) for channel, message in batch)
        sent = self._sent
        if sent is None:
            sent = self._sent = asyncio.get_running_loop().create_future()
            sent.add_done_callback(_retrieve)
        if self._writer is None:
            self._writer = self._spawn(self._write())
        self._wake.set()
        await asyncio.shield(sent)

    async def _write(self) -> None:
        while True:
            sent = self._sent
            if sent is None:
                if self._closed:
                    return
                await self._wake.wait()
                self._wake.clear()
                continue
            batch, self._outbox, self._sent = self._outbox, [], None
            try:
                await self._flush(batch)
            except _FAILED as exc:
                metrics.REDIS_ERRORS.labels("publish").inc()
                _settle(sent, FanoutUnavailable(f"could not publish to Redis: {exc}"))
            except BaseException:
                _settle(sent, FanoutClosed("fan-out closed while publishing"))
                raise
            else:
                _settle(sent)

    async def _flush(self, batch: list[tuple[str, str]]) -> None:
        self.published += len(batch)
        if len(batch) == 1:
            self.publish_round_trips += 1
            await self._redis.publish(*batch[0])
            return
        for start in range(0, len(batch), _MAX_BURST):
            burst = batch[start : start + _MAX_BURST]
            self.publish_round_trips += 1
            if self._scripting:
                try:
                    await self._publish_all(args=[part for pair in burst for part in pair])
                    continue
                except redis_errors.ResponseError as exc:
                    if not _refused(exc):
                        raise  # it may have run in part: resending could duplicate
                    log.warning("fan-out: no scripting (%s); publishing with pipelines", exc)
                    self._scripting = False
            async with self._redis.pipeline(transaction=False) as pipe:
                for channel, message in burst:
                    pipe.publish(channel, message)
                await pipe.execute()

    # Subscribing: keeping Redis in step with the local subscribers.

    def _subscribed(self, names: list[str]) -> Coroutine[Any, Any, None]:
        if self._reader is None:
            self._reader = self._spawn(self._run())
        return self._shielded(self._sync(names))

    def _unsubscribed(self, names: list[str]) -> Coroutine[Any, Any, None]:
        return self._shielded(self._sync(names))

    async def _shielded(self, work: Coroutine[Any, Any, None]) -> None:
        # A caller cancelled mid-write must not cut the connection every subscriber shares
        # (redis-py drops a connection whose send was interrupted).
        await asyncio.shield(self._spawn(work))

    async def _sync(self, names: list[str]) -> None:
        """(UN)SUBSCRIBE `names` as the local subscribers now need, and wait for Redis to
        confirm. While disconnected, the reconnect subscribes everything and confirms."""
        waits: list[asyncio.Future[None]] = []
        async with self._lock:
            if self._closed:
                return
            wanted, server = self._subs, self._server
            drop = [c for c in names if c not in wanted and c in server]
            add = [c for c in names if c in wanted and c not in server]
            if drop:
                server.difference_update(drop)
                if self._usable():
                    waits += self._expect(drop, subscribe=False)
                    await self._command("UNSUBSCRIBE", drop)
            if add:
                server.update(add)
                waits += self._expect(add, subscribe=True)
                if self._usable():
                    await self._command("SUBSCRIBE", add)
            for channel in names:
                if channel in wanted and channel not in add:
                    pending = self._pending_subscribe(channel)
                    if pending is not None:
                        waits.append(pending)
        for future in waits:
            await asyncio.shield(future)

    @property
    def reachable(self) -> bool:
        # the subscription connection is the one that notices an outage at once (a publish
        # notices only when one is tried); before the first subscription, nothing is known
        return self._reader is None or self._usable()

    def _usable(self) -> bool:
        return self._conn is not None and self._conn.is_connected

    async def _command(self, command: str, names: list[str]) -> None:
        conn = self._conn
        assert conn is not None
        prefix = self._prefix
        try:
            await conn.send_command(command, *[prefix + c for c in names], check_health=False)
        except _FAILED as exc:
            # redis-py closed the connection; the reader notices, reconnects and resubscribes.
            log.debug("fan-out: %s failed: %s", command, exc)

    def _expect(self, names: list[str], *, subscribe: bool) -> list[asyncio.Future[None]]:
        loop = asyncio.get_running_loop()
        futures = []
        for channel in names:
            future: asyncio.Future[None] = loop.create_future()
            self._acks.setdefault(channel, deque()).append((subscribe, future))
            futures.append(future)
        return futures

    def _pending_subscribe(self, channel: str) -> asyncio.Future[None] | None:
        for subscribe, future in reversed(self._acks.get(channel, ())):
            if subscribe:
                return future
        return None

    def _acked(self, channel: str) -> None:
        acks = self._acks.get(channel)
        if acks:
            _, future = acks.popleft()
            if not acks:
                del self._acks[channel]
            _settle(future)

    def _settle_acks(self) -> None:
        for acks in self._acks.values():
            for _, future in acks:
                _settle(future)
        self._acks.clear()

    # The reader: one connection, reconnected for as long as the fan-out is open.

    async def _run(self) -> None:
        attempt = 0
        connected_before = False
        while True:
            try:
                conn = await self._connect(gap=connected_before)
            except _FAILED as exc:
                delay = self._backoff(attempt)
                attempt += 1
                metrics.REDIS_ERRORS.labels("subscribe").inc()
                log.warning("fan-out: Redis unreachable (%s); retrying in %.2f s", exc, delay)
                await asyncio.sleep(delay)
                continue
            attempt = 0
            connected_before = True
            reader = asyncio.current_task()
            assert reader is not None
            watchdog = asyncio.create_task(self._watch(conn, reader))
            try:
                await self._read(conn)
            except asyncio.CancelledError:
                if not self._stalled or reader.uncancel() > 0:
                    raise  # closing
                log.warning("fan-out: Redis stopped answering on the subscription connection")
            except _FAILED as exc:
                metrics.REDIS_ERRORS.labels("subscribe").inc()
                log.warning("fan-out: lost the Redis subscription connection (%s)", exc)
            finally:
                watchdog.cancel()
                self._stalled = False
                self._lost(conn)
                await conn.disconnect(nowait=True)

    def _backoff(self, attempt: int) -> float:
        delay = min(self._delay_max, self._delay_min * 2.0 ** min(attempt, 30))
        return delay * random.uniform(0.5, 1.0)

    async def _connect(self, *, gap: bool) -> AbstractConnection:
        conn: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        prefix = self._prefix
        cut = len(prefix)
        try:
            await conn.connect()  # type: ignore[no-untyped-call]
            async with self._lock:
                wanted = list(self._subs)
                early = []
                if wanted:
                    await conn.send_command(
                        "SUBSCRIBE", *[prefix + c for c in wanted], check_health=False
                    )
                    waiting = set(wanted)
                    while waiting:
                        reply = await conn.read_response()
                        if reply[0] == "subscribe":
                            waiting.discard(reply[1][cut:])
                        elif reply[0] == "message":
                            early.append(reply)
                self._conn = conn
                self._server = set(wanted)
                if gap:
                    self.reconnects += 1
                    log.warning("fan-out: reconnected, %d channels resubscribed", len(wanted))
                    self._signal_gap()
                for reply in early:
                    self._dispatch(reply[1][cut:], reply[2])
                self._settle_acks()
        except BaseException:
            await conn.disconnect(nowait=True)
            raise
        return conn

    async def _read(self, conn: AbstractConnection) -> None:
        cut = len(self._prefix)
        dispatch = self._dispatch
        while True:
            # No timeout per read (a timer per message would triple the reader's cost);
            # `_watch` notices silence instead.
            reply = await conn.read_response(timeout=math.inf)
            self._received += 1
            kind = reply[0]
            if kind == "message":
                dispatch(reply[1][cut:], reply[2])
            elif kind == "subscribe" or kind == "unsubscribe":
                self._acked(reply[1][cut:])
            # "pong" only shows the connection is alive.

    async def _watch(self, conn: AbstractConnection, reader: asyncio.Task[None]) -> None:
        """PING a connection that has been silent for a whole interval; if the next interval
        brings nothing either, cancel the hanging read (the reader then reconnects)."""
        interval = self._health_check_interval
        seen, pinged = self._received, False
        while True:
            await asyncio.sleep(interval)
            if self._received != seen:
                seen, pinged = self._received, False
            elif not pinged:
                if not conn.is_connected:
                    return  # the reader is failing already
                try:
                    await conn.send_command("PING", check_health=False)
                except _FAILED:
                    return  # redis-py closed the connection; the read fails with it
                pinged = True
            else:
                self._stalled = True
                reader.cancel()
                return

    def _lost(self, conn: AbstractConnection) -> None:
        """The connection is gone, and with it every subscription and pending UNSUBSCRIBE;
        a pending SUBSCRIBE is confirmed by the reconnect."""
        if self._conn is conn:
            self._conn = None
        self._server.clear()
        for channel, acks in list(self._acks.items()):
            for subscribe, future in acks:
                if not subscribe:
                    _settle(future)
            kept = deque(ack for ack in acks if ack[0])
            if kept:
                self._acks[channel] = kept
            else:
                del self._acks[channel]

    async def _shutdown(self) -> None:
        if self._writer is not None:
            self._wake.set()
            try:
                await asyncio.wait_for(self._writer, _CLOSE_TIMEOUT)
            except TimeoutError:
                log.warning("fan-out: gave up flushing publishes on close")
        if self._sent is not None:
            _settle(self._sent, FanoutClosed("fan-out closed"))
            self._sent = None
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        self._settle_acks()
        await self._redis.aclose()
        await self._pool.disconnect()
