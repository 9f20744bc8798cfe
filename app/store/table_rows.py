"""Poker tables and their seats, persisted so tables come back after a restart.

Seats and stacks change only through the ledger (`buy_in`, `cash_out`, `settle_hands`),
which keeps each table's escrow equal to the chips seated there.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.store.errors import TableNotFound
from app.store.ledger import open_escrow_account
from app.store.models import PokerTable


async def create_table(session: AsyncSession, table: PokerTable) -> PokerTable:
    """Save a new table (settings filled in by the caller) and open its escrow account."""
    session.add(table)
    await session.flush()
    await open_escrow_account(session, table.id)
    await session.refresh(table, ["seats"])
    return table


async def get_table(session: AsyncSession, table_id: int) -> PokerTable:
    """A table with its seats (`table.seats`, ordered by seat number)."""
    table = await session.get(
        PokerTable, table_id, options=[selectinload(PokerTable.seats)], populate_existing=True
    )
    if table is None:
        raise TableNotFound(f"no table {table_id}")
    return table


async def open_tables(session: AsyncSession) -> Sequence[PokerTable]:
    """Every open table with its seats: what the table server restores at start."""
    rows = await session.scalars(
        select(PokerTable)
        .where(PokerTable.status == "open")
        .order_by(PokerTable.id)
        .options(selectinload(PokerTable.seats))
        .execution_options(populate_existing=True)
    )
    return rows.all()


async def close_table(session: AsyncSession, table_id: int) -> None:
    """Close a table to new buy-ins; seated players may still cash out."""
    table = await get_table(session, table_id)
    table.status = "closed"
    await session.flush()
