"""`ledger check`'s tournament invariants, for every tournament:

1. its prize pool holds what its entries paid in (entries, rebuys, add-ons) less what went
   back (refunds) and out (prizes), by the ledger's own transactions of each kind, and the
   entries' rows say the same amounts; no other kind of transaction touches it;
2. its chips: the entries' chips (every status) sum to the chips it issued; an entry out of
   play holds none; every entry playing at a table has its seat there with exactly its chips,
   and every seat at its tables belongs to an entry playing there (each table's own view of
   its seats is compared with the seats with the cash tables', `audit._table_views`);
3. no entry is paid twice: each prize posting names its entry by key (`prize:<t>:<entry>`)
   and pays that entry's player exactly its `prize`, and every prize above 0 was paid;
4. no player has two live (registered or playing) entries, nor seats at two of its tables.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.ledger import player_code, prize_pool_code
from app.store.models import LedgerAccount, LedgerEntry, LedgerTransaction, TxKind
from app.store.tournament_models import LIVE, EntryStatus, Tournament, TournamentEntry
from app.store.tournaments import prize_key

SeatRow = tuple[int, int, int, int]  # table, seat, user, stack: a seat at a tournament table
PRIZE_KEY = f"{TxKind.TOURNAMENT_PRIZE}:"


@dataclass
class _Pool:
    """One prize pool's movements in the ledger, by transaction kind."""

    balance: int | None = None  # None: no account
    moved: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    # (transaction id, stored key, {account code: amount}) of each prize posting
    prizes: list[tuple[int, str, dict[str, int]]] = field(default_factory=list)


async def _pools(session: AsyncSession) -> dict[str, _Pool]:
    """Every prize pool account's balance and movements, by its code."""
    pools: dict[str, _Pool] = defaultdict(_Pool)
    for code, held in await session.execute(
        select(LedgerAccount.code, LedgerAccount.balance).where(LedgerAccount.kind == "prize_pool")
    ):
        pools[code].balance = held
    pool_tx = (
        select(LedgerEntry.transaction_id)
        .join(LedgerAccount, LedgerAccount.id == LedgerEntry.account_id)
        .where(LedgerAccount.kind == "prize_pool")
    )
    prize_legs: dict[int, dict[str, int]] = defaultdict(dict)
    keys: dict[int, str] = {}
    for tx, kind, key, code, kind_of_account, amount in await session.execute(
        select(
            LedgerTransaction.id,
            LedgerTransaction.kind,
            LedgerTransaction.idempotency_key,
            LedgerAccount.code,
            LedgerAccount.kind,
            LedgerEntry.amount,
        )
        .join(LedgerEntry, LedgerEntry.transaction_id == LedgerTransaction.id)
        .join(LedgerAccount, LedgerAccount.id == LedgerEntry.account_id)
        .where(LedgerTransaction.id.in_(pool_tx))
        .order_by(LedgerTransaction.id)
    ):
        if kind_of_account == "prize_pool":
            pools[code].moved[kind] += amount
        if kind == TxKind.TOURNAMENT_PRIZE:
            prize_legs[tx][code] = amount
            keys[tx] = key
    for tx, legs in prize_legs.items():
        for code in legs:
            if code in pools:
                pools[code].prizes.append((tx, keys[tx], legs))
    return pools


def _money(t: Tournament, pool: _Pool | None, rows: Sequence[TournamentEntry]) -> list[str]:
    """Invariant 1."""
    name = f"tournament {t.id}: {prize_pool_code(t.id)}"
    if pool is None or pool.balance is None:
        return [f"tournament {t.id} has no prize pool account"]
    paid_in = pool.moved.get(TxKind.TOURNAMENT_ENTRY, 0)
    back = -pool.moved.get(TxKind.TOURNAMENT_REFUND, 0)
    out = -pool.moved.get(TxKind.TOURNAMENT_PRIZE, 0)
    found = [
        f"{name} was moved by {kind} transactions ({amount})"
        for kind, amount in sorted(pool.moved.items())
        if kind not in (TxKind.TOURNAMENT_ENTRY, TxKind.TOURNAMENT_REFUND, TxKind.TOURNAMENT_PRIZE)
    ]
    if pool.balance != paid_in - back - out:
        found.append(
            f"{name} holds {pool.balance}, but its entries paid in {paid_in}, "
            f"{back} went back and {out} was paid in prizes"
        )
    expected = {
        "paid in": sum(e.paid for e in rows),
        "refunded": sum(e.paid for e in rows if e.refunded),
        "paid in prizes": sum(e.prize or 0 for e in rows),
    }
    posted = {"paid in": paid_in, "refunded": back, "paid in prizes": out}
    found += [
        f"{name}: its entries say {expected[what]} {what}, the ledger {posted[what]}"
        for what in expected
        if expected[what] != posted[what]
    ]
    return found


def _prizes(t: Tournament, pool: _Pool | None, rows: Sequence[TournamentEntry]) -> list[str]:
    """Invariant 3."""
    found: list[str] = []
    by_key = {f"{PRIZE_KEY}{prize_key(t.id, e.id)}": e for e in rows}
    paid: set[int] = set()
    for tx, key, legs in pool.prizes if pool is not None else []:
        entry = by_key.get(key)
        if entry is None:
            found.append(
                f"tournament {t.id}: prize transaction {tx} ({key!r}) names none of its "
                "entries (an entry paid twice?)"
            )
            continue
        paid.add(entry.id)
        got = legs.get(player_code(entry.user_id), 0)
        if got != (entry.prize or 0) or len(legs) != 2:
            found.append(
                f"tournament {t.id}: entry {entry.id} was paid {got} by transaction {tx}, "
                f"its prize is {entry.prize}"
            )
    found += [
        f"tournament {t.id}: entry {e.id} won {e.prize} and was never paid"
        for e in rows
        if e.prize and e.id not in paid
    ]
    return found


def _chips(t: Tournament, rows: Sequence[TournamentEntry], seats: Sequence[SeatRow]) -> list[str]:
    """Invariant 2 (the seats of the tournament's tables given)."""
    found: list[str] = []
    held = sum(e.chips for e in rows)
    if held != t.issued:
        found.append(f"tournament {t.id}: its entries hold {held} chips, it issued {t.issued}")
    at = {(table, user): (seat, stack) for table, seat, user, stack in seats}
    for e in rows:
        if e.status not in LIVE and e.chips:
            found.append(f"tournament {t.id}: entry {e.id} is {e.status} and holds {e.chips}")
        if e.status != EntryStatus.PLAYING or e.table_id is None:
            continue
        seat = at.pop((e.table_id, e.user_id), None)
        if seat != (e.seat, e.chips):
            sits = "no seat" if seat is None else f"seat {seat[0]} with {seat[1]}"
            found.append(
                f"tournament {t.id}: entry {e.id} plays at table {e.table_id} seat {e.seat} "
                f"with {e.chips}, and the table has {sits} for it"
            )
    found += [
        f"tournament {t.id}: table {table} seat {seat} holds user {user} with {stack}, "
        "who has no entry playing there"
        for (table, user), (seat, stack) in sorted(at.items())
    ]
    return found


def _players(t: Tournament, rows: Sequence[TournamentEntry], seats: Sequence[SeatRow]) -> list[str]:
    """Invariant 4."""
    live: dict[int, int] = defaultdict(int)
    for e in rows:
        if e.status in LIVE:
            live[e.user_id] += 1
    tables: dict[int, set[int]] = defaultdict(set)
    for table, _, user, _ in seats:
        tables[user].add(table)
    return [
        f"tournament {t.id}: user {user} has {n} live entries" for user, n in live.items() if n > 1
    ] + [
        f"tournament {t.id}: user {user} sits at tables {sorted(at)}"
        for user, at in tables.items()
        if len(at) > 1
    ]


async def check_tournaments(
    session: AsyncSession, seats: Mapping[int, Sequence[SeatRow]]
) -> tuple[int, list[str]]:
    """Every tournament's invariants: how many tournaments, and the violations found.
    `seats`: the seats at each tournament's tables, by tournament id."""
    pools = await _pools(session)
    per: dict[int, list[TournamentEntry]] = defaultdict(list)
    for entry in await session.scalars(select(TournamentEntry).order_by(TournamentEntry.id)):
        per[entry.tournament_id].append(entry)
    found: list[str] = []
    count = 0
    for t in await session.scalars(select(Tournament).order_by(Tournament.id)):
        count += 1
        rows, at = per.get(t.id, []), seats.get(t.id, [])
        pool = pools.get(prize_pool_code(t.id))
        found += _money(t, pool, rows) + _chips(t, rows, at)
        found += _prizes(t, pool, rows) + _players(t, rows, at)
    return count, found
