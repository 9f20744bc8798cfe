"""The deal and who acts first: R1, R2, R5–R12 (docs/rules.md), with scripted decks."""

from __future__ import annotations

from hashlib import sha256

import pytest

from app.engine import (
    AntePosted,
    BringInDue,
    BurnsReshuffled,
    CardDealt,
    CommunityCardDealt,
    Hand,
    SeatSpec,
    Variant,
)
from app.engine.cards import DECK, Card, parse_cards
from app.engine.scripted import dealing_order, play, scripted_deck, scripted_hand
from tests.engine.support import passive, rules


def dealt(hand: Hand, street: int) -> list[tuple[int, Card | None, bool]]:
    return [
        (e.seat, e.card, e.face_up)
        for e in hand.events
        if isinstance(e, CardDealt) and e.street == street
    ]


def test_r1_a_hand_needs_two_to_eight_players() -> None:
    deck = list(DECK)
    with pytest.raises(ValueError, match="2 to 8"):
        Hand.start(rules(), [SeatSpec(0, 100)], 0, deck)
    with pytest.raises(ValueError):
        Hand.start(rules(), [SeatSpec(s % 8, 100) for s in range(9)], 0, deck)
    with pytest.raises(ValueError, match="52 cards"):
        Hand.start(rules(), [SeatSpec(0, 100), SeatSpec(1, 100)], 0, deck[:51])


def test_r2_fixed_limit_stakes_are_integers_and_big_is_twice_small() -> None:
    with pytest.raises(ValueError, match="twice"):
        rules(big_bet=30)
    with pytest.raises(ValueError, match="int"):
        rules(ante=0.5)
    with pytest.raises(ValueError, match="bring-in"):
        rules(bring_in=25)
    assert rules().big_bet == 40


def test_r5_r7_third_street_goes_round_one_card_at_a_time_from_the_buttons_left() -> None:
    order = dealing_order([0, 3, 5], button=3)
    assert order == [5, 0, 3]
    deck = list(DECK)[::-1]
    hand = Hand.start(rules(), [SeatSpec(s, 500) for s in (0, 3, 5)], 3, deck)
    assert dealt(hand, 3) == [
        (5, deck[0], False),
        (0, deck[1], False),
        (3, deck[2], False),
        (5, deck[3], False),
        (0, deck[4], False),
        (3, deck[5], False),
        (5, deck[6], True),
        (0, deck[7], True),
        (3, deck[8], True),
    ]


def test_r6_everyone_antes_before_any_card_and_a_short_stack_is_all_in() -> None:
    hand = scripted_hand(rules(), {0: 500, 1: 3, 2: 500}, {}, button=2)
    kinds = [type(e).__name__ for e in hand.events]
    assert kinds.index("CardDealt") > max(i for i, k in enumerate(kinds) if k == "AntePosted")
    antes = [(e.seat, e.amount, e.all_in) for e in hand.events if isinstance(e, AntePosted)]
    assert antes == [(0, 5, False), (1, 3, True), (2, 5, False)]
    assert hand.stacks == {0: 495, 1: 0, 2: 495}
    assert hand.seat_state(1).all_in


def test_r8_a_card_is_burned_before_each_of_streets_four_to_seven() -> None:
    hands = {0: "2c2d3c 4c 5c 6c 7c", 1: "2h2s3d 4d 5d 6d 7d"}
    hand = scripted_hand(rules(), {0: 1000, 1: 1000}, hands, button=1, burns="AsAhAdAc")
    passive(hand)
    seen = {e.card for e in hand.events if isinstance(e, CardDealt)}
    assert not seen & set(parse_cards("AsAhAdAc"))
    assert [c for _, c, _ in dealt(hand, 4)] == list(parse_cards("4c4d"))
    assert [up for _, _, up in dealt(hand, 7)] == [False, False]
    assert hand.is_over


def test_r9_eight_players_to_the_river_get_one_community_card() -> None:
    stacks = dict.fromkeys(range(8), 1000)
    doors = dict(
        zip(
            range(8),
            ["??" * 2 + c for c in ["Kc", "Kd", "Kh", "Ks", "Qc", "Qd", "Qh", "2c"]],
            strict=True,
        )
    )
    hand = scripted_hand(rules(), stacks, doors, button=7, burns="AsAhAdAc", reshuffle_seed=b"s")
    passive(hand)
    assert not dealt(hand, 7)
    reshuffles = [e for e in hand.events if isinstance(e, BurnsReshuffled)]
    assert [e.count for e in reshuffles] == [4]  # the stub is empty after the burn
    community = [e for e in hand.events if isinstance(e, CommunityCardDealt)]
    expected = sorted(parse_cards("AsAhAdAc"), key=lambda c: sha256(b"s" + bytes((c,))).digest())
    assert [(e.card, e.street) for e in community] == [(expected[0], 7)]
    assert hand.community == expected[0]
    assert hand.is_over and hand.result is not None and hand.result.showdown


def test_r9_seven_players_to_the_river_are_dealt_from_the_reshuffled_burns_and_stub() -> None:
    deck = scripted_deck(list(range(7)), {6: "????2c"}, burns="AsAhAdAc")
    hand = Hand.start(rules(), [SeatSpec(s, 1000) for s in range(7)], 6, deck)
    passive(hand)
    (reshuffled,) = [e for e in hand.events if isinstance(e, BurnsReshuffled)]
    assert reshuffled.count == 10  # 4 burns + a stub of 52 - 21 - 3 * 8 - 1 = 6
    gathered = [*parse_cards("AsAhAdAc"), *deck[46:]]
    expected = sorted(gathered, key=lambda c: sha256(bytes((c,))).digest())[:7]
    assert [c for _, c, _ in dealt(hand, 7)] == expected
    assert [up for _, _, up in dealt(hand, 7)] == [False] * 7
    assert not any(isinstance(e, CommunityCardDealt) for e in hand.events)


def test_r9_folded_cards_are_never_reused() -> None:
    stacks = dict.fromkeys(range(8), 1000)
    doors = {0: "????2c", 1: "????Ks"}
    hand = scripted_hand(rules(), stacks, doors, button=7, last_street={1: 3})
    folded_cards = set(hand.seat_state(1).down) | set(hand.seat_state(1).up)
    play(hand, "0: bring_in, 1: fold")
    passive(hand)
    assert [e.count for e in hand.events if isinstance(e, BurnsReshuffled)] == [7]
    assert len(dealt(hand, 7)) == 7
    assert not {c for _, c, _ in dealt(hand, 7)} & folded_cards


@pytest.mark.parametrize(
    ("variant", "doors", "bringer"),
    [
        (Variant.STUD, "5s 2d 2c 9h", 2),  # lowest rank; clubs lowest on a tie
        (Variant.STUD8, "5s 2d 2c 9h", 2),
        (Variant.STUD, "Ac 3d 4s 9h", 1),  # aces are high
        (Variant.RAZZ, "Kc 5d Ks 9h", 2),  # highest rank; spades brings in on a tie
        (Variant.RAZZ, "Ac 2c 2d 2s", 3),  # aces are low
    ],
)
def test_r10_lowest_door_card_brings_in_razz_highest(
    variant: Variant, doors: str, bringer: int
) -> None:
    hands = {s: "????" + door for s, door in enumerate(doors.split())}
    hand = scripted_hand(rules(variant), dict.fromkeys(range(4), 500), hands, button=3)
    assert [e.seat for e in hand.events if isinstance(e, BringInDue)] == [bringer]
    assert hand.to_act == bringer
    legal = hand.legal_actions()
    assert legal.bring_in == 10 and legal.complete == 20


def test_r11_bring_in_passes_left_when_all_in_from_the_ante() -> None:
    hands = {0: "????Ks", 1: "????2c", 2: "????Qd", 3: "????3h"}
    stacks = {0: 500, 1: 5, 2: 4, 3: 500}  # 1 and 2 are all-in from the ante
    hand = scripted_hand(rules(), stacks, hands, button=0)
    assert hand.to_act == 3  # left of 1 is 2 (all-in too), then 3, whatever its door card
    assert hand.legal_actions().bring_in == 10


def test_r11_no_betting_when_fewer_than_two_players_can_bet() -> None:
    hand = scripted_hand(rules(), {0: 500, 1: 5, 2: 5}, {1: "????2c"}, button=2)
    assert not any(isinstance(e, BringInDue) for e in hand.events)
    assert hand.is_over and hand.result is not None and hand.result.showdown
    assert sum(hand.stacks.values()) == 510


def test_r12_best_showing_hand_acts_first_pairs_beat_high_cards() -> None:
    hands = {0: "????2c As", 1: "????5d 5c", 2: "????Kh Qh"}
    hand = scripted_hand(rules(), dict.fromkeys(range(3), 500), hands, button=2)
    passive(hand, until_street=4)
    assert hand.street == 4 and hand.to_act == 1


def test_r12_exact_ties_go_to_the_player_nearest_the_buttons_left() -> None:
    hands = {0: "????2c Ks", 1: "????Kd 2h", 2: "????9h 8h", 3: "????Tc 3c"}
    hand = scripted_hand(rules(), dict.fromkeys(range(4), 500), hands, button=0)
    passive(hand, until_street=4)
    assert hand.to_act == 1  # 1 and 0 both show K-2; 1 is first after the button
    hand2 = scripted_hand(rules(), dict.fromkeys(range(4), 500), hands, button=3)
    passive(hand2, until_street=4)
    assert hand2.to_act == 0


def test_r12_razz_lowest_showing_hand_acts_first() -> None:
    hands = {0: "????Kc 2s", 1: "????4d Ah", 2: "????5h 5c"}
    hand = scripted_hand(rules(Variant.RAZZ), dict.fromkeys(range(3), 500), hands, button=2)
    passive(hand, until_street=4)
    assert hand.to_act == 1  # 4-A is lowest; the pair of fives is worst


def test_r12_an_all_in_best_hand_passes_first_action_clockwise() -> None:
    hands = {0: "????2c 3d", 1: "????Ad Ah", 2: "????Kh 9s", 3: "????7h 6s"}
    stacks = {0: 500, 1: 25, 2: 500, 3: 500}
    hand = scripted_hand(rules(), stacks, hands, button=3)
    play(hand, "0: bring_in, 1: call, 2: complete, 3: call, 0: call, 1: call")
    assert hand.seat_state(1).all_in and hand.street == 4
    assert hand.to_act == 2  # seat 1 shows aces but is all-in


def test_r12_all_in_best_board_passes_to_the_next_seat_on_its_left_that_can_act() -> None:
    hands = {0: "????2c 3d 4h", 1: "????Ad Ah 5c", 2: "????Kh 9s 8c", 3: "????7h 6s Tc"}
    stacks = {0: 500, 1: 25, 2: 500, 3: 500}  # seat 1 is all-in at the completion
    hand = scripted_hand(rules(), stacks, hands, button=3)
    play(hand, "0: bring_in, 1: complete, 2: fold, 3: call, 0: call")
    assert hand.seat_state(1).all_in and hand.street == 4
    assert hand.to_act == 3  # aces are all-in; seat 2, next on their left, folded
    passive(hand, until_street=5)
    assert hand.street == 5 and hand.to_act == 3  # and so on every later street


def test_r12_the_community_card_is_nobodys_up_card_and_changes_no_order() -> None:
    # eight players reach the river; the burns gathered for R9 give the community card Kh,
    # which would make seat 1's open kings trips and beat seat 2's open aces if it counted
    hands = {
        0: "2c2d QcJcTc9c",
        1: "4h5h KdKc6h8h",
        2: "4d5d AdAc6d8d",
        3: "2h3c QdJdTd9d",
        4: "3d3h QhJhTh9h",
        5: "4c4s QsJsTs9s",
        6: "5c5s 7c6c8cAs",
        7: "7h7s 7d6s8sAh",
    }
    stacks = dict.fromkeys(range(8), 1000)
    hand = scripted_hand(rules(), stacks, hands, button=7, burns="KsKh2s3s", reshuffle_seed=b"s")
    passive(hand, until_street=7)
    assert hand.street == 7 and hand.community == Card.parse("Kh")
    assert hand.to_act == 2
