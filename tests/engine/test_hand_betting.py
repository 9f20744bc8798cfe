"""Betting: R13–R19 (docs/rules.md) with scripted decks and actions.

Stakes everywhere: ante 5, bring-in 10, small bet 20, big bet 40.
"""

from __future__ import annotations

import pytest

from app.engine import (
    Action,
    ActionKind,
    BringInDue,
    Completed,
    Folded,
    Hand,
    HandShown,
    IllegalAction,
    Phase,
    PotAwarded,
    Raised,
    ShowDeclined,
    TimedOut,
    UncalledBetReturned,
    Variant,
)
from app.engine.scripted import play, scripted_hand
from tests.engine.support import rules

# Seat 0 brings in (2c door) in every hand below; the button is the last seat.
DOORS = {0: "????2c", 1: "????Kd", 2: "????Qh", 3: "????Js"}


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


def to_street(hand: Hand, street: int) -> None:
    """Bring in, check or call until `street` (8: the end of the betting)."""
    while hand.street < street and hand.phase is Phase.BETTING and hand.to_act is not None:
        legal = hand.legal_actions()
        if legal.bring_in is not None:
            hand.act(legal.seat, Action(ActionKind.BRING_IN))
        elif legal.check:
            hand.act(legal.seat, Action(ActionKind.CHECK))
        else:
            hand.act(legal.seat, Action(ActionKind.CALL))


# -- R13 ---------------------------------------------------------------------------------


def test_r13_bring_in_player_must_bring_in_or_complete_never_fold_or_check() -> None:
    hand = table()
    legal = hand.legal_actions()
    assert (legal.seat, legal.bring_in, legal.complete) == (0, 10, 20)
    assert not legal.fold and not legal.check and legal.call is None
    for bad in ("fold", "check", "call", "bet 20", "raise 20"):
        with pytest.raises(IllegalAction):
            play(hand, f"0: {bad}")
    with pytest.raises(IllegalAction, match=r"bring-in is \$0.10"):
        play(hand, "0: bring_in 15")


def test_r13_after_the_bring_in_others_fold_call_or_complete() -> None:
    hand = table()
    play(hand, "0: bring_in")
    legal = hand.legal_actions()
    assert (legal.seat, legal.fold, legal.call, legal.complete) == (1, True, 10, 20)
    assert legal.raises == () and legal.bets == () and legal.bring_in is None


def test_r13_everyone_calls_the_bring_in_and_the_bring_in_has_no_option() -> None:
    hand = table()
    play(hand, "0: bring_in, 1: call, 2: call")
    assert hand.street == 4


def test_r13_the_bring_in_player_may_complete_and_raises_are_small_bets() -> None:
    hand = table()
    play(hand, "0: complete")
    assert hand.legal_actions().raises == (40,)
    play(hand, "1: raise 40")
    assert hand.legal_actions().raises == (60,)


def test_r13_after_a_completion_the_bring_in_may_raise() -> None:
    hand = table()
    play(hand, "0: bring_in, 1: complete, 2: call")
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.raises) == (0, 10, (40,))


def test_r13_no_amount_between_the_bring_in_and_the_completion() -> None:
    hand = table()
    for bad in ("bring_in 15", "complete 15", "complete 10"):
        with pytest.raises(IllegalAction):
            play(hand, f"0: {bad}")
    assert hand.seat_state(0).put == 5 and hand.to_act == 0  # nothing changed


def test_r13_a_short_all_in_bring_in_may_be_called_for_that_amount_or_completed() -> None:
    hand = table(stacks={0: 5 + 7})
    legal = hand.legal_actions()
    assert (legal.bring_in, legal.complete) == (7, None)  # all-in for less than the bring-in
    play(hand, "0: bring_in")
    legal = hand.legal_actions()
    assert (legal.seat, legal.fold, legal.call, legal.complete) == (1, True, 7, 20)
    assert legal.bring_in is None and legal.raises == ()
    with pytest.raises(IllegalAction, match=r"Complete to \$0.20"):
        play(hand, "1: complete 10")  # no topping the short bring-in up to the full one
    play(hand, "1: call")
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.complete) == (2, 7, 20)
    play(hand, "2: call")  # everyone called: the round is over, the all-in has no option
    assert hand.street == 4
    assert [hand.seat_state(s).put for s in range(3)] == [12, 12, 12]


# -- R14, R15 ----------------------------------------------------------------------------

OPEN_PAIR = {0: "????2c 9s", 1: "????Kd Kh", 2: "????Qh 3c"}


def test_r14_fourth_street_open_pair_allows_the_big_bet_in_stud() -> None:
    hand = table(hands=OPEN_PAIR)
    to_street(hand, 4)
    legal = hand.legal_actions()
    assert (legal.seat, legal.bets) == (1, (20, 40))


@pytest.mark.parametrize("variant", [Variant.STUD8, Variant.RAZZ])
def test_r14_no_open_pair_option_in_stud8_or_razz(variant: Variant) -> None:
    hand = table(hands=OPEN_PAIR, variant=variant)
    to_street(hand, 4)
    assert hand.street == 4
    assert hand.legal_actions().bets == (20,)


def test_r14_without_an_open_pair_fourth_street_bets_are_small() -> None:
    hand = table(hands={0: "????2c 9s", 1: "????Kd 8h", 2: "????Qh 3c"})
    to_street(hand, 4)
    assert hand.legal_actions().bets == (20,)


def test_r14_once_big_always_big() -> None:
    hand = table(hands=OPEN_PAIR)
    to_street(hand, 4)
    play(hand, "1: bet 40")
    assert hand.legal_actions().raises == (80,)
    play(hand, "2: raise 80")
    assert hand.legal_actions().raises == (120,)


def test_r14_after_a_small_bet_each_later_player_may_raise_small_or_big() -> None:
    hand = table(n=4, hands=OPEN_PAIR)
    to_street(hand, 4)
    play(hand, "1: bet 20")
    assert hand.legal_actions().raises == (40, 60)
    play(hand, "2: raise 40")  # a small raise keeps the choice open for the next player
    assert hand.legal_actions().raises == (60, 80)
    with pytest.raises(IllegalAction, match=r"Raise to \$0.60 or \$0.80"):
        play(hand, "3: raise 70")
    with pytest.raises(IllegalAction, match=r"Raise to \$0.60 or \$0.80"):
        play(hand, "3: raise")  # two amounts: the player must say which


def test_r14_a_big_raise_after_a_small_bet_makes_every_later_raise_big() -> None:
    hand = table(n=4, hands=OPEN_PAIR)
    to_street(hand, 4)
    play(hand, "1: bet 20, 2: raise 60")
    assert hand.legal_actions().raises == (100,)
    with pytest.raises(IllegalAction, match=r"Raise to \$1\b"):
        play(hand, "3: raise 80")
    play(hand, "3: raise 100")
    legal = hand.legal_actions()
    assert (legal.seat, legal.raises) == (0, (140,))
    play(hand, "0: call, 1: call, 2: call")
    assert hand.street == 5
    assert hand.seat_state(1).put == 5 + 10 + 100  # ante, bring-in call, fourth street


def test_r14_the_cap_counts_small_and_big_raises_alike() -> None:
    hand = table(n=4, hands=OPEN_PAIR)
    to_street(hand, 4)
    play(hand, "1: bet 20, 2: raise 40, 3: raise 80, 0: raise 120")
    legal = hand.legal_actions()
    assert (legal.seat, legal.raises, legal.call) == (1, (), 100)  # R16: a bet and 3 raises


def test_r14_an_all_in_beyond_a_small_raise_goes_big() -> None:
    # seat 2 has 55 behind on fourth street: all-in to 55 over a bet of 20 raises by more
    # than a small bet; it is a full big raise (R18: at least half of it), so the street is big
    hand = table(n=4, stacks={2: 5 + 10 + 55}, hands=OPEN_PAIR)
    to_street(hand, 4)
    play(hand, "1: bet 20")
    assert hand.legal_actions().raises == (40, 55)
    play(hand, "2: raise 55")
    assert hand.legal_actions().raises == (95,)


def test_r14_with_an_open_pair_no_option_after_a_small_bet_in_stud8_or_razz() -> None:
    for variant in (Variant.STUD8, Variant.RAZZ):
        hand = table(n=4, hands=OPEN_PAIR, variant=variant)
        to_street(hand, 4)
        seat = hand.to_act
        play(hand, f"{seat}: bet 20")
        assert hand.legal_actions().raises == (40,), variant


def test_r14_without_an_open_pair_raises_are_small() -> None:
    hand = table(n=4, hands={0: "????2c 9s", 1: "????Kd 8h", 2: "????Qh 3c"})
    to_street(hand, 4)
    play(hand, f"{hand.to_act}: bet 20")
    assert hand.legal_actions().raises == (40,)


def test_r15_fifth_to_seventh_street_bets_are_big() -> None:
    hand = table()
    for street in (5, 6, 7):
        to_street(hand, street)
        assert hand.street == street
        play(hand, f"{hand.to_act}: bet 40")
        assert hand.legal_actions().raises == (80,)


# -- R16 ---------------------------------------------------------------------------------


def test_r16_a_completion_and_three_raises_then_only_call_or_fold() -> None:
    hand = table()
    play(hand, "0: bring_in, 1: complete, 2: raise 40, 0: raise 60, 1: raise 80")
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.raises, legal.fold) == (2, 40, (), True)
    with pytest.raises(IllegalAction, match="capped"):
        play(hand, "2: raise 100")


def test_r16_the_cap_holds_heads_up() -> None:
    hand = table(n=2)
    to_street(hand, 5)
    first = hand.to_act
    other = 1 - (first or 0)
    play(hand, f"{first}: bet 40, {other}: raise 80, {first}: raise 120, {other}: raise 160")
    assert hand.legal_actions().raises == ()
    play(hand, f"{first}: call")
    assert hand.street == 6


# -- R17 ---------------------------------------------------------------------------------


def test_r17_all_but_one_fold_and_the_last_wins_without_showdown() -> None:
    hand = table()
    play(hand, "0: bring_in, 1: complete, 2: fold, 0: fold")
    assert hand.phase is Phase.UNCONTESTED and hand.to_act == 1
    returned = [e for e in hand.events if isinstance(e, UncalledBetReturned)]
    assert [(e.seat, e.amount) for e in returned] == [(1, 10)]
    assert not any(isinstance(e, HandShown) for e in hand.events)
    play(hand, "1: muck")
    assert hand.is_over and hand.result is not None and not hand.result.showdown
    assert [(a.seat, a.amount) for a in hand.result.awards] == [(1, 35)]  # 3 antes + 2 x 10
    assert hand.stacks == {0: 985, 1: 1020, 2: 995}


def test_r17_the_round_ends_when_everyone_has_acted_and_matched() -> None:
    hand = table()
    to_street(hand, 4)
    for _ in range(2):
        play(hand, f"{hand.to_act}: check")
        assert hand.street == 4
    play(hand, f"{hand.to_act}: check")
    assert hand.street == 5


# -- R18 ---------------------------------------------------------------------------------


def test_r18_side_pots_and_the_uncalled_part_is_returned() -> None:
    hands = {0: "2c2d2h 3c 3d 3h 4c", 1: "AcAdAh Kc Kd Kh Qc", 2: "7c7d7h 8c 8d 8h 9c"}
    hand = table(stacks={1: 30}, hands=hands)
    play(hand, "0: bring_in, 1: complete, 2: raise 40, 0: call, 1: call")  # 1 is all-in for 25
    assert hand.seat_state(1).all_in
    to_street(hand, 8)
    while hand.to_act is not None:
        play(hand, f"{hand.to_act}: show")
    assert hand.result is not None
    pots = [(p.amount, p.eligible) for p in hand.result.pots]
    assert pots == [(15 + 3 * 25, (0, 1, 2)), (2 * 15, (0, 2))]
    assert hand.stacks == {0: 1000 - 45, 1: 90, 2: 1000 - 45 + 30}


# Seat 0 acts first on fourth (A-2 showing) and fifth street (a pair of aces).
ACES_UP = {0: "????2c As Ad", 1: "????Kd 3c 4d", 2: "????Qh 5c 6d", 3: "????Js 7c 8d"}


def test_r18_short_all_in_raise_does_not_reopen_for_those_who_acted() -> None:
    hand = table(n=4, stacks={2: 5 + 10 + 55}, hands=ACES_UP)
    to_street(hand, 5)  # everyone called the bring-in (10) and checked fourth street
    assert hand.to_act == 0
    play(hand, "0: bet 40, 1: call, 2: raise 55")  # all-in: +15 is less than half of 40
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.raises) == (3, 55, (80,))  # still to act: may raise
    play(hand, "3: call")
    for seat in (0, 1):
        legal = hand.legal_actions()
        assert (legal.seat, legal.call, legal.raises) == (seat, 15, ())
        play(hand, f"{seat}: call")
    assert hand.street == 6


def test_r18_all_in_raise_of_half_a_bet_is_a_full_raise_and_reopens() -> None:
    hand = table(n=4, stacks={2: 5 + 10 + 60}, hands=ACES_UP)
    to_street(hand, 5)
    play(hand, "0: bet 40, 1: call, 2: raise 60")  # all-in: +20 is half of 40
    raised = [e for e in hand.events if isinstance(e, Raised)][-1]
    assert raised.full and raised.all_in
    assert hand.legal_actions().raises == (100,)
    play(hand, "3: call")
    assert hand.legal_actions().raises == (100,)  # seat 0 may raise again
    play(hand, "0: raise 100, 1: raise 140")
    legal = hand.legal_actions()  # bet, all-in raise, two raises: the cap
    assert (legal.seat, legal.call, legal.raises) == (3, 80, ())


def test_r18_third_street_all_in_short_of_the_completion_does_not_reopen() -> None:
    hand = table(n=4, stacks={2: 5 + 14})
    play(hand, "0: bring_in, 1: call, 2: complete 14")  # +4 over the bring-in: less than 5
    completed = [e for e in hand.events if isinstance(e, Completed)]
    assert [(e.amount, e.all_in, e.full) for e in completed] == [(14, True, False)]
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.complete) == (3, 14, 20)
    play(hand, "3: call")
    for seat in (0, 1):
        legal = hand.legal_actions()
        assert (legal.seat, legal.call, legal.complete, legal.raises) == (seat, 4, None, ())
        play(hand, f"{seat}: call")
    assert hand.street == 4


def test_r18_third_street_all_in_of_half_the_completion_reopens_but_is_not_it() -> None:
    hand = table(n=4, stacks={2: 5 + 15})
    play(hand, "0: bring_in, 1: call, 2: complete 15, 3: call")  # +5: half of 20 - 10
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.complete) == (0, 5, 20)
    play(hand, "0: complete 20")
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.raises) == (1, 10, (40,))


def test_r18_third_street_all_in_bring_in_for_less() -> None:
    hand = table(stacks={0: 5 + 7})
    assert hand.legal_actions().bring_in == 7 and hand.legal_actions().complete is None
    play(hand, "0: bring_in")
    legal = hand.legal_actions()
    assert (legal.call, legal.complete) == (7, 20)


def test_r18_no_bet_or_raise_when_everyone_else_is_all_in() -> None:
    hand = table(n=2, stacks={1: 5 + 20})
    play(hand, "0: bring_in, 1: complete")
    legal = hand.legal_actions()
    assert (legal.call, legal.raises, legal.fold) == (10, (), True)


# -- R19 ---------------------------------------------------------------------------------


def test_r19_timeout_with_protection_is_all_in_for_the_chips_in_the_pot() -> None:
    hands = {0: "AcAd2h Kc Kd Kh Qc", 1: "2c2d7h 3c 3d 3h 4c", 2: "7c7d9h 8c 8d 8h 9c"}
    hand = table(hands=hands)
    play(hand, "0: bring_in, 1: complete")
    events = hand.time_out(2, all_in_protection=True)
    assert [type(e) for e in events] == [TimedOut]
    assert events[0] == TimedOut(2, "all_in")
    state = hand.seat_state(2)
    assert state.all_in and not state.folded and state.stack == 995
    play(hand, "0: call")
    to_street(hand, 8)
    while hand.to_act is not None:
        play(hand, f"{hand.to_act}: show")
    assert hand.result is not None
    main = hand.result.pots[0]
    assert (main.amount, main.eligible) == (15, (0, 1, 2))  # only the antes for seat 2
    assert hand.stacks[2] == 995
    assert hand.stacks[0] > 1000


def test_r19_timeout_checks_when_it_may() -> None:
    hand = table(timeout_action="fold")
    to_street(hand, 4)
    seat = hand.to_act or 0
    events = hand.time_out(seat, all_in_protection=True)
    assert [e.to_dict()["type"] for e in events] == ["timed_out", "checked"]
    assert events[0] == TimedOut(seat, "check")


def test_r19_timeout_without_protection_folds_when_facing_a_bet() -> None:
    hand = table()
    play(hand, "0: bring_in")
    events = hand.time_out(1, all_in_protection=False)
    assert events[:2] == [TimedOut(1, "fold"), Folded(1)]
    assert hand.seat_state(1).folded


def test_r19_timed_out_bring_in_folds_and_the_bring_in_passes_left() -> None:
    hand = table(timeout_action="fold")
    events = hand.time_out(0, all_in_protection=True)
    assert events[:2] == [TimedOut(0, "fold"), Folded(0)]
    assert hand.to_act == 1 and hand.legal_actions().bring_in == 10


def test_r19_timeout_at_show_or_muck_mucks_and_the_winner_does_not_show() -> None:
    hand = table()
    play(hand, "0: bring_in, 1: complete, 2: fold, 0: fold")
    events = hand.time_out(1, all_in_protection=True)
    assert events[:2] == [TimedOut(1, "muck"), ShowDeclined(1)]
    assert isinstance(events[2], PotAwarded) and hand.is_over


def test_r19_timeout_out_of_turn_is_refused() -> None:
    hand = table()
    before = list(hand.events)
    with pytest.raises(IllegalAction, match="not your turn"):
        hand.time_out(1, all_in_protection=True)
    assert hand.events == before


def test_r18_short_all_in_bet_is_not_a_bet_for_those_who_checked() -> None:
    hand = table(n=4, stacks={1: 5 + 10 + 15}, hands=ACES_UP)
    to_street(hand, 5)
    play(hand, "0: check, 1: bet 15")  # all-in for 15: less than half of 40, not a bet
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.raises) == (2, 15, (40,))
    play(hand, "2: call, 3: call")
    legal = hand.legal_actions()
    assert (legal.seat, legal.call, legal.raises, legal.fold) == (0, 15, (), True)


def test_r19_protected_bring_in_is_all_in_and_the_bring_in_passes_left() -> None:
    hand = table()
    events = hand.time_out(0, all_in_protection=True)
    assert events[:2] == [TimedOut(0, "all_in"), BringInDue(1)]
    assert hand.seat_state(0).all_in and hand.seat_state(0).stack == 995
    assert hand.to_act == 1 and hand.legal_actions().bring_in == 10


def test_r42_chips_beyond_the_ante_and_bring_in_are_at_stake_after_a_completion() -> None:
    hand = table(3, ante=10)
    assert not hand.beyond_forced()  # the antes alone
    play(hand, f"{hand.to_act}: bring_in")
    assert not hand.beyond_forced()  # the bring-in alone
    legal = hand.legal_actions()
    play(hand, f"{legal.seat}: call")
    assert not hand.beyond_forced()  # a limp is the bring-in again
    legal = hand.legal_actions()
    play(hand, f"{legal.seat}: complete")
    assert hand.beyond_forced()
