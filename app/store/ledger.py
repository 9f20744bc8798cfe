"""The double-entry chip ledger: every chip movement is one transaction of entries summing to 0.

Accounts: each player's balance, each table's escrow (exactly the chips seated there: the sum
of its seats' stacks), the house (rake) and the bank (issues play money; the only account that
may go negative). Every function here:

- takes an `AsyncSession` inside a write transaction (`async with db.transaction() as s:`), so
  a caller can commit its own rows (a hand record) in the same transaction;
- runs in a SAVEPOINT: a refusal (a `LedgerError`) leaves the caller's transaction untouched;
- is idempotent by `key` within its kind: posting the same key again moves nothing and returns
  the original (`Posted.replayed` is true); the same key with different entries raises
  `IdempotencyConflict`. Use request ids and hand ids as keys;
- locks the accounts it touches in id order (`SELECT … FOR UPDATE` on PostgreSQL; SQLite's
  `BEGIN IMMEDIATE` serialises writers), checks funds for a clear error, and relies on the
  database's CHECK constraints (`balance >= 0`, `stack >= 0`) as the guarantee.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import bindparam, case, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
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


async def account_id(session: AsyncSession, code: str) -> int:
    """The id of the account named `code` ("bank", "house", "player:7", "escrow:3")."""
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


# --- the core -------------------------------------------------------------------------------


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


def _holder(account: LedgerAccount) -> str:
    """Who holds an account's chips, in words a player reads (never the account's code)."""
    return {
        AccountKind.PLAYER: "your balance",
        AccountKind.ESCROW: "the table",
        AccountKind.HOUSE: "the house",
    }.get(AccountKind(account.kind), "the bank")


def _stored_key(kind: str, key: str) -> str:
    if not key or not kind:
        raise LedgerError("a ledger transaction needs a kind and an idempotency key")
    stored = f"{kind}:{key}"
    if len(stored) > MAX_KEY:
        raise LedgerError(f"idempotency key too long ({len(stored)} > {MAX_KEY} characters)")
    return stored


async def _find(session: AsyncSession, kind: str, key: str) -> Posted | None:
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
    return Posted(row.id, row.kind, key, legs, row.created_at, replayed=True)


def _replay(posted: Posted, expected: Legs | None) -> Posted:
    if expected is not None and posted.entries != expected:
        raise IdempotencyConflict(
            f"{posted.kind} key {posted.key!r} was already posted with other entries "
            f"{list(posted.entries)}; not posting {list(expected)}"
        )
    return posted


async def _lock(session: AsyncSession, ids: Iterable[int]) -> dict[int, LedgerAccount]:
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = await session.scalars(
        select(LedgerAccount)
        .where(LedgerAccount.id.in_(wanted))
        .order_by(LedgerAccount.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    accounts = {account.id: account for account in rows}
    missing = [i for i in wanted if i not in accounts]
    if missing:
        raise AccountNotFound(f"no ledger account with id {missing[0]}")
    return accounts


Plan = Callable[[dict[int, LedgerAccount]], Awaitable[Legs]]


async def _post(
    session: AsyncSession,
    kind: str,
    key: str,
    memo: str,
    *,
    lock: Sequence[int],
    plan: Plan,
    expected: Legs | None,
) -> Posted:
    """Claim the key, lock `lock`, let `plan` check and change seats and return the legs, then
    write the entries and balances. `expected` (when the legs are known up front) is what a
    replay of the key must match."""
    return await _once(
        session, kind, key, expected, lambda: _write(session, kind, key, memo, lock, plan)
    )


async def _once(
    session: AsyncSession,
    kind: str,
    key: str,
    expected: Legs | None,
    write: Callable[[], Awaitable[Posted]],
) -> Posted:
    """`write` in a savepoint; if the key was posted before, the earlier posting instead."""
    # no look-up first: claiming the key fails on a replay, and a replay is rare
    try:
        async with session.begin_nested():
            posted = await write()
    except IntegrityError as exc:
        earlier = await _find(session, kind, key)
        if earlier is not None:  # posted before, or a concurrent twin posted it first
            return _replay(earlier, expected)
        if "nonnegative" in str(exc.orig):
            raise InsufficientFunds("not enough chips for that move") from exc
        raise
    return posted


async def _write(
    session: AsyncSession, kind: str, key: str, memo: str, lock: Sequence[int], plan: Plan
) -> Posted:
    conn = await session.connection()
    inserted = await conn.execute(
        insert(LedgerTransaction)
        .values(
            kind=str(kind),
            idempotency_key=_stored_key(kind, key),
            memo=memo[:500],
            created_at=utcnow(),
        )
        .returning(LedgerTransaction.id, LedgerTransaction.created_at)
    )
    # the key is claimed: a concurrent twin waits at its own insert, then fails
    transaction_id, created_at = inserted.one()
    accounts = await _lock(session, lock)
    legs = await plan(accounts)
    for account, amount in legs:
        held = accounts[account]  # plan only moves locked accounts
        if held.kind != AccountKind.BANK and held.balance + amount < 0:
            raise InsufficientFunds(
                f"not enough chips: {_holder(held)} holds {chips(held.balance)}, "
                f"{chips(-amount)} needed",
                account=held.code,
                balance=held.balance,
                needed=-amount,
            )
    if legs:
        await conn.execute(
            insert(LedgerEntry),
            [{"transaction_id": transaction_id, "account_id": a, "amount": n} for a, n in legs],
        )
        moved = dict(legs)
        await conn.execute(
            update(LedgerAccount)
            .where(LedgerAccount.id.in_(list(moved)))
            .values(balance=LedgerAccount.balance + case(moved, value=LedgerAccount.id))
            .execution_options(synchronize_session=False)
        )
        for account, amount in legs:  # keep the session's copies true, unflagged
            set_committed_value(accounts[account], "balance", accounts[account].balance + amount)
    await session.flush()
    return Posted(transaction_id, str(kind), key, legs, created_at)


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
    Escrow accounts move only with their seats (buy_in, cash_out, settle_hand)."""
    legs = _legs(entries)
    if not legs:
        raise InvalidAmount("a transfer must move some chips")

    async def plan(accounts: dict[int, LedgerAccount]) -> Legs:
        escrows = [a.code for a in accounts.values() if a.kind == AccountKind.ESCROW]
        if escrows:
            raise LedgerError(
                f"{escrows[0]} moves only with its seats: use buy_in, cash_out or settle_hand"
            )
        return legs

    return await _post(
        session, kind, key, memo, lock=[a for a, _ in legs], plan=plan, expected=legs
    )


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
        memo=f"sign-up grant to user {user_id}",
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

    async def plan(accounts: dict[int, LedgerAccount]) -> Legs:
        held = accounts[player].balance + await seated_chips(session, user_id)
        if held >= threshold:
            raise TopUpNotAllowed(
                f"the daily top-up is for players with less than {chips(threshold)}; "
                f"you have {chips(held)}"
            )
        return legs

    posted = await _post(
        session,
        TxKind.DAILY_TOPUP,
        key,
        f"daily top-up for user {user_id} on {today.isoformat()}",
        lock=[player, bank],
        plan=plan,
        expected=legs,
    )
    if posted.replayed:  # a concurrent claim won
        raise TopUpAlreadyClaimed("you have already claimed today's top-up; come back tomorrow")
    return posted


async def _table(session: AsyncSession, table_id: int) -> PokerTable:
    table = await session.get(PokerTable, table_id)
    if table is None:
        raise TableNotFound(f"no table {table_id}")
    return table


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

    async def plan(accounts: dict[int, LedgerAccount]) -> Legs:
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
        cap = table.max_buy_in
        if seat is None:
            if seat_no is None:
                raise NotSeated("choose a seat to sit down at this table")
            if not 0 <= seat_no < table.max_seats:
                raise InvalidSeat(f"seats at this table are numbered 0 to {table.max_seats - 1}")
            if seats:
                raise SeatTaken(f"seat {seat_no} is taken")
            if amount < table.min_buy_in:
                raise BuyInOutOfRange(
                    f"the minimum buy-in at this table is {chips(table.min_buy_in)} "
                    "(ten small bets)"
                )
            if cap is not None and amount > cap:
                raise BuyInOutOfRange(f"the maximum buy-in at this table is {chips(cap)}")
            session.add(Seat(table_id=table_id, seat_no=seat_no, user_id=user_id, stack=amount))
        else:
            if seat_no is not None and seat_no != seat.seat_no:
                raise InvalidSeat(f"you are already seated at seat {seat.seat_no}")
            if cap is not None and seat.stack + amount > cap:
                raise BuyInOutOfRange(
                    f"a stack may hold at most {chips(cap)} here; "
                    f"you can add {chips(cap - seat.stack)}"
                )
            seat.stack += amount
        return legs

    return await _post(
        session,
        TxKind.BUY_IN,
        key,
        f"user {user_id} buys in for {amount} at table {table_id}",
        lock=[player, escrow],
        plan=plan,
        expected=legs,
    )


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
    player, escrow = await _with_table(session, table_id, player_code(user_id))
    expected = None if amount is None else _legs({escrow: -amount, player: amount})

    async def plan(accounts: dict[int, LedgerAccount]) -> Legs:
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

    return await _post(
        session,
        TxKind.CASH_OUT,
        key,
        f"user {user_id} cashes out {'all' if amount is None else amount} from table {table_id}",
        lock=[player, escrow],
        plan=plan,
        expected=expected,
    )


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
    """One hand's `Settlement`, idempotent by its key like every posting here."""
    settlement = Settlement(table_id, key, dict(deltas), rake, memo)
    settlement.check()
    house, escrow = await _with_table(session, table_id, HOUSE)

    async def write() -> Posted:
        return (await settle_hands(session, [settlement]))[0]

    return await _once(
        session, TxKind.HAND_SETTLEMENT, key, _legs({escrow: -rake, house: rake}), write
    )


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
    await session.flush()  # a caller's pending rows (a seat bought in) first: Core reads next
    conn = await session.connection()
    tables = sorted({s.table_id for s in settlements})
    escrows = {escrow_code(t): t for t in tables}
    keys = [_stored_key(TxKind.HAND_SETTLEMENT, s.key) for s in settlements]
    # claim the keys first: a concurrent twin waits at its own insert, then fails
    now = utcnow()
    claimed = await conn.execute(
        insert(LedgerTransaction).returning(
            LedgerTransaction.idempotency_key, LedgerTransaction.id
        ),
        [
            {
                "kind": str(TxKind.HAND_SETTLEMENT),
                "idempotency_key": key,
                "memo": s.text[:500],
                "created_at": now,
            }
            for s, key in zip(settlements, keys, strict=True)
        ],
    )
    transaction_ids: dict[str, int] = {key: id_ for key, id_ in claimed}
    # the house and the escrows, looked up and locked in one statement, in id order
    found = await conn.execute(
        select(LedgerAccount.code, LedgerAccount.id, LedgerAccount.balance)
        .where(LedgerAccount.code.in_([HOUSE, *escrows]))
        .order_by(LedgerAccount.id)
        .with_for_update()
    )
    ids: dict[str, int] = {}
    balances: dict[int, int] = {}
    for code, id_, held in found:
        ids[code] = id_
        balances[id_] = held
    if HOUSE not in ids:
        raise AccountNotFound(f"no ledger account {HOUSE!r}")
    for code, table_id in escrows.items():
        if code not in ids:
            raise TableNotFound(f"no table {table_id}")
    stacks: dict[tuple[int, int], tuple[int, int]] = {  # (table, user): (seat, stack)
        (table_id, user): (seat_no, stack)
        for table_id, user, seat_no, stack in await conn.execute(
            select(Seat.table_id, Seat.user_id, Seat.seat_no, Seat.stack).where(
                Seat.table_id.in_(tables)
            )
        )
    }
    moved: dict[tuple[int, int], int] = defaultdict(int)  # (table, user): stack change
    rake_moves: dict[int, int] = defaultdict(int)  # account: balance change
    entries: list[dict[str, int]] = []
    posted: list[Posted] = []
    house = ids[HOUSE]
    for s, key in zip(settlements, keys, strict=True):
        for user, delta in sorted(s.deltas.items()):
            found_seat = stacks.get((s.table_id, user))
            if found_seat is None:
                raise NotSeated(f"user {user} is not seated at table {s.table_id}")
            seat_no, stack = found_seat
            if stack + delta < 0:
                raise InsufficientFunds(
                    f"seat {seat_no} holds {chips(stack)}; it cannot lose {chips(-delta)}",
                    account=f"seat:{s.table_id}:{seat_no}",
                    balance=stack,
                    needed=-delta,
                )
            stacks[s.table_id, user] = (seat_no, stack + delta)
            moved[s.table_id, user] += delta
        escrow_id = ids[escrow_code(s.table_id)]
        if balances[escrow_id] < s.rake:
            raise InsufficientFunds(
                f"not enough chips: the table holds {chips(balances[escrow_id])}, "
                f"{chips(s.rake)} needed for the rake",
                account=escrow_code(s.table_id),
                balance=balances[escrow_id],
                needed=s.rake,
            )
        legs = _legs({escrow_id: -s.rake, house: s.rake})
        transaction_id = transaction_ids[key]
        for account, amount in legs:
            balances[account] += amount
            rake_moves[account] += amount
            entries.append(
                {"transaction_id": transaction_id, "account_id": account, "amount": amount}
            )
        posted.append(Posted(transaction_id, str(TxKind.HAND_SETTLEMENT), s.key, legs, now))
    changed = {seat: delta for seat, delta in moved.items() if delta}
    if changed:
        await conn.execute(
            update(Seat)
            .where(Seat.table_id == bindparam("b_table"), Seat.user_id == bindparam("b_user"))
            .values(stack=Seat.stack + bindparam("b_delta")),
            [{"b_table": t, "b_user": u, "b_delta": d} for (t, u), d in changed.items()],
        )
        _expire(session, Seat, lambda seat: (seat.table_id, seat.user_id) in changed, "stack")
    if entries:
        await conn.execute(insert(LedgerEntry), entries)
        await conn.execute(
            update(LedgerAccount)
            .where(LedgerAccount.id.in_(list(rake_moves)))
            .values(balance=LedgerAccount.balance + case(rake_moves, value=LedgerAccount.id))
        )
        _expire(session, LedgerAccount, lambda account: account.id in rake_moves, "balance")
    return posted


def _expire(
    session: AsyncSession, kind: type[Any], changed: Callable[[Any], bool], name: str
) -> None:
    """A caller's loaded copies of rows a Core statement changed read `name` again."""
    for held in list(session.identity_map.values()):
        if isinstance(held, kind) and changed(held):
            session.expire(held, [name])
