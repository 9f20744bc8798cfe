"""Main and side pots, rake, and splitting a pot with its odd chips (R4, R18, R21)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """Chips and the seats that may win them; pot 0 is the main pot."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(contributions: Sequence[tuple[int, int, bool]]) -> list[Pot]:
    """Pots from (seat, chips put in, folded) in dealing order (R18).

    Each all-in level of a player still in makes a pot; folded chips count up to each level.
    Chips above the highest level still in (never the case once uncalled bets are returned)
    join the last pot.
    """
    levels = sorted({put for _, put, folded in contributions if not folded and put > 0})
    pots: list[Pot] = []
    prev = 0
    for level in levels:
        amount = 0
        for _, put, _ in contributions:
            if put > prev:
                amount += (put if put < level else level) - prev
        eligible = tuple(s for s, put, folded in contributions if not folded and put >= level)
        pots.append(Pot(amount, eligible))
        prev = level
    extra = sum(put - prev for _, put, _ in contributions if put > prev)
    if extra:
        if pots:
            last = pots[-1]
            pots[-1] = Pot(last.amount + extra, last.eligible)
        else:
            pots.append(Pot(extra, ()))
    return pots


def rake_amount(total: int, bps: int, cap: int | None) -> int:
    """R4: a percentage (basis points) of the pot, rounded down, at most the cap."""
    rake = total * bps // 10_000
    return rake if cap is None or rake <= cap else cap


def take_rake(pots: Sequence[Pot], rake: int) -> list[Pot]:
    """The pots after taking `rake` from them, main pot first (R4)."""
    out = []
    for pot in pots:
        taken = min(rake, pot.amount)
        rake -= taken
        out.append(Pot(pot.amount - taken, pot.eligible))
    return out


def split(amount: int, winners: Sequence[int]) -> list[tuple[int, int]]:
    """Share `amount` equally among `winners`, which are ordered by the odd-chip rule (R21):
    the first gets the first odd chip, and so on. Returns (seat, chips) in that order."""
    share, odd = divmod(amount, len(winners))
    return [(seat, share + (1 if i < odd else 0)) for i, seat in enumerate(winners)]
