"""Properties of random hands under random settings and random legal play, all three games.

After every input: chips are conserved (stacks + pots + rake), no card is dealt twice, the seat
to act has legal actions and every one of them is accepted, a refused action changes nothing,
and no view holds another seat's unshown down card. At the end every pot is awarded, and the
same inputs replay to the same events.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import (
    Action,
    ActionKind,
    CardDealt,
    CommunityCardDealt,
    Hand,
    HandShown,
    IllegalAction,
    Rules,
    SeatSpec,
    Variant,
    observer_view,
    view_for,
)
from app.engine.cards import Card


@st.composite
def hands(draw: st.DrawFn, variant: Variant) -> tuple[Hand, random.Random, int]:
    small = draw(st.integers(2, 40))
    rules = Rules(
        variant,
        ante=draw(st.integers(0, small)),
        bring_in=draw(st.integers(1, small)),
        small_bet=small,
        big_bet=2 * small,
        rake_bps=draw(st.sampled_from([0, 0, 250, 500, 1000, 10_000])),
        rake_cap=draw(st.none() | st.integers(0, 5 * small)),
        rake_third_street=draw(st.booleans()),
        timeout_action=draw(st.sampled_from(["all_in", "fold"])),
        showdown_first_when_checked=draw(st.sampled_from(["first_to_act", "lowest_seat"])),
        raise_cap=draw(st.booleans()),
        open_pair=draw(st.sampled_from(["r14", "rp10f"])),
    )
    seats = draw(st.lists(st.integers(0, 7), min_size=2, max_size=8, unique=True))
    stack = st.integers(1, 4 * small) | st.integers(1, 80 * small)
    specs = [SeatSpec(s, draw(stack)) for s in sorted(seats)]
    deck = [Card(c) for c in draw(st.permutations(range(52)))]
    hand = Hand.start(rules, specs, draw(st.integers(0, 7)), deck, draw(st.binary(max_size=8)))
    total = sum(s.stack for s in specs)
    return hand, draw(st.randoms(use_true_random=False)), total


def secrets_of(hand: Hand, viewer: int | None) -> set[str]:
    """The down cards the viewer must not see: other seats' unshown ones."""
    out: set[str] = set()
    for seat in hand.seats:
        state = hand.seat_state(seat)
        if seat != viewer and not state.shown:
            out.update(str(c) for c in state.down)
    return out


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def check_invariants(hand: Hand, total: int) -> None:
    in_pots = sum(hand.seat_state(s).put for s in hand.seats)
    assert sum(hand.stacks.values()) + in_pots + hand.rake == total
    cards = [e.card for e in hand.events if isinstance(e, CardDealt | CommunityCardDealt)]
    assert len(cards) == len(set(cards))
    for seat in hand.seats:
        assert not strings(view_for(hand, seat)) & secrets_of(hand, seat)
    assert not strings(observer_view(hand)) & secrets_of(hand, None)
    for event in hand.events:
        if event.audience is not None:
            public = event.public()
            assert public.audience is None and public.to_dict().get("card") is None
    if hand.to_act is not None:
        legal = hand.legal_actions()
        assert legal.seat == hand.to_act and legal.actions()


def check_refusal(hand: Hand, rng: random.Random) -> None:
    """An illegal action or an action out of turn raises and changes nothing."""
    assert hand.to_act is not None
    before = (len(hand.events), hand.stacks, hand.to_act, hand.legal_actions(), hand.street)
    legal = hand.legal_actions()
    offered = set(legal.actions())
    kinds = {a.kind for a in offered}
    candidates = [Action(k, a) for k in ActionKind for a in (None, 10**6)]
    bad = [a for a in candidates if a.kind not in kinds or a.amount == 10**6]
    others = [s for s in hand.seats if s != hand.to_act]
    try:
        if rng.random() < 0.5:
            hand.act(rng.choice(others), rng.choice(list(offered)))
        else:
            hand.act(hand.to_act, rng.choice(bad))
    except IllegalAction:
        pass
    else:  # pragma: no cover - a refusal is expected
        raise AssertionError("an illegal action was accepted")
    after = (len(hand.events), hand.stacks, hand.to_act, hand.legal_actions(), hand.street)
    assert before == after


def play_out(hand: Hand, rng: random.Random, total: int) -> list[tuple[str, int, Any]]:
    inputs: list[tuple[str, int, Any]] = []
    check_invariants(hand, total)
    folds = rng.choice([0.05, 0.3, 1.0])  # how often a player willing to fold does
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_actions()
        actions = legal.actions()
        if rng.random() < 0.1:
            for action in actions:  # every offered action is accepted
                copy.deepcopy(hand).act(seat, action)
        if rng.random() < 0.2:
            check_refusal(hand, rng)
        if rng.random() < 0.05:
            protected = rng.random() < 0.5
            hand.time_out(seat, all_in_protection=protected)
            inputs.append(("time_out", seat, protected))
        else:
            stay = [a for a in actions if a.kind is not ActionKind.FOLD]
            action = rng.choice(actions if rng.random() < folds or not stay else stay)
            hand.act(seat, action)
            inputs.append(("act", seat, action))
        check_invariants(hand, total)
    return inputs


def check_settled(hand: Hand, total: int) -> None:
    result = hand.result
    assert result is not None and hand.to_act is None
    assert sum(result.stacks.values()) + result.rake == total
    awarded: dict[int, int] = {}
    for award in result.awards:
        awarded[award.pot] = awarded.get(award.pot, 0) + award.amount
        assert award.amount > 0
    assert sum(awarded.values()) + result.rake == sum(p.amount for p in result.pots)
    for index, pot in enumerate(result.pots):
        assert awarded.get(index, 0) <= pot.amount
        assert {a.seat for a in result.awards if a.pot == index} <= set(pot.eligible)
    shown = {e.seat for e in hand.events if isinstance(e, HandShown)}
    assert not shown & {s for s in hand.seats if hand.seat_state(s).folded}


def run(variant: Variant, data: tuple[Hand, random.Random, int]) -> None:
    hand, rng, total = data
    start = copy.deepcopy(hand)
    inputs = play_out(hand, rng, total)
    check_settled(hand, total)
    for kind, seat, arg in inputs:  # the same inputs replay to the same events
        if kind == "act":
            start.act(seat, arg)
        else:
            start.time_out(seat, all_in_protection=arg)
    assert [e.to_dict() for e in start.events] == [e.to_dict() for e in hand.events]


SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(st.data())
def test_random_stud_hands_keep_every_invariant(data: st.DataObject) -> None:
    run(Variant.STUD, data.draw(hands(Variant.STUD)))


@SETTINGS
@given(st.data())
def test_random_stud8_hands_keep_every_invariant(data: st.DataObject) -> None:
    run(Variant.STUD8, data.draw(hands(Variant.STUD8)))


@SETTINGS
@given(st.data())
def test_random_razz_hands_keep_every_invariant(data: st.DataObject) -> None:
    run(Variant.RAZZ, data.draw(hands(Variant.RAZZ)))
