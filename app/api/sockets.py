"""The table sockets this process holds, by the login session that opened them, so that a
logout closes them wherever they are.

A logout publishes the session's id (a row number, not the token) on the fan-out's
`channels.sessions()`; every process listens there and closes its sockets of that session
with close code 4001. With `memory://` the one process hears itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from fastapi import WebSocket

from app.fanout import GAP, BaseFanout, FanoutError, Subscription, channels
from app.store import accounts
from app.store.db import Database

log = logging.getLogger("app.api.sockets")

CLOSE_LOGGED_OUT = 4001
TELL_TRIES = 120  # about ten minutes of trying to tell the other processes of a logout


class OpenSockets:
    def __init__(self, fanout: BaseFanout, db: Database) -> None:
        self.fanout = fanout
        self.db = db
        self.by_session: dict[int, set[WebSocket]] = {}
        self._sub: Subscription | None = None
        self._task: asyncio.Task[None] | None = None
        self._later: set[asyncio.Task[None]] = set()  # logouts waiting for Redis

    def add(self, session_id: int, ws: WebSocket) -> None:
        self.by_session.setdefault(session_id, set()).add(ws)

    def discard(self, session_id: int, ws: WebSocket) -> None:
        held = self.by_session.get(session_id)
        if held is not None:
            held.discard(ws)
            if not held:
                del self.by_session[session_id]

    async def session_ended(self, session_id: int) -> None:
        """A session was revoked: every process closes its sockets (this one included). With
        Redis away, this process closes its own at once and the word goes out when Redis is
        back (the others also look in the database when their connection comes back)."""
        try:
            await self.fanout.publish(channels.sessions(), str(session_id))
        except FanoutError as exc:
            log.warning("logout of session %s not yet told to the others (%s)", session_id, exc)
            await self.close_session(session_id)
            self._spawn(self._tell_later(session_id))

    async def _tell_later(self, session_id: int) -> None:
        delay = 0.5
        for _ in range(TELL_TRIES):
            await asyncio.sleep(delay)
            try:
                await self.fanout.publish(channels.sessions(), str(session_id))
                return
            except FanoutError:
                delay = min(delay * 2, 5.0)
        log.error("logout of session %s never reached the other processes", session_id)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def close_session(self, session_id: int) -> None:
        for ws in list(self.by_session.pop(session_id, ())):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(CLOSE_LOGGED_OUT, "logged out"), 1.0)

    async def _close_revoked(self) -> None:
        try:
            async with self.db.session() as s:
                live = await accounts.live_sessions(s, self.by_session)
        except Exception:
            log.exception("could not check the open sockets' sessions")
            return
        for session_id in set(self.by_session) - live:
            await self.close_session(session_id)

    async def start(self) -> None:
        self._sub = self.fanout.subscribe(channels.sessions())
        await self._sub
        self._task = asyncio.get_running_loop().create_task(self._listen(self._sub))

    async def _listen(self, sub: Subscription) -> None:
        async for _channel, message in sub:
            if message is GAP:  # a logout may have been lost: ask the database
                await self._close_revoked()
                continue
            try:
                session_id = int(message)
            except ValueError:
                log.warning("ignoring a malformed session message")
                continue
            await self.close_session(session_id)

    async def stop(self) -> None:
        for task in list(self._later):
            task.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._sub is not None:
            await self._sub.close()
