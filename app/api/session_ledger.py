"""A private table's session ledger over HTTP (`app.store.session_ledger`): the host's, and
every player's of that table when the host shares it (the table setting `ledger_shared`).

    GET /api/tables/{id}/ledger        JSON
    GET /api/tables/{id}/ledger.csv    text/csv, as table-{id}-ledger.csv

Read from the database, so any process answers it, and a closed table's ledger still reads.
Refusals: 404 `no_such_table` (no such table, or a private one you were never admitted to:
it is not confirmed), 404 `no_session_ledger` (a public table keeps none), 403
`ledger_not_shared` (you play there, but the host keeps the ledger to themselves).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.api.deps import DB, CurrentUser
from app.api.errors import api_error
from app.store.ledger import escrow_code
from app.store.models import LedgerAccount, LedgerEntry, PokerTable
from app.store.session_ledger import SessionLedger, read_session

router = APIRouter(prefix="/api/tables", tags=["tables"])


async def _played_there(session: AsyncSession, table: PokerTable, user_id: int) -> bool:
    """A member the table admitted, or anyone whose chips the ledger moved there."""
    if user_id in set((table.extra or {}).get("members", [])):
        return True
    mine, other = aliased(LedgerEntry), aliased(LedgerEntry)
    escrow = select(LedgerAccount.id).where(LedgerAccount.code == escrow_code(table.id))
    player = select(LedgerAccount.id).where(LedgerAccount.user_id == user_id)
    found = await session.scalar(
        select(mine.id)
        .join(other, other.transaction_id == mine.transaction_id)
        .where(mine.account_id.in_(escrow), other.account_id.in_(player))
        .limit(1)
    )
    return found is not None


async def _allowed(db: DB, table_id: int, user_id: int) -> SessionLedger:
    """The table's session ledger, if this user may read it."""
    async with db.session() as s:
        table = await s.get(PokerTable, table_id)
        if table is None or table.tournament_id is not None:
            raise api_error(404, "no_such_table", "no such table")
        host = table.host_user_id == user_id
        if table.private and not host and not await _played_there(s, table, user_id):
            raise api_error(404, "no_such_table", "no such table")  # not confirmed
        if not table.private:
            raise api_error(404, "no_session_ledger", "only a private table keeps a session ledger")
        if not host and not (table.extra or {}).get("ledger_shared", False):
            raise api_error(
                403, "ledger_not_shared", "only the host sees this table's session ledger"
            )
        return await read_session(s, table_id)


@router.get("/{table_id}/ledger")
async def session_ledger(table_id: int, user: CurrentUser, db: DB) -> dict[str, Any]:
    return (await _allowed(db, table_id, user.id)).to_dict()


@router.get("/{table_id}/ledger.csv")
async def session_ledger_csv(table_id: int, user: CurrentUser, db: DB) -> Response:
    ledger = await _allowed(db, table_id, user.id)
    return Response(
        ledger.csv(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}-ledger.csv"'},
    )
