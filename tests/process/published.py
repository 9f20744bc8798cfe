"""What the table's owners really published, heard by a Redis subscriber of the test's own,
and the check that a client was told nothing else: every numbered event a socket sent is one
that the owner of its epoch published (on the table's channel, or on that user's own), every
snapshot after a change of owner is of the new owner's epoch, and numbering is contiguous
within each epoch (`check_frames`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aredis

from app.fanout import channels
from tests.process.cluster import check_frames
from tests.serverproc import Frame, Player

FIRST = "first"  # the epoch of the table's first owner: it made the table, announced nothing


class Published:
    """Every message on one table's channels, in the order Redis delivered them."""

    def __init__(self, redis_url: str, namespace: str, table_id: int) -> None:
        self.url = redis_url
        self.table = channels.qualify(namespace, channels.table(table_id))
        self.users = channels.qualify(namespace, channels.table(table_id)) + ":user:*"
        self.heard: list[tuple[str, str]] = []  # (channel, text)
        self.cut = 0  # times the subscription was lost (what was published then is unknown)
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def _run(self) -> None:
        while True:
            client = aredis.Redis.from_url(self.url, decode_responses=True)
            try:
                pubsub = client.pubsub()
                await pubsub.psubscribe(self.table, self.users)
                self._ready.set()
                async for message in pubsub.listen():
                    if message["type"] == "pmessage":
                        self.heard.append((message["channel"], message["data"]))
            except (aredis.RedisError, OSError):
                self.cut += 1
                await asyncio.sleep(0.05)  # Redis away: try to subscribe again
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()

    def notices(self) -> list[dict[str, Any]]:
        return [json.loads(t) for c, t in self.heard if c == self.table and _v(t) == 0]

    def by_epoch(self) -> dict[str, dict[tuple[str, int], Frame]]:
        """epoch -> (channel, v) -> the event, as published under that owner."""
        out: dict[str, dict[tuple[str, int], Frame]] = {FIRST: {}}
        epoch = FIRST
        for channel, text in self.heard:
            v = _v(text)
            if v == 0:
                epoch = json.loads(text)["epoch"]
                out.setdefault(epoch, {})
                continue
            out[epoch][(channel, v)] = json.loads(text)
        return out

    def last_v(self, epoch: str = FIRST) -> int:
        return max((v for _, v in self.by_epoch().get(epoch, {})), default=0)


def _v(text: str) -> int:
    return int(json.loads(text)["v"])


@asynccontextmanager
async def published(redis_url: str, namespace: str, table_id: int) -> AsyncIterator[Published]:
    heard = Published(redis_url, namespace, table_id)
    heard._task = asyncio.get_running_loop().create_task(heard._run())
    try:
        await asyncio.wait_for(heard._ready.wait(), 10)
        yield heard
    finally:
        heard._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heard._task


def told_only_what_was_published(
    player: Player, heard: Published, mark: int, *, left: str | None = None, strict: bool = True
) -> str:
    """From frame `mark` on, `player` was sent only events their epoch's owner published and
    snapshots of epochs other than `left` (the one the table moved on from); numbering is
    contiguous within each epoch. Not `strict` (Redis itself went away, and what was
    published while this subscriber was cut off is unknown): an event of the first epoch
    must still be one it heard, and a later epoch's are only checked for their numbering.
    Returns the epoch the player ended in."""
    check_frames(player)
    epochs = heard.by_epoch()
    first = {f["epoch"] for f in player.frames[:mark] if f.get("type") == "snapshot"}
    epoch = FIRST
    own = heard.table + f":user:{player.user_id}"
    for i, f in enumerate(player.frames):
        if f.get("type") == "snapshot":
            epoch = f["epoch"] if f["epoch"] in epochs or f["epoch"] not in first else FIRST
            assert i < mark or f["epoch"] != left, f"a snapshot of the epoch left behind: {f}"
            assert not strict or epoch in epochs, f"an epoch nobody announced: {f}"
            continue
        if i < mark or "v" not in f or epoch not in epochs:
            continue
        v = int(f["v"])
        sent = [epochs[epoch].get((channel, v)) for channel in (heard.table, own)]
        if not strict and epoch != FIRST and sent == [None, None]:
            continue
        assert f in sent, f"told what its owner never published (epoch {epoch}, v={v}): {f}"
    return str(next(f["epoch"] for f in reversed(player.frames) if f.get("type") == "snapshot"))
