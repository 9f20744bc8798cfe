"""The hand writer: each table's database writes, in order, off the table's hot path.

A table hands over a job (a hand's start row, a finished hand with its settlement, a cash-out
that must follow them) and deals on. One worker task per table runs its jobs in the order they
came. A job that fails for a reason that may pass (the database is slow, locked or briefly
unreachable) is retried with back-off, and nothing behind it runs first; a job the database
refuses for good (a bug) is logged and dropped after a few tries so the queue keeps moving;
one refused by the table's lease (`LeaseLost`: another process runs the table now) at once.

While jobs are pending the table's in-memory stacks are ahead of the database: the seats'
stacks and the escrow catch up when the writer commits. A chip move that reads the database
(a buy-in, a top-up) first waits for the table's queue to drain (`drain`).

Hand writes (a start row, a finished hand) go in together: the head write of every table
that has one, gathered for `window` seconds, is one transaction (`write_many`). A
transaction costs about as much CPU as three statements here, and a hand is two of them;
with hundreds of tables that was a third of the writer's cost. An `urgent` write (a
tournament table's finished hand: its report to the director, and so its next deal, waits
for it) does not wait out the window: it goes with what has gathered so far. If the
transaction fails,
each write goes on its own, with the retries above; each table's order is kept (a table
offers its next write only when the one before is done).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError

from app import logs, metrics
from app.store.errors import LeaseLost, StoreError

log = logging.getLogger("app.tables.writer")

Job = Callable[[], Awaitable[Any]]
WriteMany = Callable[[list[Any]], Awaitable[None]]
PERMANENT_TRIES = 3


@dataclass(slots=True)
class _Queue:
    # (label, job, its future, (what `write_many` takes instead of the job, urgent) or None)
    jobs: deque[tuple[str, Job, asyncio.Future[Any], Any]] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


def is_permanent(exc: BaseException) -> bool:
    """A refusal that retrying will not change (as opposed to a connection or lock problem)."""
    return isinstance(exc, StoreError | IntegrityError | ValueError | TypeError | KeyError)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Nobody need await a job: its failure is logged here, not as "never retrieved"."""
    if not future.cancelled():
        future.exception()


class HandWriter:
    def __init__(
        self,
        *,
        first_backoff: float = 0.05,
        max_backoff: float = 2.0,
        concurrency: int = 4,
        write_many: WriteMany | None = None,
        window: float = 0.0,
    ) -> None:
        self.write_many = write_many
        self.window = window
        self._together: list[tuple[Any, asyncio.Future[bool]]] = []
        self._urgent = False  # an urgent write is among those gathered
        self._window: asyncio.Future[None] | None = None  # the gatherer's wait, while it waits
        self._gatherer: asyncio.Task[None] | None = None
        self.batches = 0  # transactions that wrote several tables' writes (tests, metrics)
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        # jobs running at once, all tables together: hundreds of tables must not take every
        # pooled connection (logins and sockets need some) nor queue on SQLite's write lock
        self.slots = asyncio.Semaphore(concurrency)
        self.queues: dict[int, _Queue] = {}
        self.failures = 0  # transient failures seen (tests, metrics)
        self.dropped = 0
        self._stopping = False

    def submit(
        self, table_id: int, label: str, job: Job, item: Any = None, *, urgent: bool = False
    ) -> asyncio.Future[Any]:
        """Queue `job` behind the table's earlier ones; the future has its result. With an
        `item`, the job may be done by `write_many([... item ...])` with other tables';
        `urgent`, without waiting out the window for more."""
        queue = self.queues.get(table_id)
        if queue is None:
            queue = self.queues[table_id] = _Queue()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_retrieved)
        queue.jobs.append((label, job, future, (item, urgent) if item is not None else None))
        if urgent and item is not None:
            self._hurry()  # a write of the table's that is gathered already goes now too
        queue.idle.clear()
        queue.wake.set()
        if queue.task is None or queue.task.done():
            queue.task = asyncio.get_running_loop().create_task(
                self._work(table_id, queue), name=f"hand-writer-{table_id}"
            )
        return future

    def pending(self, table_id: int | None = None) -> int:
        if table_id is None:
            return sum(len(q.jobs) for q in self.queues.values())
        queue = self.queues.get(table_id)
        return 0 if queue is None else len(queue.jobs)

    async def drain(self, table_id: int | None = None, timeout: float | None = None) -> bool:
        """Wait until the table's (or every) queue is empty; False if `timeout` ran out."""
        queues = (
            list(self.queues.values())
            if table_id is None
            else [q for q in [self.queues.get(table_id)] if q is not None]
        )
        waits = [q.idle.wait() for q in queues if q.jobs]
        if not waits:
            return True
        try:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)
        except TimeoutError:
            return False
        return True

    async def stop(self, timeout: float = 5.0) -> None:
        """Finish what is queued (for at most `timeout` seconds), then stop the workers."""
        await self.drain(timeout=timeout)
        self._stopping = True
        if self._gatherer is not None:
            self._gatherer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._gatherer
        for queue in self.queues.values():
            if queue.task is not None:
                queue.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await queue.task
        left = self.pending()
        if left:
            log.error("hand writer stopped with %d writes not done", left)

    async def _work(self, table_id: int, queue: _Queue) -> None:
        while True:
            if not queue.jobs:
                queue.idle.set()
                queue.wake.clear()
                await queue.wake.wait()
                continue
            label, job, future, together = queue.jobs[0]
            began = metrics.now()
            if (
                together is not None
                and self.write_many is not None
                and await self._with_others(*together)
            ):
                if not future.done():
                    future.set_result(None)
            else:
                await self._run(table_id, label, job, future)
            metrics.WRITE_SECONDS.observe(metrics.since(began))
            queue.jobs.popleft()

    async def _with_others(self, item: Any, urgent: bool) -> bool:
        """Have `item` written with other tables' writes: True once committed, False if that
        transaction failed (then the job runs on its own)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()
        self._together.append((item, done))
        if urgent:
            self._hurry()
        if self._gatherer is None or self._gatherer.done():
            self._gatherer = loop.create_task(self._write_together(), name="hand-writer-batch")
        return await done

    async def _write_together(self) -> None:
        logs.unbind()  # several tables' writes: not the one whose write started this task
        while self._together:
            await self._gather()  # let more tables' writes join this transaction
            batch, self._together, self._urgent = self._together, [], False
            assert self.write_many is not None
            try:
                async with self.slots:
                    await self.write_many([item for item, _ in batch])
            except asyncio.CancelledError:
                for _, done in batch:
                    done.cancel()
                raise
            except Exception as exc:
                log.info(
                    "hand writer: %d writes together failed (%s); each goes on its own",
                    len(batch), type(exc).__name__,
                )  # fmt: skip
                written = False
            else:
                written = True
                self.batches += len(batch) > 1
            for _, done in batch:
                if not done.done():
                    done.set_result(written)

    def _hurry(self) -> None:
        """The next shared transaction goes without waiting out the window."""
        self._urgent = True
        if self._window is not None and not self._window.done():
            self._window.set_result(None)  # the gatherer writes what it has now

    async def _gather(self) -> None:
        """Wait `window` seconds for more writes, or until an urgent one comes."""
        if self._urgent or self.window <= 0:
            await asyncio.sleep(0)  # (as `sleep(window)` did: those ready now join)
            return
        loop = asyncio.get_running_loop()
        self._window = window = loop.create_future()
        timer = loop.call_later(self.window, _settle, window)
        try:
            await window
        finally:
            timer.cancel()
            self._window = None

    async def _run(self, table_id: int, label: str, job: Job, future: asyncio.Future[Any]) -> None:
        delay = self.first_backoff
        refusals = 0
        while True:
            try:
                async with self.slots:
                    result = await job()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_permanent(exc):
                    refusals += 1
                    # another process runs the table now: no retry will be let through
                    if refusals >= PERMANENT_TRIES or isinstance(exc, LeaseLost):
                        self.dropped += 1
                        log.error(
                            "table %s: %s refused by the database, dropped: %s",
                            table_id, label, type(exc).__name__,
                        )  # fmt: skip
                        if not future.done():
                            future.set_exception(exc)
                        return
                else:
                    self.failures += 1
                    log.warning(
                        "table %s: %s not written yet (%s); retrying in %.2fs",
                        table_id, label, type(exc).__name__, delay,
                    )  # fmt: skip
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_backoff)
                continue
            if not future.done():
                future.set_result(result)
            return
