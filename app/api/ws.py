"""The table WebSocket: `/ws/tables/{id}` (docs/protocol.md).

On connect: the socket must come from this site, by the rule every state-changing HTTP
request passes (`security.from_this_site`: its `Origin` and `Sec-Fetch-Site`), the client
must be logged in (bearer header or the session cookie; never a token in the URL), and a
private table needs its invite (`?invite=`, or an earlier `POST /api/tables/join`). The socket
follows the table's public channel and its own user's private channel at that table, nothing
else: the table sends a seat's face-down cards to the user it seated there, so no request of
the client's opens, even for a moment, a channel it may not hear. `?last_v=&epoch=` on
reconnect brings what was missed (or a snapshot). A logout closes the session's sockets.

One task reads the client's messages and asks the table; another forwards the fan-out's
events. The subscription's bounded queue is the client's send queue: a client that falls
behind is dropped (close code 4008) and resyncs when it reconnects; the table never waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from app import metrics
from app.api.lobby import Player, TableServices, authenticate, get_services
from app.api.security import from_this_site
from app.api.wsout import Out, build
from app.fanout import GAP, Subscription, SubscriptionOverflow, channels
from app.fanout.base import Item
from app.jsontext import from_json, to_json
from app.tables import TableError
from app.tables import messages as m
from app.tables.rpc import RoutedTable, TableRouter
from app.wire import client as c
from app.wire.envelope import NOTICE_V, version_of
from app.wire.events import Error, Ok
from app.wire.limits import MAX_FRAME, REF_MAX
from app.wire.process import OwnerNotice

log = logging.getLogger("app.api.ws")
router = APIRouter()

RATE = 20.0  # messages per second, sustained
BURST = 40.0
MAX_REFUSED = 200  # rate-limited messages before the socket is closed
SEND_QUEUE = 512  # events a client may fall behind before it is dropped
SEND_TIMEOUT = 10.0  # seconds a client may take to accept what is sent before it is dropped
SLOW_LOOK = 1.0  # seconds between looks for such a client (`SlowClients`)
CLOSE_POLICY = 1008
CLOSE_UNSUPPORTED = 1003  # a binary frame: this protocol is text (JSON)
CLOSE_SLOW = 4008
CLOSE_NO_TABLE = 4004
CLOSE_AUTH = 4001
CLOSE_TRY_AGAIN = 1013  # the table could not be reached just now: reconnect
CATCH_UP_BACKOFF = 2.0  # seconds between attempts to catch up, at most


class RateLimit:
    __slots__ = ("last", "refused", "tokens")

    def __init__(self) -> None:
        self.tokens = BURST
        self.last = time.monotonic()
        self.refused = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.last) * RATE)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False


class SlowClients:
    """Drops a client that takes more than `SEND_TIMEOUT` to accept what is sent (it stopped
    reading): a look every `SLOW_LOOK` seconds over the open connections, which cancels the
    sending task of one that has been in the middle of a send too long. A send only notes
    when it began (`Connection.since`, `sender`): an `asyncio.timeout` around each one cost
    a timer armed and cancelled at each of thousands of wake-ups a second, where a send
    almost never waits at all."""

    def __init__(self) -> None:
        self.open: set[Connection] = set()
        self._task: asyncio.Task[None] | None = None

    def add(self, conn: Connection) -> None:
        self.open.add(conn)
        loop = asyncio.get_running_loop()
        watch = self._task
        if watch is None or watch.done() or watch.get_loop() is not loop:
            self._task = loop.create_task(self._look(), name="slow-clients")

    def discard(self, conn: Connection) -> None:
        self.open.discard(conn)

    async def _look(self) -> None:
        loop = asyncio.get_running_loop()
        while self.open:
            await asyncio.sleep(SLOW_LOOK)
            now = loop.time()
            for conn in list(self.open):
                task = conn.sender
                late = task is not None and now - conn.since > SEND_TIMEOUT
                if late and task is not None and task.get_loop() is loop:
                    conn.sender = None
                    conn.too_slow = True
                    task.cancel()


SLOW = SlowClients()


class Corked:
    """The sockets given events at delivery in this loop pass (`Connection._take_now`):
    each gets them in one write when the pass ends, one callback for all of them."""

    __slots__ = ("_dirty", "_loop")
    _of: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Corked]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._dirty: list[Connection] = []

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> Corked:
        corked = cls._of.get(loop)
        if corked is None:
            corked = cls._of[loop] = cls(loop)
        return corked

    def add(self, conn: Connection) -> None:
        if not self._dirty:
            self._loop.call_soon(self._flush)
        self._dirty.append(conn)

    def _flush(self) -> None:
        dirty, self._dirty = self._dirty, []
        for conn in dirty:
            try:
                conn.write_pending()
            except Exception:  # one socket's failure is its own; the others are written
                log.exception("table %s: writing to a socket failed", conn.table.id)


# a text is delivered to every socket at its table in one go: the cache need only outlive that
_QUICK_CACHE = 1024
_quick_cache: dict[str, tuple[int, bytes] | None] = {}


def _quick(text: str) -> tuple[int, bytes] | None:
    """An event's number and frame, once a text (every socket at the table holds the same
    one), or None for what only the pump handles: an owner notice, a move."""
    try:
        return _quick_cache[text]
    except KeyError:
        pass
    if len(_quick_cache) >= _QUICK_CACHE:
        _quick_cache.clear()
    v = version_of(text)
    quick = None if v == NOTICE_V or '"moved"' in text else (v, build(text))
    _quick_cache[text] = quick
    return quick


class Connection:
    """One client's socket at one table, wherever the table runs (`RoutedTable`)."""

    def __init__(
        self, ws: WebSocket, table: RoutedTable, player: Player, sub: Subscription
    ) -> None:
        self.ws = ws
        self.out = Out(ws)  # the frames' way out (straight to the transport where it can)
        self.table = table
        self.player = player
        self.sub = sub
        self.last_sent = 0
        self.epoch: str | None = None  # the table's, as the last resync said
        self.lock = asyncio.Lock()
        # the task in the middle of a send, and since when (`SlowClients` looks at them)
        self.sender: asyncio.Task[Any] | None = None
        self.since = 0.0
        self.too_slow = False  # `SlowClients` cancelled a send of ours: a `TimeoutError`
        loop = asyncio.get_running_loop()
        self._clock = loop.time
        # While the pump waits with nothing queued, an event is framed at delivery and
        # written at the end of the loop pass with the rest of that pass's (`Corked`): the
        # pump is not woken once per socket per action. Only the pump handles anything else.
        self.idle = False
        self._pending: list[bytes] = []
        self._pending_chars = 0
        self._corked = Corked.of(loop)
        self._writable: asyncio.Event = asyncio.Event()
        if self.out.proto is not None and self.out.can_write():  # plain: no compression
            self._writable = self.out.proto.writable  # uvicorn's: cleared while the client lags
            sub.direct = self._take_now

    def _take_now(self, item: Item) -> bool:
        """`Subscription.direct`: an event for a socket whose pump is idle and that can be
        written to now is framed here and written once this loop pass ends; False (queue it
        for the pump) for a gap, an owner notice, a move, or a socket that cannot take it now."""
        if not self.idle or self.lock.locked():
            return False
        text = item[1]
        if text is GAP:
            return False
        quick = _quick(text)
        if quick is None:
            return False
        v, data = quick
        if v <= self.last_sent:
            return True  # already sent
        if not self._writable.is_set():
            return False  # the client is not reading: the pump waits for it, as uvicorn does
        self.last_sent = v
        if not self._pending:
            self._corked.add(self)
        self._pending.append(data)
        self._pending_chars += len(text)
        return True

    def write_pending(self) -> None:
        """Write what `_take_now` took (before anything sent after it)."""
        pending = self._pending
        if not pending:
            return
        self._pending = []
        chars, self._pending_chars = self._pending_chars, 0
        if self.out.can_write():
            self.out.write(pending)
            metrics.frames_sent(len(pending), chars)
        # else the socket is closing (a close sent or received, or its transport lost): what
        # it had not been sent goes with it, as with anything still in its queue

    async def send(self, text: str) -> None:
        async with self.lock:
            self.write_pending()
            self.since, self.sender = self._clock(), asyncio.current_task()
            try:
                await self.out.send((text,))
            except asyncio.CancelledError:
                self._timed_out()
                raise
            finally:
                self.sender = None

    def _timed_out(self) -> None:
        """A send cancelled by `SlowClients` is a `TimeoutError`, as under `asyncio.timeout`
        (any other cancellation goes on as one)."""
        if self.too_slow:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            raise TimeoutError("the client took too long to accept what was sent")

    async def reply(self, data: dict[str, Any]) -> None:
        await self.send(to_json(data))

    async def resync(
        self, last_v: int | None, epoch: str | None, *, left: str | None = None
    ) -> None:
        """Send what the client missed after `last_v` of `epoch` (or a snapshot). `left`: an
        epoch the table has moved on from (an owner notice said so): an answer still in it
        comes from a stale owner and is refused before anything is sent."""
        answer = await self.table.request(m.Resync(self.player.user_id, last_v, epoch))
        if left is not None and answer["epoch"] == left:
            raise TableError("table_moving", "the table's old server answered: try again")
        async with self.lock, asyncio.timeout(SEND_TIMEOUT):
            self.write_pending()
            texts: list[str] = list(answer["events"])
            if answer["snapshot"] is not None:
                texts.insert(0, to_json(answer["snapshot"]))
            if texts:
                await self.out.send(texts)
            self.last_sent = answer["v"]
            self.epoch = answer["epoch"]

    async def catch_up(self, moved: bool) -> None:
        """After a gap in the fan-out, or when the table has a new owner (a failover or a
        move: be counted there first), send the client what it missed (or a snapshot of the
        new epoch), without it reconnecting. While the table cannot be reached (Redis or its
        process away a moment, or its old owner not yet sure it lost it), try again with
        back-off; events wait in the queue meanwhile (a client that falls too far behind is
        dropped and reconnects). A table found in another epoch than the one followed is
        joined there too (a gap can hide a move)."""
        delay = 0.1
        left = self.epoch if moved else None
        joined = False
        while True:
            try:
                if moved and not joined:
                    await self.table.join(self.player.user_id)
                    joined = True
                before = self.epoch
                await self.resync(self.last_sent, self.epoch, left=left)
                moved = moved or self.epoch != before
                if moved and not joined:
                    await self.table.join(self.player.user_id)
                    joined = True
                return
            except TableError as exc:
                log.info("table %s: catching up waits (%s)", self.table.id, exc.code)
            await asyncio.sleep(delay)
            delay = min(delay * 2, CATCH_UP_BACKOFF)

    async def _idle(self) -> None:
        """Wait for something queued; meanwhile events are taken at delivery (`_take_now`).
        A bare future: with thousands of sockets waiting, what each wait keeps alive is
        what young collections walk."""
        self.idle = True
        try:
            await self.sub.ready()
        finally:
            self.idle = False
        self.write_pending()  # taken at delivery: it goes before what was queued

    async def pump(self) -> None:
        """Forward the table's events in order, each once: everything queued at a wake-up
        goes out under one hold of the send lock, in one write. A client that takes more
        than `SEND_TIMEOUT` seconds to take them (it stopped reading) is dropped."""
        sub = self.sub
        out = self.out
        while True:
            try:
                items = sub.take()
            except StopAsyncIteration:
                return
            if not items:
                del items  # not even the empty list is kept alive while thousands wait
                await self._idle()
                continue
            gap = moved = False
            follow: int | None = None
            batch: list[str] = []
            frames = chars = 0
            async with self.lock:
                self.since, self.sender = self._clock(), asyncio.current_task()
                try:
                    for _channel, text in items:
                        if text is GAP:
                            gap = True
                            break
                        v = version_of(text)
                        if v == NOTICE_V:
                            moved = self._heard_owner(text)
                            if moved:
                                break  # what follows is the new owner's: the resync brings it
                            continue
                        if v <= self.last_sent:
                            continue  # already sent (a resync, or a placeholder's private twin)
                        batch.append(text)
                        self.last_sent = v
                        if '"moved"' in text:
                            follow = self._moved_to(text)
                            if follow is not None:
                                break  # the rest is the old table's: this player left it
                    if batch:
                        await out.send(batch)
                        frames, chars = len(batch), sum(map(len, batch))
                except asyncio.CancelledError:
                    self._timed_out()
                    raise
                finally:
                    self.sender = None
                    metrics.frames_sent(frames, chars)
            if follow is not None:
                await self.follow(follow)
            elif moved or gap:
                metrics.GAPS_RESYNCED.inc(gap)
                await self.catch_up(moved)

    def _moved_to(self, text: str) -> int | None:
        """The table this socket's player was moved to by their tournament's director; None
        for a new seat at this same table (a final table's redraw), whose events go on."""
        body = from_json(text)
        if body.get("type") == "moved" and body.get("user_id") == self.player.user_id:
            to = body.get("to_table")
            return to if isinstance(to, int) and to != self.table.id else None
        return None

    async def follow(self, table_id: int) -> None:
        """The player's page follows them to their new table without a reconnect: the socket
        follows that table's channels instead (the table seated them there: its director's
        word, never the client's) and sends its snapshot."""
        user = self.player.user_id
        old = self.table
        new = RoutedTable(old.router, table_id)
        await self.sub.add(channels.table(table_id), channels.user(table_id, user))
        await self.sub.remove(channels.table(old.id), channels.user(old.id, user))
        old.unwatch(user)
        self.table, self.last_sent, self.epoch = new, 0, None
        await self.catch_up(True)

    def _heard_owner(self, text: str) -> bool:
        """An owner notice: True if it is news (another epoch than the one followed)."""
        try:
            notice = OwnerNotice.model_validate_json(text)
        except ValidationError:
            log.warning("table %s: ignoring a malformed owner notice", self.table.id)
            return True  # still a word that the owner changed: resync to be sure
        if notice.epoch == self.epoch:
            return False
        self.table.router.learn(self.table.id, notice.owner)
        return True


@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: int) -> None:
    services = get_services(ws)
    if not from_this_site(ws.headers, services.allowed_origins):
        await ws.close(code=CLOSE_POLICY, reason="origin not allowed")
        return
    player = await authenticate(ws, services)
    if player is None:
        await ws.close(code=CLOSE_AUTH, reason="log in first")
        return
    try:
        entered = await admitted(ws, services.router, table_id, player)
    except TableError as exc:  # moving, or its process unreachable a moment: try again
        await ws.close(code=CLOSE_TRY_AGAIN, reason=exc.message[:100])
        return
    if not entered:
        await ws.close(code=CLOSE_NO_TABLE, reason="no such table")
        return
    await ws.accept()
    await serve(ws, RoutedTable(services.router, table_id), player, services)


async def admitted(ws: WebSocket, router: TableRouter, table_id: int, player: Player) -> bool:
    """The table exists (on whichever process runs it) and this player may watch it: it is
    theirs to see, or they bring its invite (`?invite=`). `TableError` if the process that
    runs it could not be asked."""
    args = {"user": player.user_id, "invite": ws.query_params.get("invite")}
    try:
        return bool(await router.ask(table_id, "enter", args))
    except TableError as exc:
        if exc.code == "no_such_table":
            return False
        raise


def _int(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


async def serve(ws: WebSocket, table: RoutedTable, player: Player, services: TableServices) -> None:
    # the user's own channel from the start: the table addresses a seat's private events to
    # the user it seated there, so this socket never follows anything it could be refused
    sub = services.fanout.subscribe(
        channels.table(table.id), channels.user(table.id, player.user_id), queue_size=SEND_QUEUE
    )
    conn = Connection(ws, table, player, sub)
    SLOW.add(conn)
    pump: asyncio.Task[None] | None = None
    watching = False
    if services.sockets is not None:
        services.sockets.add(player.session_id, ws)
    metrics.HOT.sockets += 1
    try:
        await sub
        await table.join(player.user_id)
        watching = True
        await conn.resync(_int(ws.query_params.get("last_v")), ws.query_params.get("epoch"))
        pump = asyncio.create_task(conn.pump())
        reader = asyncio.create_task(read(conn))
        done, _ = await asyncio.wait({pump, reader}, return_when=asyncio.FIRST_COMPLETED)
        if pump in done and not pump.cancelled():
            failed = pump.exception()
            if isinstance(failed, SubscriptionOverflow | TimeoutError):
                metrics.SENDS_DROPPED.inc()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(CLOSE_SLOW, "too slow: reconnect"), 1.0)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader
    except WebSocketDisconnect:
        pass
    except TableError as exc:  # the table's process could not be reached: try again
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(CLOSE_TRY_AGAIN, exc.message[:100]), 1.0)
    except TimeoutError:  # the client stopped reading while being caught up
        metrics.SENDS_DROPPED.inc()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(CLOSE_SLOW, "too slow: reconnect"), 1.0)
    finally:
        SLOW.discard(conn)
        metrics.HOT.sockets -= 1
        if services.sockets is not None:
            services.sockets.discard(player.session_id, ws)
        if watching:
            conn.table.unwatch(player.user_id)  # the observer count (at the table it ends at)
        if pump is not None:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
        await sub.close()


async def read(conn: Connection) -> None:
    ws = conn.ws
    limit = RateLimit()
    while True:
        try:
            frame = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        text = frame.get("text")
        if text is None:  # a binary frame
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(CLOSE_UNSUPPORTED, "text frames only (JSON)"), 1.0)
            return
        # counted before anything else: an oversized or malformed frame is a message too
        if not limit.allow():
            if limit.refused > MAX_REFUSED:
                await ws.close(CLOSE_POLICY, "too many messages")
                return
            await conn.reply(Error(ref_of(text), "rate_limited", "slow down").body())
            continue
        if len(text) > MAX_FRAME or len(text.encode()) > MAX_FRAME:
            await conn.reply(
                Error(None, "too_large", f"messages are at most {MAX_FRAME} bytes").body()
            )
            continue
        try:
            await handle(conn, text)
        except (WebSocketDisconnect, TimeoutError):
            raise
        except Exception:
            if ws.application_state is not WebSocketState.CONNECTED:
                return  # it went away while answered
            # a bug of ours: said in the log and to the client, and the socket stays open
            log.exception("table %s: failed handling a client's message", conn.table.id)
            await conn.reply(Error(ref_of(text), "internal_error", "the server failed").body())


def ref_of(text: str) -> str | None:
    if len(text) > MAX_FRAME:
        return None  # not parsed: not worth the work
    try:
        data = from_json(text)
    except ValueError:
        return None
    ref = data.get("ref") if isinstance(data, dict) else None
    return ref[:REF_MAX] if isinstance(ref, str) else None


async def handle(conn: Connection, text: str) -> None:
    try:
        data = from_json(text)
    except ValueError:
        await conn.reply(Error(None, "bad_json", "that is not JSON").body())
        return
    if not isinstance(data, dict):  # pydantic's error for it names no field
        what = "a message is a JSON object with a `type`"
        await conn.reply(Error(None, "invalid_message", what).body())
        return
    ref = data.get("ref") if isinstance(data.get("ref"), str) else None
    try:
        msg = c.client_message.validate_python(data)
    except ValidationError as exc:
        code, message = c.refusal(exc)
        await conn.reply(Error(ref[:REF_MAX] if ref else None, code, message).body())
        return
    local = LOCAL.get(type(msg))
    try:
        if local is not None:
            result = await local(conn, msg)
        else:  # the table's command, the catalog's model itself (`app.tables.table._RULES`)
            player = conn.player
            ask = m.Ask(player.user_id, player.name, conn.table.router.me, msg)
            result = await conn.table.request(ask)
    except TableError as exc:
        await conn.reply(Error(msg.ref, exc.code, exc.message).body())
        return
    await conn.reply(Ok(msg.ref, result).body())


# -- the few client messages the socket answers itself; the table answers all the others --


async def _ping(conn: Connection, msg: c.Ping) -> dict[str, Any]:
    return {"pong": True}


async def _resync(conn: Connection, msg: c.ResyncMsg) -> dict[str, Any]:
    await conn.resync(msg.last_v, msg.epoch)
    return {"v": conn.last_sent}


LOCAL: dict[type[c.ClientMessage], Callable[[Connection, Any], Awaitable[Any]]] = {
    c.Ping: _ping,
    c.ResyncMsg: _resync,
}
