"""Hand evaluation: high hands, ace-to-five lows (razz, eight-or-better), who acts first.

Table-driven and pure Python. Every card has one precomputed key, ``rank part << 16 | suit
part``; a hand's key is the sum of its cards' keys. The rank part (sums of up to seven rank
keys are unique, and count the cards) indexes one dict per evaluator: high without flushes,
razz and eight-or-better (lows never depend on suits). The suit part counts each suit in a
nibble, started at 3, so bit 3 of a nibble is set exactly when that suit has five cards or
more: only then does the hot path look at suits (a 13-bit rank mask of the flush suit).

Values: greater is better, and equal values are equal hands (suits never matter). High values
are dense, 1..7462 (7462 is a royal flush); razz values are 1..6175 (6175 is 5-4-3-2-A); an
eight-or-better value is the razz value of a qualifying low (6120..6175) or 0 for none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from app.engine.cards import DECK, Card

__all__ = [
    "CATEGORIES",
    "EIGHT_OR_BETTER_MIN",
    "HighHand",
    "LowHand",
    "bring_in_key",
    "high",
    "high_category",
    "high_value",
    "low_eight",
    "low_eight_value",
    "low_razz",
    "low_razz_value",
    "showing_key",
]

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
"""High-hand categories, worst first; `high_category` gives one of these."""

_HIGH_CARD, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL_HOUSE, _QUADS, _SF = range(9)

# Rank keys (index 0 is the deuce): sums of up to 7 of them, each used at most 4 times, are
# unique (K. Shackleford's "SpecialK" keys). Times 8 plus 1, a sum also says how many cards.
_RANK_KEYS: Final = (
    0,
    1,
    5,
    22,
    98,
    453,
    2031,
    8698,
    22854,
    83661,
    262349,
    636345,
    1479181,
)
_SUIT_SHIFT: Final = 16
_SUIT_START: Final = 0x3333  # each suit nibble starts at 3: 3 + 5 cards sets bit 3
_FLUSH_BITS: Final = 0x8888
_FLUSH_SUIT: Final = {0x8: 0, 0x80: 1, 0x800: 2, 0x8000: 3}

_RANK_KEY_OF_CARD: Final = tuple(_RANK_KEYS[c >> 2] * 8 + 1 for c in range(52))
_KEY_OF_CARD: Final = tuple(
    (_RANK_KEY_OF_CARD[c] << _SUIT_SHIFT) | (1 << 4 * (c & 3)) for c in range(52)
)
_RANK_BIT_OF_CARD: Final = tuple(1 << (c >> 2) for c in range(52))

_STRAIGHTS: Final = (
    *((0b11111 << (top - 4), top) for top in range(12, 3, -1)),
    ((1 << 12) | 0b1111, 3),
)
"""(rank mask, top rank index) of each straight, best first; the wheel's top is the five."""


def _pack(cat: int, ranks: Sequence[int]) -> int:
    """An ordering score: category, then up to five ranks (4 bits each) in order."""
    score = cat
    for r in ranks:
        score = (score << 4) | r
    return score


def _grouped(counts: Sequence[int], order: Sequence[int]) -> tuple[list[int], list[int]]:
    """Count pattern and ranks (with multiplicity), by count then rank, both descending.

    ``order`` lists rank indexes worst (or lowest) first, so ties on count go to the later.
    """
    groups = sorted(((counts[r], i) for i, r in enumerate(order) if counts[r]), reverse=True)
    pattern = [n for n, _ in groups]
    ranks = [i for n, i in groups for _ in range(n)]
    return pattern, ranks


_PATTERN_CAT: Final = {
    (1, 1, 1, 1, 1): _HIGH_CARD,
    (2, 1, 1, 1): _PAIR,
    (2, 2, 1): _TWO_PAIR,
    (3, 1, 1): _TRIPS,
    (3, 2): _FULL_HOUSE,
    (4, 1): _QUADS,
}
_LOW_PATTERN_CAT: Final = {  # razz: ace-to-five, only pairing counts
    (1, 1, 1, 1, 1): 0,
    (2, 1, 1, 1): 1,
    (2, 2, 1): 2,
    (3, 1, 1): 3,
    (3, 2): 4,
    (4, 1): 5,
}
_HIGH_ORDER: Final = tuple(range(13))  # deuce..ace
_LOW_ORDER: Final = (12, *range(12))  # ace, deuce..king: position + 1 is the low rank


def _straight_top(mask: int) -> int:
    for straight, top in _STRAIGHTS:
        if mask & straight == straight:
            return top
    return -1


def _straight_ranks(top: int) -> list[int]:
    return [top, top - 1, top - 2, top - 3, 12 if top == 3 else top - 4]


def _high_score5(counts: Sequence[int]) -> int:
    """Score of five cards' ranks (no flush), greater is better; ranks are indexes 0..12."""
    pattern, ranks = _grouped(counts, _HIGH_ORDER)
    cat = _PATTERN_CAT[tuple(pattern)]
    if cat == _HIGH_CARD:
        top = _straight_top(sum(1 << r for r in ranks))
        if top >= 0:
            return _pack(_STRAIGHT, _straight_ranks(top))
    return _pack(cat, ranks)


def _flush_score(mask: int) -> int:
    """Score of the best flush or straight flush in a suit holding the ranks in ``mask``."""
    top = _straight_top(mask)
    if top >= 0:
        return _pack(_SF, _straight_ranks(top))
    return _pack(_FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _razz_score5(counts: Sequence[int]) -> int:
    """Score of five cards' ranks, ace-to-five: SMALLER is better; ranks are low ranks 1..13."""
    pattern, ranks = _grouped(counts, _LOW_ORDER)
    return _pack(_LOW_PATTERN_CAT[tuple(pattern)], [i + 1 for i in ranks])


def _unpack(score: int) -> tuple[int, tuple[int, ...]]:
    ranks = tuple((score >> (4 * i)) & 15 for i in range(4, -1, -1))
    return score >> 20, ranks


_Info = list[tuple[int, tuple[int, ...]]]  # by value: category and ranks in reading order


def _build() -> tuple[dict[int, int], dict[int, int], dict[int, int], list[int], _Info, _Info]:
    """All tables: high (no flush), razz and eight by rank sum; flush by mask; value infos."""
    # Every multiset of five ranks (at most four of a kind), as packed counts by rank sum.
    level: dict[int, int] = {}
    counts = [0] * 13

    def fill(start: int, left: int, key: int, packed: int) -> None:
        if left == 0:
            level[key] = packed
            return
        for r in range(start, 13):
            if counts[r] < 4:
                counts[r] += 1
                fill(r, left - 1, key + _RANK_KEYS[r] * 8 + 1, packed + (1 << 3 * r))
                counts[r] -= 1

    fill(0, 5, 0, 0)

    high_scores: dict[int, int] = {}
    razz_scores: dict[int, int] = {}
    for key, packed in level.items():
        c = [(packed >> 3 * r) & 7 for r in range(13)]
        high_scores[key] = _high_score5(c)
        razz_scores[key] = _razz_score5(c)
    flush_scores = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() >= 5:
            flush_scores[mask] = _flush_score(mask)

    high_order = sorted(set(high_scores.values()) | {s for s in flush_scores if s})
    high_value_of = {s: v for v, s in enumerate(high_order, 1)}
    razz_order = sorted(set(razz_scores.values()), reverse=True)
    razz_value_of = {s: v for v, s in enumerate(razz_order, 1)}

    high = {k: high_value_of[s] for k, s in high_scores.items()}
    razz = {k: razz_value_of[s] for k, s in razz_scores.items()}
    flush = [high_value_of[s] if s else 0 for s in flush_scores]

    # Six and seven cards: the best of the hands one card smaller.
    for _size in (6, 7):
        bigger: dict[int, int] = {}
        for key, packed in level.items():
            h = high[key]
            z = razz[key]
            for r in range(13):
                if (packed >> 3 * r) & 7 < 4:
                    k = key + _RANK_KEYS[r] * 8 + 1
                    p = packed + (1 << 3 * r)
                    if bigger.setdefault(k, p) != p:
                        raise AssertionError("rank keys collide")
                    if high.get(k, 0) < h:
                        high[k] = h
                    if razz.get(k, 0) < z:
                        razz[k] = z
        level = bigger

    eight = {k: v if v >= EIGHT_OR_BETTER_MIN else 0 for k, v in razz.items()}
    high_info = [(0, ())] + [_unpack(s) for s in high_order]
    razz_info = [(0, ())] + [_unpack(s) for s in razz_order]
    return high, razz, eight, flush, high_info, razz_info


RAZZ_VALUES: Final = 6175
"""Number of distinct razz values (five-card ace-to-five lows, pairs included)."""
EIGHT_OR_BETTER_MIN: Final = RAZZ_VALUES - 55
"""The worst qualifying eight-or-better low (8-7-6-5-4); the 56 lows from here up qualify."""

_HIGH, _RAZZ, _EIGHT, _FLUSH_TABLE, _HIGH_INFO, _RAZZ_INFO = _build()
_HIGH_CAT: Final = tuple(cat for cat, _ in _HIGH_INFO)


# ---------------------------------------------------------------------------------------
# The hot path: plain ints.


def _flush_value(cards: Sequence[Card], s: int) -> int:
    suit = _FLUSH_SUIT[s & _FLUSH_BITS]
    mask = 0
    for c in cards:
        if c & 3 == suit:
            mask |= _RANK_BIT_OF_CARD[c]
    return _FLUSH_TABLE[mask]


def high_value(cards: Sequence[Card]) -> int:
    """The best high hand of 5–7 distinct cards as an int, greater is better (1..7462)."""
    s = sum(map(_KEY_OF_CARD.__getitem__, cards), _SUIT_START)
    if s & _FLUSH_BITS:
        return _flush_value(cards, s)
    return _HIGH[s >> _SUIT_SHIFT]


def low_razz_value(cards: Sequence[Card]) -> int:
    """The best ace-to-five low of 5–7 distinct cards as an int, greater is better."""
    return _RAZZ[sum(map(_RANK_KEY_OF_CARD.__getitem__, cards))]


def low_eight_value(cards: Sequence[Card]) -> int:
    """The best eight-or-better low of 5–7 distinct cards as an int; 0 when none qualifies."""
    return _EIGHT[sum(map(_RANK_KEY_OF_CARD.__getitem__, cards))]


def high_category(value: int) -> str:
    """The category of a high value, e.g. ``"full house"``."""
    return CATEGORIES[_HIGH_CAT[value]]


# ---------------------------------------------------------------------------------------
# Value objects: the value is computed at once, the five cards used only when asked for.

_RANK_NAMES: Final = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_RANK_PLURALS: Final = tuple("sixes" if n == "six" else n + "s" for n in _RANK_NAMES)
_LOW_SYMBOLS: Final = "A23456789TJQK"  # by low rank - 1


def _checked(cards: Sequence[Card]) -> tuple[Card, ...]:
    hand = tuple(cards)
    if not 5 <= len(hand) <= 7 or len(set(hand)) != len(hand):
        raise ValueError(f"need 5 to 7 distinct cards, got {[str(c) for c in hand]}")
    for c in hand:
        if not 0 <= c < 52:
            raise ValueError(f"not a card: {c!r}")
    return hand


def _pick(pool: Sequence[Card], rank_indexes: Sequence[int]) -> tuple[Card, ...]:
    """One card of each rank index (repeats take further cards), highest suit first."""
    left = sorted((DECK[c] for c in pool), reverse=True)
    used: list[Card] = []
    for r in rank_indexes:
        for c in left:
            if c >> 2 == r:
                used.append(c)
                left.remove(c)
                break
    return tuple(used)


class _Hand:
    """Shared machinery: immutable, ordered by value within one class, hashable."""

    __slots__ = ("_cards", "_source", "value")
    value: int
    _source: tuple[Card, ...]
    _cards: tuple[Card, ...] | None

    def __init__(self, value: int, source: tuple[Card, ...]) -> None:
        _set = object.__setattr__
        _set(self, "value", value)
        _set(self, "_source", source)
        _set(self, "_cards", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value < other.value
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value <= other.value
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value > other.value
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value >= other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.value))

    @property
    def cards(self) -> tuple[Card, ...]:
        """The five cards used, in the order the hand reads (e.g. the trips first)."""
        if self._cards is None:
            object.__setattr__(self, "_cards", self._choose())
        assert self._cards is not None
        return self._cards

    def _choose(self) -> tuple[Card, ...]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        shown = "".join(str(c) for c in self._source)
        return f"{type(self).__name__}({self.value}, {shown!r}: {self.describe()})"


class HighHand(_Hand):
    """The best five-card high hand of some cards; greater is better."""

    __slots__ = ()

    @property
    def category(self) -> str:
        """``"straight flush"``, ``"four of a kind"``, … ``"high card"``."""
        return CATEGORIES[_HIGH_CAT[self.value]]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five ranks used (2..14), in reading order; a wheel reads 5-4-3-2-A."""
        return tuple(r + 2 for r in _HIGH_INFO[self.value][1])

    def _choose(self) -> tuple[Card, ...]:
        cat, ranks = _HIGH_INFO[self.value]
        pool: Sequence[Card] = self._source
        if cat in (_FLUSH, _SF):
            suits = [c & 3 for c in pool]
            suit = max(range(4), key=suits.count)
            pool = [c for c in pool if c & 3 == suit]
        return _pick(pool, ranks)

    def describe(self) -> str:
        """E.g. ``"Full house, nines full of fours"`` or ``"Straight, five high"``."""
        cat, r = _HIGH_INFO[self.value]
        name, plural = _RANK_NAMES, _RANK_PLURALS
        if cat == _SF:
            return "Royal flush" if r[0] == 12 else f"Straight flush, {name[r[0]]} high"
        if cat == _QUADS:
            return f"Four of a kind, {plural[r[0]]}"
        if cat == _FULL_HOUSE:
            return f"Full house, {plural[r[0]]} full of {plural[r[3]]}"
        if cat == _FLUSH:
            return f"Flush, {name[r[0]]} high"
        if cat == _STRAIGHT:
            return f"Straight, {name[r[0]]} high"
        if cat == _TRIPS:
            return f"Three of a kind, {plural[r[0]]}"
        if cat == _TWO_PAIR:
            return f"Two pair, {plural[r[0]]} and {plural[r[2]]}"
        if cat == _PAIR:
            return f"One pair, {plural[r[0]]}"
        return f"High card, {name[r[0]]}"


class LowHand(_Hand):
    """The best five-card ace-to-five low of some cards; greater is better (lower low)."""

    __slots__ = ()

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five low ranks used (ace = 1 .. king = 13), pairs first, then highest down."""
        return _RAZZ_INFO[self.value][1]

    @property
    def qualifies(self) -> bool:
        """Whether this is an eight-or-better low (five unpaired cards, eight or lower)."""
        return self.value >= EIGHT_OR_BETTER_MIN

    def _choose(self) -> tuple[Card, ...]:
        return _pick(self._source, [(lr - 2) % 13 for lr in self.ranks])

    def describe(self) -> str:
        """``"8-6-4-2-A low"``; a paired low says so: ``"Pair of sevens, K-8-2 (low)"``."""
        cat, r = _RAZZ_INFO[self.value]
        text = "-".join(_LOW_SYMBOLS[lr - 1] for lr in r)
        plural = [_RANK_PLURALS[(lr - 2) % 13] for lr in r]
        if cat == 0:
            return f"{text} low"
        if cat == 1:
            kickers = "-".join(_LOW_SYMBOLS[lr - 1] for lr in r[2:])
            return f"Pair of {plural[0]}, {kickers} (low)"
        if cat == 2:
            return f"Two pair, {plural[0]} and {plural[2]}, {_LOW_SYMBOLS[r[4] - 1]} (low)"
        if cat == 3:
            kickers = "-".join(_LOW_SYMBOLS[lr - 1] for lr in r[3:])
            return f"Three of a kind, {plural[0]}, {kickers} (low)"
        if cat == 4:
            return f"Full house, {plural[0]} full of {plural[3]} (low)"
        return f"Four of a kind, {plural[0]}, {_LOW_SYMBOLS[r[4] - 1]} (low)"


def high(cards: Sequence[Card]) -> HighHand:
    """The best five-card high hand of 5–7 cards (RULES.md R20)."""
    hand = _checked(cards)
    return HighHand(high_value(hand), hand)


def low_razz(cards: Sequence[Card]) -> LowHand:
    """The best ace-to-five low of 5–7 cards: aces low, straights and flushes ignored (R20)."""
    hand = _checked(cards)
    return LowHand(low_razz_value(hand), hand)


def low_eight(cards: Sequence[Card]) -> LowHand | None:
    """The best eight-or-better low of 5–7 cards, or ``None`` when none qualifies (R20)."""
    hand = _checked(cards)
    value = low_eight_value(hand)
    return LowHand(value, hand) if value else None


# ---------------------------------------------------------------------------------------
# Who acts first (RULES.md R10, R12).


def bring_in_key(card: Card, *, razz: bool) -> int:
    """The seat whose door card has the LOWEST key brings in (R10).

    Stud and stud8: lowest rank, aces high, clubs lowest on ties (the card index itself).
    Razz: highest rank, aces low (a king is highest), spades brings in on ties.
    """
    if not razz:
        return int(card)
    low_rank = (card >> 2) + 2 if card < 48 else 1
    return (13 - low_rank) * 4 + (3 - (card & 3))


def showing_key(up_cards: Sequence[Card], *, razz: bool) -> int:
    """Key of 1–4 face-up cards: the GREATEST key acts first (R12); exact ties are equal.

    Stud and stud8: the best poker hand of the up cards counting only pairs, two pair, trips
    and quads, then high cards (no straights or flushes, suits ignored). Razz: the lowest
    ace-to-five hand (aces low, pairs bad), so a greater key is a lower showing hand.
    """
    if not 1 <= len(up_cards) <= 4:
        raise ValueError("a showing hand has 1 to 4 up cards")
    counts = [0] * 13
    for c in up_cards:
        counts[c >> 2] += 1
    if razz:
        pattern, ranks = _grouped(counts, _LOW_ORDER)
        ranks = [i + 1 for i in ranks]
    else:
        pattern, ranks = _grouped(counts, _HIGH_ORDER)
        ranks = [i + 2 for i in ranks]
    cat = pattern[0] if pattern[0] > 2 else pattern.count(2)  # 4 quads, 3 trips, pairs
    score = _pack(cat, ranks + [0] * (4 - len(ranks)))
    return (1 << 20) - score if razz else score
