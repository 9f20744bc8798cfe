"""The user accounts bots play from: one made per bot a host seats, with the chips it buys
in with granted from the bank; it never logs in. Its names: `app.tables.bot_names`."""

from __future__ import annotations

from app.store import accounts
from app.store.db import Database
from app.store.errors import NameTaken
from app.tables.bot_names import bot_account, bot_seat_name
from app.tables.errors import TableError

UNUSABLE_HASH = "!bot"  # bots never log in


async def make_bot_user(db: Database, first: str, chips: int) -> tuple[int, str]:
    """A user for a bot, with `chips` granted from the bank to buy in with; returns its id
    and the name it plays under ("Bot Ada": `first` is one of `BOT_NAMES`)."""
    for _ in range(5):
        name = bot_account(first)
        try:
            async with db.transaction() as s:
                user = await accounts.register(
                    s,
                    name=name,
                    email=f"{name}@bots.example.com",
                    password_hash=UNUSABLE_HASH,
                    starting_balance=chips,
                )
                return user.id, bot_seat_name(user.name)
        except NameTaken:
            continue
    raise TableError("bot_failed", "could not make a bot user")
