"""Operators and players for the moderation tests."""

from __future__ import annotations

from typing import Any

from app.store import moderation
from app.store.audit import LedgerReport, check_ledger
from tests.tables.live import Live


async def operator(live: Live, name: str = "Olga") -> tuple[int, str]:
    user_id, token = await live.user(name)
    async with live.db.transaction() as s:
        await moderation.set_role(s, name, moderation.OPERATOR)
    return user_id, token


async def ledger_report(live: Live) -> LedgerReport:
    async with live.db.snapshot() as s:
        return await check_ledger(s)


async def log(live: Live) -> list[dict[str, Any]]:
    async with live.db.session() as s:
        return await moderation.read_log(s)


async def banned(live: Live, user_id: int) -> bool:
    async with live.db.session() as s:
        return (await moderation.user_by_id(s, user_id)).banned_at is not None
