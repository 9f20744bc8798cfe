"""Every table of this process: made, restored at start, found, stopped at shutdown. The
process runs only tables it holds the lease of (`TableStore.claim_open`, `create`), at most
`capacity` of them; each heartbeat it renews its leases and claims free ones (a dead owner's,
or one a stopping process let go) while it has room (`heartbeat`). A stopping process
`drain`s: no new hands, and each table is let go once its hand is over."""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from app import metrics
from app.fanout import BaseFanout
from app.tables import messages as m
from app.tables.clock import Clock, RealClock
from app.tables.errors import MOVED, TableError
from app.tables.lifecycle import Lifecycle
from app.tables.settings import TableSettings
from app.tables.store import TableStore
from app.tables.table import DeckSource, Table
from app.tables.writer import HandWriter

log = logging.getLogger("app.tables.manager")

HandedOver = Callable[[list[int]], Awaitable[object]]  # tables let go: another process claims
WRITE_WINDOW = 0.1  # seconds hand writes wait for other tables' to share a transaction


class TableManager:
    def __init__(
        self,
        store: TableStore,
        fanout: BaseFanout,
        clock: Clock | None = None,
        deck_source: DeckSource | None = None,
        writer: HandWriter | None = None,
        bots_play_alone: bool = False,
        capacity: int | None = None,
    ) -> None:
        self.store = store
        self.fanout = fanout
        self.clock: Clock = clock or RealClock()
        self.deck_source = deck_source
        self.bots_play_alone = bots_play_alone
        self.tables: dict[int, Table] = {}
        self.capacity = capacity  # None: no limit (one process, tests)
        self.draining = False  # stopping: claims nothing more, deals no new hand
        self._placing = asyncio.Lock()  # claims and creations count the room one at a time
        # hand records, off the tables' hot path; many tables' writes per transaction
        self.writer = writer or HandWriter(write_many=store.record_many, window=WRITE_WINDOW)

    def _kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "store": self.store,
            "fanout": self.fanout,
            "clock": self.clock,
            "writer": self.writer,
            "bots_play_alone": self.bots_play_alone,
        }
        if self.deck_source is not None:
            kwargs["deck_source"] = self.deck_source
        return kwargs

    def room(self) -> int | None:
        """How many more tables this process may run (None: no limit)."""
        if self.draining:
            return 0  # it claims nothing more
        if self.capacity is None:
            return None
        return max(0, self.capacity - sum(1 for t in self.tables.values() if not t.closed))

    async def restore(self) -> int:
        """Bring back the open tables this process can claim (start-up); see `adopt`."""
        await self.adopt()
        return len(self.tables)

    async def adopt(self, only: Collection[int] | None = None) -> list[int]:
        """Claim free open tables (of `only`, if given) while there is room, and run each as
        a restart brings it back: a hand that was being played when its owner died (or
        stopped) never settled: it is recorded void, its stacks are as before it, and the
        table tells whoever reconnects (`hand_voided`). A table another live process holds
        stays with it. Every process's sockets at a claimed table hear of its new owner (an
        owner notice on its channel) and resync."""
        if self.draining:
            return []
        async with self._placing:
            claimed = await self.store.claim_open(limit=self.room(), only=only)
            if not claimed:
                return []
            voided = await self.store.void_interrupted(claimed)
            metrics.HANDS_VOIDED.inc(len(voided))
            for stored in await self.store.load_open(claimed):
                stored.voided = [v for v in voided if v["table_id"] == stored.table_id]
                table = Table.restore(stored, **self._kwargs())
                self.tables[table.id] = table
                table.start(owner=self.store.owner)
        if self.capacity is not None:  # a claim by a running process: a failover
            metrics.FAILOVERS.inc(len(claimed))
            log.warning("claimed tables %s (their owner died or let them go)", claimed)
        return claimed

    def runs_none(self) -> bool:
        """Whether this process runs no table and may claim none (`TABLE_CAPACITY=0`: a
        process that directs tournaments, or only serves sockets): it holds no lease."""
        return self.capacity == 0 and not self.tables

    async def heartbeat(self) -> None:
        """Each heartbeat: renew this process's leases, then claim what is free."""
        if self.runs_none():
            return  # no lease to renew, no room to claim one
        await self.renew_leases()
        await self.adopt()

    async def create(
        self,
        settings: TableSettings,
        *,
        host_user_id: int | None,
        password_hash: str | None,
        tournament_id: int | None = None,
    ) -> Table:
        """A new table, run here; refused when this process is stopping or full (the lobby
        then asks a process with room: `app.api.table_ops`)."""
        if self.draining:
            raise TableError("server_stopping", "this server is stopping: try again shortly")
        invite = secrets.token_urlsafe(24) if settings.private else None
        async with self._placing:
            if self.room() == 0:
                raise TableError(
                    "server_full",
                    f"this server runs as many tables as it may ({self.capacity}): try again later",
                )
            table_id = await self.store.create(
                settings,
                host_user_id=host_user_id,
                invite_token=invite,
                password_hash=password_hash if settings.private else None,
                tournament_id=tournament_id,
            )
        table = Table(
            table_id,
            settings,
            host_user_id=host_user_id,
            invite_token=invite,
            password_hash=password_hash if settings.private else None,
            members={host_user_id} if host_user_id is not None else set(),
            tournament_id=tournament_id,
            **self._kwargs(),
        )
        self.tables[table_id] = table
        table.start()
        return table

    def get(self, table_id: int) -> Table | None:
        table = self.tables.get(table_id)
        if table is not None and table.closed:
            del self.tables[table_id]
            return None
        return table

    def running(self) -> list[Table]:
        """The tables this process runs."""
        return [table for table in self.tables.values() if not table.closed]

    def by_invite(self, token: str) -> Table | None:
        for table in list(self.tables.values()):
            # as bytes: compare_digest refuses a str that is not ASCII (a forged token)
            if table.invite_token and hmac.compare_digest(
                table.invite_token.encode(), token.encode()
            ):
                return None if table.closed else table
        return None

    def public_tables(self) -> list[Table]:
        """The cash lobby's tables (a tournament's are on its page)."""
        return [
            t
            for t in self.tables.values()
            if not t.state.settings.private and not t.closed and t.state.directed is None
        ]

    def hosted_by(self, user_id: int) -> list[Table]:
        """The open tables `user_id` hosts, private ones too."""
        return [t for t in self.tables.values() if t.state.host_user_id == user_id and not t.closed]

    async def renew_leases(self) -> set[int]:
        """Renew this process's leases; a table whose lease moved on stops at once (its
        writes would be refused anyway). Returns the tables stopped."""
        lost = await self.store.renew_leases()
        for table_id in lost:
            table = self.tables.pop(table_id, None)
            if table is not None:
                log.error("table %s: lease lost to another process; stopped here", table_id)
                await self._let_go(table)
        for table in self.tables.values():
            if table.outgoing or table.frozen is not None:  # its lease is sure again
                table.post(m.Wake())
        return lost

    @staticmethod
    async def _let_go(table: Table) -> None:
        """Stop a table that now runs elsewhere (or nowhere until claimed)."""
        await table.stop()
        # no request may wait on a table that no longer runs here
        table.stopped()
        moved = TableError("table_moved", MOVED)
        for _, future in table.mailbox.take_all():
            if future is not None and not future.done():
                future.set_exception(moved)

    @staticmethod
    def _between_hands(table: Table) -> bool:
        state = table.state
        return state.closed or (
            state.hand is None and state.life.stage is not Lifecycle.IN_HAND and not state.unwritten
        )

    async def _hand_over(
        self, done: list[Table], then: HandedOver | None, to: str | None = None
    ) -> None:
        """Let these tables go (each between hands, its records written), release their
        leases (or give them to process `to`: nobody else may claim them meanwhile), and
        tell `then` which ones are free for another process to claim now."""
        handed = [t.id for t in done if not t.closed]  # a closed table goes nowhere
        for table in done:
            self.tables.pop(table.id, None)
            if not table.closed:
                await self._let_go(table)
        ids = [t.id for t in done]
        try:
            if to is None:
                await self.store.release(ids)
            else:
                await self.store.give(ids, to)
        except Exception as exc:  # the database is away: the leases expire by themselves
            log.warning("leases not released (%s)", type(exc).__name__)
            return
        log.warning("let go of tables %s%s", sorted(ids), f" to {to}" if to else "")
        if then is not None:
            await then(handed)

    async def move(
        self,
        table_id: int,
        seconds: float,
        then: HandedOver | None = None,
        *,
        to: str | None = None,
    ) -> bool:
        """Move a table on purpose: no new hand here; once the hand being played is over and
        written (at most `seconds`), the table stops here and its lease is released, or
        given to process `to`; `then` hands it to another process. False (and the table
        plays on here) if its hand did not end in time or it does not run here."""
        table = self.get(table_id)
        if table is None:
            return False
        table.post(m.Drain(), first=True)  # no new hand here: not even one on its way
        deadline = time.monotonic() + seconds
        while not self._between_hands(table):
            if time.monotonic() >= deadline:
                if not self.draining:
                    table.post(m.Drain(on=False))  # deal on here
                return False
            await asyncio.sleep(0.05)  # the hand ends on the table's own task
        await self._hand_over([table], then, to)
        return True

    async def take_back(self, table_id: int) -> list[int]:
        """A table given away by a move that its target did not take: run it here again at
        once (a new epoch). Returns it, or nothing when the target took it after all."""
        if not await self.store.take_back(table_id):
            return []
        return await self.adopt([table_id])

    async def drain(self, seconds: float, then: HandedOver | None = None) -> int:
        """A graceful stop: deal no new hand, and let each table go (its lease released, and
        `then` hands it to another process) as soon as its hand is over and written, for at
        most `seconds`. Returns how many tables were still in a hand then (they stop with the
        rest; the next owner voids those hands)."""
        self.draining = True
        for table in self.tables.values():
            table.post(m.Drain(), first=True)
        deadline = time.monotonic() + seconds
        while True:
            done = [t for t in self.tables.values() if self._between_hands(t)]
            if done:
                await self._hand_over(done, then)
            if not self.tables or time.monotonic() >= deadline:
                if self.tables:
                    log.warning("drain: tables %s still in a hand", sorted(self.tables))
                return len(self.tables)
            await asyncio.sleep(0.05)  # hands end on the tables' own tasks

    async def stop(self) -> None:
        for table in list(self.tables.values()):
            await table.stop()
        self.tables.clear()
        await self.writer.stop()
        try:
            await self.store.release_all()  # the next process claims them without waiting
        except Exception as exc:  # the database is away: the leases expire by themselves
            log.warning("leases not released (%s)", type(exc).__name__)
