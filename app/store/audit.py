"""The ledger's invariants, checked against the database (`python -m app ledger check`).

1. every transaction's entries sum to zero, and so do all entries together;
2. every account's balance equals the sum of its entries;
3. no account but the bank holds a negative balance, and no seat a negative stack;
4. every table's escrow equals the chips seated there;
5. every operator's balance adjustment (kind `adjustment`) moves chips between the bank and
   one player's balance, nothing else (they are counted, with their net, in the report);
6. every open table's own view of its seats (the stacks it last stored with a chip move or a
   hand) is the ledger's: the same players in the same seats with the same stacks. Between
   a hand's end and its record (the hand writer's short lag) both still show the stacks
   before it; a gap means the table holds chips the ledger never moved, or the reverse.

A tournament's tables hold tournament chips: they are left out of 3-4 and the chips seated
(their escrow holds nothing), their views are compared with their seats as in 5, and every
tournament's own invariants follow (`tournament_audit`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import (
    AccountKind,
    LedgerAccount,
    LedgerEntry,
    LedgerTransaction,
    PokerTable,
    Seat,
    TxKind,
)
from app.store.tournament_audit import SeatRow, check_tournaments


@dataclass
class LedgerReport:
    transactions: int = 0
    entries: int = 0
    entries_total: int = 0  # must be 0
    totals: dict[str, int] = field(default_factory=dict)  # balance per account kind
    seated: int = 0  # chips on all cash tables' seats
    tournaments: int = 0  # tournaments checked
    adjustments: int = 0  # operators' balance adjustments
    adjusted: int = 0  # their net, to the players (from the bank)
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def lines(self) -> list[str]:
        out = [
            f"transactions: {self.transactions}",
            f"entries: {self.entries} (sum {self.entries_total})",
        ]
        out += [f"{kind} balances: {self.totals.get(kind, 0)}" for kind in AccountKind]
        out.append(f"all accounts: {sum(self.totals.values())}")
        out.append(f"chips seated: {self.seated}")
        out.append(f"tournaments checked: {self.tournaments}")
        out.append(f"adjustments: {self.adjustments} (net {self.adjusted} to players)")
        out += [f"VIOLATION: {v}" for v in self.violations]
        broken = f"ledger BROKEN: {len(self.violations)} violation(s)"
        out.append("ledger OK" if self.ok else broken)
        return out


async def check_ledger(session: AsyncSession, *, limit: int = 50) -> LedgerReport:
    """Check every invariant; report at most `limit` violations of each kind."""
    report = LedgerReport()
    await _postings(session, report, limit)
    report.violations += (await _adjustments(session, report))[:limit]
    seated: dict[int, int] = defaultdict(int)  # cash tables only
    views: dict[int, dict[str, list[int]]] = defaultdict(dict)
    played: dict[int, list[SeatRow]] = defaultdict(list)  # by tournament
    for table_id, seat_no, user_id, stack, tournament_id in await session.execute(
        select(Seat.table_id, Seat.seat_no, Seat.user_id, Seat.stack, PokerTable.tournament_id)
        .join(PokerTable, PokerTable.id == Seat.table_id)
        .order_by(Seat.table_id, Seat.seat_no)
    ):
        views[table_id][str(seat_no)] = [user_id, stack]
        if stack < 0:
            report.violations.append(f"a seat at table {table_id} holds {stack} chips")
        if tournament_id is not None:
            played[tournament_id].append((table_id, seat_no, user_id, stack))
            continue
        seated[table_id] += stack
        report.seated += stack
    report.violations += (await _table_views(session, views))[:limit]
    report.violations += (await _accounts(session, report, seated))[:limit]
    if sum(report.totals.values()) != 0:
        report.violations.append(f"all balances sum to {sum(report.totals.values())}, not 0")
    report.tournaments, found = await check_tournaments(session, played)
    report.violations += found[:limit]
    return report


async def _postings(session: AsyncSession, report: LedgerReport, limit: int) -> None:
    """Invariant 1: every transaction's entries sum to zero, and all of them together."""
    report.transactions = await session.scalar(select(func.count(LedgerTransaction.id))) or 0
    count, total = (
        await session.execute(select(func.count(LedgerEntry.id), func.sum(LedgerEntry.amount)))
    ).one()
    report.entries, report.entries_total = int(count), int(total or 0)
    if report.entries_total != 0:
        report.violations.append(f"all entries together sum to {report.entries_total}, not 0")
    unbalanced = await session.execute(
        select(LedgerEntry.transaction_id, func.sum(LedgerEntry.amount))
        .group_by(LedgerEntry.transaction_id)
        .having(func.sum(LedgerEntry.amount) != 0)
        .order_by(LedgerEntry.transaction_id)
        .limit(limit)
    )
    report.violations += [f"transaction {t} sums to {s}" for t, s in unbalanced]


async def _adjustments(session: AsyncSession, report: LedgerReport) -> list[str]:
    """Invariant 5: an adjustment is the bank's and one player's, and sums to zero."""
    legs: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for tx, kind, amount in await session.execute(
        select(LedgerTransaction.id, LedgerAccount.kind, LedgerEntry.amount)
        .join(LedgerEntry, LedgerEntry.transaction_id == LedgerTransaction.id)
        .join(LedgerAccount, LedgerAccount.id == LedgerEntry.account_id)
        .where(LedgerTransaction.kind == TxKind.ADJUSTMENT)
        .order_by(LedgerTransaction.id)
    ):
        legs[tx].append((kind, amount))
    found = []
    for tx, moved in legs.items():
        kinds = sorted(k for k, _ in moved)
        if kinds != [AccountKind.BANK, AccountKind.PLAYER]:
            found.append(f"adjustment {tx} moves {kinds}, not the bank's and a player's")
        report.adjusted += sum(a for k, a in moved if k == AccountKind.PLAYER)
    report.adjustments = len(legs)
    return found


async def _accounts(
    session: AsyncSession, report: LedgerReport, seated: Mapping[int, int]
) -> list[str]:
    """Invariants 2-4: balances against their entries, none negative but the bank's, and
    every cash table's escrow against the chips seated there."""
    per_account = await session.execute(
        select(LedgerEntry.account_id, func.sum(LedgerEntry.amount)).group_by(
            LedgerEntry.account_id
        )
    )
    sums = {account: int(total) for account, total in per_account}
    escrowed: set[int] = set()
    found: list[str] = []
    for account in await session.scalars(select(LedgerAccount).order_by(LedgerAccount.id)):
        report.totals[account.kind] = report.totals.get(account.kind, 0) + account.balance
        posted = int(sums.get(account.id, 0))
        if account.balance != posted:
            found.append(f"{account.code} holds {account.balance} but its entries sum to {posted}")
        if account.kind != AccountKind.BANK and account.balance < 0:
            found.append(f"{account.code} is negative: {account.balance}")
        if account.kind == AccountKind.ESCROW and account.table_id is not None:
            escrowed.add(account.table_id)
            if account.balance != seated.get(account.table_id, 0):
                found.append(
                    f"{account.code} holds {account.balance} but "
                    f"{seated.get(account.table_id, 0)} chips are seated there"
                )
    found += [f"table {t} has seats but no escrow account" for t in seated if t not in escrowed]
    return found


async def _table_views(
    session: AsyncSession, ledger_seats: dict[int, dict[str, list[int]]]
) -> list[str]:
    """Invariant 6: each open table's stored view of its seats against the ledger's seats (a
    tournament table's: against its seats, which hold tournament chips)."""
    found: list[str] = []
    rows = await session.execute(
        select(PokerTable.id, PokerTable.stacks, PokerTable.tournament_id)
        .where(PokerTable.status == "open", PokerTable.stacks.is_not(None))
        .order_by(PokerTable.id)
    )
    for table_id, view, tournament_id in rows:
        if not isinstance(view, dict):
            continue  # JSON null: the table has stored no view yet
        ledger = ledger_seats.get(table_id, {})
        for seat in sorted(set(view) | set(ledger), key=int):
            held, posted = view.get(seat), ledger.get(seat)
            if held == posted:
                continue
            at_table = "nobody" if held is None else f"user {held[0]} with {held[1]}"
            in_ledger = "nobody" if posted is None else f"user {posted[0]} with {posted[1]}"
            where = "the ledger" if tournament_id is None else "its seats"
            found.append(
                f"table {table_id} seat {seat}: the table holds {at_table}, {where} {in_ledger}"
            )
    return found
