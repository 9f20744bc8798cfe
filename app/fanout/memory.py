"""`memory://`: the embedded default, one process, no network.

`publish` puts the message straight into each subscriber's queue and never waits: it does
not yield to the event loop, so one burst larger than a subscriber's `queue_size` (256 by
default; a table action produces a few dozen events) drops that subscriber. Nothing is
ever lost otherwise, so no `GAP` is ever signalled.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.fanout.base import BaseFanout, as_text


class MemoryFanout(BaseFanout):
    """In-process publish/subscribe."""

    async def publish(self, channel: str, message: bytes | str) -> None:
        self._check_open()
        self._dispatch(channel, as_text(message))

    async def publish_many(self, messages: Iterable[tuple[str, bytes | str]]) -> None:
        self._check_open()
        dispatch = self._dispatch
        for channel, message in messages:
            dispatch(channel, as_text(message))
