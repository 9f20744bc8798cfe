"""A real server on loopback (uvicorn in the test's own event loop) and WebSocket clients
that record every frame they receive."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.api.lobby import TableServices, start_table_services, stop_table_services
from app.fanout import BaseFanout
from app.main import create_app
from app.store import accounts, ledger
from app.store.db import Database
from app.store.passwords import Passwords
from app.tables import FakeClock, Table
from app.tables import messages as m
from app.wire.limits import MAX_TRANSPORT_FRAME
from tests.store.factories import make_user

Frame = dict[str, Any]
STARTUP_TIMEOUT = 30.0  # seconds for uvicorn to listen: a loaded machine, not a hang


@dataclass
class Live:
    url: str
    services: TableServices
    clock: FakeClock
    db: Database
    clients: list[Client] = field(default_factory=list)  # closed before the server stops

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://")

    def table(self, table_id: int) -> Table:
        table = self.services.manager.get(table_id)
        assert table is not None
        return table

    async def user(self, name: str, balance: int = 100_000) -> tuple[int, str]:
        async with self.db.transaction() as s:
            user = await make_user(s, name, balance=balance)
            new = await accounts.open_session(s, user.id, lifetime=timedelta(days=1))
        return user.id, new.token

    def http(self, token: str | None = None) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=10)

    async def create_table(self, token: str, **settings: Any) -> dict[str, Any]:
        async with self.http(token) as http:
            r = await http.post("/api/tables", json=settings)
            assert r.status_code == 201, r.text
            body: dict[str, Any] = r.json()
            return body

    async def settle(self, table_id: int, seconds: float = 0.0) -> None:
        """Move the fake clock and let the table handle what that caused. Hand numbers come
        from the database in real time: a table waiting for them gets them first."""
        table = self.table(table_id)
        task = table.numbers.task
        if not table.numbers.available() and task is not None:
            await asyncio.shield(task)
            await table.request(m.Sync())
        self.clock.advance(seconds)
        await table.request(m.Sync())

    async def balance(self, user_id: int) -> int:
        async with self.db.session() as s:
            return await ledger.player_balance(s, user_id)


@asynccontextmanager
async def live_server(db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    app = create_app()
    cheap = Passwords(time_cost=1, memory_kib=8192, parallelism=1)  # tests hash often
    services = await start_table_services(
        app, db=db, fanout=fanout, clock=clock, passwords=cheap, freeze_gc=False
    )
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        lifespan="off",
        ws_max_size=MAX_TRANSPORT_FRAME,  # as `python -m app serve`
        ws_per_message_deflate=False,
        log_level="warning",
        # never wait long for a connection at shutdown (uvicorn would wait for every one)
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    async with asyncio.timeout(STARTUP_TIMEOUT):
        while not server.started:
            if task.done():  # it gave up (the port, the app): say why
                await task
                raise RuntimeError("uvicorn stopped before it listened")
            await asyncio.sleep(0.005)
    port = server.servers[0].sockets[0].getsockname()[1]
    live = Live(f"http://127.0.0.1:{port}", services, clock, db)
    try:
        yield live
    finally:
        # close our clients first: the server then has no connection to wait for
        await asyncio.gather(*(c.close() for c in live.clients), return_exceptions=True)
        server.should_exit = True
        await task
        await stop_table_services(app)
    # a bad frame no `wait` came to see still fails the test
    for client in live.clients:
        client.check()


class Client:
    """A WebSocket client that keeps every frame, answers calls by `ref`. A frame it cannot
    read (binary, not JSON) stops it: `error` keeps why, and every `wait` raises it."""

    _refs = itertools.count(1)

    def __init__(self, ws: ClientConnection, user_id: int) -> None:
        self.ws = ws
        self.user_id = user_id
        self.frames: list[Frame] = []
        self.raw: list[str] = []
        self.changed = asyncio.Event()
        self.error: Exception | None = None
        self.reader = asyncio.create_task(self._read())
        self.closed = False

    @classmethod
    async def open(
        cls, live: Live, table_id: int, token: str, user_id: int, **params: Any
    ) -> Client:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        ws = await connect(
            f"{live.ws_url}/ws/tables/{table_id}?{query}",
            max_size=2**20,
            additional_headers={"Authorization": f"Bearer {token}"},
        )
        client = cls(ws, user_id)
        live.clients.append(client)
        await client.wait(lambda f: f.get("type") == "snapshot" or "v" in f)
        return client

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                if not isinstance(text, str):
                    raise ValueError(f"a binary frame: {text[:80]!r}")
                self.raw.append(text)
                self.frames.append(json.loads(text))
                self.changed.set()
        except ConnectionClosed:
            pass  # the server closed it, however abruptly: `closed` and `ws.close_code` say so
        except Exception as exc:
            self.error = exc
        finally:
            self.closed = True
            self.changed.set()

    async def wait(
        self, pred: Callable[[Frame], bool], timeout: float = 5.0, start: int = 0
    ) -> Frame:
        return (await self.wait_index(pred, timeout, start))[1]

    async def wait_index(
        self, pred: Callable[[Frame], bool], timeout: float = 5.0, start: int = 0
    ) -> tuple[int, Frame]:
        async def find() -> tuple[int, Frame]:
            i = start
            while True:
                while i < len(self.frames):
                    if pred(self.frames[i]):
                        return i, self.frames[i]
                    i += 1
                self.check()
                if self.closed:
                    raise ConnectionError("closed")
                self.changed.clear()
                await self.changed.wait()

        try:
            return await asyncio.wait_for(find(), timeout)
        except TimeoutError:
            raise TimeoutError(f"waited {timeout}s; last frames {self.frames[-4:]}") from None

    async def call(self, msg: dict[str, Any], timeout: float = 5.0) -> Frame:
        ref = f"r{next(self._refs)}"
        mark = len(self.frames)
        await self.ws.send(json.dumps({**msg, "ref": ref}))
        return await self.wait(
            lambda f: f.get("ref") == ref and f.get("type") in ("ok", "error"), timeout, mark
        )

    async def send_raw(self, text: str | bytes) -> Frame:
        mark = len(self.frames)
        await self.ws.send(text)
        return await self.wait(lambda f: f.get("type") in ("ok", "error"), 5.0, mark)

    def check(self) -> None:
        """Raise what made the reader stop, if it was a frame it could not read."""
        if self.error is not None:
            raise AssertionError(f"the server sent a bad frame: {self.error!r}") from self.error

    def events(self) -> list[Frame]:
        return [f for f in self.frames if "v" in f and f.get("type") != "snapshot"]

    def last_v(self) -> int:
        vs = [f["v"] for f in self.frames if "v" in f]
        return max(vs) if vs else 0

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 1.0)
        self.reader.cancel()
