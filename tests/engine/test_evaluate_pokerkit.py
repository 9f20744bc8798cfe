"""The evaluator agrees with pokerkit (a dev dependency), the reference implementation.

pokerkit's hand classes evaluate ~3,000 seven-card hands a second, too slow for 100,000
hands in a test; so the bulk comparison reads pokerkit's own lookup tables (the ones its hand
classes use) and takes the best of the 21 five-card subsets itself, exactly like
``CombinationHand.from_game``; a smaller sample checks that shortcut against ``from_game``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement, pairwise
from math import prod
from typing import Any

import pytest
from pokerkit import (
    EightOrBetterLowHand,
    RegularLowHand,
    StandardHighHand,
)
from pokerkit.lookups import (
    EightOrBetterLookup,
    Lookup,
    RegularLookup,
    StandardLookup,
)
from pokerkit.utilities import Rank as PkRank

from app.engine.cards import DECK, Card, format_cards
from app.engine.evaluate import (
    high,
    high_value,
    low_eight,
    low_eight_value,
    low_razz,
    low_razz_value,
)

HANDS = 100_000
CHUNKS = 4
SEED = 20_020

_PRIMES: dict[Any, int] = Lookup._Lookup__multipliers  # type: ignore[attr-defined]
_PRIME = [_PRIMES[PkRank(str(c)[0])] for c in DECK]

SubsetKeys = list[tuple[int, bool]]


def _subset_keys(cards: Sequence[Card]) -> SubsetKeys:
    """pokerkit's lookup key (rank-prime product, all one suit) of every five-card subset."""
    products = map(prod, combinations([_PRIME[c] for c in cards], 5))
    if max(Counter(c & 3 for c in cards).values()) < 5:
        return [(p, False) for p in products]
    suited = (len(set(s)) == 1 for s in combinations([c & 3 for c in cards], 5))
    return list(zip(products, suited, strict=True))


class _Reference:
    """The best of the five-card subsets in one pokerkit lookup: (index, label) or None."""

    def __init__(self, lookup: Lookup, low: bool) -> None:
        entries: dict[tuple[int, bool], Any] = lookup._Lookup__entries  # type: ignore[attr-defined]
        self.entries = {k: (e.index, e.label.value.lower()) for k, e in entries.items()}
        self.low = low

    def best(self, keys: SubsetKeys) -> tuple[int, str] | None:
        found = [e for e in map(self.entries.get, keys) if e is not None]
        if not found:
            return None
        return min(found) if self.low else max(found)


HIGH_LOOKUP = StandardLookup()
RAZZ_LOOKUP = RegularLookup()
EIGHT_LOOKUP = EightOrBetterLookup()
HIGH_REF = _Reference(HIGH_LOOKUP, low=False)
RAZZ_REF = _Reference(RAZZ_LOOKUP, low=True)
EIGHT_REF = _Reference(EIGHT_LOOKUP, low=True)


def _hands(chunk: int) -> list[tuple[Card, ...]]:
    """Chunk ``chunk`` of the seeded hands, plus the first hand of the next chunk."""
    rng = random.Random(SEED)
    every = [tuple(rng.sample(DECK, 7)) for _ in range(HANDS)]
    size = HANDS // CHUNKS
    return every[chunk * size : (chunk + 1) * size + 1]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _assert_same_order(ours: list[int], theirs: list[int], what: str) -> None:
    """Same order for every consecutive pair, and one strictly increasing map overall."""
    for i, ((a, b), (c, d)) in enumerate(zip(pairwise(ours), pairwise(theirs), strict=True)):
        assert _sign(b - a) == _sign(d - c), f"{what}: pair {i}: {a}, {b} vs pokerkit {c}, {d}"
    mapping = sorted(set(zip(ours, theirs, strict=True)))
    assert all(x[0] < y[0] and x[1] < y[1] for x, y in pairwise(mapping)), what


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_r20_agrees_with_pokerkit_on_random_seven_card_hands(chunk: int) -> None:
    hands = _hands(chunk)
    keys = [_subset_keys(h) for h in hands]
    highs = [HIGH_REF.best(k) for k in keys]
    assert all(x is not None for x in highs)
    ours = list(map(high_value, hands))
    _assert_same_order(ours, [x[0] for x in highs if x], "high")
    assert [high(h).category for h in hands] == [x[1] for x in highs if x]

    razz = [RAZZ_REF.best(k) for k in keys]
    _assert_same_order(
        list(map(low_razz_value, hands)), [-x[0] for x in razz if x], "razz"
    )  # pokerkit: a smaller low index is better

    eights = [EIGHT_REF.best(k) for k in keys]
    ours_eight = list(map(low_eight_value, hands))
    assert [v > 0 for v in ours_eight] == [x is not None for x in eights]
    _assert_same_order(
        [v for v in ours_eight if v], [-x[0] for x in eights if x], "eight-or-better"
    )
    assert 0.15 < sum(v > 0 for v in ours_eight) / len(hands) < 0.22  # ~18.3%


def _from_game(cls: Any, cards: Sequence[Card]) -> Any:
    try:
        return cls.from_game(format_cards(cards))
    except ValueError:
        return None


@pytest.mark.slow
def test_r20_agrees_with_pokerkit_hand_classes() -> None:
    """The public pokerkit API on a smaller sample, 5 to 7 cards; this also backs the
    lookup shortcut above."""
    rng = random.Random(SEED + 1)
    hands = [tuple(rng.sample(DECK, rng.choice((5, 6, 7)))) for _ in range(1_500)]
    kinds: list[tuple[Any, Callable[[Sequence[Card]], Any]]] = [
        (StandardHighHand, high),
        (RegularLowHand, low_razz),
        (EightOrBetterLowHand, low_eight),
    ]
    for cls, ours in kinds:
        theirs = [_from_game(cls, h) for h in hands]
        mine = [ours(h) for h in hands]
        assert [t is None for t in theirs] == [m is None for m in mine]
        pairs = [(m, t) for m, t in zip(mine, theirs, strict=True) if m is not None]
        for (m1, t1), (m2, t2) in pairwise(pairs):
            assert (m1 < m2, m1 == m2) == (t1 < t2, t1 == t2), (m1, m2, t1, t2)
        if cls is StandardHighHand:
            assert all(m.category == t.entry.label.value.lower() for m, t in pairs)
    seven = [h for h in hands if len(h) == 7][:300]
    assert [HIGH_REF.best(_subset_keys(h)) for h in seven] == [
        (t.entry.index, t.entry.label.value.lower())
        for t in (_from_game(StandardHighHand, h) for h in seven)
    ]


def test_r20_every_hand_class_in_pokerkits_order() -> None:
    """Every five-card class (7,462 high, 6,175 razz, 56 eight-or-better) against pokerkit's
    lookup, one hand each."""
    high_pairs = []
    razz_pairs = []
    eight_pairs = []
    for ranks in combinations_with_replacement(range(13), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        plain = tuple(DECK[r * 4 + i % 4] for i, r in enumerate(ranks))  # never a flush
        text = format_cards(plain)
        high_pairs.append((high_value(plain), HIGH_LOOKUP.get_entry(text).index))
        razz_pairs.append((low_razz_value(plain), -RAZZ_LOOKUP.get_entry(text).index))
        entry = EIGHT_LOOKUP.get_entry_or_none(text)
        assert (entry is None) == (low_eight_value(plain) == 0)
        if entry is not None:
            eight_pairs.append((low_eight_value(plain), -entry.index))
        if len(set(ranks)) == 5:
            suited = tuple(DECK[r * 4] for r in ranks)
            high_pairs.append(
                (high_value(suited), HIGH_LOOKUP.get_entry(format_cards(suited)).index)
            )
    for pairs, n in ((high_pairs, 7462), (razz_pairs, 6175), (eight_pairs, 56)):
        mapping = sorted(pairs)
        assert len(mapping) == n
        assert all(x[0] < y[0] and x[1] < y[1] for x, y in pairwise(mapping))
