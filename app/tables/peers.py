"""The other live server processes, as the router's users need them: who they are and how
much room each has (`rooms`, the registry asked at most every `PEERS_TTL` seconds for the
lobby), a question put to every one of them (`ask_all`: the lobby's lines), and the sweep
that forgets the sockets of a process that died (`sweep`, each heartbeat).

Without a directory (one process, `memory://`), there are no others.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.store.directory import Room
from app.tables import messages as m
from app.tables.errors import TableError
from app.tables.rpc import TableRouter

log = logging.getLogger("app.tables.peers")

GATHER_TIMEOUT = 2.0  # seconds the lobby waits for each process's lines
PEERS_TTL = 1.0  # seconds the list of live processes is reused for


class Peers:
    def __init__(self, router: TableRouter, *, ttl: float = PEERS_TTL) -> None:
        self.router = router
        self.ttl = ttl
        self._cache: list[Room] = []
        self._at: float | None = None
        self._live: set[str] | None = None  # the live processes at the last sweep

    async def rooms(self) -> list[Room]:
        """The live processes (other than this one), the one with the most room first."""
        directory = self.router.directory
        if directory is None:
            return []
        return [r for r in await directory.rooms() if r.process != self.router.me]

    async def _recent(self) -> list[Room]:
        """`rooms`, at most `ttl` seconds old: every lobby listing asks every process, and
        the database need not be asked who they are each time."""
        now = asyncio.get_running_loop().time()
        if self._at is None or now - self._at > self.ttl:
            self._cache = await self.rooms()
            self._at = now
        return self._cache

    async def ask_all(self, op: str, args: dict[str, Any]) -> list[Any]:
        """Run process op `op` on every live process; the answers of those that answered
        within `GATHER_TIMEOUT` (a process that died a moment ago is left out)."""
        processes = [self.router.me] + [r.process for r in await self._recent()]

        async def one(process: str) -> Any:
            try:
                return await asyncio.wait_for(
                    self.router.ask_process(process, op, args), GATHER_TIMEOUT
                )
            except (TableError, TimeoutError) as exc:
                log.warning("process %s did not answer %s (%s)", process, op, exc)
                return None

        answers = await asyncio.gather(*(one(p) for p in processes))
        return [a for a in answers if a is not None]

    async def sweep(self) -> None:
        """Each heartbeat: if a process left the registry (it died), the tables here forget
        the sockets it held (they were counted as watching; their players reconnect
        elsewhere and are counted there)."""
        if self.router.directory is None or self.router.tables.runs_none():
            return  # no table here to tell
        live = {self.router.me, *(r.process for r in await self._recent())}
        gone = tuple(sorted(self._live - live)) if self._live is not None else ()
        self._live = live
        if gone:
            for table in self.router.tables.running():
                table.post(m.WatchersGone(gone))
