"""A client that stops reading is closed even on a quiet table, where the kernel's buffers
would absorb everything the table sends: the server pings every `WS_PING_SECONDS` and
closes a socket whose client does not answer (docs/design.md, "A slow client"). A raw TCP
client does the WebSocket handshake and then answers nothing; a real client beside it, at
the same table, answers the pings and stays."""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import time
from pathlib import Path

import httpx

from tests.serverproc import Player, free_port, register, server, server_env

PING = 0x9
CLOSE = 0x8


async def _handshake(
    port: int, table_id: int, token: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    status = await reader.readuntil(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 101"), status
    return reader, writer


async def _frames_until_closed(reader: asyncio.StreamReader, deadline: float) -> list[int]:
    """The opcodes of the frames the server sends until it closes the connection."""
    opcodes: list[int] = []
    while time.monotonic() < deadline:
        try:
            head = await asyncio.wait_for(reader.readexactly(2), deadline - time.monotonic())
        except asyncio.IncompleteReadError:
            return opcodes  # the server closed the TCP connection
        opcode, length = head[0] & 0x0F, head[1] & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await reader.readexactly(8))
        await reader.readexactly(length)
        opcodes.append(opcode)
        if opcode == CLOSE:
            return opcodes
    raise AssertionError(f"still open, having sent {opcodes}")


async def test_a_client_that_answers_no_ping_is_closed_and_one_that_does_stays(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = server_env(tmp_path / "data", WS_PING_SECONDS="1")
    with server(tmp_path / "data", port, tmp_path / "server.log", env):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            user, token = await register(http, "ann")
            r = await http.post(
                "/api/tables",
                json={"name": "Quiet", "small_bet": 100, "ante": 10},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 201, r.text
            table_id = int(r.json()["table"]["id"])
        reader, writer = await _handshake(port, table_id, token)
        listening = await Player.connect(port, table_id, token, user)
        await listening.wait(lambda f: f.get("type") == "snapshot")
        opcodes = await _frames_until_closed(reader, time.monotonic() + 30)
        assert PING in opcodes  # it was asked, and never answered
        # the client that answers its pings is still there: it still hears the table
        reply = await listening.call({"type": "ping"})
        assert reply["type"] == "ok"
        await listening.close()
        writer.close()
