"""Exhaustive checks of the evaluator: every five-card hand, and every seven-card hand counted
through its rank multiset (suits are counted, not enumerated)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import pytest

from app.engine.cards import DECK, Card
from app.engine.evaluate import (
    CATEGORIES,
    EIGHT_OR_BETTER_MIN,
    HIGH_VALUES,
    RAZZ_VALUES,
    high,
    high_category,
    high_value,
    low_eight_value,
    low_razz,
    low_razz_value,
)

pytestmark = pytest.mark.slow

FIVE_CARD_COUNTS = {
    "straight flush": 40,
    "four of a kind": 624,
    "full house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three of a kind": 54_912,
    "two pair": 123_552,
    "one pair": 1_098_240,
    "high card": 1_302_540,
}
SEVEN_CARD_COUNTS = {  # the published counts of all C(52, 7) hands
    "straight flush": 41_584,
    "four of a kind": 224_848,
    "full house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three of a kind": 6_461_620,
    "two pair": 31_433_400,
    "one pair": 58_627_800,
    "high card": 23_294_460,
}
SEVEN_CARD_EIGHT_OR_BETTER = 24_530_944


def test_r20_every_five_card_hand_high() -> None:
    values = Counter(map(high_value, combinations(DECK, 5)))
    assert sum(values.values()) == 2_598_960
    assert len(values) == HIGH_VALUES == 7462
    assert min(values) == 1 and max(values) == 7462
    by_category: Counter[str] = Counter()
    for value, n in values.items():
        by_category[high_category(value)] += n
    assert by_category == FIVE_CARD_COUNTS
    # Categories are contiguous value ranges, in CATEGORIES order.
    cats = [CATEGORIES.index(high_category(v)) for v in range(1, 7463)]
    assert cats == sorted(cats)


def test_r20_every_five_card_hand_low() -> None:
    razz = Counter(map(low_razz_value, combinations(DECK, 5)))
    assert len(razz) == RAZZ_VALUES == 6175
    unpaired = sum(n for v, n in razz.items() if v > RAZZ_VALUES - 1287)
    assert unpaired == 1287 * 4**5  # every five distinct ranks, whatever the suits
    eight = Counter(map(low_eight_value, combinations(DECK, 5)))
    assert eight[0] == 2_598_960 - 56 * 4**5
    assert sorted(eight)[1:] == list(range(EIGHT_OR_BETTER_MIN, RAZZ_VALUES + 1))


def _rank_multisets(size: int) -> list[tuple[int, ...]]:
    """Rank indexes (0 = deuce), sorted, at most four alike."""
    return [
        m for m in combinations_with_replacement(range(13), size) if max(Counter(m).values()) <= 4
    ]


def _no_flush_hand(ranks: tuple[int, ...]) -> tuple[Card, ...]:
    """Cards of these sorted ranks, suits dealt round-robin: at most two of a suit."""
    return tuple(DECK[r * 4 + i % 4] for i, r in enumerate(ranks))


def _flush_assignments(counts: Counter[int]) -> int:
    """How many suit assignments of these rank counts hold five or more of one suit."""
    total = 0
    distinct = list(counts)
    for k in range(5, len(distinct) + 1):
        for suited in combinations(distinct, k):
            total += prod(
                comb(3, counts[r] - 1) if r in suited else comb(3, counts[r]) for r in distinct
            )
    return 4 * total  # the flush suit; with seven cards only one suit can have five


def test_r20_every_seven_card_hand_counted() -> None:
    """All 133,784,560 seven-card hands, by category and eight-or-better low."""
    by_category: Counter[str] = Counter()
    eight_or_better = 0
    for ranks in _rank_multisets(7):
        counts = Counter(ranks)
        hands = prod(comb(4, n) for n in counts.values())
        no_flush = hands - _flush_assignments(counts)
        cards = _no_flush_hand(ranks)
        by_category[high_category(high_value(cards))] += no_flush
        if low_eight_value(cards):
            eight_or_better += hands
    # Hands with a flush: the suited ranks decide (seven cards can't also hold a full house).
    for k in (5, 6, 7):
        for suited in combinations(range(13), k):
            fillers = [c for c in DECK if c & 3 != 3][: 7 - k]  # any other-suit cards
            cards = (*(DECK[r * 4 + 3] for r in suited), *fillers)
            by_category[high_category(high_value(cards))] += 4 * comb(39, 7 - k)
    assert sum(by_category.values()) == comb(52, 7)
    assert by_category == SEVEN_CARD_COUNTS
    assert eight_or_better == SEVEN_CARD_EIGHT_OR_BETTER


def test_r20_six_and_seven_cards_are_the_best_five() -> None:
    """Every 6- and 7-rank multiset: the value is the best of its five-card subsets."""
    for size in (6, 7):
        for ranks in _rank_multisets(size)[::7]:
            cards = _no_flush_hand(ranks)
            fives = list(combinations(cards, 5))
            assert high_value(cards) == max(map(high_value, fives))
            assert low_razz_value(cards) == max(map(low_razz_value, fives))
            assert low_eight_value(cards) == max(map(low_eight_value, fives))


def test_objects_agree_with_values_on_all_rank_multisets() -> None:
    for ranks in _rank_multisets(7)[::11]:
        cards = _no_flush_hand(ranks)
        h, z = high(cards), low_razz(cards)
        assert h.value == high_value(cards) and z.value == low_razz_value(cards)
        assert high(h.cards).value == h.value  # the five cards make the hand
        assert low_razz(z.cards).value == z.value
