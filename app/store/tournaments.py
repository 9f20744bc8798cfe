"""Tournaments in the store: the rows, the money and the chips.

The money is the ledger's (`ledger.tournament_posting`): an entry, re-entry, rebuy or add-on
moves its price from the player's balance to the tournament's prize pool and its fee to the
house; a refund moves both back; a prize moves from the pool to the player. Each is
idempotent by its key, like every posting, and the entry's row changes commit with it.

The chips are tournament chips, outside the ledger: an entry's `chips`, and while it sits at
one of the tournament's tables (an ordinary `poker_tables` row with its `tournament_id`) its
`Seat` there, with the same stack. `Tournament.issued` counts every chip handed out; hands
move chips between entries and never make or lose one (`settle_hands`).

Every function takes a session inside the caller's write transaction. The director's writes
take its lease as `fence` (`DirectorFence`), checked in the same transaction first; a table's
writes (seating, hands: `tournament_hands`) are fenced by the table's lease, by the table's
store. Locks are taken in one order: the tournament's row (every write that moves money takes
it first, so those queue), the ledger's accounts, a table's row, entries, seats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Select, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import leases, ledger
from app.store.errors import (
    AddOnTaken,
    AlreadyRegistered,
    AlreadyStarted,
    DrawNotFound,
    DrawRevealed,
    EntryElsewhere,
    InvalidAmount,
    InvalidSeat,
    NotRegistered,
    NotSeated,
    PlaceTaken,
    SeatTaken,
    TableClosed,
    TableNotFound,
    TournamentClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentStarting,
)
from app.store.lease_models import TournamentLease
from app.store.models import PokerTable, Seat, TxKind
from app.store.tournament_models import (
    DIRECTOR_COLUMNS,
    LIVE,
    OVER,
    SETTING_COLUMNS,
    EntryStatus,
    Tournament,
    TournamentDraw,
    TournamentEntry,
    TournamentStatus,
)
from app.store.types import utcnow

R = TypeVar("R")
ENTRY_KINDS = ("entry", "reentry")  # a new entry row
CHIP_KINDS = ("rebuy", "addon")  # more chips for the live entry
Stacks = dict[str, list[int]]  # a table's own view of its seats, {"seat": [user id, stack]}


@dataclass(frozen=True, slots=True)
class DirectorFence:
    """The director's lease, as claimed (`leases.claim(..., model=TournamentLease)`)."""

    owner: str
    epoch: int


async def check_director(session: AsyncSession, tournament_id: int, owner: str, epoch: int) -> None:
    """The director's fence: `LeaseLost` unless `owner` still directs the tournament under
    `epoch`. Call it inside the write's transaction, before the write."""
    await leases.check(session, owner, {tournament_id: epoch}, model=TournamentLease)


async def _fenced(
    session: AsyncSession, tournament_id: int, fence: DirectorFence | None
) -> Tournament:
    """The director's lease checked (when given), then the tournament's row, locked."""
    if fence is not None:
        await check_director(session, tournament_id, fence.owner, fence.epoch)
    found: Tournament | None = await session.scalar(
        select(Tournament)
        .where(Tournament.id == tournament_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if found is None:
        raise TournamentNotFound(f"no tournament {tournament_id}")
    return found


def _open(tournament: Tournament) -> None:
    if tournament.status in OVER:
        raise TournamentClosed(f"tournament {tournament.name!r} is {tournament.status}")


def _whole(amount: object, what: str, *, least: int) -> None:
    if type(amount) is not int or amount < least:
        raise InvalidAmount(f"the {what} must be a whole number, at least {least}, not {amount!r}")


# --- the rows --------------------------------------------------------------------------------


async def create_tournament(session: AsyncSession, values: Mapping[str, Any]) -> int:
    """A new tournament (registering) with its settings, and its prize pool account. Keys:
    the settings' columns (`SETTING_COLUMNS`) and the director's `state`."""
    unknown = set(values) - {*SETTING_COLUMNS, "state"}
    if unknown:
        raise TypeError(f"not a tournament setting: {', '.join(sorted(unknown))}")
    row = Tournament(**values)
    session.add(row)
    await session.flush()
    await ledger.open_prize_pool(session, row.id)
    return row.id


async def get_tournament(session: AsyncSession, tournament_id: int) -> Tournament:
    found = await session.get(Tournament, tournament_id, populate_existing=True)
    if found is None:
        raise TournamentNotFound(f"no tournament {tournament_id}")
    return found


async def _fresh(session: AsyncSession, query: Select[R]) -> list[R]:
    """The rows as the database holds them now (not a copy the session loaded before)."""
    return list(await session.scalars(query.execution_options(populate_existing=True)))


async def list_tournaments(
    session: AsyncSession, *, statuses: Sequence[str] | None = None
) -> list[Tournament]:
    query = select(Tournament).order_by(Tournament.id)
    if statuses is not None:
        query = query.where(Tournament.status.in_(list(statuses)))
    return await _fresh(session, query)


async def entries(session: AsyncSession, tournament_id: int) -> list[TournamentEntry]:
    """Every entry of the tournament, in the order they came in."""
    of = TournamentEntry.tournament_id == tournament_id
    return await _fresh(session, select(TournamentEntry).where(of).order_by(TournamentEntry.id))


async def close_registration(
    session: AsyncSession, tournament_id: int, fence: DirectorFence
) -> list[TournamentEntry]:
    """The start: registration closes (`started_at` set, under the tournament's row lock,
    which every entry and unregistering takes too) and the entries it closed on. After
    it, an entry or an unregistering racing the start is refused, never half counted."""
    tournament = await _fenced(session, tournament_id, fence)
    if tournament.started_at is None:
        tournament.started_at = utcnow()
    return await entries(session, tournament_id)


async def save_director(
    session: AsyncSession,
    tournament_id: int,
    values: Mapping[str, Any],
    *,
    fence: DirectorFence | None = None,
) -> None:
    """Write the director's columns (`DIRECTOR_COLUMNS`: status, clock, level, prizes, …)."""
    unknown = set(values) - set(DIRECTOR_COLUMNS)
    if unknown:
        raise TypeError(f"not the director's to write: {', '.join(sorted(unknown))}")
    if fence is not None:
        await check_director(session, tournament_id, fence.owner, fence.epoch)
    # one statement (the clock is written each second): the row is not loaded first, its
    # settings and structure not read back only to be left as they are
    written = await session.execute(
        update(Tournament).where(Tournament.id == tournament_id).values(dict(values))
    )
    if not written.rowcount:  # type: ignore[attr-defined]
        raise TournamentNotFound(f"no tournament {tournament_id}")


async def save_structure(
    session: AsyncSession,
    tournament_id: int,
    structure: Mapping[str, Any],
    *,
    fence: DirectorFence | None = None,
) -> None:
    """A host's edit of the levels to come (R26): the director's, fenced, once it runs."""
    tournament = await _fenced(session, tournament_id, fence)
    tournament.structure = dict(structure)
    await session.flush()


# --- entries: the money ----------------------------------------------------------------------


async def _live_entry(
    session: AsyncSession, tournament_id: int, user_id: int, *, lock: bool = True
) -> TournamentEntry | None:
    query = select(TournamentEntry).where(
        TournamentEntry.tournament_id == tournament_id,
        TournamentEntry.user_id == user_id,
        TournamentEntry.status.in_(LIVE),
    )
    if lock:
        query = query.with_for_update()
    found: TournamentEntry | None = await session.scalar(
        query.execution_options(populate_existing=True)
    )
    return found


async def _lock_table(session: AsyncSession, table_id: int) -> None:
    await session.execute(select(PokerTable.id).where(PokerTable.id == table_id).with_for_update())


async def _new_entry(
    session: AsyncSession,
    tournament: Tournament,
    user_id: int,
    status: str,
    chips: int,
    bot: bool = False,
    seed: str | None = None,
) -> TournamentEntry:
    """A new entry row for the player, refused while they have a live one or the tournament
    has `max_players` live entries already."""
    if await _live_entry(session, tournament.id, user_id) is not None:
        raise AlreadyRegistered(f"you are already in tournament {tournament.name!r}")
    live, last = (
        await session.execute(
            select(
                func.count().filter(TournamentEntry.status.in_(LIVE)),
                func.max(TournamentEntry.number).filter(TournamentEntry.user_id == user_id),
            ).where(TournamentEntry.tournament_id == tournament.id)
        )
    ).one()
    if live >= tournament.max_players:
        raise TournamentFull(f"tournament {tournament.name!r} is full")
    entry = TournamentEntry(
        tournament_id=tournament.id,
        user_id=user_id,
        number=(last or 0) + 1,
        status=status,
        chips=chips,
        time_bank_ms=tournament.time_bank_ms,
        pause_left_ms=tournament.pause_allowance_ms,
        paid=0,
        fees=0,
        bot=bot,
        seed=seed,
    )
    session.add(entry)
    return entry


async def _more_chips(
    session: AsyncSession,
    tournament: Tournament,
    user_id: int,
    kind: str,
    chips: int,
    seated_at: int | None,
) -> TournamentEntry:
    """A rebuy or the add-on on the player's live entry; a seated entry's seat gets the
    chips too (the table's view comes with them, `enter(stacks=…)`). Its table's row is
    locked before the entry, as a hand's record locks them."""
    seated = await _live_entry(session, tournament.id, user_id, lock=False)
    if seated is not None and seated.table_id is not None:
        await _lock_table(session, seated.table_id)
    entry = await _live_entry(session, tournament.id, user_id)
    if entry is None:
        raise NotRegistered(f"you have no entry in play in tournament {tournament.name!r}")
    if seated_at is not None and entry.table_id != seated_at:
        raise NotSeated(f"you are not seated at table {seated_at}")
    if kind == "addon":
        if entry.addon:
            raise AddOnTaken("you have taken the add-on already")
        entry.addon = True
    else:
        entry.rebuys += 1
    entry.chips += chips
    if entry.table_id is not None:
        await session.execute(
            update(Seat)
            .where(Seat.table_id == entry.table_id, Seat.user_id == user_id)
            .values(stack=Seat.stack + chips)
            .execution_options(synchronize_session=False)
        )
    return entry


def _check_entry(kind: str, status: str, seated: bool, chips: int, price: int, fee: int) -> None:
    """A caller's mistake in `enter`'s arguments (not a player's: those are refusals)."""
    if kind not in (*ENTRY_KINDS, *CHIP_KINDS):
        raise ValueError(f"an entry is one of {ENTRY_KINDS + CHIP_KINDS}, not {kind!r}")
    if status not in LIVE:
        raise ValueError(f"a new entry is registered or playing, not {status!r}")
    if seated and kind in ENTRY_KINDS:
        raise ValueError("a new entry sits down with `seat_entries`, not `seated_at`")
    _whole(chips, "chips", least=1)
    _whole(price, "price", least=0)
    _whole(fee, "fee", least=0)


async def enter(
    session: AsyncSession,
    tournament_id: int,
    user_id: int,
    *,
    key: str,
    kind: str = "entry",
    chips: int,
    price: int,
    fee: int,
    status: str = EntryStatus.REGISTERED,
    stacks: Stacks | None = None,
    seated_at: int | None = None,
    fence: DirectorFence | None = None,
    bot: bool = False,
    seed: str | None = None,
) -> ledger.Posted:
    """Pay `price` into the prize pool and `fee` to the house, in one posting, for `chips`:
    "entry"/"reentry" make a new entry (its number the next; `status` "playing" for a late
    entry seated at once), "rebuy"/"addon" add to the player's live entry (a seated one's
    seat too: pass the table's view as `stacks`; `seated_at`: the table it must sit at, when
    the table asks; `bot`: a bot's entry; `seed`: the entrant's seed for the draws, hex).
    Idempotent by `key`. Refusals: `InsufficientFunds`,
    `AlreadyRegistered`, `NotRegistered`, `AddOnTaken`, `TournamentFull`, `TournamentClosed`,
    `TournamentStarting` (a registration once the start has closed it),
    `NotSeated` (not at `seated_at`); nothing changes."""
    _check_entry(kind, status, seated_at is not None, chips, price, fee)
    tournament = await _fenced(session, tournament_id, fence)

    async def move() -> tuple[int, int]:
        _open(tournament)
        if tournament.status == TournamentStatus.REGISTERING and tournament.started_at is not None:
            raise TournamentStarting(
                f"tournament {tournament.name!r} is starting: register again in a moment"
            )
        if kind in ENTRY_KINDS:
            entry = await _new_entry(session, tournament, user_id, status, chips, bot, seed)
        else:
            entry = await _more_chips(session, tournament, user_id, kind, chips, seated_at)
        entry.paid += price
        entry.fees += fee
        tournament.issued += chips
        if stacks is not None and entry.table_id is not None:
            await _save_stacks(session, entry.table_id, stacks)
        return price, fee

    memo = (
        f"user {user_id} {kind} in tournament {tournament_id}: {price} to the prize pool, "
        f"{fee} to the house, {chips} chips" + (f", {status}" if kind in ENTRY_KINDS else "")
    )
    return await ledger.tournament_posting(
        session,
        kind=TxKind.TOURNAMENT_ENTRY,
        key=key,
        memo=memo,
        tournament_id=tournament_id,
        user_id=user_id,
        move=move,
    )


def _refund(tournament: Tournament, entry: TournamentEntry) -> tuple[int, int]:
    """Give the entry's prices and fees back: a registered entry leaves (its chips are no
    longer issued), one that played stays as it is with no prize."""
    if entry.status == EntryStatus.REGISTERED:
        tournament.issued -= entry.chips
        entry.chips = 0
        entry.status = EntryStatus.UNREGISTERED
    else:
        entry.prize = 0
    entry.refunded = True
    return -entry.paid, -entry.fees


async def unregister(
    session: AsyncSession,
    tournament_id: int,
    user_id: int,
    *,
    key: str,
    fence: DirectorFence | None = None,
) -> ledger.Posted:
    """Leave before playing: the registered entry's prices and fees (rebuys' too) go back
    and it is 'unregistered'. `NotRegistered` without a registered entry (none, or playing)."""
    tournament = await _fenced(session, tournament_id, fence)

    async def move() -> tuple[int, int]:
        if tournament.started_at is not None:
            raise AlreadyStarted("the tournament has started: there is no unregistering")
        entry = await _live_entry(session, tournament_id, user_id)
        if entry is None or entry.status != EntryStatus.REGISTERED:
            playing = entry is not None
            raise NotRegistered(
                "you are playing: you can no longer unregister"
                if playing
                else f"you are not registered for tournament {tournament.name!r}"
            )
        return _refund(tournament, entry)

    return await ledger.tournament_posting(
        session,
        kind=TxKind.TOURNAMENT_REFUND,
        key=key,
        memo=f"user {user_id} unregisters from tournament {tournament_id}",
        tournament_id=tournament_id,
        user_id=user_id,
        move=move,
    )


async def refund_all(
    session: AsyncSession,
    tournament_id: int,
    *,
    key_prefix: str,
    fence: DirectorFence | None = None,
) -> list[ledger.Posted]:
    """Cancel the tournament: its status becomes 'cancelled', and every entry gets all its
    prices and fees back (entry, rebuys, add-on; the house gives the fees back), one posting
    each, keyed `f"{key_prefix}:{entry_id}"`. Registered entries become 'unregistered';
    entries that played stay as they are (their chips the record of the game) with prize 0.
    Seated entries stay seated: the director closes the tables. An entry refunded before
    (unregistered) is left out; a second call replays. Refused once a prize was paid or the
    tournament finished (`TournamentClosed`)."""
    tournament = await _fenced(session, tournament_id, fence)
    rows = await entries(session, tournament_id)
    if tournament.status == TournamentStatus.FINISHED or any(e.prize for e in rows):
        raise TournamentClosed(f"tournament {tournament.name!r} has paid prizes: no refunds")
    tournament.status = TournamentStatus.CANCELLED
    tournament.finished_at = tournament.finished_at or utcnow()
    tournament.clock_at = None
    out: list[ledger.Posted] = []
    for entry in rows:
        key = f"{key_prefix}:{entry.id}"
        if entry.refunded:
            earlier = await ledger.posted(session, TxKind.TOURNAMENT_REFUND, key)
            out += [earlier] if earlier is not None else []
            continue

        async def move(entry: TournamentEntry = entry) -> tuple[int, int]:
            return _refund(tournament, entry)

        out.append(
            await ledger.tournament_posting(
                session,
                kind=TxKind.TOURNAMENT_REFUND,
                key=key,
                memo=f"tournament {tournament_id} cancelled: entry {entry.id} refunded",
                tournament_id=tournament_id,
                user_id=entry.user_id,
                move=move,
            )
        )
    return out


def prize_key(tournament_id: int, entry_id: int) -> str:
    return f"prize:{tournament_id}:{entry_id}"


async def _placing(
    session: AsyncSession, tournament_id: int, placed: Sequence[tuple[int, int, int]]
) -> tuple[dict[int, TournamentEntry], dict[int, int]]:
    """The entries to place (locked, in one order) and who holds each place asked for
    already: one statement each, however many are placed."""
    rows = await session.scalars(
        select(TournamentEntry)
        .where(
            TournamentEntry.tournament_id == tournament_id,
            TournamentEntry.id.in_(sorted({entry_id for entry_id, _, _ in placed})),
        )
        .order_by(TournamentEntry.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    entries = {entry.id: entry for entry in rows}
    given = await session.execute(
        select(TournamentEntry.place, TournamentEntry.id).where(
            TournamentEntry.tournament_id == tournament_id,
            TournamentEntry.place.in_(sorted({place for _, place, _ in placed})),
        )
    )
    return entries, {place: entry_id for place, entry_id in given if place is not None}


async def pay_prizes(
    session: AsyncSession,
    tournament_id: int,
    placed: Sequence[tuple[int, int, int]],
    *,
    fence: DirectorFence | None = None,
) -> list[ledger.Posted]:
    """Give each `(entry_id, place, prize)` its place and prize (the entry's status stays),
    and pay a prize above 0 from the prize pool to the player, once: key
    `prize_key(tournament_id, entry_id)`. An entry placed before as asked is a replay (its
    posting comes back replayed); placed otherwise, or a place given before, `PlaceTaken`.
    Read in bulk (`_placing`): a big field's busts come many at a time, mostly unpaid."""
    tournament = await _fenced(session, tournament_id, fence)
    if tournament.status == TournamentStatus.CANCELLED:
        raise TournamentClosed(f"tournament {tournament.name!r} was cancelled")
    for _, place, prize in placed:
        _whole(place, "place", least=1)
        _whole(prize, "prize", least=0)
    if not placed:
        return []
    entries, holders = await _placing(session, tournament_id, placed)
    out: list[ledger.Posted] = []
    for entry_id, place, prize in placed:
        entry = entries.get(entry_id)
        if entry is None or entry.status == EntryStatus.UNREGISTERED:
            raise NotRegistered(f"entry {entry_id} did not play in tournament {tournament_id}")
        if entry.place is not None:  # placed before: as asked (a replay), or otherwise
            if (entry.place, entry.prize) != (place, prize):
                taken = f"{entry.place} ({entry.prize})"
                raise PlaceTaken(f"entry {entry_id} took place {taken} already")
            key = prize_key(tournament_id, entry_id)
            earlier = await ledger.posted(session, TxKind.TOURNAMENT_PRIZE, key) if prize else None
            out += [earlier] if earlier is not None else []
            continue
        holder = holders.setdefault(place, entry_id)
        if holder != entry_id:
            raise PlaceTaken(f"place {place} went to entry {holder} already")
        if prize:
            out.append(await _pay_prize(session, tournament_id, entry, place, prize))
        else:
            entry.place, entry.prize = place, prize
    await session.flush()
    return out


async def _pay_prize(
    session: AsyncSession, tournament_id: int, entry: TournamentEntry, place: int, prize: int
) -> ledger.Posted:
    """`entry` takes `place`, and `prize` from the prize pool, in one posting (keyed)."""

    async def move() -> tuple[int, int]:
        entry.place, entry.prize = place, prize
        return -prize, 0

    return await ledger.tournament_posting(
        session,
        kind=TxKind.TOURNAMENT_PRIZE,
        key=prize_key(tournament_id, entry.id),
        memo=f"tournament {tournament_id}: entry {entry.id} takes place {place} and {prize}",
        tournament_id=tournament_id,
        user_id=entry.user_id,
        move=move,
    )


# --- seats: the chips ------------------------------------------------------------------------


async def _save_stacks(session: AsyncSession, table_id: int, stacks: Stacks) -> None:
    await session.execute(
        update(PokerTable)
        .where(PokerTable.id == table_id)
        .values(stacks=stacks)
        .execution_options(synchronize_session=False)
    )


async def _entries_at(
    session: AsyncSession, table_id: int, entry_ids: Sequence[int]
) -> tuple[PokerTable, dict[int, TournamentEntry]]:
    """The tournament table and some of its tournament's entries, all locked: the table
    first, then the entries in one statement, in id order (as every other locker of several
    entries takes them: no deadlock)."""
    table: PokerTable | None = await session.get(
        PokerTable, table_id, with_for_update=True, populate_existing=True
    )
    if table is None:
        raise TableNotFound(f"no table {table_id}")
    rows = await session.scalars(
        select(TournamentEntry)
        .where(TournamentEntry.id.in_(sorted(set(entry_ids))))
        .order_by(TournamentEntry.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    entries = {entry.id: entry for entry in rows}
    for entry_id in entry_ids:
        entry = entries.get(entry_id)
        if entry is None:
            raise NotRegistered(f"no tournament entry {entry_id}")
        if table.tournament_id != entry.tournament_id:
            raise EntryElsewhere(
                f"table {table_id} is not a table of tournament {entry.tournament_id}"
            )
    return table, entries


async def seat_entries(
    session: AsyncSession, table_id: int, seats: Mapping[int, int], *, stacks: Stacks
) -> None:
    """Sit each entry (entry id -> seat; registered, or playing between tables) at its seat
    with its chips: its `Seat` row, its table and seat, status 'playing', and the table's
    view `stacks`, in one statement of each kind for all of them (a broken table's players
    arrive together). One already there: nothing changes for it. Refused whole at another
    table or seat (`EntryElsewhere`), on a taken seat (`SeatTaken`), for an entry out of
    play (`NotRegistered`)."""
    if not seats:
        return
    table, entries = await _entries_at(session, table_id, list(seats))
    if table.status != "open":
        raise TableClosed(f"table {table.name!r} is closed")
    _open(await get_tournament(session, entries[next(iter(seats))].tournament_id))
    if len(set(seats.values())) != len(seats):
        raise SeatTaken("two entries ordered into one seat")
    arriving: dict[int, int] = {}
    for entry_id, seat in seats.items():
        entry = entries[entry_id]
        if entry.status not in LIVE:
            raise NotRegistered(f"entry {entry_id} is out of the tournament ({entry.status})")
        if entry.table_id is not None:
            if (entry.table_id, entry.seat) == (table_id, seat):
                continue  # a retry: seated there already
            raise EntryElsewhere(f"entry {entry_id} sits at table {entry.table_id} already")
        if type(seat) is not int or not 0 <= seat < table.max_seats:
            raise InvalidSeat(f"seats at this table are numbered 0 to {table.max_seats - 1}")
        arriving[entry_id] = seat
    if not arriving:
        return
    taken = await session.scalar(
        select(func.min(Seat.seat_no)).where(
            Seat.table_id == table_id, Seat.seat_no.in_(sorted(arriving.values()))
        )
    )
    if taken is not None:
        raise SeatTaken(f"seat {taken} is taken")
    rows = []
    for entry_id, seat in arriving.items():
        entry = entries[entry_id]
        rows.append({"table_id": table_id, "seat_no": seat, "user_id": entry.user_id,
                     "stack": entry.chips})  # fmt: skip
        entry.table_id, entry.seat, entry.status = table_id, seat, EntryStatus.PLAYING
    await session.execute(insert(Seat), rows)  # one statement, no ids read back
    await _save_stacks(session, table_id, stacks)
    await session.flush()


async def unseat_entries(
    session: AsyncSession, table_id: int, entry_ids: Sequence[int], *, stacks: Stacks
) -> dict[int, int]:
    """Take the entries from their seats at `table_id` with their chips (in transit:
    playing, at no table, `moves` one more), saving the table's view `stacks`, in one
    statement of each kind for all of them (a breaking table's players leave together);
    returns each entry's chips. `NotSeated`, for all of them, when one does not sit there
    (or is named twice)."""
    _, entries = await _entries_at(session, table_id, entry_ids)
    if len(set(entry_ids)) != len(entry_ids):
        raise NotSeated("an entry is taken from its seat once")
    users = [entries[e].user_id for e in entry_ids if entries[e].table_id == table_id]
    rows = await session.scalars(
        select(Seat)
        .where(Seat.table_id == table_id, Seat.user_id.in_(users))
        .order_by(Seat.seat_no)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    seats = {seat.user_id: seat for seat in rows}
    chips: dict[int, int] = {}
    for entry_id in entry_ids:
        entry = entries[entry_id]
        seat = seats.get(entry.user_id) if entry.table_id == table_id else None
        if seat is None:
            raise NotSeated(f"entry {entry_id} does not sit at table {table_id}")
        entry.chips = chips[entry_id] = seat.stack
        entry.table_id = entry.seat = None
        entry.moves += 1
        await session.delete(seat)
    await _save_stacks(session, table_id, stacks)
    await session.flush()
    return chips


# --- draws -----------------------------------------------------------------------------------


async def add_draw(
    session: AsyncSession,
    tournament_id: int,
    purpose: str,
    scheme: str,
    commitment: str,
    *,
    fence: DirectorFence | None = None,
) -> int:
    """Publish a draw's commitment before it is used; returns its number in the tournament."""
    await _fenced(session, tournament_id, fence)
    seq = await _next_draw(session, tournament_id)
    session.add(
        TournamentDraw(
            tournament_id=tournament_id,
            seq=seq,
            purpose=purpose,
            scheme=scheme,
            commitment=commitment,
        )
    )
    await session.flush()
    return seq


async def _next_draw(session: AsyncSession, tournament_id: int) -> int:
    """The next draw's number (the tournament's row is locked: numbers go one by one)."""
    last = await session.scalar(
        select(func.max(TournamentDraw.seq)).where(TournamentDraw.tournament_id == tournament_id)
    )
    return (last or 0) + 1


async def record_draw(
    session: AsyncSession,
    tournament_id: int,
    purpose: str,
    scheme: str,
    commitment: str,
    result: Any,
) -> int:
    """A draw made from the tournament's committed seed (seed "", the master's, revealed at
    the end), written with what it drew in one insert (`add_draw` then `reveal_draw` in
    one): the tournament's row locked by its id alone, so the draws' numbers stay one by
    one. The caller checks the director's fence first. Returns the draw's number."""
    locked = await session.scalar(
        select(Tournament.id).where(Tournament.id == tournament_id).with_for_update()
    )
    if locked is None:
        raise TournamentNotFound(f"no tournament {tournament_id}")
    seq = await _next_draw(session, tournament_id)
    session.add(
        TournamentDraw(
            tournament_id=tournament_id, seq=seq, purpose=purpose, scheme=scheme,
            commitment=commitment, seed="", result=result,
        )
    )  # fmt: skip
    await session.flush()
    return seq


async def reveal_draw(
    session: AsyncSession,
    tournament_id: int,
    seq: int,
    seed_hex: str,
    result: Any,
    *,
    fence: DirectorFence | None = None,
) -> None:
    """Reveal a used draw's seed (hex) and what it drew, once; the same again changes nothing."""
    try:
        bytes.fromhex(seed_hex)
    except ValueError:
        raise InvalidAmount(f"a draw's seed is hex, not {seed_hex!r}") from None
    if len(seed_hex) > 64:
        raise InvalidAmount("a draw's seed is at most 32 bytes (64 hex digits)")
    await _fenced(session, tournament_id, fence)
    draw: TournamentDraw | None = await session.scalar(
        select(TournamentDraw)
        .where(TournamentDraw.tournament_id == tournament_id, TournamentDraw.seq == seq)
        .execution_options(populate_existing=True)
    )
    if draw is None:
        raise DrawNotFound(f"tournament {tournament_id} has no draw {seq}")
    if draw.seed is not None:
        if (draw.seed, draw.result) != (seed_hex, result):
            raise DrawRevealed(f"draw {seq} of tournament {tournament_id} was revealed already")
        return
    draw.seed, draw.result = seed_hex, result
    await session.flush()


async def draws(session: AsyncSession, tournament_id: int) -> list[TournamentDraw]:
    of = TournamentDraw.tournament_id == tournament_id
    return await _fresh(session, select(TournamentDraw).where(of).order_by(TournamentDraw.seq))


async def save_entry_clock(
    session: AsyncSession, entry_id: int, time_bank_ms: int, pause_left_ms: int
) -> None:
    """An entry's time bank and "pause for me" allowance as the director last gave them."""
    await session.execute(
        update(TournamentEntry)
        .where(TournamentEntry.id == entry_id)
        .values(time_bank_ms=time_bank_ms, pause_left_ms=pause_left_ms)
    )
