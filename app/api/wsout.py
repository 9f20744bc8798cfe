"""A table socket's way out: text frames built once and written straight to its transport.

The same event goes to every socket at its table as the same text. Sent through the
library, each socket pays for it again: Starlette's `send_text`, uvicorn's `send` (and its
`writable` wait), `websockets`' frame object and its serialization, then one write (one
system call) a frame. Here a frame's bytes are built once a message (`frame`, cached by
the text itself, which every subscriber of a channel holds as the same object) and
everything a wake-up has for one socket goes out in one write.

That reaches into uvicorn's `websockets-sansio` protocol (what `ws="auto"` picks with
`websockets` installed): the `send` callable uvicorn handed the app (`ServerSend` notes
it in the scope) is a bound method of that protocol. Only when everything is the shape
this module knows, and the connection is plainly open (handshake done, no close sent or
received, no compression negotiated, nothing of the library's own still queued, no debug
log), are the bytes written here; otherwise the library sends, as it always did, so its
errors and close handling are untouched. `tests/tables/test_wsout.py` fails if that shape
changes.
"""

from __future__ import annotations

import contextlib
import struct
import weakref
from collections.abc import Sequence
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketState

SERVER_SEND = "stud.server_send"  # the scope key `ServerSend` notes the server's send under
CACHE = 1024  # messages whose frame is kept: a wake-up's worth for every socket, many times


class ServerSend:
    """Notes in a socket's scope the `send` the server handed the app, before any wrapper
    (a pure ASGI middleware; HTTP passes untouched). Weakly: uvicorn's protocol holds the
    scope, and a strong reference back would leave every closed socket's protocol in a
    cycle for the full collections, which this server keeps rare (`app.collector`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and hasattr(send, "__self__"):
            with contextlib.suppress(TypeError):  # a server object without weak references
                scope[SERVER_SEND] = weakref.WeakMethod(send)
        await self.app(scope, receive, send)


_frames: dict[str, bytes] = {}


def frame(text: str) -> bytes:
    """A server's unmasked, unfragmented, uncompressed text frame of `text` (RFC 6455 5.2),
    built once for a text held by many sockets."""
    built = _frames.get(text)
    if built is None:
        if len(_frames) >= CACHE:
            _frames.clear()  # the ones in flight are built again, once
        built = _frames[text] = build(text)
    return built


def build(text: str) -> bytes:
    data = text.encode()
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 0x10000:
        return struct.pack("!BBH", 0x81, 126, n) + data
    return struct.pack("!BBQ", 0x81, 127, n) + data


def _known() -> tuple[type[Any], Any, Any, Any] | None:
    """uvicorn's protocol class and the `websockets` names a direct write checks."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )
        from websockets.protocol import OPEN, SERVER, Protocol
    except ImportError:  # pragma: no cover - another server or library: the library sends
        return None
    return WebSocketsSansIOProtocol, OPEN, SERVER, Protocol


KNOWN = _known()
_PROTOCOL_FIELDS = (
    "transport",
    "writable",
    "conn",
    "handshake_complete",
    "close_sent",
    "disconnected",
    "initial_response",
)
_CONN_FIELDS = ("writes", "extensions", "expect_continuation_frame", "side", "debug")


def protocol_of(ws: WebSocket) -> Any | None:
    """The uvicorn protocol object behind `ws` if it is the shape a direct write knows, else
    None (then the library sends)."""
    if KNOWN is None:
        return None
    cls, _open, server, protocol = KNOWN
    ref = ws.scope.get(SERVER_SEND)
    send = ref() if isinstance(ref, weakref.WeakMethod) else None
    proto = getattr(send, "__self__", None)
    if not isinstance(proto, cls) or getattr(send, "__func__", None) is not cls.send:
        return None
    if not all(hasattr(proto, name) for name in _PROTOCOL_FIELDS):
        return None
    conn = proto.conn
    if not isinstance(conn, protocol) or not all(hasattr(conn, n) for n in _CONN_FIELDS):
        return None
    return proto if conn.side is server else None


class Out:
    """Sends text messages to one socket, in order: straight to its transport when it can
    (`protocol_of`), else through the library one message at a time."""

    __slots__ = ("proto", "ws")

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.proto = protocol_of(ws)

    def can_write(self) -> bool:
        """Whether `write` may be used now: a write is exactly what the library's send would
        write (the socket plainly open)."""
        proto = self.proto
        if proto is None or self.ws.application_state is not WebSocketState.CONNECTED:
            return False
        conn = proto.conn
        return (
            proto.handshake_complete
            and not proto.close_sent
            and not proto.disconnected
            and proto.initial_response is None
            and conn.state is KNOWN[1]  # type: ignore[index]
            and not conn.writes
            and not conn.extensions
            and not conn.expect_continuation_frame
            and not conn.debug
        )

    async def send(self, texts: Sequence[str]) -> None:
        """Send `texts` as text frames, in order."""
        proto = self.proto
        if proto is not None:
            if not proto.writable.is_set():  # the client is not reading: wait, as uvicorn does
                await proto.writable.wait()
            if self.can_write():
                self.write([frame(t) for t in texts])
                return
        send = self.ws.send_text
        for text in texts:
            await send(text)

    def write(self, frames: list[bytes]) -> None:
        """Write built frames in one write (only when `can_write`)."""
        proto: Any = self.proto
        proto.transport.write(frames[0] if len(frames) == 1 else b"".join(frames))
