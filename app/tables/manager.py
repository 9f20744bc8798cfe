"""Every table of this process: made, restored at start, found, stopped at shutdown. The
process runs only tables it holds the lease of (`TableStore.claim_open`, `create`)."""

from __future__ import annotations

import hmac
import logging
import secrets
from typing import Any

from app.fanout import BaseFanout
from app.tables.clock import Clock, RealClock
from app.tables.errors import TableError
from app.tables.settings import TableSettings
from app.tables.state import Lifecycle
from app.tables.store import TableStore
from app.tables.table import DeckSource, Table
from app.tables.writer import HandWriter

log = logging.getLogger("app.tables.manager")

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
    ) -> None:
        self.store = store
        self.fanout = fanout
        self.clock: Clock = clock or RealClock()
        self.deck_source = deck_source
        self.bots_play_alone = bots_play_alone
        self.tables: dict[int, Table] = {}
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

    async def restore(self) -> int:
        """Bring back every open table with its seats and stacks. A hand that was being
        played when the server stopped never settled: it is recorded void, its stacks are as
        before it, and the table tells whoever reconnects (`hand_voided`). Only the tables
        this process could claim: one another live process holds stays with it."""
        await self.store.claim_open()
        voided = await self.store.void_interrupted()
        for stored in await self.store.load_open():
            stored.voided = [v for v in voided if v["table_id"] == stored.table_id]
            table = Table.restore(stored, **self._kwargs())
            self.tables[table.id] = table
            table.start()
        return len(self.tables)

    async def create(
        self, settings: TableSettings, *, host_user_id: int | None, password_hash: str | None
    ) -> Table:
        invite = secrets.token_urlsafe(24) if settings.private else None
        table_id = await self.store.create(
            settings,
            host_user_id=host_user_id,
            invite_token=invite,
            password_hash=password_hash if settings.private else None,
        )
        table = Table(
            table_id,
            settings,
            host_user_id=host_user_id,
            invite_token=invite,
            password_hash=password_hash if settings.private else None,
            members={host_user_id} if host_user_id is not None else set(),
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

    def by_invite(self, token: str) -> Table | None:
        for table in list(self.tables.values()):
            if table.invite_token and hmac.compare_digest(table.invite_token, token):
                return None if table.closed else table
        return None

    def public_tables(self) -> list[Table]:
        return [t for t in self.tables.values() if not t.settings.private and not t.closed]

    def hosted_by(self, user_id: int) -> list[Table]:
        """The open tables `user_id` hosts, private ones too."""
        return [t for t in self.tables.values() if t.host_user_id == user_id and not t.closed]

    async def renew_leases(self) -> set[int]:
        """Renew this process's leases; a table whose lease moved on stops at once (its
        writes would be refused anyway). Returns the tables stopped."""
        lost = await self.store.renew_leases()
        for table_id in lost:
            table = self.tables.pop(table_id, None)
            if table is not None:
                log.error("table %s: lease lost to another process; stopped here", table_id)
                await table.stop()
                # no request may wait on a table that no longer runs here
                table.become(Lifecycle.CLOSED)
                moved = TableError("table_moved", "this table moved to another server: reconnect")
                for _, future in table.mailbox.take_all():
                    if future is not None and not future.done():
                        future.set_exception(moved)
        return lost

    async def stop(self) -> None:
        for table in list(self.tables.values()):
            await table.stop()
        self.tables.clear()
        await self.writer.stop()
        try:
            await self.store.release_all()  # the next process claims them without waiting
        except Exception as exc:  # the database is away: the leases expire by themselves
            log.warning("leases not released (%s)", type(exc).__name__)
