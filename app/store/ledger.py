"""The double-entry chip ledger: every chip movement is one transaction of entries summing to 0.

Accounts: each player's balance, each table's escrow (exactly the chips seated there: the sum
of its seats' stacks), each tournament's prize pool (its buy-ins until paid out as prizes), the
house (rake, tournament fees) and the bank (issues play money; the only account that may go
negative). A tournament's tables hold tournament chips, which never enter the ledger: the cash
operations refuse them (`TournamentTable`). Every function here:

- takes an `AsyncSession` inside a write transaction (`async with db.transaction() as s:`), so
  a caller can commit its own rows (a hand record) in the same transaction;
- runs in a SAVEPOINT: a refusal (a `LedgerError`) leaves the caller's transaction untouched;
- is idempotent by `key` within its kind: the same request again under the same key moves
  nothing and returns the original (`Posted.replayed` is true); another request under a used
  key (another amount, table, seat, or a sit where a top-up was) raises
  `IdempotencyConflict`. Use request ids and hand ids as keys;
- locks the accounts it touches in id order (`SELECT … FOR UPDATE` on PostgreSQL; SQLite's
  `BEGIN IMMEDIATE` serialises writers), checks funds for a clear error, and relies on the
  database's CHECK constraints (`balance >= 0`, `stack >= 0`) as the guarantee.

One core posts everything (`_write`): a batch of transactions in one statement of each kind
(claim the keys, lock the accounts, the operation's own checks and seat changes, the funds
checks, the entries, the balances). A single posting is a batch of one in a savepoint
(`_post`); `settle_hands` is the many-hands batch the hand writer uses.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app.engine.money import chips
from app.store.errors import (
    AccountNotFound,
    BuyInOutOfRange,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    InvalidSeat,
    LedgerError,
    NotSeated,
    SeatTaken,
    TableClosed,
    TableNotFound,
    TopUpAlreadyClaimed,
    TopUpNotAllowed,
    TournamentTable,
    UnbalancedTransaction,
)
from app.store.models import (
    AccountKind,
    LedgerAccount,
    LedgerEntry,
    LedgerTransaction,
    PokerTable,
    Seat,
    TxKind,
)
from app.store.types import utcnow

Legs = tuple[tuple[int, int], ...]  # (account id, amount), one per account, sorted by id
BANK = "bank"
HOUSE = "house"
MAX_KEY = 255


@dataclass(frozen=True)
class Posted:
    """A posted ledger transaction; `replayed` when the key had been posted before."""

    transaction_id: int
    kind: str
    key: str
    entries: Legs
    created_at: datetime
    replayed: bool = False

    def amount_for(self, account_id: int) -> int:
        return sum(amount for account, amount in self.entries if account == account_id)


def player_code(user_id: int) -> str:
    return f"{AccountKind.PLAYER}:{user_id}"


def escrow_code(table_id: int) -> str:
    return f"{AccountKind.ESCROW}:{table_id}"


def prize_pool_code(tournament_id: int) -> str:
    return f"{AccountKind.PRIZE_POOL}:{tournament_id}"


# --- accounts -------------------------------------------------------------------------------


async def open_player_account(session: AsyncSession, user_id: int) -> LedgerAccount:
    account = LedgerAccount(kind=AccountKind.PLAYER, code=player_code(user_id), user_id=user_id)
    session.add(account)
    await session.flush()
    return account


async def open_escrow_account(session: AsyncSession, table_id: int) -> LedgerAccount:
    account = LedgerAccount(kind=AccountKind.ESCROW, code=escrow_code(table_id), table_id=table_id)
    session.add(account)
    await session.flush()
    return account


async def open_prize_pool(session: AsyncSession, tournament_id: int) -> LedgerAccount:
    account = LedgerAccount(kind=AccountKind.PRIZE_POOL, code=prize_pool_code(tournament_id))
    session.add(account)
    await session.flush()
    return account


async def account_id(session: AsyncSession, code: str) -> int:
    """The id of the account named `code` ("bank", "house", "player:7", "escrow:3",
    "prize_pool:2")."""
    found = await session.scalar(select(LedgerAccount.id).where(LedgerAccount.code == code))
    if found is None:
        raise AccountNotFound(f"no ledger account {code!r}")
    return found


async def account_ids(session: AsyncSession, *codes: str) -> list[int]:
    """The ids of the accounts named `codes`, in order, in one query."""
    rows = await session.execute(
        select(LedgerAccount.code, LedgerAccount.id).where(LedgerAccount.code.in_(codes))
    )
    found = {code: id_ for code, id_ in rows}
    missing = [code for code in codes if code not in found]
    if missing:
        raise AccountNotFound(f"no ledger account {missing[0]!r}")
    return [found[code] for code in codes]


async def balance(session: AsyncSession, code: str) -> int:
    found = await session.scalar(select(LedgerAccount.balance).where(LedgerAccount.code == code))
    if found is None:
        raise AccountNotFound(f"no ledger account {code!r}")
    return found


async def player_balance(session: AsyncSession, user_id: int) -> int:
    return await balance(session, player_code(user_id))


async def seated_chips(session: AsyncSession, user_id: int) -> int:
    """All the chips a user has seated, over every table."""
    total = await session.scalar(select(func.sum(Seat.stack)).where(Seat.user_id == user_id))
    return int(total or 0)


# --- the core: every posting is a batch; a single posting is a batch of one -----------------


@dataclass(frozen=True, slots=True)
class _Draft:
    """A transaction to post: its kind, the caller's key and the request it answers. The memo
    states the request (accounts, amounts, seat), so a replayed key is compared by it."""

    kind: str
    key: str
    memo: str


@dataclass(slots=True)
class _Held:
    """A locked account: its balance as the batch moves it."""

    code: str
    kind: str
    balance: int


Locked = dict[int, _Held]  # account id -> the account, locked
Plan = Callable[[Locked], Awaitable[list[Legs]]]  # the legs of each draft, in order


def _legs(entries: Mapping[int, int] | Iterable[tuple[int, int]]) -> Legs:
    merged: dict[int, int] = defaultdict(int)
    pairs = entries.items() if isinstance(entries, Mapping) else entries
    for account, amount in pairs:
        if type(amount) is not int:
            raise InvalidAmount(f"amounts are whole chips, not {_shown(amount)}")
        merged[account] += amount
    legs = tuple(sorted((a, n) for a, n in merged.items() if n != 0))
    total = sum(n for _, n in legs)
    if total != 0:
        raise UnbalancedTransaction(f"entries must sum to zero; these sum to {chips(total)}")
    return legs


def _positive(amount: int, what: str = "amount") -> None:
    if type(amount) is not int or amount <= 0:
        raise InvalidAmount(
            f"the {what} must be a positive whole number of chips, not {_shown(amount)}"
        )


def _shown(amount: object) -> str:
    """What a caller gave for an amount, in dollars when it is a whole number of cents."""
    return chips(amount) if type(amount) is int else repr(amount)


def _holder(account: LedgerAccount | _Held) -> str:
    """Who holds an account's chips, in words a player reads (never the account's code)."""
    return {
        AccountKind.PLAYER: "your balance",
        AccountKind.ESCROW: "the table",
        AccountKind.HOUSE: "the house",
        AccountKind.PRIZE_POOL: "the prize pool",
    }.get(AccountKind(account.kind), "the bank")


def _stored_key(kind: str, key: str) -> str:
    if not key or not kind:
        raise LedgerError("a ledger transaction needs a kind and an idempotency key")
    stored = f"{kind}:{key}"
    if len(stored) > MAX_KEY:
        raise LedgerError(f"idempotency key too long ({len(stored)} > {MAX_KEY} characters)")
    return stored


async def _find(session: AsyncSession, kind: str, key: str) -> tuple[Posted, str] | None:
    """The posting stored under the key, and its memo."""
    row = await session.scalar(
        select(LedgerTransaction).where(LedgerTransaction.idempotency_key == _stored_key(kind, key))
    )
    if row is None:
        return None
    entries = await session.execute(
        select(LedgerEntry.account_id, LedgerEntry.amount)
        .where(LedgerEntry.transaction_id == row.id)
        .order_by(LedgerEntry.account_id)
    )
    legs = tuple((a, n) for a, n in entries)
    return Posted(row.id, row.kind, key, legs, row.created_at, replayed=True), row.memo


async def posted(session: AsyncSession, kind: str, key: str) -> Posted | None:
    """The posting made under `key` of `kind` (replayed), or None if there is none."""
    found = await _find(session, kind, key)
    return None if found is None else found[0]


def _replay(
    earlier: Posted, memo: str, draft: _Draft, accounts: Sequence[int], expected: Legs | None
) -> Posted:
    """The earlier posting, when it answered the same request: the same memo, the same legs
    (when they are known up front; else legs between the same accounts). Anything else is
    another request under a used key: a caller's bug, never a retry."""
    same = memo == draft.memo[:500] and (
        earlier.entries == expected
        if expected is not None
        else {a for a, _ in earlier.entries} <= set(accounts)
    )
    if not same:
        raise IdempotencyConflict(
            f"the {draft.kind} key {draft.key!r} was used for another request "
            f"({memo!r}); refusing {draft.memo!r}"
        )
    return earlier


# Statements on every hand's path are built once: one built per call leaves garbage cycles
# (SQLAlchemy's bound parameters and their comparators) for the collector to find.
_LOCK = (
    select(LedgerAccount.id, LedgerAccount.code, LedgerAccount.kind, LedgerAccount.balance)
    .where(
        or_(
            LedgerAccount.id.in_(bindparam("ids", expanding=True)),
            LedgerAccount.code.in_(bindparam("codes", expanding=True)),
        )
    )
    .order_by(LedgerAccount.id)
    .with_for_update()
)
_MOVE = (
    update(LedgerAccount)
    .where(LedgerAccount.id == bindparam("b_id"))
    .values(balance=LedgerAccount.balance + bindparam("b_amount"))
)
_CASH_SEATS = (
    select(Seat.table_id, Seat.user_id, Seat.seat_no, Seat.stack, PokerTable.tournament_id)
    .join(PokerTable, PokerTable.id == Seat.table_id)
    .where(Seat.table_id.in_(bindparam("tables", expanding=True)))
)
_SEAT_CHANGE = (
    update(Seat)
    .where(Seat.table_id == bindparam("b_table"), Seat.user_id == bindparam("b_user"))
    .values(stack=Seat.stack + bindparam("b_delta"))
)


async def _lock(conn: AsyncConnection, ids: Sequence[int], codes: Sequence[str]) -> Locked:
    """Lock the accounts named by id or code, in one statement, in id order (so concurrent
    batches never wait on each other in a circle)."""
    if not ids and not codes:
        return {}
    # an empty list matches nothing: one statement serves ids, codes or both
    rows = await conn.execute(_LOCK, {"ids": sorted(set(ids)), "codes": sorted(set(codes))})
    locked = {id_: _Held(code, kind, held) for id_, code, kind, held in rows}
    missing = [i for i in ids if i not in locked]
    if missing:
        raise AccountNotFound(f"no ledger account with id {missing[0]}")
    return locked


async def _claim(conn: AsyncConnection, drafts: Sequence[_Draft], now: datetime) -> dict[str, int]:
    """Insert the drafts' transactions, claiming their keys: a concurrent twin waits at its
    own insert, then fails. Returns each stored key's transaction id."""
    claimed = await conn.execute(
        insert(LedgerTransaction).returning(
            LedgerTransaction.idempotency_key, LedgerTransaction.id
        ),
        [
            {
                "kind": str(d.kind),
                "idempotency_key": _stored_key(d.kind, d.key),
                "memo": d.memo[:500],
                "created_at": now,
            }
            for d in drafts
        ],
    )
    return {key: id_ for key, id_ in claimed}


def _check_funds(locked: Locked, legs: Legs) -> None:
    """Refuse legs that would take an account (other than the bank) below zero."""
    for account, amount in legs:
        held = locked[account]  # a plan moves only locked accounts
        if held.kind != AccountKind.BANK and held.balance + amount < 0:
            raise InsufficientFunds(
                f"not enough chips: {_holder(held)} holds {chips(held.balance)}, "
                f"{chips(-amount)} needed",
                account=held.code,
                balance=held.balance,
                needed=-amount,
            )


async def _store_moves(
    session: AsyncSession,
    conn: AsyncConnection,
    locked: Locked,
    moves: Mapping[int, int],
    entries: list[dict[str, int]],
) -> None:
    """Write the entries, then every moved account's new balance in one statement."""
    moved = {account: amount for account, amount in moves.items() if amount}
    if entries:
        await conn.execute(insert(LedgerEntry), entries)
    if moved:  # in id order, the order the accounts were locked in
        await conn.execute(
            _MOVE, [{"b_id": account, "b_amount": moved[account]} for account in sorted(moved)]
        )
        balances = {account: locked[account].balance for account in moved}
        _keep_true(session, LedgerAccount, lambda a: balances.get(a.id), "balance")


async def _write(
    session: AsyncSession,
    drafts: Sequence[_Draft],
    plan: Plan,
    *,
    ids: Sequence[int] = (),
    codes: Sequence[str] = (),
) -> list[Posted]:
    """Post `drafts` in one statement of each kind: claim their keys, lock the accounts, let
    `plan` check and move the seats and say each draft's legs, check every account's funds
    as the legs apply in order, then write the entries and the balances. A refusal raises and
    leaves the caller to roll back (`_post` does it in a savepoint)."""
    await session.flush()  # a caller's pending rows (a seat bought in) first: Core reads next
    conn = await session.connection()
    now = utcnow()
    transaction_ids = await _claim(conn, drafts, now)
    locked = await _lock(conn, ids, codes)
    moves: dict[int, int] = defaultdict(int)  # account: balance change
    entries: list[dict[str, int]] = []
    posted: list[Posted] = []
    for draft, legs in zip(drafts, await plan(locked), strict=True):
        _check_funds(locked, legs)
        transaction_id = transaction_ids[_stored_key(draft.kind, draft.key)]
        for account, amount in legs:
            locked[account].balance += amount
            moves[account] += amount
            entries.append(
                {"transaction_id": transaction_id, "account_id": account, "amount": amount}
            )
        posted.append(Posted(transaction_id, str(draft.kind), draft.key, legs, now))
    await _store_moves(session, conn, locked, moves, entries)
    return posted


async def _post(
    session: AsyncSession,
    draft: _Draft,
    plan: Callable[[Locked], Awaitable[Legs]],
    *,
    ids: Sequence[int],
    expected: Legs | None,
) -> Posted:
    """One posting: a batch of one, in a savepoint; if its key was posted before, the earlier
    posting when it answered the same request (`_replay`). `expected`: the legs, when they
    are known before the accounts are locked."""

    async def one(locked: Locked) -> list[Legs]:
        return [await plan(locked)]

    # no look-up first: claiming the key fails on a replay, and a replay is rare
    try:
        async with session.begin_nested():
            (posted,) = await _write(session, [draft], one, ids=ids)
            await session.flush()  # the plan's seat rows
    except IntegrityError as exc:
        found = await _find(session, draft.kind, draft.key)
        if found is not None:  # posted before, or a concurrent twin posted it first
            return _replay(*found, draft, ids, expected)
        if "nonnegative" in str(exc.orig):
            raise InsufficientFunds("not enough chips for that move") from exc
        raise
    return posted


def _keep_true(
    session: AsyncSession, kind: type[Any], value: Callable[[Any], int | None], name: str
) -> None:
    """A caller's loaded copies of rows a Core statement changed hold the new value (not
    expired: an expired attribute cannot load itself again under asyncio)."""
    for held in list(session.identity_map.values()):
        if isinstance(held, kind):
            new = value(held)
            if new is not None:
                set_committed_value(held, name, new)


# --- the operations -------------------------------------------------------------------------


async def transfer(
    session: AsyncSession,
    entries: Mapping[int, int] | Iterable[tuple[int, int]],
    *,
    kind: str = TxKind.TRANSFER,
    key: str,
    memo: str = "",
) -> Posted:
    """Move chips between accounts by id: `{account_id: signed amount}` summing to zero.
    Escrow accounts move only with their seats (buy_in, cash_out, settle_hand), prize pools
    only with their tournament's entries (`tournament_posting`)."""
    legs = _legs(entries)
    if not legs:
        raise InvalidAmount("a transfer must move some chips")

    async def plan(locked: Locked) -> Legs:
        for held in locked.values():
            if held.kind == AccountKind.ESCROW:
                raise LedgerError(
                    f"{held.code} moves only with its seats: use buy_in, cash_out or settle_hand"
                )
            if held.kind == AccountKind.PRIZE_POOL:
                raise LedgerError(
                    f"{held.code} moves only with its tournament's entries and prizes"
                )
        return legs

    draft = _Draft(kind, key, memo or f"transfer {list(legs)}")
    return await _post(session, draft, plan, ids=[a for a, _ in legs], expected=legs)


async def grant_signup(
    session: AsyncSession, *, user_id: int, amount: int, key: str | None = None
) -> Posted:
    """The starting play money, from the bank: once per user (the key defaults to the user)."""
    _positive(amount)
    bank, player = await account_ids(session, BANK, player_code(user_id))
    return await transfer(
        session,
        {bank: -amount, player: amount},
        kind=TxKind.SIGNUP_GRANT,
        key=key or str(user_id),
        memo=f"sign-up grant of {amount} to user {user_id}",
    )


async def top_up_daily(
    session: AsyncSession, *, user_id: int, amount: int, threshold: int, today: date
) -> Posted:
    """The daily top-up from the bank, for a broke player (balance plus seated chips below
    `threshold`), once per `today`. Raises `TopUpAlreadyClaimed` or `TopUpNotAllowed`."""
    _positive(amount)
    key = f"{user_id}:{today.isoformat()}"
    if await _find(session, TxKind.DAILY_TOPUP, key) is not None:
        raise TopUpAlreadyClaimed("you have already claimed today's top-up; come back tomorrow")
    bank, player = await account_ids(session, BANK, player_code(user_id))
    legs = _legs({bank: -amount, player: amount})

    async def plan(locked: Locked) -> Legs:
        held = locked[player].balance + await seated_chips(session, user_id)
        if held >= threshold:
            raise TopUpNotAllowed(
                f"the daily top-up is for players with less than {chips(threshold)}; "
                f"you have {chips(held)}"
            )
        return legs

    memo = f"daily top-up of {amount} for user {user_id} on {today.isoformat()}"
    draft = _Draft(TxKind.DAILY_TOPUP, key, memo)
    posted = await _post(session, draft, plan, ids=[player, bank], expected=legs)
    if posted.replayed:  # a concurrent claim won
        raise TopUpAlreadyClaimed("you have already claimed today's top-up; come back tomorrow")
    return posted


async def _table(session: AsyncSession, table_id: int) -> PokerTable:
    """A cash table: `TournamentTable` for a tournament's (its chips are not the ledger's)."""
    table = await session.get(PokerTable, table_id)
    if table is None:
        raise TableNotFound(f"no table {table_id}")
    if table.tournament_id is not None:
        raise TournamentTable(_tournament_table(table_id, table.tournament_id))
    return table


def _tournament_table(table_id: int, tournament_id: int) -> str:
    return (
        f"table {table_id} is a table of tournament {tournament_id}: its stacks are "
        "tournament chips, which never come from or go back to a balance"
    )


async def _with_table(session: AsyncSession, table_id: int, code: str) -> list[int]:
    """The ids of account `code` and of the table's escrow; `TableNotFound` without one."""
    try:
        return await account_ids(session, code, escrow_code(table_id))
    except AccountNotFound as exc:
        if escrow_code(table_id) in exc.message:
            raise TableNotFound(f"no table {table_id}") from exc
        raise


async def _seat_of(session: AsyncSession, table_id: int, user_id: int) -> Seat | None:
    return await session.scalar(
        select(Seat)
        .where(Seat.table_id == table_id, Seat.user_id == user_id)
        .execution_options(populate_existing=True)
    )


def _sit(
    session: AsyncSession,
    table: PokerTable,
    user_id: int,
    seat_no: int | None,
    amount: int,
    *,
    taken: bool,
) -> None:
    """Seat a player who is not at the table yet: a free seat of the table's, the buy-in
    within its bounds (R3: at least ten small bets)."""
    cap = table.max_buy_in
    if seat_no is None:
        raise NotSeated("choose a seat to sit down at this table")
    if not 0 <= seat_no < table.max_seats:
        raise InvalidSeat(f"seats at this table are numbered 0 to {table.max_seats - 1}")
    if taken:
        raise SeatTaken(f"seat {seat_no} is taken")
    if amount < table.min_buy_in:
        raise BuyInOutOfRange(
            f"the minimum buy-in at this table is {chips(table.min_buy_in)} (ten small bets)"
        )
    if cap is not None and amount > cap:
        raise BuyInOutOfRange(f"the maximum buy-in at this table is {chips(cap)}")
    session.add(Seat(table_id=table.id, seat_no=seat_no, user_id=user_id, stack=amount))


def _add_to(seat: Seat, table: PokerTable, seat_no: int | None, amount: int) -> None:
    """Top up a seated player's stack (R25), within the table's maximum buy-in."""
    cap = table.max_buy_in
    if seat_no is not None and seat_no != seat.seat_no:
        raise InvalidSeat(f"you are already seated at seat {seat.seat_no}")
    if cap is not None and seat.stack + amount > cap:
        raise BuyInOutOfRange(
            f"a stack may hold at most {chips(cap)} here; you can add {chips(cap - seat.stack)}"
        )
    seat.stack += amount


async def buy_in(
    session: AsyncSession,
    *,
    user_id: int,
    table_id: int,
    amount: int,
    key: str,
    seat_no: int | None = None,
) -> Posted:
    """Move `amount` from the player's balance into the table's escrow and onto their seat.
    Not yet seated: sits them at `seat_no` (required), at least the minimum buy-in (R3: ten
    small bets) and at most `max_buy_in`. Already seated: a top-up between hands (R25), the
    stack staying within `max_buy_in`."""
    _positive(amount)
    table = await _table(session, table_id)
    player, escrow = await account_ids(session, player_code(user_id), escrow_code(table_id))
    legs = _legs({player: -amount, escrow: amount})

    async def plan(locked: Locked) -> Legs:
        if table.status != "open":
            raise TableClosed(f"table {table.name!r} is closed")
        # the player's seat here, and whoever sits at the seat asked for, in one query
        wanted = Seat.user_id == user_id
        if seat_no is not None:
            wanted = wanted | (Seat.seat_no == seat_no)
        found = await session.scalars(
            select(Seat)
            .where(Seat.table_id == table_id, wanted)
            .execution_options(populate_existing=True)
        )
        seats = {s.user_id: s for s in found}
        seat = seats.get(user_id)
        if seat is None:
            _sit(session, table, user_id, seat_no, amount, taken=bool(seats))
        else:
            _add_to(seat, table, seat_no, amount)
        return legs

    # a sit and a top-up of the same amount are different requests
    where = "a top-up" if seat_no is None else f"seat {seat_no}"
    draft = _Draft(
        TxKind.BUY_IN, key, f"user {user_id} buys in {amount} at table {table_id}, {where}"
    )
    return await _post(session, draft, plan, ids=[player, escrow], expected=legs)


async def cash_out(
    session: AsyncSession,
    *,
    user_id: int,
    table_id: int,
    key: str,
    amount: int | None = None,
) -> Posted:
    """Move chips from the seat back to the player's balance. `amount=None` leaves the table:
    the whole stack goes back and the seat is freed (R25). An amount takes part of the stack
    and keeps the seat."""
    if amount is not None:
        _positive(amount)
    await _table(session, table_id)
    player, escrow = await _with_table(session, table_id, player_code(user_id))
    expected = None if amount is None else _legs({escrow: -amount, player: amount})

    async def plan(locked: Locked) -> Legs:
        seat = await _seat_of(session, table_id, user_id)
        if seat is None:
            raise NotSeated(f"you are not seated at table {table_id}")
        taken = seat.stack if amount is None else amount
        if taken > seat.stack:
            raise InsufficientFunds(
                f"not enough chips: your stack holds {chips(seat.stack)}, {chips(taken)} asked",
                account=f"seat:{table_id}:{seat.seat_no}",
                balance=seat.stack,
                needed=taken,
            )
        if amount is None:
            await session.delete(seat)
        else:
            seat.stack -= taken
        return _legs({escrow: -taken, player: taken})

    taking = "all" if amount is None else amount
    draft = _Draft(
        TxKind.CASH_OUT, key, f"user {user_id} cashes out {taking} from table {table_id}"
    )
    return await _post(session, draft, plan, ids=[player, escrow], expected=expected)


TOURNAMENT_KINDS = (TxKind.TOURNAMENT_ENTRY, TxKind.TOURNAMENT_REFUND, TxKind.TOURNAMENT_PRIZE)
# under the accounts' locks: a tournament's own rows changed, and the prize pool's and the
# house's change (the player's is minus their sum)
TournamentMove = Callable[[], Awaitable[tuple[int, int]]]


async def tournament_posting(
    session: AsyncSession,
    *,
    kind: TxKind,
    key: str,
    memo: str,
    tournament_id: int,
    user_id: int,
    move: TournamentMove,
) -> Posted:
    """A tournament's money between a player's balance, its prize pool and the house: an
    entry, re-entry, rebuy or add-on (price to the pool, fee to the house), a refund of both,
    or a prize. `move` runs once the key is claimed (a replay never runs it), in the
    posting's savepoint: its row changes commit with the posting or not at all. A leg of 0 is
    left out; a posting of none (a free entry) still keeps its key. The memo states the
    request, so a replayed key is compared by it."""
    if kind not in TOURNAMENT_KINDS:
        raise LedgerError(f"{kind} is not a tournament posting")
    player, pool, house = await account_ids(
        session, player_code(user_id), prize_pool_code(tournament_id), HOUSE
    )

    async def plan(locked: Locked) -> Legs:
        to_pool, to_house = await move()
        return _legs({player: -(to_pool + to_house), pool: to_pool, house: to_house})

    draft = _Draft(kind, key, memo)
    return await _post(session, draft, plan, ids=[player, pool, house], expected=None)


@dataclass(frozen=True, slots=True)
class Settlement:
    """A hand's result at a table: each seated player's stack changes by `deltas[user_id]`
    (net of what they put in and won) and `rake` goes from the escrow to the house (R4). The
    deltas sum to `-rake`: the chips stay in the escrow except the rake. Key: the hand id."""

    table_id: int
    key: str
    deltas: Mapping[int, int]
    rake: int = 0
    memo: str = ""

    def check(self) -> None:
        if not self.deltas:
            raise LedgerError("a hand's settlement names the seats that played it")
        if type(self.rake) is not int or self.rake < 0:
            raise InvalidAmount(
                f"the rake must be a whole number of chips, at least 0, not {_shown(self.rake)}"
            )
        for user, delta in self.deltas.items():
            if type(delta) is not int:
                raise InvalidAmount(
                    f"user {user}'s stack change must be whole chips, not {_shown(delta)}"
                )
        if sum(self.deltas.values()) + self.rake != 0:
            raise UnbalancedTransaction(
                f"a hand's stack changes must sum to minus the rake ({chips(-self.rake)}); "
                f"these sum to {chips(sum(self.deltas.values()))}"
            )

    @property
    def text(self) -> str:
        # the stack changes are not entries (they stay inside the escrow): the memo keeps them
        return (
            self.memo
            or f"hand {self.key} at table {self.table_id}: "
            f"stacks {dict(sorted(self.deltas.items()))}, rake {self.rake}"
        )


async def settle_hand(
    session: AsyncSession,
    *,
    table_id: int,
    key: str,
    deltas: Mapping[int, int],
    rake: int = 0,
    memo: str = "",
) -> Posted:
    """One hand's `Settlement`: `settle_hands`' batch of one, idempotent by its key like every
    posting here. The server settles only through the hand writer (`settle_hands`); this is
    the one-hand posting the ledger's tests (its invariants, replays and refusals) and
    `ledger check`'s tests make, like `buy_in` or `cash_out`."""
    settlement = Settlement(table_id, key, dict(deltas), rake, memo)
    settlement.check()
    house, escrow = await _with_table(session, table_id, HOUSE)
    settle = _settling(session, [settlement])

    async def plan(locked: Locked) -> Legs:
        return (await settle(locked))[0]

    draft = _Draft(TxKind.HAND_SETTLEMENT, key, settlement.text)
    expected = _legs({escrow: -rake, house: rake})
    return await _post(session, draft, plan, ids=[house, escrow], expected=expected)


async def settle_hands(session: AsyncSession, settlements: Sequence[Settlement]) -> list[Posted]:
    """Several hands' settlements (of any tables, in order), none posted before (a finished
    hand's settlement commits with its record), in one statement of each kind for all of them:
    the keys, the accounts' lookup and lock, the seats' read and update, the entries and the
    balances. A refusal raises and leaves the caller's transaction to be rolled back. Plain
    rows and Core statements: this runs for every hand played."""
    if not settlements:
        return []
    for settlement in settlements:
        settlement.check()
    drafts = [_Draft(TxKind.HAND_SETTLEMENT, s.key, s.text) for s in settlements]
    escrows = sorted({escrow_code(s.table_id) for s in settlements})
    return await _write(session, drafts, _settling(session, settlements), codes=[HOUSE, *escrows])


async def _cash_seats(
    conn: AsyncConnection, tables: Sequence[int]
) -> dict[tuple[int, int], tuple[int, int]]:
    """The seats of cash tables, (table, user): (seat, stack); a tournament's table is
    refused (its hands are recorded without the ledger)."""
    stacks: dict[tuple[int, int], tuple[int, int]] = {}
    for table_id, user, seat_no, stack, tournament_id in await conn.execute(
        _CASH_SEATS, {"tables": list(tables)}
    ):
        if tournament_id is not None:
            raise TournamentTable(_tournament_table(table_id, tournament_id))
        stacks[table_id, user] = (seat_no, stack)
    return stacks


def _settling(session: AsyncSession, settlements: Sequence[Settlement]) -> Plan:
    """The plan of a batch of settlements: every seat's change checked and made in one
    statement; each hand's legs move its rake from the table's escrow to the house (R4)."""

    async def plan(locked: Locked) -> list[Legs]:
        ids = {held.code: id_ for id_, held in locked.items()}
        if HOUSE not in ids:
            raise AccountNotFound(f"no ledger account {HOUSE!r}")
        for s in settlements:
            if escrow_code(s.table_id) not in ids:
                raise TableNotFound(f"no table {s.table_id}")
        conn = await session.connection()
        stacks = await _cash_seats(conn, sorted({s.table_id for s in settlements}))
        moved: dict[tuple[int, int], int] = defaultdict(int)  # (table, user): stack change
        legs: list[Legs] = []
        for s in settlements:
            for user, delta in sorted(s.deltas.items()):
                found = stacks.get((s.table_id, user))
                if found is None:
                    raise NotSeated(f"user {user} is not seated at table {s.table_id}")
                seat_no, stack = found
                if stack + delta < 0:
                    raise InsufficientFunds(
                        f"seat {seat_no} holds {chips(stack)}; it cannot lose {chips(-delta)}",
                        account=f"seat:{s.table_id}:{seat_no}",
                        balance=stack,
                        needed=-delta,
                    )
                stacks[s.table_id, user] = (seat_no, stack + delta)
                moved[s.table_id, user] += delta
            legs.append(_legs({ids[escrow_code(s.table_id)]: -s.rake, ids[HOUSE]: s.rake}))
        changed = {seat: delta for seat, delta in moved.items() if delta}
        if changed:
            await conn.execute(
                _SEAT_CHANGE,
                [{"b_table": t, "b_user": u, "b_delta": d} for (t, u), d in changed.items()],
            )
            _keep_true(
                session,
                Seat,
                lambda seat: (
                    stacks[seat.table_id, seat.user_id][1]
                    if (seat.table_id, seat.user_id) in changed
                    else None
                ),
                "stack",
            )
        return legs

    return plan
