"""What a table socket does with a client that misbehaves or whose login ends: a logout
closes the session's open sockets (4001), a binary frame closes with 1003 (not 1006), and a
client that stops reading is dropped after the send timeout instead of holding its socket
and buffers for ever."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
from collections.abc import AsyncIterator, Callable

import pytest
from websockets.exceptions import InvalidStatus

from app.api import ws as ws_module
from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import FakeClock
from app.tables import messages as m
from tests.tables.live import Client, Live, live_server


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (yielding to the server) until `condition` holds."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def test_logout_closes_the_sessions_open_sockets(live: Live) -> None:
    user, token = await live.user("ann")
    _other, other_token = await live.user("bob")
    created = await live.create_table(token, name="Logout", small_bet=100)
    table_id = created["table"]["id"]
    mine = [await Client.open(live, table_id, token, user) for _ in range(2)]
    theirs = await Client.open(live, table_id, other_token, _other)
    async with live.http(token) as http:
        assert (await http.post("/api/logout")).status_code == 200
    for client in mine:
        await until(lambda client=client: client.closed)  # type: ignore[misc]
    assert [c.ws.close_code for c in mine] == [4001, 4001]
    # another user's socket stays open and works
    assert not theirs.closed
    assert (await theirs.call({"type": "ping"}))["type"] == "ok"
    with pytest.raises(InvalidStatus):  # and the session opens no new one
        await Client.open(live, table_id, token, user)


async def test_a_binary_frame_closes_with_1003(live: Live) -> None:
    user, token = await live.user("ann")
    table_id = (await live.create_table(token, name="Bytes", small_bet=100))["table"]["id"]
    client = await Client.open(live, table_id, token, user)
    await client.ws.send(b'{"type": "ping"}')
    await until(lambda: client.closed)
    assert client.ws.close_code == 1003


def _silent_socket(port: int, path: str, token: str) -> socket.socket:
    """A WebSocket handshake by hand, on a socket with a tiny receive buffer that is never
    read again: what a client that stopped reading looks like to the server."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


async def test_a_client_that_never_reads_is_dropped(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ws_module, "SEND_TIMEOUT", 0.5)
    monkeypatch.setattr(ws_module, "RATE", 10_000.0)  # the talker talks faster than people
    monkeypatch.setattr(ws_module, "BURST", 10_000.0)
    monkeypatch.setattr(ws_module, "SEND_QUEUE", 1_000_000)  # only the timeout may drop it
    silent_user, silent_token = await live.user("silent")
    talker, token = await live.user("talker")
    table_id = (await live.create_table(token, name="Chatty", small_bet=100))["table"]["id"]
    port = int(live.url.rsplit(":", 1)[1])
    sock = await asyncio.to_thread(_silent_socket, port, f"/ws/tables/{table_id}", silent_token)
    sockets = live.services.sockets
    assert sockets is not None
    try:
        await until(lambda: len(sockets.by_session) == 1)
        client = await Client.open(live, table_id, token, talker)
        line = "x" * 200
        sent = 0
        while len(sockets.by_session) > 1 and sent < 50_000:  # the silent one still held
            for _ in range(200):
                await client.ws.send(f'{{"type": "chat", "text": "{line}"}}')
            sent += 200
            await client.call({"type": "ping"}, timeout=10)
        # the silent socket is gone (dropped); the talker's is still served
        assert len(sockets.by_session) == 1, f"still held after {sent} chat lines"
        assert not client.closed
        # its socket's goodbye was posted with its discard: handled behind the chat lines
        await live.table(table_id).request(m.Sync())
        assert silent_user not in {user for user, _ in live.table(table_id).state.watchers}
    finally:
        sock.close()
