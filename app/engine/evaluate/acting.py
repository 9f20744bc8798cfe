"""Who acts first: the bring-in on third street (R10), the best showing hand later (R12)."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.cards import Card
from app.engine.evaluate.tables import HIGH_ORDER, LOW_ORDER, grouped, pack


def bring_in_key(card: Card, *, razz: bool) -> int:
    """The seat whose door card has the LOWEST key brings in (R10); all 52 keys differ.

    Stud and stud8: the lowest rank, aces high; on equal ranks clubs, then diamonds, hearts,
    spades (the card index itself). Razz: the highest rank, aces low (a king is highest); on
    equal ranks spades, then hearts, diamonds, clubs.
    """
    if not razz:
        return int(card)
    low_rank = (card >> 2) + 2 if card < 48 else 1
    return (13 - low_rank) * 4 + (3 - (card & 3))


def showing_key(up_cards: Sequence[Card], *, razz: bool) -> int:
    """The key of 1–4 face-up cards: the GREATEST key acts first (R12); suits never count,
    so exact ties have equal keys (the engine breaks them by seat).

    Stud and stud8: the best poker hand of the up cards, counting only pairs, two pair, trips
    and quads, then high cards in order (no straights or flushes). Razz: the lowest
    ace-to-five hand (aces low, pairs bad) acts first, so a lower hand has a greater key.
    """
    if not 1 <= len(up_cards) <= 4:
        raise ValueError(f"a showing hand has 1 to 4 up cards, not {len(up_cards)}")
    counts = [0] * 13
    for c in up_cards:
        counts[c >> 2] += 1
    pattern, positions = grouped(counts, LOW_ORDER if razz else HIGH_ORDER)
    cat = pattern[0] if pattern[0] > 2 else pattern.count(2)  # quads 4, trips 3, pairs 2..0
    # Ranks 1..13 by position in the order; a missing card is 0. Scores stay below 1 << 19.
    score = pack(cat, [i + 1 for i in positions] + [0] * (4 - len(positions)))
    return (1 << 20) - score if razz else score
