"""`Inbox`: a first-in-first-out queue with exactly one reader task (a table's mailbox, a
subscriber's send queue).

`asyncio.Queue` asks for the running loop on every wait, and on Python 3.11 that costs a
`getpid()` system call each time; at a few thousand waits a second it was 6% of the table
server's CPU. One reader needs one waiter, so this keeps the loop from the first wait.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class InboxFull(Exception):
    """`put_nowait` on an inbox holding `maxsize` items."""


class Inbox(Generic[T]):
    __slots__ = ("_items", "_loop", "_waiter", "maxsize")

    def __init__(self, maxsize: int = 0) -> None:
        self.maxsize = maxsize  # 0: unbounded
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: T) -> None:
        """Never waits; raises `InboxFull` at `maxsize`."""
        if self.maxsize and len(self._items) >= self.maxsize:
            raise InboxFull
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def put_first(self, item: T) -> None:
        """Ahead of every item held (never refused: an urgent item is not the one too many)."""
        self._items.appendleft(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> T:
        """The oldest item; `IndexError` when empty."""
        return self._items.popleft()

    def peek(self) -> T | None:
        """The oldest item, left in; None when empty."""
        return self._items[0] if self._items else None

    def take_all(self) -> list[T]:
        """Every item, oldest first; the inbox is empty after."""
        items = list(self._items)
        self._items.clear()
        return items

    def clear(self) -> None:
        self._items.clear()

    def ready(self) -> asyncio.Future[None]:
        """Done once an item is in: for a reader that then takes what is there itself. One
        future object per wait, no coroutine: with thousands of sockets waiting, the objects
        each wait keeps alive are what the garbage collector walks."""
        waiter = self._waiter
        if waiter is not None:
            if not waiter.done():
                raise RuntimeError("an Inbox has one reader")
            self._waiter = None  # its reader was cancelled
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        if self._items:
            waiter.set_result(None)
        else:
            self._waiter = waiter
        return waiter

    async def get(self) -> T:
        """The oldest item, waiting for one. Only one task may wait at a time."""
        items = self._items
        while not items:
            waiter = self.ready()
            try:
                await waiter
            finally:
                if self._waiter is waiter:  # cancelled while waiting
                    self._waiter = None
        return items.popleft()
