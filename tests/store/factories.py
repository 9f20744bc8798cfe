"""Quick ways to make users and tables in a test (reusable by other test packages)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.store import accounts, tournaments
from app.store.models import PokerTable, User
from app.store.table_rows import create_table

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


# a tournament's settings: $10 + $1, 1,500 chips (the structure is the engine's, opaque here)
TOURNAMENT: dict[str, Any] = dict(
    name="Sunday Stud", variant="stud", seats_per_table=8, buy_in=1000, fee=100,
    starting_chips=1500, structure={"levels": []}, payouts="top15", min_players=2,
    max_players=100, start_mode="full", action_timer_ms=10_000, time_bank_ms=30_000,
    pause_allowance_ms=60_000, hand_pause_ms=3_000, bot_delay_ms=500,
)  # fmt: skip


async def make_tournament(session: AsyncSession, **values: Any) -> int:
    """A registering tournament (`TOURNAMENT`'s settings, `values` over them) and its pool."""
    return await tournaments.create_tournament(session, {**TOURNAMENT, **values})
