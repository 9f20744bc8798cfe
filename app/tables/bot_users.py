"""The user accounts bots play from: one made per bot a host seats, with the chips it buys
in with granted from the bank; it never logs in. Its names: `app.tables.bot_names`."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.store import accounts
from app.store.db import Database
from app.store.errors import NameTaken
from app.store.models import User
from app.tables.bot_names import bot_account, bot_seat_name
from app.tables.errors import TableError

UNUSABLE_HASH = "!bot"  # bots never log in


NAME_TRIES = 5  # a random name may be one another bot drew already


async def register_bot(session: AsyncSession, first: str, chips: int) -> User:
    """A bot's user in the caller's transaction, with `chips` granted from the bank, under a
    random account name (`bot_account`), drawn again while taken (`register` tries each in
    a savepoint); `TableError` if none is free."""
    for _ in range(NAME_TRIES):
        name = bot_account(first)
        try:
            return await accounts.register(
                session,
                name=name,
                email=f"{name}@bots.example.com",
                password_hash=UNUSABLE_HASH,
                starting_balance=chips,
            )
        except NameTaken:
            continue
    raise TableError("bot_failed", "could not find a free name for a bot")


async def make_bot_user(db: Database, first: str, chips: int) -> tuple[int, str]:
    """A user for a bot, with `chips` granted from the bank to buy in with; returns its id
    and the name it plays under ("Bot Ada": `first` is one of `BOT_NAMES`)."""
    async with db.transaction() as s:
        user = await register_bot(s, first, chips)
        return user.id, bot_seat_name(user.name)
