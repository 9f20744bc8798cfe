"""The evaluator's lookup tables, built once at import (about 0.3 s).

Every card has a precomputed key; a hand's key is the sum of its cards' keys. Rank keys are
K. Shackleford's "SpecialK" keys: sums of seven of them (at most four alike) are unique, and
so are sums of five or of six. A card's full key is ``rank key << 16 | 1 << 4 * suit``: the low
16 bits count each suit in a nibble. Started at 3 (`SUIT_START`), a nibble reaches bit 3
exactly when its suit holds five cards or more, so ``key & FLUSH_BITS`` spots any flush.

Values, greater is better, equal values equal hands: high 1..7462 (a royal flush is 7462);
razz 1..6175 (5-4-3-2-A is 6175); eight-or-better is the razz value of a qualifying low
(`EIGHT_OR_BETTER_MIN`..6175) or 0. Seven-card high values live in a flat array indexed by the
rank sum (16 MB, one read per hand); everything else is a dict by rank sum.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

from app.engine.cards import DECK, Card

CATEGORIES: Final = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
"""High-hand categories, worst first; a category's index here is its code in `HIGH_INFO`."""

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
LOW_CATEGORIES: Final = (
    "no pair",
    "one pair",
    "two pair",
    "three of a kind",
    "full house",
    "quads",
)
"""Ace-to-five categories, best first (straights and flushes don't exist in a low)."""

HIGH_VALUES: Final = 7462
RAZZ_VALUES: Final = 6175
EIGHT_OR_BETTER_MIN: Final = RAZZ_VALUES - 55
"""The worst qualifying eight-or-better value (8-7-6-5-4); the 56 values from here up qualify."""

RANK_KEYS: Final = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""By rank index (0 is the deuce, 12 the ace)."""
SUIT_BITS: Final = 16
SUIT_START: Final = 0x3333
FLUSH_BITS: Final = 0x8888
FLUSH_SUIT: Final = {0x8: 0, 0x80: 1, 0x800: 2, 0x8000: 3}
"""``key & FLUSH_BITS`` of a hand of 5–7 cards with a flush -> the flush suit."""

# Dicts keyed by the Card objects themselves: a lookup is an identity hit (Card is an int
# subclass, which tuples and lists index more slowly than plain ints).
RANK_KEY: Final[dict[Card, int]] = {c: RANK_KEYS[c >> 2] for c in DECK}
CARD_KEY: Final[dict[Card, int]] = {
    c: RANK_KEYS[c >> 2] << SUIT_BITS | 1 << 4 * (c & 3) for c in DECK
}
FIRST_CARD_KEY: Final[dict[Card, int]] = {c: k + SUIT_START for c, k in CARD_KEY.items()}
"""`CARD_KEY` with the suit start folded in, for the first card of a fixed-length sum."""
RANK_BIT: Final[dict[Card, int]] = {c: 1 << (c >> 2) for c in DECK}

Info = tuple[int, tuple[int, ...]]
"""A value's category code and its five ranks in reading order (e.g. trips first)."""

_MULTISETS: Final = {5: 6175, 6: 18395, 7: 49205}
"""How many multisets of 5, 6, 7 ranks (at most four alike) there are: distinct sums each."""
_STEPS: Final = tuple((RANK_KEYS[r], 1 << 3 * r, 4 << 3 * r) for r in range(13))
"""Per rank index: its key, one more in 3-bit packed counts, and the bit set at four."""

_STRAIGHTS: Final = (
    *((0b11111 << (top - 4), top) for top in range(12, 3, -1)),
    ((1 << 12) | 0b1111, 3),
)
"""(rank mask, top rank index) of each straight, best first; the wheel's top is the five."""

_HIGH_PATTERNS: Final = {
    (1, 1, 1, 1, 1): HIGH_CARD,
    (2, 1, 1, 1): PAIR,
    (2, 2, 1): TWO_PAIR,
    (3, 1, 1): TRIPS,
    (3, 2): FULL_HOUSE,
    (4, 1): QUADS,
}
_LOW_PATTERNS: Final = {  # ace-to-five: only the pairing counts, fewer pairs are better
    (1, 1, 1, 1, 1): 0,
    (2, 1, 1, 1): 1,
    (2, 2, 1): 2,
    (3, 1, 1): 3,
    (3, 2): 4,
    (4, 1): 5,
}
HIGH_ORDER: Final = tuple(range(13))
"""Rank indexes worst first with aces high; a position here is the rank index."""
LOW_ORDER: Final = (12, *range(12))
"""Rank indexes best first with aces low; position + 1 is the low rank (ace 1 .. king 13)."""


def pack(cat: int, ranks: Sequence[int]) -> int:
    """An ordering score: the category, then the ranks, 4 bits each."""
    score = cat
    for r in ranks:
        score = (score << 4) | r
    return score


def grouped(counts: Sequence[int], order: Sequence[int]) -> tuple[tuple[int, ...], list[int]]:
    """Count pattern and positions in ``order`` (with multiplicity), by count then position,
    both descending: (3, 2) and [9, 9, 9, 4, 4] for nines full of fours with `HIGH_ORDER`."""
    groups = sorted(((counts[r], i) for i, r in enumerate(order) if counts[r]), reverse=True)
    return tuple(n for n, _ in groups), [i for n, i in groups for _ in range(n)]


def _straight_top(mask: int) -> int:
    for straight, top in _STRAIGHTS:
        if mask & straight == straight:
            return top
    return -1


def _straight_ranks(top: int) -> list[int]:
    return [top, top - 1, top - 2, top - 3, 12 if top == 3 else top - 4]


def _high_score(counts: Sequence[int]) -> int:
    """Five cards of these rank counts without a flush; greater is better."""
    pattern, ranks = grouped(counts, HIGH_ORDER)
    cat = _HIGH_PATTERNS[pattern]
    if cat == HIGH_CARD:
        top = _straight_top(sum(1 << r for r in ranks))
        if top >= 0:
            return pack(STRAIGHT, _straight_ranks(top))
    return pack(cat, ranks)


def _flush_score(mask: int) -> int:
    """The best flush or straight flush in a suit holding the ranks of ``mask`` (5+ bits)."""
    top = _straight_top(mask)
    if top >= 0:
        return pack(STRAIGHT_FLUSH, _straight_ranks(top))
    return pack(FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _razz_score(counts: Sequence[int]) -> int:
    """Five cards' ace-to-five score: SMALLER is better; ranks are low ranks 1..13."""
    pattern, positions = grouped(counts, LOW_ORDER)
    return pack(_LOW_PATTERNS[pattern], [i + 1 for i in positions])


def _unpack(score: int) -> Info:
    return score >> 20, tuple((score >> (4 * i)) & 15 for i in range(4, -1, -1))


class Tables:
    """Every table, by hand size where it matters (index 5, 6, 7; other sizes are empty)."""

    def __init__(self) -> None:
        high_scores, razz_scores, level = self._five_card_scores()
        flush_scores = [_flush_score(m) if m.bit_count() >= 5 else 0 for m in range(1 << 13)]

        high_order = sorted(set(high_scores.values()).union(filter(None, flush_scores)))
        razz_order = sorted(set(razz_scores.values()), reverse=True)
        if len(high_order) != HIGH_VALUES or len(razz_order) != RAZZ_VALUES:
            raise AssertionError("wrong number of hand classes")
        high_value = {s: v for v, s in enumerate(high_order, 1)}
        razz_value = {s: v for v, s in enumerate(razz_order, 1)}

        self.high_info: list[Info] = [(0, ()), *map(_unpack, high_order)]
        self.razz_info: list[Info] = [(0, ()), *map(_unpack, razz_order)]
        self.flush: list[int] = [high_value[s] if s else 0 for s in flush_scores]

        high = {k: high_value[s] for k, s in high_scores.items()}
        razz = {k: razz_value[s] for k, s in razz_scores.items()}
        self.high: list[dict[int, int]] = [{}] * 5 + [high]
        self.razz: list[dict[int, int]] = [{}] * 5 + [razz]
        for size in (6, 7):
            level, high, razz = self._one_more_card(level, high, razz)
            if len(level) != _MULTISETS[size]:
                raise AssertionError("rank keys collide")
            self.high.append(high)
            self.razz.append(razz)
        self.eight = [
            {k: v if v >= EIGHT_OR_BETTER_MIN else 0 for k, v in d.items()} for d in self.razz
        ]

        self.high7 = array("H", [0]) * (max(high) + 1)
        for k, v in high.items():
            self.high7[k] = v
        self.high[7] = {}  # seven cards read `high7`; the dict would only hold memory

    @staticmethod
    def _five_card_scores() -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
        """Every five-rank multiset (at most four alike) by rank sum: scores and counts.

        Counts are packed 3 bits per rank index."""
        high: dict[int, int] = {}
        razz: dict[int, int] = {}
        level: dict[int, int] = {}
        counts = [0] * 13

        def fill(start: int, left: int, key: int, packed: int) -> None:
            if left == 0:
                level[key] = packed
                high[key] = _high_score(counts)
                razz[key] = _razz_score(counts)
                return
            for r in range(start, 13):
                if counts[r] < 4:
                    counts[r] += 1
                    fill(r, left - 1, key + RANK_KEYS[r], packed + (1 << 3 * r))
                    counts[r] -= 1

        fill(0, 5, 0, 0)
        if len(level) != _MULTISETS[5]:
            raise AssertionError("rank keys collide")
        return high, razz, level

    @staticmethod
    def _one_more_card(
        level: dict[int, int], high: dict[int, int], razz: dict[int, int]
    ) -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
        """Hands one card bigger: each is worth the best of its hands one card smaller."""
        bigger: dict[int, int] = {}
        bigger_high: dict[int, int] = {}
        bigger_razz: dict[int, int] = {}
        high_get = bigger_high.get
        razz_get = bigger_razz.get
        for key, packed in level.items():
            h = high[key]
            z = razz[key]
            for rank_key, one, four in _STEPS:
                if not packed & four:
                    k = key + rank_key
                    bigger[k] = packed + one
                    if high_get(k, 0) < h:
                        bigger_high[k] = h
                    if razz_get(k, 0) < z:
                        bigger_razz[k] = z
        return bigger, bigger_high, bigger_razz


TABLES: Final = Tables()
