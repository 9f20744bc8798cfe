"""Seeded simulation: the policies (app/engine/policies.py) and `simulate` (app/cli/simulate.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.cli import simulate as simulate_module
from app.cli.simulate import SimulationError, Table, random_stacks, simulate
from app.engine import (
    Bet,
    BroughtIn,
    Called,
    Checked,
    CommunityCardDealt,
    Completed,
    Folded,
    Hand,
    HandMucked,
    HandShown,
    HandStarted,
    Raised,
    Rules,
    ShowDeclined,
    StreetStarted,
    Variant,
)
from app.engine.policies import Policy, calldown_policy, play_out


def table(variant: Variant = Variant.STUD, seats: tuple[int, ...] = (0, 2, 3, 5, 6, 7)) -> Table:
    return Table(Rules(variant, 5, 10, 20, 40), seats)


def test_simulate_conserves_chips_and_replays_the_same_from_the_same_seed() -> None:
    first = [h.events for h in simulate(table(), 60, seed=9)]
    again = [h.events for h in simulate(table(), 60, seed=9)]
    other = [h.events for h in simulate(table(), 60, seed=10)]
    assert first == again
    assert first != other
    assert len(first) == 60


def test_r5_the_button_moves_one_occupied_seat_clockwise_each_hand() -> None:
    buttons = []
    for hand in simulate(table(seats=(1, 4, 6)), 7, seed=3):
        started = hand.events[0]
        assert isinstance(started, HandStarted)
        buttons.append(started.button)
    start = (1, 4, 6).index(buttons[0])
    assert buttons == [(1, 4, 6)[(start + i) % 3] for i in range(7)]


def test_random_policy_takes_every_kind_of_action() -> None:
    seen: Counter[str] = Counter()
    for hand in simulate(table(seats=tuple(range(8))), 400, seed=1):
        street = 3
        assert hand.result is not None
        if len(hand.result.pots) > 1:
            seen["side pot"] += 1
        for e in hand.events:
            if isinstance(e, StreetStarted):
                street = e.street
            seen[type(e).__name__] += 1
            if getattr(e, "all_in", False) and not isinstance(e, BroughtIn):
                seen["all-in"] += 1
            if isinstance(e, Bet) and street == 4 and e.amount == 40:
                seen["fourth-street big bet"] += 1
    for kind in (
        Folded,
        Checked,
        Called,
        BroughtIn,
        Completed,
        Bet,
        Raised,
        HandShown,
        HandMucked,
        CommunityCardDealt,
    ):
        assert seen[kind.__name__], kind
    assert seen["all-in"] and seen["side pot"] and seen["fourth-street big bet"]


def test_the_uncalled_winner_sometimes_shows_and_sometimes_not() -> None:
    seen: Counter[str] = Counter()
    for hand in simulate(table(seats=(0, 1)), 300, seed=2):
        assert hand.result is not None
        if not hand.result.showdown:
            seen["shown" if any(isinstance(e, HandShown) for e in hand.events) else "not"] += 1
            seen["declined"] += any(isinstance(e, ShowDeclined) for e in hand.events)
    assert seen["shown"] and seen["not"] and seen["declined"] == seen["not"]


def test_calldown_policy_only_brings_in_checks_and_calls_to_the_showdown() -> None:
    for hand in simulate(table(Variant.RAZZ), 80, seed=4, policy_name="calldown"):
        assert hand.result is not None and hand.result.showdown
        kinds = {type(e) for e in hand.events}
        assert not kinds & {Folded, Completed, Bet, Raised}


def test_calldown_policy_on_its_own() -> None:
    from app.engine.actions import ActionKind, LegalActions

    assert calldown_policy(LegalActions(1, bring_in=10, complete=20)).kind is ActionKind.BRING_IN
    assert calldown_policy(LegalActions(1, check=True, bets=(20,))).kind is ActionKind.CHECK
    assert calldown_policy(LegalActions(1, fold=True, call=20, raises=(40,))).kind == "call"
    assert calldown_policy(LegalActions(1, show=True, muck=True)).kind is ActionKind.MUCK


def test_random_stacks_reach_from_short_antes_to_a_hundred_big_bets() -> None:
    rules = Rules(Variant.STUD, 5, 10, 20, 40)
    stacks = random_stacks(random.Random(0), rules, 5000)
    assert min(stacks) >= 1
    assert any(s <= rules.ante for s in stacks)
    assert max(stacks) <= 100 * rules.big_bet
    assert sum(s > 50 * rules.big_bet for s in stacks) > 100


def test_a_chip_leak_stops_the_simulation_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def leaky(hand: Hand, policy: Policy) -> Hand:
        play_out(hand, policy)
        hand.players[0].stack += 1  # a chip from nowhere
        return hand

    monkeypatch.setattr(simulate_module, "play_out", leaky)
    with pytest.raises(SimulationError, match=r"hand 1: chips not conserved: \d+ before"):
        list(simulate(table(), 3, seed=1))
