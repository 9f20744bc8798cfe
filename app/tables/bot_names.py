"""The names bots play under: one of a few first names, "Bot Ada", on an account name the
site never sees twice ("b.Ada.3f9c1e")."""

from __future__ import annotations

import secrets

# a bot plays as "Bot <name>"; a table never seats two of one name (hosting.host_bots)
BOT_NAMES = (
    "Ada", "Bram", "Cor", "Dirk", "Eva", "Fien", "Gijs", "Hanna", "Ida", "Jop", "Kees", "Lotte",
)  # fmt: skip


def bot_account(first: str) -> str:
    """The bot's unique account name (names are unique across the site): "b.Ada.3f9c1e"."""
    return f"b.{first}.{secrets.token_hex(3)}"


def bot_seat_name(account: str, *, unique: bool = False) -> str:
    """The short name a bot plays under: "b.Ada.3f9c1e" → "Bot Ada" (older bots keep theirs);
    `unique`: "Bot Ada 3f9", for a tournament's many bots, where two may meet at a table."""
    parts = account.split(".")
    if len(parts) != 3 or parts[0] != "b":
        return account
    return f"Bot {parts[1]} {parts[2][:3]}" if unique else f"Bot {parts[1]}"
