"""What a table keeps in the database: its settings, its seats, and every chip it moves,
through the ledger (`app.store.ledger`) so each move posts exactly once (idempotency keys).

`LedgerTableStore` is the real `TableStore` (`app.tables.store`, the port the table
runtime talks to).

Every table this store writes for is leased to it (`app.tables.table_leases`): it claims a
table when it creates or restores it, and each write checks, in its own transaction, that
the lease still names this store's owner under the epoch it was claimed with (`fence`). A
write for a table whose lease moved on raises `TableError("lease_lost")` for a player's
request, or `LeaseLost` from the hand writer's jobs, and writes nothing.

A tournament's table (`tournament_id`) is leased and restored like any other; its seats hold
tournament chips, seated and unseated by `seat_entries` and `unseat_entries` (never `buy_in`,
`top_up` or `cash_out`, which refuse it: `TableError("tournament_table")`), and its hands
post nothing to the ledger (`hands.record_finished`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import accounts, hands, ledger, moderation, tournaments
from app.store.db import Database
from app.store.errors import StoreError
from app.store.models import PokerTable, Seat, User
from app.store.table_rows import create_table, get_table, open_tables
from app.tables.bot_names import bot_seat_name
from app.tables.bot_users import make_bot_user
from app.tables.errors import TableError
from app.tables.settings import EXTRA, TableSettings
from app.tables.store import EntryChips, Limits, Stacks, StoredSeat, StoredTable
from app.tables.table_leases import LEASE_SECONDS, TableLeases


def _refusal(exc: StoreError) -> TableError:
    return TableError(exc.code, exc.message)


COLUMNS = tuple(name for name in TableSettings.model_fields if name not in EXTRA)


def _columns(settings: TableSettings) -> dict[str, Any]:
    data = settings.to_dict()
    data.pop("min_buy_in")
    for name in EXTRA:
        data.pop(name)
    return data


async def _save_stacks(session: AsyncSession, table_id: int, stacks: Stacks) -> None:
    await session.execute(update(PokerTable).where(PokerTable.id == table_id).values(stacks=stacks))


class LedgerTableStore:
    """Tables, seats and chips in the database, chips only through the ledger; every write
    fenced by the table's lease. `owner` is this server process's registry id (a fresh one
    when not given: a store of its own, as in tests and tools)."""

    def __init__(
        self,
        db: Database,
        *,
        owner: str | None = None,
        lease_seconds: float = LEASE_SECONDS,
        watch_expiry: bool = False,
    ) -> None:
        self.db = db
        self.owner = owner or secrets.token_hex(16)
        self.leases = TableLeases(
            db, self.owner, lease_seconds=lease_seconds, watch_expiry=watch_expiry
        )

    @property
    def epochs(self) -> dict[int, int]:
        """Table id -> the epoch this store holds its lease under."""
        return self.leases.epochs

    def holds(self, table_id: int) -> bool:
        return self.leases.holds(table_id)

    async def claim_open(
        self, limit: int | None = None, only: Collection[int] | None = None
    ) -> list[int]:
        return await self.leases.claim_open(limit, only)

    async def renew_leases(self) -> set[int]:
        return await self.leases.renew()

    async def release(self, table_ids: list[int]) -> None:
        await self.leases.release(table_ids)

    async def release_all(self) -> None:
        await self.leases.release_all()

    async def give(self, table_ids: list[int], to: str) -> list[int]:
        return await self.leases.give(table_ids, to)

    async def take_back(self, table_id: int) -> bool:
        return await self.leases.take_back(table_id)

    async def create(
        self,
        settings: TableSettings,
        *,
        host_user_id: int | None,
        invite_token: str | None,
        password_hash: str | None,
        tournament_id: int | None = None,
    ) -> int:
        """A new table, leased to this store; `tournament_id`: one of that tournament's."""
        began = time.monotonic()
        async with self.db.transaction() as s:
            row = PokerTable(
                **_columns(settings),
                host_user_id=host_user_id,
                invite_token=invite_token,
                password_hash=password_hash,
                tournament_id=tournament_id,
                extra={name: getattr(settings, name) for name in EXTRA},
            )
            table = await create_table(s, row)
            epoch = await self.leases.claim_new(s, table.id)
        self.leases.held(table.id, epoch, began)  # once committed (see `claim_open`)
        return table.id

    async def load_open(self, table_ids: Collection[int] | None = None) -> list[StoredTable]:
        """The open tables this store holds (or those of `table_ids` it holds)."""
        wanted = set(self.epochs) if table_ids is None else set(table_ids) & set(self.epochs)
        async with self.db.session() as s:
            rows = [t for t in await open_tables(s) if t.id in wanted]
            user_ids = {seat.user_id for t in rows for seat in t.seats}
            names: dict[int, str] = {}
            if user_ids:
                found = await s.execute(select(User.id, User.name).where(User.id.in_(user_ids)))
                names = {uid: name for uid, name in found}
            out = []
            for t in rows:
                extra = dict(t.extra or {})
                values = {name: getattr(t, name) for name in COLUMNS}
                values.update({k: extra[k] for k in EXTRA if k in extra})
                bots = set(extra.get("bots", []))
                stored = StoredTable(
                    t.id,
                    TableSettings.stored(values),
                    t.host_user_id,
                    t.invite_token,
                    t.password_hash,
                    set(extra.get("members", [])),
                    tournament_id=t.tournament_id,
                    limits={
                        int(user): (pair[0], pair[1])
                        for user, pair in dict(extra.get("limits", {})).items()
                    },
                    waiting=[(int(u), str(n)) for u, n in extra.get("waiting", [])],
                    muted={int(user) for user in extra.get("muted", [])},
                )
                for seat in t.seats:
                    stored.seats.append(
                        StoredSeat(
                            seat.seat_no,
                            seat.user_id,
                            bot_seat_name(names.get(seat.user_id, "?"))
                            if seat.user_id in bots
                            else names.get(seat.user_id, "?"),
                            seat.stack,
                            seat.sitting_out,
                            seat.user_id in bots,
                        )
                    )
                out.append(stored)
            ids = [st.table_id for st in out]
            buttons = await hands.last_buttons(s, ids)
            games = await hands.last_games(s, ids)
            recorded = await hands.recorded_counts(s, ids)
            for st in out:
                st.button = buttons.get(st.table_id, -1)
                st.last_hand = games.get(st.table_id)
                st.hands_recorded = recorded.get(st.table_id, 0)
            return out

    async def buy_in(
        self, table_id: int, user_id: int, seat_no: int, amount: int, key: str, stacks: Stacks
    ) -> bool:
        """Sit down with `amount`; False (and nothing moves) if `key` was posted before."""
        try:
            async with self.db.transaction() as s:
                await self.leases.fence(s, table_id)
                posted = await ledger.buy_in(
                    s, user_id=user_id, table_id=table_id, amount=amount, key=key, seat_no=seat_no
                )
                if not posted.replayed:
                    await _save_stacks(s, table_id, stacks)
                return not posted.replayed
        except StoreError as exc:
            raise _refusal(exc) from None

    async def top_up(
        self, table_id: int, user_id: int, amount: int, key: str, stacks: Stacks
    ) -> bool:
        """Add `amount` to a seated stack; False (and nothing moves) if `key` was posted before."""
        try:
            async with self.db.transaction() as s:
                await self.leases.fence(s, table_id)
                posted = await ledger.buy_in(
                    s, user_id=user_id, table_id=table_id, amount=amount, key=key
                )
                if not posted.replayed:
                    await _save_stacks(s, table_id, stacks)
                return not posted.replayed
        except StoreError as exc:
            raise _refusal(exc) from None

    async def cash_out(self, table_id: int, user_id: int, key: str, stacks: Stacks) -> int:
        try:
            async with self.db.transaction() as s:
                await self.leases.fence(s, table_id)
                posted = await ledger.cash_out(s, user_id=user_id, table_id=table_id, key=key)
                if not posted.replayed:
                    await _save_stacks(s, table_id, stacks)
                player = await ledger.account_id(s, ledger.player_code(user_id))
                return posted.amount_for(player)
        except StoreError as exc:
            raise _refusal(exc) from None

    async def seat_entries(self, table_id: int, seats: Mapping[int, int], stacks: Stacks) -> None:
        """Seat tournament entries (entry id -> seat) with their chips at their tournament's
        table, in one transaction (a retry of the same seats changes nothing); `stacks` is
        the table's view with them."""
        try:
            async with self.db.transaction() as s:
                await self.leases.fence(s, table_id)
                await tournaments.seat_entries(s, table_id, seats, stacks=stacks)
        except StoreError as exc:
            raise _refusal(exc) from None

    async def unseat_entries(
        self, table_id: int, entry_ids: Sequence[int], stacks: Stacks
    ) -> dict[int, int]:
        """Take tournament entries off the table with their chips (to move them, or at the
        end), in one transaction; returns each one's chips; `stacks` is the table's view
        without them."""
        try:
            async with self.db.transaction() as s:
                await self.leases.fence(s, table_id)
                return await tournaments.unseat_entries(s, table_id, entry_ids, stacks=stacks)
        except StoreError as exc:
            raise _refusal(exc) from None

    async def add_entry_chips(
        self, table_id: int, user_id: int, chips: EntryChips, stacks: Stacks
    ) -> bool:
        """A seated player's rebuy or add-on, between hands: the price and fee posted, the
        chips on their entry and seat, `stacks` the table's view with them. False (and
        nothing moves) if its key was posted before."""
        try:
            async with self.db.transaction() as s:
                await self.leases.fence(s, table_id)
                posted = await tournaments.enter(
                    s,
                    chips.tournament_id,
                    user_id,
                    key=chips.key,
                    kind=chips.kind,
                    chips=chips.chips,
                    price=chips.price,
                    fee=chips.fee,
                    stacks=stacks,
                    seated_at=table_id,
                )
                return not posted.replayed
        except StoreError as exc:
            raise _refusal(exc) from None

    async def claim_protection(self, table_id: int, user_id: int, hand_id: str, now: float) -> bool:
        """R19: use one of the player's all-in protections for `hand_id` at `table_id` if
        they have one left in the 24 hours before `now` (every table and process counts the
        same rows). Fenced like every table write: a stale owner spends none (`LeaseLost`)."""
        async with self.db.transaction() as s:
            await self.leases.fence(s, table_id)
            return await accounts.claim_all_in_protection(
                s, user_id, hand_id, datetime.fromtimestamp(now, UTC)
            )

    async def save_settings(self, table_id: int, settings: TableSettings) -> None:
        async with self.db.transaction() as s:
            await self.leases.fence(s, table_id)
            table = await get_table(s, table_id)
            for name, value in _columns(settings).items():
                setattr(table, name, value)
            extra = dict(table.extra or {})
            extra.update({name: getattr(settings, name) for name in EXTRA})
            table.extra = extra

    async def save_waiting(self, table_id: int, line: list[list[Any]]) -> None:
        """A table's waiting list (R44), [[user id, name], …] in order, kept with its row."""
        async with self.db.transaction() as s:
            await self.leases.fence(s, table_id)
            table = await get_table(s, table_id)
            table.extra = {**(table.extra or {}), "waiting": line}

    async def chat_muted(self, user_id: int) -> datetime | None:
        """Until when an operator muted this player's chat everywhere (None: not muted)."""
        async with self.db.session() as s:
            return await moderation.muted_until(s, user_id)

    async def report_chat(
        self, table_id: int, reporter: int, reported: int, line: str, context: list[Any]
    ) -> int:
        async with self.db.transaction() as s:
            row = await moderation.report(
                s,
                reporter=reporter,
                reported=reported,
                table_id=table_id,
                line=line,
                context=context,
            )
            return row.id

    async def log_host(
        self,
        table_id: int,
        host: tuple[int, str],
        action: str,
        target: int | None,
        detail: dict[str, Any],
    ) -> None:
        """A private table's host acted: a line of the moderation log."""
        async with self.db.transaction() as s:
            actor = moderation.Actor(*host)
            await moderation.record(
                s, actor, action, target=target, table_id=table_id, detail=detail
            )

    async def save_state(
        self,
        table_id: int,
        *,
        members: set[int],
        bots: set[int],
        sitting_out: dict[int, bool],
        limits: dict[int, Limits] | None = None,
        muted: set[int] | None = None,
    ) -> None:
        async with self.db.transaction() as s:
            await self.leases.fence(s, table_id)
            table = await get_table(s, table_id)
            extra = dict(table.extra or {})
            extra["members"] = sorted(members)
            extra["bots"] = sorted(bots)
            if limits is not None:
                extra["limits"] = {str(user): list(pair) for user, pair in sorted(limits.items())}
            if muted is not None:
                extra["muted"] = sorted(muted)
            table.extra = extra
            if sitting_out:
                seats = await s.scalars(
                    select(Seat).where(
                        Seat.table_id == table_id, Seat.user_id.in_(list(sitting_out))
                    )
                )
                for seat in seats:
                    seat.sitting_out = sitting_out[seat.user_id]

    async def close(self, table_id: int) -> None:
        async with self.db.transaction() as s:
            await self.leases.fence(s, table_id)
            table = await get_table(s, table_id)
            table.status = "closed"

    async def reserve_numbers(self, count: int) -> range:
        """`count` hand numbers of the site-wide counter, for this table alone."""
        async with self.db.transaction() as s:
            return await hands.reserve_numbers(s, count)

    async def record_start(self, start: hands.HandStart) -> None:
        """The live hand's row: nothing secret (no card, no deck)."""
        async with self.db.transaction() as s:
            await self.leases.fence(s, start.table_id)
            await hands.record_start(s, start)

    async def record_hand(self, finish: hands.HandFinish) -> None:
        """The finished hand's record and its settlement, in one transaction."""
        async with self.db.transaction() as s:
            await self.leases.fence(s, finish.start.table_id)
            await hands.record_finished(s, finish)

    async def record_shown(self, table_id: int, hand_id: str, shown: dict[str, Any]) -> None:
        """R41: a show after the award, added to the hand's finished record."""
        async with self.db.transaction() as s:
            await self.leases.fence(s, table_id)
            await hands.record_shown(s, hand_id, shown)

    async def record_many(self, items: list[hands.HandStart | hands.HandFinish]) -> None:
        """Several tables' hand writes in one transaction: every start row in two statements,
        then the finished hands (`hands.record_finished_many`). All or nothing: if one
        table's lease moved on, `LeaseLost` refuses them all, and the hand writer then
        writes each on its own, where only that table's is refused."""
        async with self.db.transaction() as s:
            await self.leases.fence(
                s,
                *{
                    item.table_id if isinstance(item, hands.HandStart) else item.start.table_id
                    for item in items
                },
            )
            starts = [item for item in items if isinstance(item, hands.HandStart)]
            if starts:
                await hands.record_starts(s, starts)
            finishes = [item for item in items if isinstance(item, hands.HandFinish)]
            if finishes:
                await hands.record_finished_many(s, finishes)

    async def void_interrupted(self, table_ids: Collection[int]) -> list[dict[str, Any]]:
        """Void every hand a dead (or stopped) owner left live at `table_ids`, tables this
        store has just claimed, before they come back: no other table's hands, and none of
        a table this store is already running."""
        mine = sorted(t for t in table_ids if t in self.epochs)
        if not mine:
            return []
        async with self.db.transaction() as s:
            await self.leases.fence(s, *mine)
            rows = await hands.void_live_hands(s, table_ids=mine)
            return [
                {
                    "hand_id": row.id,
                    "number": str(row.number),
                    "table_id": row.table_id,
                    "reason": row.void_reason,
                    "stacks": {str(seat["seat"]): seat["stack"] for seat in row.seats},
                }
                for row in rows
            ]

    async def balance(self, user_id: int) -> int:
        """The player's balance: the chips they may still bring to a table."""
        async with self.db.session() as s:
            return await ledger.player_balance(s, user_id)

    async def make_bot(self, table_id: int, first: str, chips: int) -> tuple[int, str]:
        """A user for a bot, with `chips` granted from the bank to buy in with; returns its id
        and the name it plays under ("Bot Ada": `first` is one of `BOT_NAMES`)."""
        return await make_bot_user(self.db, first, chips)
