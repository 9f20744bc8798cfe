"""Any process serves any table: a command for a table this process does not run travels to
the process that does (the owner its lease names) through the fan-out, and the answer comes
back. A table run here takes no hop.

Each process follows its own channel (`channels.process(id)`). A request names an op, the
table (or none: a question for the process itself, such as the lobby's lines or "create a
table"), the asking process and a request id; the answer goes to the asker's channel. Ops are
registered by the layers above (`table_op`, `process_op`): the router only carries them.
The other live processes and the lobby's question to all of them: `app.tables.peers`; tables
handed from one process to another: `app.tables.handover`.

Where a table runs: the lease table (`Directory`), cached. A cached owner that answers "not
here" (it let the table go) or not at all within `timeout` seconds is forgotten and the
lease asked again. A table whose lease is free or expired (its owner died, or let it go) is
claimed by the asking process when it has room, else waited for until `timeout`: the
answer is then `table_moving`, and the client tries again. A new owner's notice on the
table's channel (`Connection.pump` hears it) teaches the cache at once (`learn`).

Without a directory (one process, `memory://`), every table is local or does not exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pydantic import ValidationError

from app import metrics
from app.fanout import GAP, BaseFanout, FanoutError, Subscription, channels
from app.jsontext import from_json, to_json
from app.store.directory import Load, Room, Whereabouts
from app.tables import messages as m
from app.tables.errors import TableError
from app.tables.hurry import HURRY
from app.tables.table import Table
from app.wire import process as process_wire

log = logging.getLogger("app.tables.rpc")

ROUTE_TIMEOUT = 5.0  # seconds a routed command waits for the table's owner
INBOX = 65536  # requests and answers one process may have queued before it reads them
_MOVED_CODES = frozenset({"not_here", "table_moved"})

TableOp = Callable[[Table, dict[str, Any]], Awaitable[Any]]
ProcessOp = Callable[[dict[str, Any]], Awaitable[Any]]


class Directory(Protocol):
    async def whereabouts(self, table_id: int) -> Whereabouts: ...
    async def rooms(self) -> list[Room]: ...
    async def loads(self) -> list[Load]: ...


class Tables(Protocol):
    """The tables this process runs (`TableManager`)."""

    draining: bool  # stopping: its tables are handed over already

    def get(self, table_id: int) -> Table | None: ...
    def running(self) -> list[Table]: ...
    def room(self) -> int | None: ...
    def runs_none(self) -> bool: ...
    async def adopt(self, only: list[int] | None = None) -> list[int]: ...
    async def move(
        self,
        table_id: int,
        seconds: float,
        then: Callable[[list[int]], Awaitable[object]],
        *,
        to: str | None = None,
    ) -> bool: ...
    async def take_back(self, table_id: int) -> list[int]: ...


class _NotHere(Exception):
    """The process asked does not run the table (any more)."""


def unreachable() -> TableError:
    return TableError(
        "server_unreachable", "the server running this table did not answer: try again"
    )


def moving() -> TableError:
    return TableError("table_moving", "this table is moving to another server: try again")


def no_such_table() -> TableError:
    return TableError("no_such_table", "no such table")


class TableRouter:
    def __init__(
        self,
        tables: Tables,
        fanout: BaseFanout,
        *,
        me: str,
        directory: Directory | None = None,
        timeout: float = ROUTE_TIMEOUT,
    ) -> None:
        self.tables = tables
        self.fanout = fanout
        self.me = me
        self.directory = directory
        self.timeout = timeout
        self.table_ops: dict[str, TableOp] = {"request": _request, "direct": _direct}
        self.process_ops: dict[str, ProcessOp] = {}
        self.owners: dict[int, str] = {}  # table -> the process last known to run it
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._sub: Subscription | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listener: asyncio.Task[None] | None = None

    def table_op(self, name: str, op: TableOp) -> None:
        self.table_ops[name] = op

    def process_op(self, name: str, op: ProcessOp) -> None:
        self.process_ops[name] = op

    def learn(self, table_id: int, owner: str) -> None:
        """`owner` runs the table now (its notice was heard)."""
        self.owners[table_id] = owner

    # -- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        if self.directory is None:
            return  # one process: nothing is ever routed
        self._sub = self.fanout.subscribe(channels.process(self.me), queue_size=INBOX)
        await self._sub
        self._listener = asyncio.get_running_loop().create_task(self._listen(), name="router")

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        if self._sub is not None:
            await self._sub.close()
        for task in list(self._tasks):
            task.cancel()
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(unreachable())
        self._waiting.clear()

    # -- asking ----------------------------------------------------------------------------

    async def request(self, table_id: int, msg: m.Message) -> Any:
        """A table message, answered by the table wherever it runs (the hot path: a local
        table is asked directly, the message never serialised)."""
        table = self.tables.get(table_id)
        if table is not None:
            try:
                return await table.request(msg)
            except TableError as exc:
                if exc.code not in _MOVED_CODES or self.directory is None:
                    raise
            # it let the table go, or is not sure it still runs it: ask who does
            return await self.ask(table_id, "request", {"msg": m.to_wire(msg)}, local=False)
        return await self.ask(table_id, "request", {"msg": m.to_wire(msg)})

    def post(self, table_id: int, msg: m.Message) -> None:
        """A table message nobody waits for (a socket closed): sent, its answer dropped."""
        table = self.tables.get(table_id)
        if table is not None:
            table.post(msg)
            return
        if self.directory is not None:
            self._spawn(self._post(table_id, msg))

    async def _post(self, table_id: int, msg: m.Message) -> None:
        with contextlib.suppress(TableError):
            await self.ask(table_id, "request", {"msg": m.to_wire(msg)})

    async def ask(self, table_id: int, op: str, args: dict[str, Any], *, local: bool = True) -> Any:
        """Run table op `op` where the table runs; its refusal raises `TableError` here.
        `local=False`: the table here just said it may not run here any more (it let the
        table go, or its lease is in doubt): find its owner before asking it again."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            table = self.tables.get(table_id) if local else None
            if table is not None:
                try:
                    return await self.table_ops[op](table, args)
                except TableError as exc:
                    if exc.code not in _MOVED_CODES or self.directory is None:
                        raise
                if loop.time() >= deadline:
                    raise moving() from None
                local = False  # it moved on (or may have) while we asked: find where
                continue
            if self.directory is None:
                raise no_such_table()
            owner = await self._owner(table_id, deadline)
            if owner is None:  # it runs here (claimed just now, or its lease not yet lost)
                if not local:  # it said it may not: until a renewal settles it, wait
                    if loop.time() >= deadline:
                        raise moving()
                    await asyncio.sleep(0.1)
                local = True
                continue
            try:
                return await self._send(owner, op, args, deadline, table_id)
            except _NotHere:
                if self.owners.get(table_id) == owner:
                    del self.owners[table_id]
                if loop.time() >= deadline:
                    raise moving() from None

    async def _owner(self, table_id: int, deadline: float) -> str | None:
        """The process running the table, other than this one (None: this one, now)."""
        cached = self.owners.get(table_id)
        if cached is not None and cached != self.me:
            return cached
        assert self.directory is not None
        loop = asyncio.get_running_loop()
        while True:
            try:
                where = await self.directory.whereabouts(table_id)
            except Exception as exc:  # the database is away: the asker tries again
                log.warning("router: where table %s runs is unknown (%s)", table_id, exc)
                raise TableError(
                    "unavailable", "the servers cannot find this table just now: try again"
                ) from None
            if not where.open:
                self.owners.pop(table_id, None)
                raise no_such_table()
            if where.owner is not None and where.owner != self.me:
                self.owners[table_id] = where.owner
                return where.owner
            # nobody runs it (its owner died or let it go), it was given here and is not
            # taken yet, or our claim is still starting
            room = self.tables.room()  # None: no limit
            if where.owner in (None, self.me) and (room is None or room > 0):
                await self.tables.adopt([table_id])
            if self.tables.get(table_id) is not None:
                return None
            if loop.time() >= deadline:
                raise moving()
            await asyncio.sleep(0.1)  # another process's heartbeat claims it

    async def ask_process(
        self, process: str, op: str, args: dict[str, Any], *, timeout: float | None = None
    ) -> Any:
        """Run process op `op` on `process` (this one: directly), waiting `timeout` seconds
        for the answer (the router's own when None)."""
        if process == self.me or self.directory is None:
            return await self.process_ops[op](args)
        wait = self.timeout if timeout is None else timeout
        deadline = asyncio.get_running_loop().time() + wait
        return await self._send(process, op, args, deadline, None)

    async def _send(
        self, process: str, op: str, args: dict[str, Any], deadline: float, table_id: int | None
    ) -> Any:
        rid, began = secrets.token_hex(8), metrics.routed()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        body = process_wire.Request(
            v=process_wire.VERSION, id=rid, from_=self.me, op=op, table=table_id, args=args
        )
        try:
            try:
                text = body.model_dump_json(by_alias=True)
                await self.fanout.publish(channels.process(process), text)
            except FanoutError:
                raise TableError(
                    "unavailable", "the servers cannot reach each other just now: try again"
                ) from None
            left = max(0.0, deadline - asyncio.get_running_loop().time())
            try:
                return await asyncio.wait_for(future, left)
            except TimeoutError:
                metrics.ROUTED_TIMEOUTS.inc()
                log.warning("router: %s for table %s: no answer from %s", op, table_id, process)
                if table_id is not None and self.owners.get(table_id) == process:
                    del self.owners[table_id]  # dead or paused: ask the lease next time
                raise unreachable() from None
        finally:
            self._waiting.pop(rid, None)
            metrics.ROUTED_SECONDS.observe(metrics.since(began))

    # -- answering -------------------------------------------------------------------------

    async def _listen(self) -> None:
        assert self._sub is not None
        async for _channel, text in self._sub:
            if text is GAP:  # answers lost meanwhile time out; requests are asked again
                continue
            try:
                body = from_json(text)
            except ValueError:
                log.warning("router: ignoring a malformed message")
                continue
            if not isinstance(body, dict):
                continue
            if "re" in body:
                self._replied(body)
            else:
                self._spawn(self._answer(body))

    def _replied(self, body: dict[str, Any]) -> None:
        try:
            reply = process_wire.Reply.model_validate(body)
        except ValidationError:
            log.warning("router: ignoring a malformed reply")
            return
        future = self._waiting.get(reply.re)
        if future is None or future.done():
            return
        refused = process_wire.version_refused(body)
        if refused is not None:
            future.set_exception(TableError("unsupported_version", refused))
        elif reply.error is None:
            future.set_result(reply.ok)
        elif reply.error[0] == "not_here":
            future.set_exception(_NotHere())
        else:
            future.set_exception(TableError(*reply.error))

    async def _answer(self, body: dict[str, Any]) -> None:
        asker = body.get("from")
        if not isinstance(asker, str):
            return  # nobody to answer
        answer = process_wire.Reply(v=process_wire.VERSION, re=str(body.get("id")))
        try:
            refused = process_wire.version_refused(body)
            if refused is not None:  # a newer release's: said so, never half understood
                raise TableError("unsupported_version", refused)
            try:
                request = process_wire.Request.model_validate(body)
            except ValidationError:
                raise TableError("invalid_request", "malformed routed request") from None
            answer = answer.model_copy(update={"ok": await self._run(request)})
        except TableError as exc:
            answer = answer.model_copy(update={"error": (exc.code, exc.message)})
        except Exception:
            log.exception("router: %s failed", body.get("op"))
            error = ("internal_error", "the server could not do that")
            answer = answer.model_copy(update={"error": error})
        try:
            await self.fanout.publish(channels.process(asker), to_json(answer.model_dump()))
        except FanoutError as exc:  # the asker times out
            log.warning("router: answer to %s lost (%s)", asker, exc)

    async def _run(self, request: process_wire.Request) -> Any:
        op, args, table_id = request.op, request.args, request.table
        if table_id is None:
            process_op = self.process_ops.get(op)
            if process_op is None:
                raise TableError("invalid_request", f"unknown op {op}")
            return await process_op(args)
        table_op = self.table_ops.get(op)
        if table_op is None:
            raise TableError("invalid_request", f"unknown op {op}")
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("not_here", "this process does not run that table")
        try:
            return await table_op(table, args)
        except TableError as exc:
            if exc.code == "table_moved":  # it stopped here while asked: the asker looks again
                raise TableError("not_here", exc.message) from None
            raise

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _request(table: Table, args: dict[str, Any]) -> Any:
    return await table.request(m.from_wire(args.get("msg")))


async def _direct(table: Table, args: dict[str, Any]) -> Any:
    """A tournament director's orders (from any process), checked by their model."""
    try:
        orders = process_wire.DirectorOrders.model_validate(args)
    except ValidationError:
        raise TableError("invalid_message", "not a director's orders") from None
    if orders.seat or orders.unseat:  # a move: ahead of the bots' acts (`hurry`)
        with HURRY.first():
            return await table.request(orders)
    return await table.request(orders)


class RoutedTable:
    """One table as a socket sees it, wherever it runs: the table's id and how to ask it."""

    __slots__ = ("id", "router")

    def __init__(self, router: TableRouter, table_id: int) -> None:
        self.router = router
        self.id = table_id

    async def request(self, msg: m.Message) -> Any:
        return await self.router.request(self.id, msg)

    def post(self, msg: m.Message) -> None:
        self.router.post(self.id, msg)

    async def join(self, user_id: int) -> Any:
        """A socket of `user_id`'s, held by this process, watches the table."""
        return await self.request(m.Join(user_id, self.router.me))

    def unwatch(self, user_id: int) -> None:
        self.post(m.Unwatch(user_id, self.router.me))
