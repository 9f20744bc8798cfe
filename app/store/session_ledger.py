"""A private table's session ledger (the host's view of who brought and took what), read
from the chip ledger's own postings, never counted a second time.

The session is the table's life: from its creation (when its escrow account opened) to its
close. A table is never reopened, so every posting on its escrow belongs to its one session.
For each player who moved chips there:

- buy-ins: the `buy_in` postings that seated them (the request named a seat);
- top-ups: the `buy_in` postings that added to their stack (the request named none);
- cash-outs: the `cash_out` postings (leaving, a removal, the table's close);
- stack now: their seat's stack as the ledger holds it (`seats`, which every chip move and
  every recorded hand changes with the escrow; a hand still being played is not in it),
  and whether the table's own stored stacks say the same (`table_agrees`, as `ledger check`
  compares them);
- net: cash-outs plus the stack now, less buy-ins and top-ups.

Which kind of request a `buy_in` posting answered is its memo's statement of the request
(`ledger.buy_in` writes "…, seat N" or "…, a top-up"; a replayed key is compared by it).
The rake the table's hands paid to the house is the `hand_settlement` legs out of the
escrow; the players' nets sum to minus it, and the stacks now sum to the escrow's balance.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.store.errors import LedgerError, TableNotFound
from app.store.ledger import escrow_code
from app.store.models import (
    AccountKind,
    LedgerAccount,
    LedgerEntry,
    LedgerTransaction,
    PokerTable,
    Seat,
    TxKind,
    User,
)

TOP_UP_MEMO = ", a top-up"  # how `ledger.buy_in` states a top-up request


@dataclass(slots=True)
class PlayerLine:
    user_id: int
    name: str
    buy_ins: int = 0
    top_ups: int = 0
    cash_outs: int = 0
    stack: int = 0  # as the ledger's seat holds it now (0: not seated)
    seated: bool = False

    @property
    def net(self) -> int:
        return self.cash_outs + self.stack - self.buy_ins - self.top_ups

    def to_dict(self) -> dict[str, int | str | bool]:
        return {
            "user_id": self.user_id,
            "name": self.name,
            "buy_ins": self.buy_ins,
            "top_ups": self.top_ups,
            "cash_outs": self.cash_outs,
            "stack": self.stack,
            "seated": self.seated,
            "net": self.net,
        }


@dataclass(slots=True)
class SessionLedger:
    table_id: int
    players: list[PlayerLine] = field(default_factory=list)
    rake: int = 0  # paid by the table's hands to the house
    escrow: int = 0  # the table's escrow balance: the stacks now, together
    postings: int = 0  # the ledger transactions read
    # the table's own stored stacks are the ledger's seats (`ledger check`'s invariant 5);
    # None: an open table that stored none yet, or a closed one (its seats all cashed out)
    table_agrees: bool | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "table_id": self.table_id,
            "players": [p.to_dict() for p in self.players],
            "totals": {
                "buy_ins": sum(p.buy_ins for p in self.players),
                "top_ups": sum(p.top_ups for p in self.players),
                "cash_outs": sum(p.cash_outs for p in self.players),
                "stack": sum(p.stack for p in self.players),
                "net": sum(p.net for p in self.players),
            },
            "rake": self.rake,
            "escrow": self.escrow,
            "postings": self.postings,
            "table_agrees": self.table_agrees,
        }

    def csv(self) -> str:
        """One line per player, in dollars and cents as `1234.56` (spreadsheets read it)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(["player", "buy_ins", "top_ups", "cash_outs", "stack_now", "net"])
        for p in self.players:
            amounts = (p.buy_ins, p.top_ups, p.cash_outs, p.stack, p.net)
            writer.writerow([_safe_cell(p.name), *(_dollars(a) for a in amounts)])
        totals = self.to_dict()["totals"]
        assert isinstance(totals, dict)
        names = ("buy_ins", "top_ups", "cash_outs", "stack", "net")
        writer.writerow(["total", *(_dollars(int(totals[k])) for k in names)])
        writer.writerow(["rake", "", "", "", "", _dollars(self.rake)])
        return out.getvalue()


def _dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _safe_cell(text: str) -> str:
    """A name a spreadsheet would run as a formula is written as text."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


async def read_session(session: AsyncSession, table_id: int) -> SessionLedger:
    """The table's session ledger, from its escrow's postings and the ledger's seats."""
    escrow = await session.scalar(
        select(LedgerAccount).where(LedgerAccount.code == escrow_code(table_id))
    )
    if escrow is None:
        raise TableNotFound(f"no table {table_id}")
    ledger = SessionLedger(table_id, escrow=escrow.balance)
    lines: dict[int, PlayerLine] = {}
    await _postings(session, escrow.id, ledger, lines)
    await _stacks_now(session, ledger, lines)
    if lines:
        found = await session.execute(select(User.id, User.name).where(User.id.in_(list(lines))))
        for user_id, name in found:
            lines[user_id].name = name
    ledger.players = sorted(lines.values(), key=lambda p: (p.name.casefold(), p.user_id))
    return ledger


def _line(lines: dict[int, PlayerLine], user_id: int) -> PlayerLine:
    return lines.setdefault(user_id, PlayerLine(user_id, ""))


async def _postings(
    session: AsyncSession, escrow_id: int, ledger: SessionLedger, lines: dict[int, PlayerLine]
) -> None:
    """Every posting with a leg on the escrow, by its other leg: a player's buy-in, top-up
    or cash-out, or the house's rake."""
    mine, other = aliased(LedgerEntry), aliased(LedgerEntry)
    rows = await session.execute(
        select(
            LedgerTransaction.id,
            LedgerTransaction.kind,
            LedgerTransaction.memo,
            mine.amount,
            LedgerAccount.kind,
            LedgerAccount.user_id,
        )
        .join(mine, mine.transaction_id == LedgerTransaction.id)
        .join(other, (other.transaction_id == LedgerTransaction.id) & (other.id != mine.id))
        .join(LedgerAccount, LedgerAccount.id == other.account_id)
        .where(mine.account_id == escrow_id)
        .order_by(LedgerTransaction.id)
    )
    seen: set[int] = set()
    for tx_id, kind, memo, to_escrow, other_kind, user_id in rows:
        seen.add(tx_id)
        if kind == TxKind.HAND_SETTLEMENT and other_kind == AccountKind.HOUSE:
            ledger.rake -= to_escrow
        elif kind == TxKind.BUY_IN and user_id is not None:
            target = _line(lines, user_id)
            if memo.endswith(TOP_UP_MEMO):
                target.top_ups += to_escrow
            else:
                target.buy_ins += to_escrow
        elif kind == TxKind.CASH_OUT and user_id is not None:
            _line(lines, user_id).cash_outs -= to_escrow
        else:  # the ledger moves an escrow only with its seats: anything else is a fault
            raise LedgerError(f"transaction {tx_id} ({kind}) moves the table's escrow")
    ledger.postings = len(seen)


async def _stacks_now(
    session: AsyncSession, ledger: SessionLedger, lines: dict[int, PlayerLine]
) -> None:
    """The ledger's seats, and whether the open table's own stored stacks say the same."""
    seats: dict[str, list[int]] = {}
    for seat_no, user_id, stack in await session.execute(
        select(Seat.seat_no, Seat.user_id, Seat.stack).where(Seat.table_id == ledger.table_id)
    ):
        line = _line(lines, user_id)
        line.stack, line.seated = stack, True
        seats[str(seat_no)] = [user_id, stack]
    status, view = (
        await session.execute(
            select(PokerTable.status, PokerTable.stacks).where(PokerTable.id == ledger.table_id)
        )
    ).one()
    if status == "open" and isinstance(view, dict):
        ledger.table_agrees = view == seats
