"""The load's WebSocket client: one asyncio protocol per socket that hands each text message
to a callback from `data_received`, with the instant its bytes were read.

The load is one process reading every socket of the run (3,000 at 500 tables, ~24,000
frames a second). Through the `websockets` library each frame costs that process a parser
generator, an assembler, a queue and a coroutine wake-up (~20 µs), and a message is read
by its reader only a loop pass after it arrived: the load's loop fell behind by up to
100 ms and put that delay into every latency it measured, of the bare server as of ours.
Here a frame costs a header parse and a decode, and the latency ends when the bytes left
the kernel. The handshake, masking, ping, close and fragments are RFC 6455's; no
extensions (the server runs without compression), text frames only."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import struct
import time
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 1, 2, 8, 9, 10, 0

OnText = Callable[[str, float], None]


class HandshakeError(Exception):
    """The server did not switch protocols (its status line is the message)."""


def frame(opcode: int, payload: bytes) -> bytes:
    """A client frame: final, masked as RFC 6455 requires of clients."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    mask = os.urandom(4)
    if not n:
        return head + mask
    pad = (mask * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(pad, "big")).to_bytes(n, "big")
    return head + mask + masked


class Socket(asyncio.Protocol):
    """One client connection. `on_text(text, read_at)` runs for every text message, on the
    loop, in the pass that read its last byte; `read_at` is `time.monotonic()` then."""

    def __init__(self, on_text: OnText, request: bytes, key: bytes) -> None:
        self.on_text = on_text
        self.request = request
        self.accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.upgraded = False
        self.fragments: list[bytes] = []
        self.close_sent = False

    # -- asyncio.Protocol --

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.upgraded and not self._handshake():
            return
        self._frames(time.monotonic())

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    # -- the protocol --

    def _handshake(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        del self.buffer[: end + 4]
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])
        }
        if head[0].split(" ")[1:2] != ["101"] or headers.get("sec-websocket-accept") != (
            self.accept.decode()
        ):
            self.opened.set_exception(HandshakeError(head[0]))
            assert self.transport is not None
            self.transport.close()
            return False
        self.upgraded = True
        self.opened.set_result(None)
        return True

    def _frames(self, now: float) -> None:
        buf = self.buffer
        at = 0
        size = len(buf)
        while size - at >= 2:
            b0, b1 = buf[at], buf[at + 1]
            n = b1 & 0x7F
            head = 2
            if n == 126:
                if size - at < 4:
                    break
                n = (buf[at + 2] << 8) | buf[at + 3]
                head = 4
            elif n == 127:
                if size - at < 10:
                    break
                (n,) = struct.unpack_from("!Q", buf, at + 2)
                head = 10
            if b1 & 0x80:  # a server must not mask: RFC 6455 5.1
                self._fail(1002)
                return
            if size - at < head + n:
                break
            payload = bytes(buf[at + head : at + head + n])
            at += head + n
            self._message(b0 & 0x80, b0 & 0x0F, payload, now)
        if at:
            del buf[:at]

    def _message(self, fin: int, opcode: int, payload: bytes, now: float) -> None:
        if opcode == TEXT and fin:
            self.on_text(payload.decode(), now)
        elif opcode in (TEXT, BINARY, CONTINUATION):
            self.fragments.append(payload)
            if fin:
                whole = b"".join(self.fragments)
                self.fragments.clear()
                self.on_text(whole.decode(), now)
        elif opcode == PING:
            self._write(PONG, payload)
        elif opcode == CLOSE:
            if not self.close_sent:
                self._write(CLOSE, payload[:2])
                self.close_sent = True
            assert self.transport is not None
            self.transport.close()

    def _fail(self, code: int) -> None:
        self._write(CLOSE, struct.pack("!H", code))
        self.close_sent = True
        assert self.transport is not None
        self.transport.close()

    def _write(self, opcode: int, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(opcode, payload))

    # -- what the load calls --

    def send(self, text: str) -> None:
        """Write one text message now (a closed socket drops it: the run is ending)."""
        if not self.close_sent:
            self._write(TEXT, text.encode())

    async def close(self, timeout: float = 2) -> None:
        """The closing handshake: say 1000, wait for the server's close, then hang up."""
        if self.transport is None:
            return
        if not self.close_sent:
            self._write(CLOSE, struct.pack("!H", 1000))
            self.close_sent = True
        try:
            await asyncio.wait_for(asyncio.shield(self.closed), timeout)
        except TimeoutError:
            pass
        finally:
            self.transport.close()


async def connect(
    url: str, on_text: OnText, headers: dict[str, str] | None = None, timeout: float = 60
) -> Socket:
    """Open `url` (ws://host:port/path) and complete the opening handshake."""
    parts = urlsplit(url)
    hostname = parts.hostname
    if parts.scheme != "ws" or hostname is None:
        raise ValueError(f"not a ws:// URL: {url}")
    port = parts.port or 80
    host = f"{hostname}:{port}"
    key = base64.b64encode(os.urandom(16))
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key.decode()}",
        "Sec-WebSocket-Version: 13",
        f"Origin: http://{host}",
        *(f"{k}: {v}" for k, v in (headers or {}).items()),
    ]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode()
    loop = asyncio.get_running_loop()

    async def open_() -> Socket:
        _, sock = await loop.create_connection(
            lambda: Socket(on_text, request, key), hostname, port
        )
        await sock.opened
        return sock

    return await asyncio.wait_for(open_(), timeout)
