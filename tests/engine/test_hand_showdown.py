"""Showdown and settling: R20–R23 and the rake (R4), with scripted decks and actions.

Hands are written in the order dealt: down, down, door, fourth, fifth, sixth, river.
"""

from __future__ import annotations

import pytest

from app.engine import (
    Action,
    ActionKind,
    Checked,
    Hand,
    HandMucked,
    HandShown,
    IllegalAction,
    Phase,
    PotAwarded,
    RakeTaken,
    ShowDeclined,
    ShowdownStarted,
    StreetStarted,
    Variant,
)
from app.engine.scripted import play, scripted_hand
from tests.engine.support import rules


def table(
    hands: dict[int, str],
    variant: Variant = Variant.STUD,
    stacks: dict[int, int] | None = None,
    **kw: object,
) -> Hand:
    seats = dict.fromkeys(hands, 1000) | (stacks or {})
    return scripted_hand(rules(variant, **kw), seats, hands, button=max(hands))


def to_seventh(hand: Hand) -> None:
    while hand.street < 7:
        legal = hand.legal_actions()
        if legal.bring_in is not None:
            hand.act(legal.seat, Action(ActionKind.BRING_IN))
        else:
            hand.act(legal.seat, Action(ActionKind.CHECK if legal.check else ActionKind.CALL))


def check_down(hand: Hand, *, show: bool = True) -> None:
    """Bring in, check or call to the end; show (or muck) when asked."""
    while hand.to_act is not None:
        legal = hand.legal_actions()
        if legal.show:
            kind = ActionKind.SHOW if show else ActionKind.MUCK
        elif legal.bring_in is not None:
            kind = ActionKind.BRING_IN
        elif legal.check:
            kind = ActionKind.CHECK
        else:
            kind = ActionKind.CALL
        hand.act(legal.seat, Action(kind))


def awards(hand: Hand) -> list[tuple[int, int, int, str]]:
    return [(e.pot, e.seat, e.amount, e.share) for e in hand.events if isinstance(e, PotAwarded)]


def order(hand: Hand) -> tuple[int, ...]:
    (started,) = [e for e in hand.events if isinstance(e, ShowdownStarted)]
    return started.order


# -- R20 ---------------------------------------------------------------------------------


def test_r20_stud_best_five_card_high_hand_wins() -> None:
    hands = {0: "Ks Kd 2c 7h 7d Qs 3c", 1: "As Ah 9c Jc 4d 8s 6h"}  # two pair beats one pair
    hand = table(hands)
    check_down(hand)
    assert awards(hand) == [(0, 0, 30, "whole")]
    shown = {e.seat: e.high for e in hand.events if isinstance(e, HandShown)}
    assert shown[0] == "Two pair, kings and sevens"


STUD8 = {
    0: "Kc Kd Ks 9c 9d Qh Jh",  # kings full, no low
    1: "Ac 2c 9h 4c 5d 8s Td",  # 9-8-5-4-2-A: an 8-5-4-2-A low
    2: "Qs Jd Th 6c 6s 3h 3s",  # two pair, no low
}


def test_r20_stud8_splits_high_and_qualifying_low_odd_chip_to_high() -> None:
    hand = table(STUD8, Variant.STUD8)
    check_down(hand)
    assert awards(hand) == [(0, 0, 23, "high"), (0, 1, 22, "low")]  # 45: the odd chip is high's
    shown = {e.seat: e.low for e in hand.events if isinstance(e, HandShown)}
    assert shown[1] == "8-5-4-2-A low"


def test_r20_stud8_one_player_scoops_high_and_low() -> None:
    hands = {0: "Ac 2c 9h 3c 4c 5c Td", 1: "Kc Kd Ks 9c 9d Qh Jh"}  # a wheel flush: both
    hand = table(hands, Variant.STUD8)
    check_down(hand)
    assert awards(hand) == [(0, 0, 15, "high"), (0, 0, 15, "low")]


def test_r20_stud8_high_and_low_may_use_different_cards() -> None:
    hands = {0: "Ah 2h 3c 4h 8d 9h Kh", 1: "Qs Qd Js Jd Ts 7c 6c"}
    hand = table(hands, Variant.STUD8)
    check_down(hand)
    shown = {e.seat: (e.high, e.low) for e in hand.events if isinstance(e, HandShown)}
    assert shown[0] == ("Flush, ace high", "8-4-3-2-A low")
    assert awards(hand) == [(0, 0, 15, "high"), (0, 0, 15, "low")]


def test_r20_stud8_no_qualifying_low_high_takes_all() -> None:
    hands = {0: STUD8[0], 2: STUD8[2]}
    hand = table(hands, Variant.STUD8)
    check_down(hand)
    assert awards(hand) == [(0, 0, 30, "whole")]


def test_r20_razz_best_low_wins_with_no_qualifier() -> None:
    hands = {0: "Kc Kd Qs Qc Jd Jh 9s", 1: "Ks Kh Qh Qd Js Jc Ts"}  # K-Q-J-9 vs K-Q-J-T, paired
    hand = table(hands, Variant.RAZZ)
    check_down(hand)
    assert awards(hand) == [(0, 0, 30, "whole")]
    shown = {e.seat: (e.high, e.low) for e in hand.events if isinstance(e, HandShown)}
    assert shown[0][0] is None and shown[0][1] is not None and "low" in shown[0][1]


# -- R21 ---------------------------------------------------------------------------------


def test_r21_odd_chip_by_suit_of_the_highest_card() -> None:
    hands = {
        0: "3c 4d As Kd Qc Jh 9s",  # A-K-Q-J-9, ace of spades
        1: "3h 4s Ah Ks Qd Jc 9h",  # A-K-Q-J-9, ace of hearts
        2: "3d 4h 2c 6s 7c 8d Tc",  # ten high
    }
    hand = table(hands)
    check_down(hand)
    assert awards(hand) == [(0, 0, 23, "whole"), (0, 1, 22, "whole")]


def test_r21_odd_chip_of_a_tied_low_half_by_suit() -> None:
    hands = {
        0: "Kc Kd Ks 9c 9d Qh Jh",  # high
        1: "Th Td Ac 2c 4c 5d 8s",  # 8-5-4-2-A, eight of spades
        2: "Ts Qs Ah 2h 4h 5h 8d",  # 8-5-4-2-A, eight of diamonds
    }
    hand = table(hands, Variant.STUD8, ante=2, bring_in=3, small_bet=6, big_bet=12)
    check_down(hand)  # a pot of 15: high 8, low 7 split 4 / 3
    assert awards(hand) == [(0, 0, 8, "high"), (0, 1, 4, "low"), (0, 2, 3, "low")]


def test_r21_three_way_all_in_stud8_side_pot_without_a_low_goes_whole_to_high() -> None:
    hands = {
        0: "2c 3d 4h 5s 7c Kd Qh",  # the only qualifying low (7-5-4-3-2), K high
        1: "Ac Ad Ah Kc Ks 9s 9d",  # aces full: best high, no low
        2: "Jc Jd Js Tc Th 8s 8d",  # jacks full, no low
    }
    hand = table(hands, Variant.STUD8, stacks={0: 25, 1: 65})
    play(hand, "0: bring_in, 1: complete, 2: raise 40, 0: call, 1: raise 60, 2: call")
    assert hand.seat_state(0).all_in and hand.seat_state(1).all_in
    assert hand.phase is Phase.SHOWDOWN  # dealt out: only seat 2 could still bet
    assert order(hand) == (1, 2, 0)  # seat 1 made the last raise
    assert hand.to_act == 2  # cannot win any part of any pot: show or muck
    play(hand, "2: muck")
    assert hand.result is not None
    assert [(p.amount, p.eligible) for p in hand.result.pots] == [(75, (0, 1, 2)), (80, (1, 2))]
    assert awards(hand) == [(0, 1, 38, "high"), (0, 0, 37, "low"), (1, 1, 80, "whole")]
    assert hand.stacks == {0: 37, 1: 118, 2: 935}


def test_r21_ties_split_equally_and_suits_never_break_a_showdown_tie() -> None:
    hands = {0: "2c 3c Ac Kd Qc Jh 9s", 1: "2d 3d Ah Ks Qd Jc 9h"}
    hand = table(hands)
    check_down(hand)
    assert awards(hand) == [(0, 0, 15, "whole"), (0, 1, 15, "whole")]


# -- R22 ---------------------------------------------------------------------------------

THREE = {
    0: "7h 7d 4d 2c 3c Qs 3s",  # two pair, sevens up; shows Q-4-3-2
    1: "As Ah 9c Jc 4s 8s 6h",  # a pair of aces; shows J-9-8-4
    2: "Ks Kd Tc 5h 5d Qh Ts",  # two pair, kings up: best; shows a pair of fives
}


def test_r22_last_bettor_on_the_last_round_shows_first() -> None:
    for setting in ("first_to_act", "lowest_seat"):
        hand = table(THREE, showdown_first_when_checked=setting)
        to_seventh(hand)
        play(hand, "2: check, 0: check, 1: bet 40, 2: call, 0: call")
        assert order(hand) == (1, 2, 0)


def test_r22_checked_last_round_first_to_act_shows_first() -> None:
    hand = table(THREE)
    check_down(hand)
    assert seventh_street_first(hand) == 2  # a pair of fives showing
    assert order(hand) == (2, 0, 1)


def test_r22_checked_last_round_lowest_seat_setting() -> None:
    hand = table(THREE, showdown_first_when_checked="lowest_seat")
    check_down(hand)
    assert order(hand) == (0, 1, 2)


def seventh_street_first(hand: Hand) -> int:
    events = hand.events
    start = next(i for i, e in enumerate(events) if e == StreetStarted(7))
    return next(e.seat for e in events[start:] if isinstance(e, Checked))


# -- R23 ---------------------------------------------------------------------------------


def test_r23_first_shows_winners_are_shown_a_loser_may_muck() -> None:
    hand = table(THREE, showdown_first_when_checked="lowest_seat")
    check_down(hand, show=False)
    shown = [e.seat for e in hand.events if isinstance(e, HandShown)]
    mucked = [e.seat for e in hand.events if isinstance(e, HandMucked)]
    # 0 shows first (two pair, sevens up); 1 (aces) cannot beat it: mucks; 2 beats it: shown
    assert shown == [0, 2] and mucked == [1]
    assert awards(hand) == [(0, 2, 45, "whole")]


def test_r23_a_loser_may_choose_to_show() -> None:
    hand = table(THREE, showdown_first_when_checked="lowest_seat")
    check_down(hand, show=True)
    assert [e.seat for e in hand.events if isinstance(e, HandShown)] == [0, 1, 2]


def test_r23_uncalled_winner_may_show_or_not() -> None:
    for choice, event in (("show", HandShown), ("muck", ShowDeclined)):
        hand = table(THREE)
        first = hand.to_act
        play(hand, f"{first}: bring_in")
        while hand.phase is Phase.BETTING:
            legal = hand.legal_actions()
            kind = "complete" if legal.complete and legal.seat == 2 else "fold"
            play(hand, f"{legal.seat}: {kind}")
        assert hand.phase is Phase.UNCONTESTED and hand.to_act == 2
        assert hand.legal_actions().actions() == [Action(ActionKind.SHOW), Action(ActionKind.MUCK)]
        events = play(hand, f"2: {choice}")
        assert isinstance(events[0], event)
        assert hand.is_over


# -- R4 ----------------------------------------------------------------------------------


def test_r4_rake_is_a_capped_percentage_rounded_down() -> None:
    hands = {0: THREE[0], 1: THREE[1], 2: THREE[2]}
    hand = table(hands, rake_bps=500, rake_cap=None)
    check_down(hand)  # the pot is 45: 5% is 2.25
    assert [e.amount for e in hand.events if isinstance(e, RakeTaken)] == [2]
    assert awards(hand) == [(0, 2, 43, "whole")]
    capped = table(hands, rake_bps=5000, rake_cap=10)
    check_down(capped)
    assert capped.rake == 10 and awards(capped) == [(0, 2, 35, "whole")]
    assert sum(capped.stacks.values()) + capped.rake == 3000


def test_r4_rake_comes_from_the_main_pot_first() -> None:
    hands = {0: THREE[0], 1: THREE[1], 2: THREE[2]}
    hand = table(hands, stacks={1: 5}, rake_bps=2500)  # seat 1 all-in from the ante
    check_down(hand)  # main pot 15, side pot (0, 2) 20: total 35, rake 8
    assert hand.result is not None
    assert [(p.amount, p.eligible) for p in hand.result.pots] == [(15, (0, 1, 2)), (20, (0, 2))]
    assert hand.rake == 8
    assert awards(hand) == [(0, 2, 7, "whole"), (1, 2, 20, "whole")]


def test_r4_no_rake_on_a_hand_ended_on_third_street_unless_set() -> None:
    for setting, rake in ((False, 0), (True, 1)):
        hand = table(THREE, rake_bps=1000, rake_third_street=setting)
        play(hand, f"{hand.to_act}: bring_in")
        while hand.phase is Phase.BETTING:
            play(hand, f"{hand.to_act}: fold")
        play(hand, f"{hand.to_act}: muck")
        assert hand.rake == rake  # the bring-in is returned uncalled: 10% of 3 antes (15)
        assert sum(hand.stacks.values()) + hand.rake == 3000


def test_r4_uncalled_bets_are_returned_before_the_rake() -> None:
    hand = table(THREE, rake_bps=1000, rake_third_street=True)
    play(hand, f"{hand.to_act}: bring_in")
    play(hand, f"{hand.to_act}: complete")
    while hand.phase is Phase.BETTING:
        play(hand, f"{hand.to_act}: fold")
    play(hand, f"{hand.to_act}: muck")
    assert hand.rake == 3  # 10% of 35 (antes, bring-in, 10 of the 20 completion), not of 45


def test_r4_an_all_in_run_out_from_third_street_did_not_end_on_third_street() -> None:
    # seat 1 is all-in at the completion: the betting ends on third street, but fourth
    # street's cards are dealt (the run-out), so the hand is raked though the setting is off
    hand = table({0: THREE[0], 1: THREE[1]}, stacks={1: 5 + 20}, rake_bps=1000)
    assert not hand.rules.rake_third_street
    play(hand, "0: bring_in, 1: complete, 0: call")
    fourth = hand.events.index(StreetStarted(4))
    assert not any(isinstance(e, Checked) for e in hand.events[fourth:])  # no more betting
    check_down(hand)
    assert hand.result is not None and hand.result.street == 7
    assert hand.rake == 5  # 10% of the 50 in the pot
    assert sum(hand.stacks.values()) + hand.rake == 1000 + 25


def test_r4_a_cap_of_0_means_no_cap() -> None:
    uncapped = table(THREE, rake_bps=1000, rake_cap=None)
    zero = table(THREE, rake_bps=1000, rake_cap=0)
    check_down(uncapped)
    check_down(zero)
    assert zero.rules.rake_cap is None
    assert zero.rake == uncapped.rake == 4  # 10% of 45, rounded down


def test_r41_the_uncontested_pot_is_awarded_at_once_and_a_show_may_follow() -> None:
    hand = table(THREE)
    play(hand, f"{hand.to_act}: bring_in")
    while hand.phase is Phase.BETTING:
        legal = hand.legal_actions()
        kind = "complete" if legal.complete and legal.seat == 2 else "fold"
        play(hand, f"{legal.seat}: {kind}")
    assert hand.phase is Phase.UNCONTESTED
    with pytest.raises(IllegalAction):
        hand.show_after_award(2)  # not before the award
    events = hand.award_uncontested()
    assert hand.is_over and [type(e).__name__ for e in events][-2:] == ["PotAwarded", "HandEnded"]
    assert not any(isinstance(e, HandShown | ShowDeclined) for e in hand.events)
    with pytest.raises(IllegalAction):
        hand.show_after_award(0)  # only the winner
    (shown,) = hand.show_after_award(2)
    assert isinstance(shown, HandShown) and shown.seat == 2 and len(shown.cards) == 3
    with pytest.raises(IllegalAction):
        hand.show_after_award(2)  # once
    with pytest.raises(IllegalAction):
        hand.award_uncontested()  # the hand is over
