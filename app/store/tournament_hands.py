"""A tournament's hands at its tables: no ledger posting (tournament chips), but each dealt-in
player's seat and entry take their stack after the hand, and a player left with 0 chips is
busted (`settle_hands`, the tournament side of `hands.record_finished_many`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.store.errors import (
    InsufficientFunds,
    InvalidAmount,
    NotSeated,
    TableNotFound,
    TournamentTable,
    UnbalancedTransaction,
)
from app.store.models import PokerTable, Seat
from app.store.tournament_models import EntryStatus, TournamentEntry


@dataclass(frozen=True, slots=True)
class HandChips:
    """A finished tournament hand at one of its tables: each dealt-in player's stack at the
    start and its change (summing to 0: a tournament hand takes no rake)."""

    tournament_id: int
    table_id: int
    number: int  # the hand's number: a player busted in it keeps it
    round: int | None  # the director's hand-for-hand round
    starting: Mapping[int, int]  # user id -> stack at the hand's start
    deltas: Mapping[int, int]  # user id -> stack change
    rake: int = 0

    def check(self) -> None:
        if self.rake != 0:
            raise InvalidAmount(f"hand #{self.number}: a tournament hand takes no rake")
        for user, delta in self.deltas.items():
            if type(delta) is not int:
                raise InvalidAmount(f"user {user}'s stack change must be whole chips: {delta!r}")
        if sum(self.deltas.values()) != 0:
            raise UnbalancedTransaction(
                f"hand #{self.number}: a tournament hand's stack changes must sum to 0"
            )


# Statements on every hand's path are built once: one built per call leaves garbage cycles
# (SQLAlchemy's bound parameters and their comparators) for the collector to find.
_TABLES = (
    select(PokerTable.id, PokerTable.tournament_id)
    .where(PokerTable.id.in_(bindparam("tables", expanding=True)))
    .order_by(PokerTable.id)
    .with_for_update()
)
_ENTRIES = (
    select(TournamentEntry.id, TournamentEntry.table_id, TournamentEntry.user_id)
    .where(
        TournamentEntry.table_id.in_(bindparam("tables", expanding=True)),
        TournamentEntry.status == EntryStatus.PLAYING,
    )
    .order_by(TournamentEntry.id)
    .with_for_update()
)
_SEATS = (
    select(Seat.table_id, Seat.user_id, Seat.stack)
    .where(Seat.table_id.in_(bindparam("tables", expanding=True)))
    .order_by(Seat.id)
    .with_for_update()
)
_SEAT_STACK = (
    update(Seat)
    .where(Seat.table_id == bindparam("b_table"), Seat.user_id == bindparam("b_user"))
    .values(stack=bindparam("b_stack"))
)
_ENTRY_CHIPS = (
    update(TournamentEntry)
    .where(TournamentEntry.id == bindparam("b_id"))
    .values(chips=bindparam("b_chips"))
)
_BUST = (
    update(TournamentEntry)
    .where(TournamentEntry.id == bindparam("b_id"))
    .values(
        status=EntryStatus.BUSTED,
        chips=0,
        table_id=None,
        seat=None,
        bust_hand=bindparam("b_hand"),
        bust_round=bindparam("b_round"),
        bust_stack=bindparam("b_stack"),
    )
)
_UNSEAT = delete(Seat).where(
    Seat.table_id == bindparam("b_table"), Seat.user_id == bindparam("b_user")
)


async def _tournament_tables(conn: AsyncConnection, hands: Sequence[HandChips]) -> None:
    """Lock the hands' tables (first, as every tournament write does) and refuse a hand at a
    table that is not its tournament's."""
    tables = sorted({h.table_id for h in hands})
    owners = dict((await conn.execute(_TABLES, {"tables": tables})).all())
    for h in hands:
        if h.table_id not in owners:
            raise TableNotFound(f"no table {h.table_id}")
        if owners[h.table_id] != h.tournament_id:
            raise TournamentTable(
                f"hand #{h.number} is tournament {h.tournament_id}'s, and table {h.table_id} "
                "is not one of its tables"
            )


async def _in_play(
    conn: AsyncConnection, tables: Sequence[int]
) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """At the tables, locked, entries before seats: each (table, user)'s playing entry, and
    its seat's stack."""
    entry_ids = {
        (t, u): e
        for e, t, u in await conn.execute(_ENTRIES, {"tables": list(tables)})
        if t is not None
    }
    stacks = {(t, u): stack for t, u, stack in await conn.execute(_SEATS, {"tables": list(tables)})}
    return entry_ids, stacks


async def settle_hands(session: AsyncSession, hands: Sequence[HandChips]) -> None:
    """Tournament hands (of any tables, in order), none settled before: no ledger posting
    (tournament chips), but each dealt-in player's seat and entry take their stack after the
    hand, and a player left with 0 is busted: the entry 'busted' with the hand's number, its
    round and their stack at its start, off its table, its seat gone. A few statements for
    all of them, in the caller's transaction."""
    if not hands:
        return
    for h in hands:
        h.check()
    conn = await session.connection()
    await _tournament_tables(conn, hands)
    entry_ids, stacks = await _in_play(conn, sorted({h.table_id for h in hands}))
    dealt: dict[tuple[int, int], int] = {}  # (table, user): their entry
    busts: list[dict[str, Any]] = []
    for h in hands:
        for user in sorted({*h.starting, *h.deltas}):
            at = (h.table_id, user)
            if at not in stacks or at not in entry_ids:
                raise NotSeated(f"user {user} has no seat in play at table {h.table_id}")
            after = stacks[at] + h.deltas.get(user, 0)
            if after < 0:
                raise InsufficientFunds(
                    f"hand #{h.number}: user {user}'s stack of {stacks[at]} cannot lose "
                    f"{-h.deltas.get(user, 0)}"
                )
            dealt[at] = entry_ids[at]
            stacks[at] = after
            if after == 0:
                start = h.starting.get(user, after - h.deltas.get(user, 0))
                busts.append(
                    {"b_id": entry_ids[at], "b_hand": h.number, "b_round": h.round,
                     "b_stack": start, "b_table": at[0], "b_user": user}
                )  # fmt: skip
                del stacks[at]  # off the table: the next hand there cannot deal them in
    await _write_chips(conn, dealt, stacks, busts)


async def _write_chips(
    conn: AsyncConnection,
    dealt: Mapping[tuple[int, int], int],
    stacks: Mapping[tuple[int, int], int],
    busts: Sequence[Mapping[str, Any]],
) -> None:
    """The hands' seats and entries, one statement of each kind."""
    alive = [(at, entry) for at, entry in dealt.items() if at in stacks]
    if alive:
        await conn.execute(
            _SEAT_STACK,
            [{"b_table": t, "b_user": u, "b_stack": stacks[t, u]} for (t, u), _ in alive],
        )
        await conn.execute(
            _ENTRY_CHIPS,
            [{"b_id": entry, "b_chips": stacks[at]} for at, entry in alive],
        )
    if busts:
        await conn.execute(
            _BUST,
            [{k: b[k] for k in ("b_id", "b_hand", "b_round", "b_stack")} for b in busts],
        )
        await conn.execute(
            _UNSEAT,
            [{"b_table": b["b_table"], "b_user": b["b_user"]} for b in busts],
        )
