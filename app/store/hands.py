"""Hand records: the non-secret row at a hand's start, the full record with its ledger
settlement in one transaction at its end, voiding interrupted hands, and reading them back.

Every writer here takes a session inside the caller's write transaction
(`async with db.transaction() as s:`) and is idempotent by hand id.

A hand has two names: its `number`, short and growing, which players see and find it by
(tables reserve blocks of numbers with `reserve_numbers`), and its `hand_id`, an unguessable
string the server keys its rows and ledger postings by and never shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.engine import Hand, commitment
from app.engine.cards import Card
from app.store import ledger, tournament_hands
from app.store.hand_models import HandCounter, HandPlayer, HandRecord, HandStatus
from app.store.models import PokerTable
from app.store.types import utcnow

RESTART = "the server restarted during the hand"
# written at the end
FINISHED = ("ended_at", "salt", "deck", "deal", "events", "inputs", "result", "rake")


@dataclass(frozen=True, slots=True)
class HandStart:
    """What may be stored while the hand is live: nothing secret."""

    hand_id: str
    number: int  # the hand's number, as players see it
    table_id: int
    table_name: str
    max_seats: int
    variant: str
    rules: dict[str, Any]
    button: int
    seats: list[dict[str, Any]]  # {"seat", "user_id", "name", "stack"}: starting stacks
    commitment: str
    started_at: datetime = field(default_factory=utcnow)
    # a tournament's hand: its tournament, level and the director's hand-for-hand round
    # (a player busted in it keeps the round); its chips are tournament chips
    tournament_id: int | None = None
    level: int | None = None
    round: int | None = None


@dataclass(frozen=True, slots=True)
class HandFinish:
    """The whole hand, revealed: written with its ledger settlement."""

    start: HandStart
    salt: str  # the master salt, hex (never stored while the hand is live)
    deck: str  # "As7d…"
    events: list[dict[str, Any]]
    inputs: list[list[Any]]
    result: dict[str, Any]
    rake: int
    deltas: dict[int, int]  # user id -> stack change (sums to -rake)
    ended_at: datetime = field(default_factory=utcnow)
    # the table's view of all its seats after the hand, {"seat": [user id, stack]}: stored
    # with the settlement so `ledger check` can compare the table with the ledger
    table_stacks: dict[str, list[int]] | None = None
    # seeded-v2: the public deal_committed fields, the server seed, the seeds, the slot cards
    deal: dict[str, Any] | None = None

    @classmethod
    def from_hand(
        cls,
        start: HandStart,
        hand: Hand,
        *,
        deck: Sequence[Card],
        salt: bytes,
        inputs: list[list[Any]],
        deltas: dict[int, int],
        table_stacks: dict[str, list[int]] | None = None,
        deal: dict[str, Any] | None = None,
    ) -> HandFinish:
        """The record of a finished `hand`: its events, the deal revealed, and its result."""
        result = hand.result
        assert result is not None
        return cls(
            start=start,
            salt=salt.hex(),
            deck=commitment.deck_text(deck),
            events=[event.to_dict() for event in hand.events],
            inputs=inputs,
            result={
                "pots": [{"amount": p.amount, "eligible": list(p.eligible)} for p in result.pots],
                "awards": [award.to_dict() for award in result.awards],
                "stacks": {str(seat): stack for seat, stack in result.stacks.items()},
                "deltas": {str(user): delta for user, delta in deltas.items()},
                "rake": result.rake,
                "showdown": result.showdown,
                "showdown_seats": sorted(hand.showdown_hands()),
                "street": result.street,
            },
            rake=result.rake,
            deltas=deltas,
            table_stacks=table_stacks,
            deal=deal,
        )


def _row_values(start: HandStart) -> dict[str, Any]:
    return {
        "id": start.hand_id,
        "number": start.number,
        "table_id": start.table_id,
        "table_name": start.table_name,
        "max_seats": start.max_seats,
        "variant": start.variant,
        "rules": dict(start.rules),
        "button": start.button,
        "seats": [dict(s) for s in start.seats],
        "commitment": start.commitment,
        "status": HandStatus.LIVE,
        "started_at": start.started_at,
        "rake": 0,
        "tournament_id": start.tournament_id,
        "level": start.level,
    }


async def record_starts(session: AsyncSession, starts: Sequence[HandStart]) -> None:
    """Live rows and their players for several hands, in two statements (no ORM unit of
    work); a row written before stays as it is."""
    conn = await session.connection()
    insert_new = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    await conn.execute(
        insert_new(HandRecord).on_conflict_do_nothing(), [_row_values(s) for s in starts]
    )
    players = [
        {
            "hand_id": start.hand_id,
            "user_id": seat["user_id"],
            "seat_no": seat["seat"],
            "started_at": start.started_at,
        }
        for start in starts
        for seat in start.seats
    ]
    if players:
        await conn.execute(insert_new(HandPlayer).on_conflict_do_nothing(), players)


async def record_start(session: AsyncSession, start: HandStart) -> None:
    """Write the live hand's row (no cards, no deck); a row written before stays as it is."""
    await record_starts(session, [start])


async def record_finished(session: AsyncSession, finish: HandFinish) -> bool:
    """The full record and the ledger settlement (stack changes, rake to the house), in the
    caller's transaction; a tournament's hand posts nothing to the ledger, its stacks go to
    its seats and entries (`tournament_hands.settle_hands`). False (and nothing changes) if the
    hand was recorded before."""
    return (await record_finished_many(session, [finish]))[0]


def _unwritten(
    finishes: Sequence[HandFinish], statuses: dict[str, str]
) -> tuple[list[bool], list[HandFinish], list[HandStart]]:
    """Which of `finishes` to write (not DONE yet: a hand given twice is written once), and
    the live rows missing among them; `statuses` learns the ones to write as DONE."""
    unwritten: list[HandFinish] = []
    missing: list[HandStart] = []
    written: list[bool] = []
    for finish in finishes:
        start = finish.start
        status = statuses.get(start.hand_id)
        written.append(status != HandStatus.DONE)
        if status == HandStatus.DONE:
            continue
        if status is None:
            missing.append(start)
        statuses[start.hand_id] = HandStatus.DONE
        unwritten.append(finish)
    return written, unwritten, missing


def _tournament_chips(finish: HandFinish) -> tournament_hands.HandChips:
    start = finish.start
    assert start.tournament_id is not None
    return tournament_hands.HandChips(
        tournament_id=start.tournament_id,
        table_id=start.table_id,
        number=start.number,
        round=start.round,
        starting={seat["user_id"]: seat["stack"] for seat in start.seats},
        deltas=finish.deltas,
        rake=finish.rake,
    )


def _without_busts(finish: HandFinish) -> HandFinish:
    """A tournament table's view after the hand, its busted players (0 chips: their seats are
    gone) left out, whether the table left them in or not."""
    view = finish.table_stacks
    if finish.start.tournament_id is None or view is None:
        return finish
    kept = {seat: held for seat, held in view.items() if held[1] > 0}
    return replace(finish, table_stacks=kept)


def _settlement(finish: HandFinish) -> ledger.Settlement:
    start = finish.start
    return ledger.Settlement(
        table_id=start.table_id,
        key=start.hand_id,
        deltas=finish.deltas,
        rake=finish.rake,
        memo=f"hand #{start.number} at table {start.table_id}, rake {finish.rake}",
    )


# Statements on every hand's path are built once: one built per call leaves garbage cycles
# (SQLAlchemy's bound parameters and their comparators) for the collector to find.
_STATUSES = select(HandRecord.id, HandRecord.status).where(
    HandRecord.id.in_(bindparam("ids", expanding=True))
)
_RESERVE = (
    update(HandCounter)
    .where(HandCounter.id == 1)
    .values(next_number=HandCounter.next_number + bindparam("count"))
    .returning(HandCounter.next_number)
)
_FINISH = (
    update(HandRecord)
    .where(HandRecord.id == bindparam("b_id"))
    .values(
        status=HandStatus.DONE,
        void_reason=None,
        **{name: bindparam(f"b_{name}") for name in FINISHED},
    )
)
_TABLE_STACKS = (
    update(PokerTable)
    .where(PokerTable.id == bindparam("b_id"))
    .values(stacks=bindparam("b_stacks"))
)


async def _store_records(conn: AsyncConnection, finishes: Sequence[HandFinish]) -> None:
    """The finished hands' records, and each table's own view of its stacks, one statement
    of each."""
    await conn.execute(
        _FINISH,
        [
            {"b_id": finish.start.hand_id, **{f"b_{n}": getattr(finish, n) for n in FINISHED}}
            for finish in finishes
        ],
    )
    views = [f for f in finishes if f.table_stacks is not None]
    if views:
        await conn.execute(
            _TABLE_STACKS,
            [{"b_id": f.start.table_id, "b_stacks": f.table_stacks} for f in views],
        )


async def record_finished_many(session: AsyncSession, finishes: Sequence[HandFinish]) -> list[bool]:
    """`record_finished` for several hands (of any tables) in the caller's transaction, in
    one statement of each kind for all of them: their statuses, the live rows missing, the
    settlements (`ledger.settle_hands`; a tournament's hands `tournament_hands.settle_hands`)
    and the records."""
    conn = await session.connection()
    ids = [finish.start.hand_id for finish in finishes]
    rows = await conn.execute(_STATUSES, {"ids": ids})
    statuses: dict[str, str] = {hand_id: status for hand_id, status in rows}
    written, unwritten, missing = _unwritten(finishes, statuses)
    if not unwritten:
        return written
    if missing:
        await record_starts(session, missing)
    # not DONE: each settlement commits with its record, so it was never posted
    cash = [finish for finish in unwritten if finish.start.tournament_id is None]
    await ledger.settle_hands(session, [_settlement(finish) for finish in cash])
    played = [finish for finish in unwritten if finish.start.tournament_id is not None]
    await tournament_hands.settle_hands(session, [_tournament_chips(finish) for finish in played])
    await _store_records(conn, [_without_busts(finish) for finish in unwritten])
    return written


async def void_live_hands(
    session: AsyncSession, reason: str = RESTART, *, table_ids: Sequence[int] | None = None
) -> list[HandRecord]:
    """Every hand still live (the server died in it) becomes void: its chips never moved, so
    each player's stack is what it was when it started (a tournament's hand as a cash one:
    its seats and entries keep their stacks from before it). `table_ids`: only those tables'
    (the ones a process has just claimed). Returns the voided rows."""
    query = select(HandRecord).where(HandRecord.status == HandStatus.LIVE)
    if table_ids is not None:
        query = query.where(HandRecord.table_id.in_(list(table_ids)))
    rows = list(await session.scalars(query.order_by(HandRecord.started_at)))
    now = utcnow()
    for row in rows:
        row.status = HandStatus.VOID
        row.ended_at = now
        row.void_reason = reason[:200]
    await session.flush()
    return rows


async def reserve_numbers(session: AsyncSession, count: int) -> range:
    """`count` hand numbers that no table of any server process holds: the one counter row
    moves on in the caller's transaction (its row lock on PostgreSQL, SQLite's write lock),
    so two reservations never overlap. Numbers reserved and never dealt are skipped."""
    if count < 1:
        raise ValueError("reserve at least one hand number")
    after = await session.scalar(_RESERVE, {"count": count})
    if after is None:
        raise RuntimeError("the hand_counter row is missing: is the schema migrated?")
    return range(after - count, after)


async def record_shown(session: AsyncSession, hand_id: str, shown: dict[str, Any]) -> bool:
    """R41: the uncalled winner showed after the pot was awarded: the show (a `hand_shown`
    event) joins the hand's finished record, after its end. False (and nothing changes) if
    the hand is not recorded as finished or holds a show already."""
    row = await session.get(HandRecord, hand_id, with_for_update=True)
    if row is None or row.events is None:
        return False
    if any(e.get("type") == "hand_shown" for e in row.events):
        return False
    row.events = [*row.events, shown]
    return True


async def get_hand(session: AsyncSession, hand_id: str) -> HandRecord | None:
    return await session.get(HandRecord, hand_id)


async def hand_by_number(session: AsyncSession, number: int) -> HandRecord | None:
    found: HandRecord | None = await session.scalar(
        select(HandRecord).where(HandRecord.number == number)
    )
    return found


async def dealt_seat(session: AsyncSession, hand_id: str, user_id: int) -> int | None:
    """The seat `user_id` was dealt in `hand_id`, or None."""
    seat: int | None = await session.scalar(
        select(HandPlayer.seat_no).where(
            HandPlayer.hand_id == hand_id, HandPlayer.user_id == user_id
        )
    )
    return seat


async def list_hands(
    session: AsyncSession,
    user_id: int,
    *,
    table_id: int | None = None,
    variant: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> tuple[list[HandRecord], int]:
    """The finished hands `user_id` was dealt into, newest first, and how many there are."""
    where = [
        HandPlayer.user_id == user_id,
        HandRecord.id == HandPlayer.hand_id,
        HandRecord.status == HandStatus.DONE,
    ]
    if table_id is not None:
        where.append(HandRecord.table_id == table_id)
    if variant is not None:
        where.append(HandRecord.variant == variant)
    total = await session.scalar(
        select(func.count()).select_from(HandPlayer, HandRecord).where(*where)
    )
    rows = await session.scalars(
        select(HandRecord)
        .join(HandPlayer, HandPlayer.hand_id == HandRecord.id)
        .where(*where)
        .order_by(HandRecord.started_at.desc(), HandRecord.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(rows), int(total or 0)


async def finished_between(
    session: AsyncSession, since: datetime, until: datetime | None = None
) -> list[HandRecord]:
    """Every finished hand that ended in [since, until), oldest first (the operators' export)."""
    query = select(HandRecord).where(
        HandRecord.status == HandStatus.DONE, HandRecord.ended_at >= since
    )
    if until is not None:
        query = query.where(HandRecord.ended_at < until)
    return list(await session.scalars(query.order_by(HandRecord.ended_at, HandRecord.id)))


async def of_tournament(session: AsyncSession, tournament_id: int) -> list[HandRecord]:
    """Every finished hand of one tournament, in the order they ended."""
    query = select(HandRecord).where(
        HandRecord.status == HandStatus.DONE, HandRecord.tournament_id == tournament_id
    )
    return list(await session.scalars(query.order_by(HandRecord.ended_at, HandRecord.id)))


async def last_games(
    session: AsyncSession, table_ids: Sequence[int]
) -> Mapping[int, dict[str, Any]]:
    """Each table's latest finished hand's game and its place in the rotation (R45), so a
    restored rotation table goes on from it: ``{"variant", "rotation"}``."""
    if not table_ids:
        return {}
    latest = (
        select(HandRecord.table_id, func.max(HandRecord.number).label("n"))
        .where(HandRecord.table_id.in_(list(table_ids)), HandRecord.status == HandStatus.DONE)
        .group_by(HandRecord.table_id)
        .subquery()
    )
    rows = await session.execute(
        select(HandRecord.table_id, HandRecord.variant, HandRecord.rules).join(
            latest, (HandRecord.table_id == latest.c.table_id) & (HandRecord.number == latest.c.n)
        )
    )
    return {
        table_id: {"variant": variant, "rotation": (rules or {}).get("rotation")}
        for table_id, variant, rules in rows
    }


async def recorded_counts(session: AsyncSession, table_ids: Sequence[int]) -> Mapping[int, int]:
    """How many finished hands each table has recorded: a restored (or moved) table counts
    its hands on from there ("Hand 3 at this table"; the number stays the hand's id)."""
    if not table_ids:
        return {}
    rows = await session.execute(
        select(HandRecord.table_id, func.count())
        .where(HandRecord.table_id.in_(list(table_ids)), HandRecord.status == HandStatus.DONE)
        .group_by(HandRecord.table_id)
    )
    return {table_id: count for table_id, count in rows}


async def last_buttons(session: AsyncSession, table_ids: Sequence[int]) -> Mapping[int, int]:
    """Each table's button in its latest hand, so a restored table moves it on (R5)."""
    if not table_ids:
        return {}
    latest = (
        select(HandRecord.table_id, func.max(HandRecord.started_at).label("at"))
        .where(HandRecord.table_id.in_(list(table_ids)))
        .group_by(HandRecord.table_id)
        .subquery()
    )
    rows = await session.execute(
        select(HandRecord.table_id, HandRecord.button).join(
            latest,
            (HandRecord.table_id == latest.c.table_id) & (HandRecord.started_at == latest.c.at),
        )
    )
    return {table_id: button for table_id, button in rows}
