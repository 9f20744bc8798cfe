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


def bot_seat_name(account: str) -> str:
    """The short name a bot plays under: "b.Ada.3f9c1e" → "Bot Ada" (older bots keep theirs)."""
    parts = account.split(".")
    return f"Bot {parts[1]}" if len(parts) == 3 and parts[0] == "b" else account
