"""Work a busy process takes ahead of its bots' acts: a tournament move's orders.

A tournament's moved player waits, from the hand's end at the old table to the deal at the
new one, for two fenced orders on the process running the tables (stand up there, sit down
here). When that process is saturated (every table of bots acting at once), each step of
those orders waits behind one act of every table. While a move's orders are in hand, a bot's
act due is put off until they are done (at most `HOLD_SECONDS`, so a stuck order never stops
the bots). The table's actor is not held meanwhile: the orders may be for its own table.
People's acts are never put off.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator

HOLD_SECONDS = 1.0


class Hurry:
    def __init__(self) -> None:
        self.urgent = 0
        self._later: list[Callable[[], None]] = []
        self._hold: asyncio.TimerHandle | None = None  # what waits runs then at the latest

    @contextlib.contextmanager
    def first(self) -> Iterator[None]:
        """Urgent work in hand (a `with` around it)."""
        self.urgent += 1
        try:
            yield
        finally:
            self.urgent -= 1
            if self.urgent == 0:
                self._release()

    def later(self, run: Callable[[], None]) -> None:
        """`run()` once no urgent work is in hand, or within `HOLD_SECONDS`."""
        if not self._later:
            self._hold = asyncio.get_running_loop().call_later(HOLD_SECONDS, self._release)
        self._later.append(run)

    def _release(self) -> None:
        later, self._later = self._later, []
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
        for run in later:
            run()


HURRY = Hurry()  # one per process: its tables and the orders they take share its loop
