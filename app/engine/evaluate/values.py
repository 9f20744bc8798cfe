"""The hot path: hand values as plain ints, for the engine and the simulator.

Inputs are 5 to 7 distinct cards and are not checked here (`high`, `low_razz` and `low_eight`
check theirs). Seven cards, the showdown case, take an unrolled sum and a flat table read;
five or six take ``sum(map(...))`` and a dict. Local names and literal constants on purpose:
this is the code the benchmark (benchmarks/evaluators.py) measures.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.cards import Card
from app.engine.evaluate.tables import (
    CARD_KEY,
    CATEGORIES,
    FIRST_CARD_KEY,
    FLUSH_BITS,
    FLUSH_SUIT,
    RANK_BIT,
    RANK_KEY,
    SUIT_BITS,
    SUIT_START,
    TABLES,
)

_K = CARD_KEY
_K0 = FIRST_CARD_KEY
_K_GET = CARD_KEY.__getitem__
_R = RANK_KEY
_R_GET = RANK_KEY.__getitem__
_HIGH7 = TABLES.high7
_HIGH = tuple(TABLES.high)
_RAZZ7 = TABLES.razz[7]
_RAZZ = tuple(TABLES.razz)
_EIGHT7 = TABLES.eight[7]
_EIGHT = tuple(TABLES.eight)
_FLUSH = TABLES.flush
_HIGH_CAT = tuple(cat for cat, _ in TABLES.high_info)

# The literals below are SUIT_BITS (16), FLUSH_BITS (0x8888) and SUIT_START (0x3333).
assert (SUIT_BITS, FLUSH_BITS, SUIT_START) == (16, 0x8888, 0x3333)


def _flush_value(cards: Sequence[Card], key: int) -> int:
    suit = FLUSH_SUIT[key & 0x8888]
    mask = 0
    for c in cards:
        if c & 3 == suit:
            mask |= RANK_BIT[c]
    return _FLUSH[mask]


def high_value(cards: Sequence[Card]) -> int:
    """The best five-card high hand of 5–7 cards: 1..7462, greater is better."""
    if len(cards) == 7:
        k = _K
        a, b, c, d, e, f, g = cards
        s = _K0[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        if s & 0x8888:
            return _flush_value(cards, s)
        return _HIGH7[s >> 16]
    s = sum(map(_K_GET, cards), 0x3333)
    if s & 0x8888:
        return _flush_value(cards, s)
    return _HIGH[len(cards)][s >> 16]


def low_razz_value(cards: Sequence[Card]) -> int:
    """The best ace-to-five low of 5–7 cards: 1..6175, greater is better (6175 = 5-4-3-2-A)."""
    if len(cards) == 7:
        r = _R
        a, b, c, d, e, f, g = cards
        return _RAZZ7[r[a] + r[b] + r[c] + r[d] + r[e] + r[f] + r[g]]
    return _RAZZ[len(cards)][sum(map(_R_GET, cards))]


def low_eight_value(cards: Sequence[Card]) -> int:
    """The best eight-or-better low of 5–7 cards: its razz value, or 0 when none qualifies."""
    if len(cards) == 7:
        r = _R
        a, b, c, d, e, f, g = cards
        return _EIGHT7[r[a] + r[b] + r[c] + r[d] + r[e] + r[f] + r[g]]
    return _EIGHT[len(cards)][sum(map(_R_GET, cards))]


def high_category(value: int) -> str:
    """The category of a high value, e.g. ``"full house"`` (see `CATEGORIES`)."""
    return CATEGORIES[_HIGH_CAT[value]]
