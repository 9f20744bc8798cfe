"""Amounts as a person reads them. Chips are integers in cents inside; every text a player
reads (errors, the PokerStars export, emails) shows them as the table does: 1500 -> "$15",
15 -> "$0.15", 123456 -> "$1,234.56" (the browser's `chips()` in frontend/js/dom.js).

Standard library only, so the engine's texts and every floor above can use it.
"""

from __future__ import annotations


def chips(amount: int, *, grouping: bool = True) -> str:
    """`amount` cents in dollars, cents shown only when there are some. `grouping=False`
    leaves out the thousands commas (PokerStars writes "$1500")."""
    sign = "-" if amount < 0 else ""
    whole, cents = divmod(abs(amount), 100)
    dollars = f"{whole:,}" if grouping else str(whole)
    return f"{sign}${dollars}" + (f".{cents:02d}" if cents else "")


def stakes(small_bet: int, big_bet: int) -> str:
    """The limits as the lobby shows them: "$1/$2"."""
    return f"{chips(small_bet)}/{chips(big_bet)}"
