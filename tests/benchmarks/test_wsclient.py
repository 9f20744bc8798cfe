"""The benchmark's own WebSocket client (`benchmarks/wsclient.py`) speaks RFC 6455 to a real
server (the `websockets` library's, on loopback): the handshake's accept key, messages of
each length encoding, masked client frames the server reads back, a ping answered, a
fragmented message joined, and the closing handshake."""

from __future__ import annotations

import asyncio
import itertools

from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from benchmarks import wsclient

SIZES = (5, 300, 70_000)  # a 7-bit, a 16-bit and a 64-bit length


async def test_the_client_reads_writes_pings_and_closes_against_a_real_server() -> None:
    heard: list[str] = []
    ponged = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        heard.append(ws.request.headers["Authorization"])
        for n in SIZES:
            await ws.send("x" * n)
        await ws.send(["frag", "mented"])  # one message in three frames
        await asyncio.wait_for(await ws.ping(b"are you there"), 5)
        ponged.set()
        async for text in ws:  # the client's masked frames, read back by the server
            assert isinstance(text, str)
            heard.append(text)
            await ws.send(f"echo {text}")

    got: list[tuple[str, float]] = []
    arrived = asyncio.Event()

    def on_text(text: str, now: float) -> None:
        got.append((text, now))
        if text.startswith("echo"):
            arrived.set()

    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=2**20) as server:
        port = server.sockets[0].getsockname()[1]
        sock = await wsclient.connect(
            f"ws://127.0.0.1:{port}/ws", on_text, {"Authorization": "Bearer t"}
        )
        await asyncio.wait_for(ponged.wait(), 5)
        sock.send("hé " * 50)  # past 126 bytes, not ASCII
        await asyncio.wait_for(arrived.wait(), 5)
        await sock.close()
        assert sock.closed.done()
    texts = [t for t, _ in got]
    assert texts == ["x" * n for n in SIZES] + ["fragmented", "echo " + "hé " * 50]
    assert heard == ["Bearer t", "hé " * 50]
    assert all(a <= b for (_, a), (_, b) in itertools.pairwise(got))


async def test_a_refused_upgrade_is_an_error_with_the_status_line() -> None:
    async def handler(ws: ServerConnection) -> None:
        raise AssertionError("never opened")

    def refuse(conn: ServerConnection, _request: Request) -> Response:
        return conn.respond(403, "no\n")

    async with serve(handler, "127.0.0.1", 0, process_request=refuse) as server:
        port = server.sockets[0].getsockname()[1]
        try:
            await wsclient.connect(f"ws://127.0.0.1:{port}/", lambda t, n: None, timeout=5)
        except wsclient.HandshakeError as e:
            assert "403" in str(e)
        else:
            raise AssertionError("a 403 opened a socket")
