"""The test client of tests/tables/live.py does not hide a frame it cannot read: the tests
that use it would otherwise pass on a server that sends garbage after the frame they wait
for, or time out without saying why."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from tests.tables.live import Client


@asynccontextmanager
async def _client_of(frames: list[str | bytes]) -> AsyncIterator[Client]:
    """A Client connected to a loopback server that sends `frames` and keeps the socket open."""

    async def send(ws: ServerConnection) -> None:
        for frame in frames:
            await ws.send(frame)
        await ws.wait_closed()

    async with serve(send, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        client = Client(await connect(f"ws://127.0.0.1:{port}"), user_id=1)
        try:
            yield client
        finally:
            await client.close()


@pytest.mark.parametrize("bad", ["not json", b'{"type": "ok"}'], ids=["text", "binary"])
async def test_a_bad_frame_fails_the_wait(bad: str | bytes) -> None:
    async with _client_of(['{"type": "ok", "ref": "a"}', bad]) as client:
        assert (await client.wait(lambda f: f.get("ref") == "a"))["type"] == "ok"
        with pytest.raises(AssertionError, match="bad frame"):
            await client.wait(lambda f: f.get("ref") == "b")
        assert client.error is not None
        with pytest.raises(AssertionError, match="bad frame"):
            client.check()


async def test_good_frames_leave_no_error() -> None:
    async with _client_of(['{"type": "ok", "ref": "a"}']) as client:
        await client.wait(lambda f: f.get("ref") == "a")
        assert client.error is None
        client.check()
