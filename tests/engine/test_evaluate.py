"""Hand evaluation: high hands, razz and eight-or-better lows, bring-in and showing hands."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable, Sequence

import pytest

from app.engine.cards import DECK, Card, parse_cards
from app.engine.evaluate import (
    CATEGORIES,
    HighHand,
    LowHand,
    bring_in_key,
    high,
    high_category,
    high_value,
    low_eight,
    low_eight_value,
    low_razz,
    low_razz_value,
    showing_key,
)

# Seed 002's example lows, worst first (#1 "will almost never win", #10 "is the nuts").
SEED_002_LOWS = (
    "8c7d6h5s4c",
    "8c7d6h5s3c",
    "8c6d4h2sAc",
    "8c4d3h2sAc",
    "7c6d5h4s2c",
    "7c6d5h2sAc",
    "7c5d4h3s2c",
    "6c5d4h3s2c",
    "6c4d3h2sAc",
    "5c4d3h2sAc",
)


def h(text: str) -> HighHand:
    return high(parse_cards(text))


def razz(text: str) -> LowHand:
    return low_razz(parse_cards(text))


def eight(text: str) -> LowHand | None:
    return low_eight(parse_cards(text))


def cards(text: str) -> set[str]:
    return set(text[i : i + 2] for i in range(0, len(text), 2))


# ---------------------------------------------------------------------------------------
# High hands (R20)


def test_r20_categories_in_order() -> None:
    ladder = [
        "Kc9d7h4s2c",  # high card
        "2c2d7h4s9c",  # one pair
        "2c2d3h3s9c",  # two pair
        "2c2d2h4s9c",  # trips
        "As2d3h4s5c",  # wheel
        "2c3c4c5c7c",  # flush
        "2c2d2h3s3c",  # full house
        "2c2d2h2s3c",  # quads
        "As2s3s4s5s",  # steel wheel
        "AsKsQsJsTs",  # royal
    ]
    hands = [h(t) for t in ladder]
    assert [x.category for x in hands] == [
        "high card",
        "one pair",
        "two pair",
        "three of a kind",
        "straight",
        "flush",
        "full house",
        "four of a kind",
        "straight flush",
        "straight flush",
    ]
    assert hands == sorted(hands)
    assert len(set(hands)) == len(hands)
    assert all(high_category(x.value) == x.category for x in hands)
    assert set(CATEGORIES) == {x.category for x in hands}


def test_r20_high_best_five_of_seven_and_cards() -> None:
    hand = h("9s9h9c4d4c2s3h")
    assert hand.category == "full house"
    assert hand.describe() == "Full house, nines full of fours"
    assert [str(c) for c in hand.cards] == ["9s", "9h", "9c", "4d", "4c"]
    assert all(isinstance(c, Card) for c in hand.cards)

    flush = h("Ah2h7h9hKh3hQs")
    assert flush.category == "flush"
    assert cards("".join(map(str, flush.cards))) == {"Ah", "Kh", "9h", "7h", "3h"}
    assert flush.describe() == "Flush, ace high"

    assert h("As2d3h4c5s9d9h").describe() == "Straight, five high"
    assert h("6s2d3h4c5sAdAh").describe() == "Straight, six high"
    assert h("AsKsQsJsTs9s8s").describe() == "Royal flush"
    assert h("9s8s7s6s5sAsKs").describe() == "Straight flush, nine high"
    assert h("KdKcAh7s7c2d3s").describe() == "Two pair, kings and sevens"
    assert h("KdKcAh7s7c2d2s").describe() == "Two pair, kings and sevens"
    assert h("AdKc9h7s4c3d2s").describe() == "High card, ace"
    assert h("JdJcAh7s4c").describe() == "One pair, jacks"
    assert h("JdJcJhJs4c").describe() == "Four of a kind, jacks"
    assert h("JdJcJh7s4c").describe() == "Three of a kind, jacks"


def test_r21_suits_never_break_a_high_tie() -> None:
    a = h("AsKdQh9c7s2d3c")
    b = h("AcKhQs9d7h2c3d")
    assert a == b
    assert hash(a) == hash(b)
    assert a.value == b.value
    assert h("AsAd5c4h3s") > h("AhAc5d4s2c")  # kicker decides
    assert h("AsAdKcKh3s") < h("AhAcKdKs4c")
    assert h("6s5d4c3h2s") > h("As2d3c4h5s")  # the wheel is the lowest straight


def test_high_hand_is_immutable_and_ordered_only_with_its_kind() -> None:
    a = h("AsKdQh9c7s")
    with pytest.raises(AttributeError):
        a.value = 3
    with pytest.raises(TypeError):
        _ = a < razz("AsKdQh9c7s")
    assert a != razz("AsKdQh9c7s")


def test_hands_copy_pickle_and_hash() -> None:
    a = h("9s9h9c4d4c2s3h")
    z = razz("8c6d4h2sAc")
    for hand in (a, z):
        for twin in (copy.deepcopy(hand), pickle.loads(pickle.dumps(hand))):
            assert twin == hand and type(twin) is type(hand)
            assert twin.describe() == hand.describe() and twin.cards == hand.cards
    assert len({a, h("9d9h9c4s4c"), z, razz("8s6s4s2sAs")}) == 2
    assert h("As2s3s4s5s").describe() == "Straight flush, five high"
    assert "Full house, nines full of fours" in repr(a)


def test_values_match_objects_and_inputs_are_checked() -> None:
    rng = random.Random(2)
    for _ in range(2000):
        hand = tuple(rng.sample(DECK, rng.choice((5, 6, 7))))
        assert high(hand).value == high_value(hand)
        assert low_razz(hand).value == low_razz_value(hand)
        e = low_eight(hand)
        assert (e.value if e else 0) == low_eight_value(hand)
    for bad in ("AsKd", "AsKdQhJcTs9d8h7c", "AsAsQhJcTs"):
        with pytest.raises(ValueError):
            h(bad)
        with pytest.raises(ValueError):
            razz(bad)


# ---------------------------------------------------------------------------------------
# Lows (R20)


@pytest.mark.parametrize("evaluate", [low_razz, low_eight], ids=["razz", "eight"])
def test_r20_seed_002_lows_rank_in_order(
    evaluate: Callable[[Sequence[Card]], LowHand | None],
) -> None:
    lows = [evaluate(parse_cards(t)) for t in SEED_002_LOWS]
    values = [x.value for x in lows if x is not None]
    assert len(values) == 10
    assert values == sorted(values)
    assert len(set(values)) == 10
    assert [x.describe() for x in lows if x is not None][::9] == [
        "8-7-6-5-4 low",
        "5-4-3-2-A low",
    ]


def test_r20_wheel_is_the_best_low() -> None:
    wheel = razz("5c4d3h2sAc")
    best8 = eight("5c4d3h2sAc")
    assert best8 is not None
    assert wheel.describe() == best8.describe() == "5-4-3-2-A low"
    rng = random.Random(3)
    for _ in range(3000):
        hand = tuple(rng.sample(DECK, 7))
        assert low_razz_value(hand) <= wheel.value
        assert low_eight_value(hand) <= best8.value
    # A straight or a flush does not spoil a low.
    assert razz("5s4s3s2sAs") == wheel


def test_r20_eight_or_better_qualifier() -> None:
    assert eight("9c4d3h2sAc") is None  # a nine
    assert eight("8c8d3h2sAc") is None  # a pair
    assert eight("8c8d3h2sAcKdQh") is None
    assert eight("KcQdJhTs9c") is None
    low = eight("8c8d3h2sAc7d")
    assert low is not None
    assert low.describe() == "8-7-3-2-A low"
    assert low.qualifies
    assert eight("8c7d6h5s4c") is not None


def test_r20_razz_pairs_are_worse_than_any_unpaired_hand() -> None:
    assert razz("KcQdJhTs9c") > razz("AcAd2h3s4c")
    assert razz("AcAd2h3s4c") > razz("2c2d3h4s5c")  # pair of aces is the lowest pair
    assert razz("2c2dKhQsJc") > razz("3c3d4h5s6c")  # the pair decides first
    assert razz("2c2d3h3sKc") < razz("AcAdKhQsJc")  # two pair is worse than one pair
    assert razz("KcKdKhQsQc") > razz("AcAdAhAs2c")  # a full house beats quads in razz
    assert razz("AcAdKhQsJc").describe() == "Pair of aces, K-Q-J (low)"
    assert razz("7c7d2hKs8c").describe() == "Pair of sevens, K-8-2 (low)"


def test_r20_lows_choose_the_best_five_of_seven() -> None:
    low = razz("KcKdAh2s3c4dQh")
    assert low.describe() == "Q-4-3-2-A low"
    assert {str(c) for c in low.cards} == {"Qh", "Ah", "2s", "3c", "4d"}
    assert razz("AcAdAh2s2c3d3h").describe() == "Two pair, twos and aces, 3 (low)"
    assert razz("AcAdAhAs2c2d2h").describe() == "Full house, aces full of twos (low)"
    e = eight("9c8d7h6s5c4d3h")
    assert e is not None and e.describe() == "7-6-5-4-3 low"
    assert {str(c) for c in e.cards} == {"7h", "6s", "5c", "4d", "3h"}
    assert eight("Ac2c3c4c5c6c7c") == eight("5d4d3d2dAd")


def test_r20_eight_values_are_razz_values_of_qualifying_lows() -> None:
    """A hand qualifies (R20) exactly when it holds five different ranks from ace to eight,
    counted here from the cards' names; then its eight-or-better value is its razz value (never
    0), else 0. Half the hands are drawn from the low cards so that both cases come often."""
    rng = random.Random(4)
    low_cards = [c for c in DECK if str(c)[0] in "A2345678"]
    seen = {True: 0, False: 0}
    for n in range(3000):
        hand = tuple(rng.sample(low_cards if n % 2 else DECK, 7))
        qualifies = len({str(c)[0] for c in hand} & set("A2345678")) >= 5
        seen[qualifies] += 1
        e = low_eight_value(hand)
        if qualifies:
            assert e == low_razz_value(hand) != 0, hand
        else:
            assert e == 0, hand
    assert min(seen.values()) > 500, seen


# ---------------------------------------------------------------------------------------
# Who acts first (R10, R12)


def bring_in(door_cards: str, *, razz: bool) -> str:
    return str(min(parse_cards(door_cards), key=lambda c: bring_in_key(c, razz=razz)))


def test_r10_stud_lowest_door_card_brings_in_clubs_first() -> None:
    assert bring_in("2d2cKs", razz=False) == "2c"
    assert bring_in("2h2d", razz=False) == "2d"
    assert bring_in("2s2h", razz=False) == "2h"
    assert bring_in("As3c", razz=False) == "3c"  # aces are high
    assert bring_in("3cAc2s", razz=False) == "2s"
    keys = [bring_in_key(c, razz=False) for c in DECK]
    assert len(set(keys)) == 52


def test_r10_razz_highest_door_card_brings_in_spades_first() -> None:
    assert bring_in("KcQs", razz=True) == "Kc"
    assert bring_in("KhKs", razz=True) == "Ks"
    assert bring_in("KcKd", razz=True) == "Kd"
    assert bring_in("As2c", razz=True) == "2c"  # aces are low: never brings in vs a deuce
    assert bring_in("AsAh", razz=True) == "As"
    keys = [bring_in_key(c, razz=True) for c in DECK]
    assert len(set(keys)) == 52


def show(text: str, *, razz: bool = False) -> int:
    return showing_key(parse_cards(text), razz=razz)


def test_r12_stud_showing_hands() -> None:
    assert show("2c2d") > show("AsKs")  # pair beats ace-high
    assert show("3c3d2h2s") > show("AcAdKhQs")  # two pair beats a pair
    assert show("4c4d4h2s") > show("AcAdKhKs")  # trips beat two pair
    assert show("2c2d2h2s") > show("AcAdAhKs")  # quads beat trips
    assert show("AcKd") > show("AsQd")  # high cards in order
    assert show("AcKd9s") > show("AsKh8c")
    assert show("AcKd") == show("AhKs")  # exact tie: suits don't matter
    assert show("9c9dAs") > show("9h9sKd")  # pair, then kicker
    # Four-card straights and flushes do not count.
    assert show("5s6s7s8s") < show("2c2d3h4s")
    assert show("As2s9sTs") < show("AcKdQhJs")
    assert show("Ah") > show("Kh")


def test_r12_razz_showing_hands() -> None:
    assert show("7c5d", razz=True) > show("8c2d", razz=True)
    assert show("Ac2d3h", razz=True) > show("As2c4d", razz=True)  # A-2-3 beats A-2-4
    assert show("KcQdJhTs", razz=True) > show("AcAd2h3s", razz=True)  # unpaired beats paired
    assert show("AcAd2h3s", razz=True) > show("2c2d3h4s", razz=True)
    assert show("AcAd2h2s", razz=True) < show("Kc3dKh2s", razz=True)  # the lower two pair
    assert show("2c2d2h3s", razz=True) < show("AcAdKhKs", razz=True)  # trips worse
    assert show("Ac", razz=True) > show("2c", razz=True)
    assert show("Ac2d", razz=True) == show("As2h", razz=True)
    assert show("5s4s3s2s", razz=True) > show("6c4d3h2s", razz=True)  # straights don't count


def test_showing_key_needs_one_to_four_cards() -> None:
    with pytest.raises(ValueError):
        showing_key((), razz=False)
    with pytest.raises(ValueError):
        showing_key(DECK[:5], razz=True)


def test_all_four_card_showing_hands_order_like_five_card_hands() -> None:
    """Adding the same low kicker to two showing hands never changes their order."""
    rng = random.Random(5)
    for _ in range(2000):
        drawn = rng.sample(DECK[4:], 8)  # no deuces: a deuce is added as the last kicker
        a, b = tuple(drawn[:4]), tuple(drawn[4:])
        s = (showing_key(a, razz=False) > showing_key(b, razz=False)) - (
            showing_key(a, razz=False) < showing_key(b, razz=False)
        )
        ha, hb = high_value((*a, DECK[0])), high_value((*b, DECK[1]))
        if "straight" in high_category(ha) or "flush" in high_category(ha):
            continue
        if "straight" in high_category(hb) or "flush" in high_category(hb):
            continue
        assert s == (ha > hb) - (ha < hb)
