"""A table socket's frames go straight to its transport (`app.api.wsout`), and these tests fail
if uvicorn or `websockets` change the shape that relies on: the frame bytes are the
library's own, the server's protocol is found behind a real socket, the library's send is
not called on the way, and without the protocol the library sends as before."""

from __future__ import annotations

import weakref
from typing import Any

import pytest
from websockets.frames import Frame, Opcode

from app.api import ws as ws_module
from app.api import wsout
from tests.tables.live import Client, Live


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_frame_is_the_librarys_text_frame(size: int) -> None:
    text = ("é" + "x" * size)[:size] if size else ""
    expected = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
    assert wsout.build(text) == expected
    assert wsout.frame(text) == expected
    assert wsout.frame(text) is wsout.frame(text)  # built once


def test_the_frame_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wsout, "CACHE", 8)
    monkeypatch.setattr(wsout, "_frames", {})
    for i in range(20):
        assert wsout.frame(f'{{"v":{i}}}') == wsout.build(f'{{"v":{i}}}')
    assert len(wsout._frames) <= 8


async def test_the_scope_holds_the_servers_send_weakly() -> None:
    class Server:
        async def send(self, message: Any) -> None: ...

    async def app(scope: Any, receive: Any, send: Any) -> None: ...

    server = Server()
    scope: dict[str, Any] = {"type": "websocket"}
    await wsout.ServerSend(app)(scope, None, server.send)  # type: ignore[arg-type]
    assert scope[wsout.SERVER_SEND]() == server.send
    gone = weakref.ref(server)
    del server
    assert gone() is None  # freed at once, no collection needed
    assert scope[wsout.SERVER_SEND]() is None


def _connections() -> list[ws_module.Connection]:
    return list(ws_module.SLOW.open)


async def test_a_socket_writes_straight_to_uvicorns_transport(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, token = await live.user("ann")
    table_id = (await live.create_table(token, name="Direct", small_bet=100))["table"]["id"]
    client = await Client.open(live, table_id, token, user)
    [conn] = _connections()
    proto = conn.out.proto
    assert proto is not None, "uvicorn's protocol was not found behind the socket"
    assert conn.out.can_write()
    library: list[Any] = []
    send_text = proto.conn.send_text

    def counted(*args: Any) -> None:
        library.append(args)
        send_text(*args)

    monkeypatch.setattr(proto.conn, "send_text", counted)
    # a reply and the events of taking a seat (the pump's batch) reach the client intact
    assert (await client.call({"type": "ping"}))["type"] == "ok"
    answer = await client.call({"type": "sit", "seat": 0, "amount": 2_000, "request_id": "sit"})
    assert answer["type"] == "ok", answer
    seated = await client.wait(lambda f: "v" in f and f.get("type") != "snapshot")
    assert seated["v"] > 0
    assert library == []  # none of it went through the library's send
    # bytes of the library's own still queued (a ping made, not yet written): it sends,
    # so they go out first, in order
    proto.conn.send_ping(b"p")
    assert not conn.out.can_write()
    await conn.out.send(['{"v":0}'])
    assert len(library) == 1 and not proto.conn.writes


async def test_without_the_protocol_the_library_sends(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wsout, "protocol_of", lambda _ws: None)
    user, token = await live.user("ann")
    table_id = (await live.create_table(token, name="Library", small_bet=100))["table"]["id"]
    client = await Client.open(live, table_id, token, user)
    [conn] = _connections()
    assert conn.out.proto is None
    assert (await client.call({"type": "ping"}))["type"] == "ok"
    answer = await client.call({"type": "sit", "seat": 0, "amount": 2_000, "request_id": "sit"})
    assert answer["type"] == "ok", answer
    await client.wait(lambda f: "v" in f and f.get("type") != "snapshot")


async def test_after_the_close_the_library_decides(live: Live) -> None:
    user, token = await live.user("ann")
    table_id = (await live.create_table(token, name="Closing", small_bet=100))["table"]["id"]
    await Client.open(live, table_id, token, user)
    [conn] = _connections()
    await conn.ws.close(1000)
    assert not conn.out.can_write()
    with pytest.raises(RuntimeError):  # Starlette's refusal, as before: nothing is written
        await conn.out.send(["{}"])


async def test_events_go_out_at_delivery_and_wait_in_the_queue_for_a_client_that_lags(
    live: Live,
) -> None:
    """While a socket's pump waits, an event is written at its delivery (no wake-up); when the
    client stops reading (uvicorn clears `writable`), what comes is queued for the pump, which
    waits for it; either way each event reaches the client once, in order."""
    ann, ann_token = await live.user("ann")
    bob, bob_token = await live.user("bob")
    table_id = (await live.create_table(ann_token, name="Delivery", small_bet=100))["table"]["id"]
    client = await Client.open(live, table_id, ann_token, ann)
    [conn] = _connections()
    other = await Client.open(live, table_id, bob_token, bob)
    took: list[bool] = []
    take_now = conn._take_now

    def noted(item: Any) -> bool:
        took.append(take_now(item))
        return took[-1]

    conn.sub.direct = noted
    sit = {"type": "sit", "seat": 0, "amount": 2_000, "request_id": "sit"}
    assert (await client.call(sit))["type"] == "ok"
    assert (await other.call({"type": "chat", "text": "one"}))["type"] == "ok"
    await client.wait(lambda f: f.get("type") == "chat" and f["text"] == "one")
    assert took and all(took), took  # the seat's and the chat's events, at delivery
    took.clear()
    writable = conn._writable  # uvicorn's own
    writable.clear()  # the client lags
    assert (await other.call({"type": "chat", "text": "two"}))["type"] == "ok"
    assert took and not any(took), took  # queued for the pump
    assert conn.sub.pending() or conn.lock.locked()  # queued, or the pump waits to send it
    writable.set()
    await client.wait(lambda f: f.get("type") == "chat" and f["text"] == "two")
    numbered = [f["v"] for f in client.frames if isinstance(f.get("v"), int)]
    assert numbered == list(range(numbered[0], numbered[0] + len(numbered))), numbered
