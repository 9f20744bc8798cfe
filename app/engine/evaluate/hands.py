"""Hand objects: ordered, hashable, immutable; the value is computed at once, the five cards
used only when asked for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.engine.cards import DECK, Card
from app.engine.evaluate.tables import (
    CATEGORIES,
    EIGHT_OR_BETTER_MIN,
    FLUSH,
    FULL_HOUSE,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TABLES,
    TRIPS,
    TWO_PAIR,
)
from app.engine.evaluate.values import high_value, low_eight_value, low_razz_value

_HIGH_INFO = TABLES.high_info
_RAZZ_INFO = TABLES.razz_info
_VALID = frozenset(DECK)

_NAMES: tuple[str, ...] = ("two", "three", "four", "five", "six", "seven", "eight", "nine")
_NAMES += ("ten", "jack", "queen", "king", "ace")
_PLURALS = tuple("sixes" if n == "six" else n + "s" for n in _NAMES)
_LOW_SYMBOLS = "A23456789TJQK"  # by low rank - 1


def _checked(cards: Sequence[Card]) -> tuple[Card, ...]:
    hand = tuple(cards)
    if not 5 <= len(hand) <= 7 or len(set(hand)) != len(hand) or not _VALID.issuperset(hand):
        raise ValueError(f"need 5 to 7 distinct cards, got {hand!r}")
    return hand


def _pick(pool: Sequence[Card], rank_indexes: Sequence[int]) -> tuple[Card, ...]:
    """A card of each rank index (a repeated rank takes another card), highest suit first."""
    left = sorted((DECK[c] for c in pool), reverse=True)
    used: list[Card] = []
    for r in rank_indexes:
        card = next(c for c in left if c >> 2 == r)
        left.remove(card)
        used.append(card)
    return tuple(used)


class _Hand:
    """Ordered by value within one class (greater is better), hashable, immutable."""

    __slots__ = ("_cards", "_source", "value")
    value: int
    _source: tuple[Card, ...]
    _cards: tuple[Card, ...]

    def __init__(self, value: int, source: tuple[Card, ...]) -> None:
        _set_value(self, value)
        _set_source(self, source)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[type[_Hand], tuple[int, tuple[Card, ...]]]:
        return (type(self), (self.value, self._source))

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
        """The five cards used, in reading order (e.g. the trips, then the pair)."""
        try:
            return self._cards
        except AttributeError:
            _set_cards(self, self._choose())
            return self._cards

    def _choose(self) -> tuple[Card, ...]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        shown = "".join(map(str, self._source))
        return f"<{type(self).__name__} {self.value} of {shown}: {self.describe()}>"


def _slot_setter(name: str) -> Callable[[_Hand, Any], None]:
    setter: Callable[[_Hand, Any], None] = _Hand.__dict__[name].__set__
    return setter  # writes the slot, bypassing the immutable __setattr__


_set_value = _slot_setter("value")
_set_source = _slot_setter("_source")
_set_cards = _slot_setter("_cards")


class HighHand(_Hand):
    """The best five-card high hand of some cards (R20)."""

    __slots__ = ()

    @property
    def category(self) -> str:
        """``"straight flush"``, ``"four of a kind"``, … ``"high card"``."""
        return CATEGORIES[_HIGH_INFO[self.value][0]]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five ranks (2..14) in reading order; a wheel reads 5-4-3-2-A (5, 4, 3, 2, 14)."""
        return tuple(r + 2 for r in _HIGH_INFO[self.value][1])

    def _choose(self) -> tuple[Card, ...]:
        cat, ranks = _HIGH_INFO[self.value]
        pool: Sequence[Card] = self._source
        if cat in (FLUSH, STRAIGHT_FLUSH):
            suits = [c & 3 for c in pool]
            suit = max(range(4), key=suits.count)
            pool = [c for c in pool if c & 3 == suit]
        return _pick(pool, ranks)

    def describe(self) -> str:
        """E.g. ``"Full house, nines full of fours"``, ``"Straight, five high"``."""
        cat, r = _HIGH_INFO[self.value]
        if cat == STRAIGHT_FLUSH:
            return "Royal flush" if r[0] == 12 else f"Straight flush, {_NAMES[r[0]]} high"
        if cat == QUADS:
            return f"Four of a kind, {_PLURALS[r[0]]}"
        if cat == FULL_HOUSE:
            return f"Full house, {_PLURALS[r[0]]} full of {_PLURALS[r[3]]}"
        if cat == FLUSH:
            return f"Flush, {_NAMES[r[0]]} high"
        if cat == STRAIGHT:
            return f"Straight, {_NAMES[r[0]]} high"
        if cat == TRIPS:
            return f"Three of a kind, {_PLURALS[r[0]]}"
        if cat == TWO_PAIR:
            return f"Two pair, {_PLURALS[r[0]]} and {_PLURALS[r[2]]}"
        if cat == PAIR:
            return f"One pair, {_PLURALS[r[0]]}"
        return f"High card, {_NAMES[r[0]]}"


class LowHand(_Hand):
    """The best five-card ace-to-five low of some cards; a lower low is greater (R20)."""

    __slots__ = ()

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five low ranks (ace 1 .. king 13), pairs first, then from the highest down."""
        return _RAZZ_INFO[self.value][1]

    @property
    def qualifies(self) -> bool:
        """Whether this low is eight-or-better: five unpaired cards, eight or lower."""
        return self.value >= EIGHT_OR_BETTER_MIN

    def _choose(self) -> tuple[Card, ...]:
        return _pick(self._source, [(lr - 2) % 13 for lr in self.ranks])

    def describe(self) -> str:
        """``"8-6-4-2-A low"``; a paired low says so: ``"Pair of sevens, K-8-2 (low)"``."""
        cat, r = _RAZZ_INFO[self.value]
        sym = [_LOW_SYMBOLS[lr - 1] for lr in r]
        plural = [_PLURALS[(lr - 2) % 13] for lr in r]
        if cat == 0:
            return "-".join(sym) + " low"
        if cat == 1:
            return f"Pair of {plural[0]}, {'-'.join(sym[2:])} (low)"
        if cat == 2:
            return f"Two pair, {plural[0]} and {plural[2]}, {sym[4]} (low)"
        if cat == 3:
            return f"Three of a kind, {plural[0]}, {'-'.join(sym[3:])} (low)"
        if cat == 4:
            return f"Full house, {plural[0]} full of {plural[3]} (low)"
        return f"Four of a kind, {plural[0]}, {sym[4]} (low)"


def high(cards: Sequence[Card]) -> HighHand:
    """The best five-card high hand of 5–7 cards (R20)."""
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
