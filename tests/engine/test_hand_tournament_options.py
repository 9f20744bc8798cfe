"""The two engine options tournaments use (docs/rules.md R29, R30): no raise cap between the
last two players, and TDA RP-10-F's fourth street without the big bet.

Stakes everywhere: ante 5, bring-in 10, small bet 20, big bet 40.
"""

from __future__ import annotations

import pytest

from app.engine import Action, ActionKind, Hand, IllegalAction, Rules, Variant
from app.engine.scripted import play, scripted_hand
from tests.engine.support import rules
from tests.engine.test_hand_betting import DOORS, OPEN_PAIR, to_street


def table(
    n: int = 3,
    stacks: dict[int, int] | None = None,
    hands: dict[int, str] | None = None,
    variant: Variant = Variant.STUD,
    **kw: object,
) -> Hand:
    seats = dict.fromkeys(range(n), 1000) | (stacks or {})
    cards = {s: DOORS.get(s, "") for s in range(n)} | (hands or {})
    return scripted_hand(rules(variant, **kw), seats, cards, button=n - 1)


# -- R29 ---------------------------------------------------------------------------------


def test_r29_without_the_cap_raises_go_on_past_three() -> None:
    hand = table(raise_cap=False)
    play(hand, "0: bring_in, 1: complete, 2: raise 40, 0: raise 60, 1: raise 80")
    legal = hand.legal_actions()
    assert (legal.seat, legal.raises) == (2, (100,))  # the cap would allow only a call here
    play(hand, "2: raise 100, 0: raise 120, 1: raise 140, 2: call, 0: call")
    assert hand.street == 4
    assert hand.stacks == {0: 1000 - 5 - 140, 1: 1000 - 5 - 140, 2: 1000 - 5 - 140}


def test_r29_heads_up_without_the_cap_raises_until_a_stack_is_all_in() -> None:
    hand = table(n=2, stacks={1: 5 + 10 + 300}, raise_cap=False)
    to_street(hand, 5)
    wagers = 0
    while (legal := hand.legal_actions()).raises or legal.bets:
        to = (legal.raises or legal.bets)[-1]
        hand.act(legal.seat, Action(ActionKind.RAISE if legal.raises else ActionKind.BET, to))
        wagers += 1
    assert wagers == 8  # a bet and seven raises of 40, to 320: past the cap of four
    assert hand.to_act == 1 and hand.legal_actions().call == 20  # seat 1 has 20 behind
    play(hand, "1: call")
    assert hand.seat_state(1).all_in
    assert hand.seat_state(0).put == 5 + 10 + 300  # the 20 nobody could call went back


def test_r29_the_cap_is_the_default_and_must_be_a_bool() -> None:
    assert rules().raise_cap is True
    hand = table()
    play(hand, "0: bring_in, 1: complete, 2: raise 40, 0: raise 60, 1: raise 80")
    with pytest.raises(IllegalAction, match="capped"):
        play(hand, "2: raise 100")
    with pytest.raises(ValueError, match="raise_cap"):
        Rules(Variant.STUD, 5, 10, 20, 40, raise_cap=0)  # type: ignore[arg-type]


# -- R30 ---------------------------------------------------------------------------------


def test_r30_rp10f_has_no_big_bet_on_fourth_street_with_an_open_pair() -> None:
    hand = table(n=4, hands=OPEN_PAIR, open_pair="rp10f")
    to_street(hand, 4)
    legal = hand.legal_actions()
    assert (legal.seat, legal.bets) == (1, (20,))  # R14 would offer (20, 40)
    with pytest.raises(IllegalAction):
        play(hand, "1: bet 40")
    play(hand, "1: bet 20")
    assert hand.legal_actions().raises == (40,)
    play(hand, "2: raise 40, 3: raise 60")
    assert hand.legal_actions().raises == (80,)


def test_r30_r14_is_the_default_and_other_values_are_refused() -> None:
    assert rules().open_pair == "r14"
    hand = table(hands=OPEN_PAIR)
    to_street(hand, 4)
    assert hand.legal_actions().bets == (20, 40)
    with pytest.raises(ValueError, match="open_pair"):
        Rules(Variant.STUD, 5, 10, 20, 40, open_pair="tda")  # type: ignore[arg-type]


def test_r30_rp10f_changes_nothing_in_stud8_or_razz_or_on_later_streets() -> None:
    for variant in (Variant.STUD8, Variant.RAZZ):
        hand = table(n=4, hands=OPEN_PAIR, variant=variant, open_pair="rp10f")
        to_street(hand, 4)
        assert hand.legal_actions().bets == (20,), variant
    hand = table(hands=OPEN_PAIR, open_pair="rp10f")
    to_street(hand, 5)
    assert hand.street == 5
    assert hand.legal_actions().bets == (40,)
