"""Quick ways to make users and tables in a test (reusable by other test packages)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.store import accounts
from app.store.models import PokerTable, User
from app.store.tables import create_table

# not a real argon2 hash: these users never log in through the API
FAKE_HASH = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$ZmFrZWZha2VmYWtlZmFrZQ"


async def make_user(session: AsyncSession, name: str = "alice", *, balance: int = 10_000) -> User:
    """A registered user whose sign-up grant is `balance` chips."""
    return await accounts.register(
        session,
        name=name,
        email=f"{name}@example.com",
        password_hash=FAKE_HASH,
        starting_balance=balance,
    )


async def make_table(session: AsyncSession, *, small_bet: int = 10, **settings: Any) -> PokerTable:
    """An open Stud table ($small/$2·small, bring-in half the small bet) with its escrow."""
    settings.setdefault("name", "Test table")
    settings.setdefault("big_bet", 2 * small_bet)
    settings.setdefault("bring_in", max(1, small_bet // 2))
    return await create_table(session, PokerTable(small_bet=small_bet, **settings))
