"""A TCP proxy in front of Redis that a test can cut, stall or take down. It touches only
the connections through it, so tests in other workers sharing the Redis never notice."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass(eq=False)
class _Link:
    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    stalled: bool = False
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def abort(self) -> None:
        self.client.transport.abort()
        self.server.transport.abort()


class RedisProxy:
    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._links: set[_Link] = set()
        self._server: asyncio.Server | None = None
        self._changed = asyncio.Event()
        self.port = 0
        self.down = False
        self.refused = 0  # connections turned away while down

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        """Reset every connection through the proxy."""
        for link in list(self._links):
            link.abort()
        self._links.clear()

    def stall(self) -> None:
        """Existing connections stay open but nothing gets through any more."""
        for link in self._links:
            link.stalled = True

    def go_down(self) -> None:
        """Cut everything and turn new connections away until `come_up`."""
        self.down = True
        self.cut()

    def come_up(self) -> None:
        self.down = False

    async def wait_refused(self, count: int) -> None:
        while self.refused < count:
            self._changed.clear()
            await self._changed.wait()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = [task for link in self._links for task in link.tasks]
        self.cut()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            self.refused += 1
            self._changed.set()
            writer.transport.abort()
            return
        server_reader, server_writer = await asyncio.open_connection(*self._target)
        link = _Link(writer, server_writer)
        self._links.add(link)
        link.tasks = [
            asyncio.create_task(self._pipe(reader, server_writer, link)),
            asyncio.create_task(self._pipe(server_reader, writer, link)),
        ]

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, link: _Link
    ) -> None:
        try:
            while data := await source.read(65536):
                if not link.stalled:
                    sink.write(data)
                    await sink.drain()
        except OSError:
            pass
        finally:
            sink.close()
            self._links.discard(link)
