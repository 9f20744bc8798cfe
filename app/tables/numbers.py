"""A table's reserve of hand numbers, so that dealing a hand never waits on the database.

Hand numbers come from one counter shared by every table and server process
(`app.store.hands.reserve_numbers`). A table takes them a block at a time: it reserves the
first block when it starts and the next one, in the background, as soon as half of what it
holds is used, so in play the reserve never runs dry. If the database stays away long enough
for it to run dry anyway, the table deals no new hand until numbers come (its hands could not
be recorded either); the reservation is retried with back-off meanwhile.

Numbers a table reserved and did not deal (it stopped, the server restarted) are never used:
the numbers grow with time at each table and across the site, with gaps.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable

log = logging.getLogger("app.tables.numbers")

BLOCK = 10  # numbers per reservation: one database trip per ten hands at a table


class HandNumbers:
    """`take()` the next number, or None while the reserve is empty. `reserve(count)` asks the
    database for a block; `arrived(block)` is called with it (the table posts it to itself,
    and the handler calls `add`)."""

    def __init__(
        self,
        reserve: Callable[[int], Awaitable[range]],
        arrived: Callable[[range], None],
        *,
        block: int = BLOCK,
        first_backoff: float = 0.05,
        max_backoff: float = 2.0,
    ) -> None:
        self.reserve = reserve
        self.arrived = arrived
        self.block = block
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self.blocks: deque[range] = deque()
        self.task: asyncio.Task[None] | None = None
        self.asked = False  # a block is on its way (reserving, or posted and not yet added)
        self.short = False  # a hand found the reserve empty and waits for this block

    def available(self) -> int:
        return sum(len(b) for b in self.blocks)

    def take(self) -> int | None:
        while self.blocks and not self.blocks[0]:
            self.blocks.popleft()
        if not self.blocks:
            self.short = True
            self.refill()
            return None
        head = self.blocks[0]
        self.blocks[0] = head[1:]
        self.refill()
        return head[0]

    def add(self, block: range) -> bool:
        """Keep `block`; True if a hand was waiting for it."""
        self.blocks.append(block)
        self.asked = False
        short, self.short = self.short, False
        return short

    def refill(self) -> None:
        """Reserve the next block in the background when half of this one is used."""
        if self.asked or self.available() > self.block // 2:
            return
        self.asked = True
        self.task = asyncio.get_running_loop().create_task(self._fetch(), name="hand-numbers")

    async def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _fetch(self) -> None:
        delay = self.first_backoff
        while True:
            try:
                block = await self.reserve(self.block)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "hand numbers not reserved yet (%s); retrying in %.2fs",
                    type(exc).__name__, delay,
                )  # fmt: skip
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_backoff)
                continue
            self.arrived(block)
            return
