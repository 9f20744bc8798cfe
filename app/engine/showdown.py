"""Showdown: hand values, who shows first, who could win, and settling the pots (R20–R23)."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.cards import Card
from app.engine.evaluate import high, high_value
from app.engine.events import PotAwarded
from app.engine.pots import Pot, split
from app.engine.rules import MAX_SEATS
from app.engine.state import Player
from app.engine.variants import VariantSpec


def evaluate(spec: VariantSpec, p: Player, cards: Sequence[Card]) -> None:
    """Set `p.high` and `p.low` (evaluate.py ints, greater is better; low 0 = no low)."""
    if spec.high:
        p.high = high_value(cards)
    if spec.low is not None:
        p.low = spec.low.value(cards)


def describe(spec: VariantSpec, cards: Sequence[Card]) -> tuple[str | None, str | None]:
    """The high and low descriptions of a shown hand (None when not played or too few cards)."""
    if len(cards) < 5:
        return None, None
    hi = high(cards).describe() if spec.high else None
    lo = spec.low.describe(cards) if spec.low is not None else None
    return hi, lo


def showdown_order(first: int, contenders: Sequence[Player]) -> list[Player]:
    """The seats still in, clockwise from `first` (R22)."""
    return sorted(contenders, key=lambda p: (p.seat - first) % MAX_SEATS)


def can_win(spec: VariantSpec, p: Player, pots: Sequence[Pot], by_seat: dict[int, Player]) -> bool:
    """R23: whether `p` beats or ties every hand already shown in some contested pot it is
    eligible for (or no hand in that pot has been shown yet)."""
    for pot in pots:
        if len(pot.eligible) < 2 or p.seat not in pot.eligible:
            continue
        shown = [by_seat[s] for s in pot.eligible if by_seat[s].shown]
        if not shown:
            return True
        if spec.high and p.high >= max(q.high for q in shown):
            return True
        # no low (0: no eight-or-better) wins no low half, even when no shown hand has one
        if spec.low is not None and p.low and p.low >= max(q.low for q in shown):
            return True
    return False


def _high_odd_key(cards: Sequence[Card]) -> int:
    """The highest card of the five used (aces high); as a card index, suits break ties."""
    return max(high(cards).cards)


def award_pots(
    spec: VariantSpec,
    pots: Sequence[Pot],
    by_seat: dict[int, Player],
    seven: dict[int, list[Card]],
) -> list[PotAwarded]:
    """Settle each pot on its own among its eligible seats that did not muck (R20, R21).

    A pot with one eligible seat goes to it. Stud8: the odd chip goes to the high half; a pot
    where no eligible hand has a qualifying low goes whole to the best high. An odd chip
    within a tie goes to the tied seat whose hand's highest card (of the five used; for lows
    with aces low) has the highest suit.
    """
    awards: list[PotAwarded] = []
    low_rule = spec.low

    def share(index: int, amount: int, winners: list[Player], part: str, low: bool) -> None:
        if len(winners) > 1 and amount % len(winners):
            if low:
                assert low_rule is not None
                keyed = [(low_rule.odd_chip_key(seven[q.seat]), q) for q in winners]
            else:
                keyed = [(_high_odd_key(seven[q.seat]), q) for q in winners]
            keyed.sort(key=lambda kq: kq[0], reverse=True)
            winners = [q for _, q in keyed]
        for seat, chips in split(amount, [q.seat for q in winners]):
            if chips:
                awards.append(PotAwarded(index, seat, chips, part))

    for index, pot in enumerate(pots):
        if not pot.amount:
            continue
        if len(pot.eligible) == 1:
            awards.append(PotAwarded(index, pot.eligible[0], pot.amount, "whole"))
            continue
        contenders = [by_seat[s] for s in pot.eligible if not by_seat[s].mucked]
        if low_rule is None:
            best = max(q.high for q in contenders)
            share(index, pot.amount, [q for q in contenders if q.high == best], "whole", False)
        elif not spec.high:  # a low-only game: the best low takes the pot
            best = max(q.low for q in contenders)
            share(index, pot.amount, [q for q in contenders if q.low == best], "whole", True)
        else:
            best = max(q.high for q in contenders)
            highs = [q for q in contenders if q.high == best]
            best_low = max(q.low for q in contenders)
            if not best_low:
                share(index, pot.amount, highs, "whole", False)
                continue
            lows = [q for q in contenders if q.low == best_low]
            low_half = pot.amount // 2
            share(index, pot.amount - low_half, highs, "high", False)
            share(index, low_half, lows, "low", True)
    return awards
