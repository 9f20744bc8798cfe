"""Events (audience, redaction, JSON), views (what each seat may see) and refused actions."""

from __future__ import annotations

import json

import pytest

from app.engine import (
    Action,
    ActionKind,
    CardDealt,
    Hand,
    IllegalAction,
    Phase,
    Rules,
    Variant,
    observer_view,
    view_for,
)
from app.engine.scripted import play, scripted_hand

RULES = Rules(Variant.STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
HANDS = {
    0: "7h 7d 4d 2c 3c Qs 3s",
    1: "As Ah 9c Jc 4s 8s 6h",
    2: "Ks Kd Tc 5h 5d Qh Ts",
}


def new_hand(last_street: dict[int, int] | None = None) -> Hand:
    """Seat 0 brings in; `last_street` names seats that fold before being dealt more."""
    stacks = dict.fromkeys(HANDS, 1000)
    last = last_street or {}
    hands = {s: " ".join(h.split()[: last.get(s, 7)]) for s, h in HANDS.items()}
    return scripted_hand(RULES, stacks, hands, button=2, last_street=last_street)


def card_strings(view: object) -> set[str]:
    return set(json.dumps(view).replace('"', " ").split())


def test_every_event_serialises_to_json_with_card_strings() -> None:
    hand = new_hand()
    play(hand, "0: bring_in, 1: complete, 2: call, 0: call")
    while hand.to_act is not None:
        legal = hand.legal_actions()
        kind = ActionKind.SHOW if legal.show else ActionKind.CHECK
        hand.act(legal.seat, Action(kind if legal.show or legal.check else ActionKind.CALL))
    types = set()
    for event in hand.events:
        data = event.to_dict()
        json.dumps(data)
        types.add(data["type"])
        assert data["audience"] == event.audience
    assert {"hand_started", "ante_posted", "card_dealt", "bring_in_due", "brought_in"} <= types
    assert {"completed", "called", "checked", "hand_shown", "pot_awarded", "hand_ended"} <= types
    first = next(e for e in hand.events if isinstance(e, CardDealt))
    assert first.to_dict() == {
        "type": "card_dealt",
        "audience": 0,
        "seat": 0,
        "card": "7h",
        "face_up": False,
        "street": 3,
    }


def test_a_face_down_card_is_private_and_its_public_counterpart_has_no_card() -> None:
    hand = new_hand()
    down = [e for e in hand.events if isinstance(e, CardDealt) and not e.face_up]
    up = [e for e in hand.events if isinstance(e, CardDealt) and e.face_up]
    assert all(e.audience == e.seat and e.card is not None for e in down)
    assert all(e.public() == CardDealt(e.seat, None, False, 3) for e in down)
    assert all(e.public().audience is None for e in down)
    assert all(e.audience is None and e.public() is e for e in up)


def test_views_show_own_down_cards_only() -> None:
    hand = new_hand()
    mine = view_for(hand, 1)
    seats = {s["seat"]: s for s in mine["seats"]}
    assert seats[1]["down"] == ["As", "Ah"]
    assert seats[0]["down"] is None and seats[0]["down_count"] == 2
    assert seats[0]["up"] == ["4d"]
    assert not card_strings(mine) & {"7h", "7d", "Ks", "Kd"}
    assert not card_strings(observer_view(hand)) & {"7h", "7d", "As", "Ah", "Ks", "Kd"}


def test_views_offer_legal_actions_to_the_seat_to_act_only() -> None:
    hand = new_hand()
    assert view_for(hand, 0)["legal"]["bring_in"] == 10
    assert view_for(hand, 1)["legal"] is None
    assert observer_view(hand)["legal"] is None
    with pytest.raises(KeyError):
        view_for(hand, 5)


def test_views_reveal_shown_hands_but_never_folded_or_mucked_ones() -> None:
    hand = new_hand(last_street={0: 3})
    play(hand, "0: bring_in, 1: call, 2: complete, 0: fold, 1: call")
    while hand.to_act is not None:
        legal = hand.legal_actions()
        if legal.show:
            kind = ActionKind.MUCK
        else:
            kind = ActionKind.CHECK if legal.check else ActionKind.CALL
        hand.act(legal.seat, Action(kind))
    assert hand.is_over
    seen = card_strings(observer_view(hand)) | card_strings(view_for(hand, 2))
    assert {"Ks", "Kd"} <= seen  # seat 2 showed first (a pair of fives showing)
    assert not {"7h", "7d", "As", "Ah"} & seen  # seat 0 folded, seat 1 mucked
    assert {"As", "Ah"} <= card_strings(view_for(hand, 1))  # but its owner sees them
    result = observer_view(hand)["result"]
    assert result["awards"] and json.dumps(observer_view(hand))


# -- refused actions change nothing ------------------------------------------------------


def snapshot(hand: Hand) -> tuple[object, ...]:
    return (
        len(hand.events),
        hand.stacks,
        hand.to_act,
        hand.phase,
        hand.street,
        [hand.seat_state(s) for s in hand.seats],
        hand.legal_actions() if hand.to_act is not None else None,
    )


@pytest.mark.parametrize(
    ("seat", "action", "message"),
    [
        (1, "call", "not your turn"),
        (0, "fold", "must bring in"),
        (0, "bring_in 5", r"bring-in is \$0.10"),
        (0, "complete 30", r"Complete to \$0.20"),
        (0, "raise 20", "must bring in"),
        (0, "show", "no show or muck"),
        (0, "check 5", "takes no amount"),
    ],
)
def test_illegal_actions_change_nothing(seat: int, action: str, message: str) -> None:
    hand = new_hand()
    before = snapshot(hand)
    with pytest.raises(IllegalAction, match=message):
        play(hand, f"{seat}: {action}")
    assert snapshot(hand) == before


def test_illegal_actions_later_in_the_hand_change_nothing() -> None:
    hand = new_hand()
    play(hand, "0: bring_in, 1: call, 2: call")
    first = hand.to_act
    before = snapshot(hand)
    for bad in ("fold", "call", "bet 40", "raise 20", "bet 10", "complete 20", "muck"):
        with pytest.raises(IllegalAction):
            play(hand, f"{first}: {bad}")
    with pytest.raises(IllegalAction, match="Unknown action"):
        hand.act(first or 0, Action("dance", None))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="whole number"):
        hand.act(first or 0, Action(ActionKind.BET, 20.0))  # type: ignore[arg-type]
    assert snapshot(hand) == before


def test_nothing_is_accepted_once_the_hand_is_over() -> None:
    hand = new_hand()
    play(hand, "0: bring_in, 1: fold, 2: fold, 0: muck")
    assert hand.is_over and hand.phase is Phase.OVER
    before = (len(hand.events), hand.stacks)
    for call in (
        lambda: hand.act(0, Action(ActionKind.CHECK)),
        lambda: hand.time_out(0, all_in_protection=True),
        hand.legal_actions,
    ):
        with pytest.raises(IllegalAction, match="over"):
            call()
    assert (len(hand.events), hand.stacks) == before


def test_two_bet_sizes_need_an_amount() -> None:
    hands = {0: "????2c 9s", 1: "????Kd Kh", 2: "????Qh 3c"}
    hand = scripted_hand(RULES, dict.fromkeys(hands, 1000), hands, button=2)
    play(hand, "0: bring_in, 1: call, 2: call")
    assert hand.legal_actions().bets == (20, 40)
    with pytest.raises(IllegalAction, match=r"\$0.20 or \$0.40"):
        play(hand, "1: bet")


def test_r24_history_holds_every_showdown_hand_mucked_or_not_but_never_a_folded_one() -> None:
    hand = new_hand(last_street={0: 3})
    play(hand, "0: bring_in, 1: call, 2: complete, 0: fold, 1: call")
    assert hand.showdown_hands() == {}
    while hand.to_act is not None:
        legal = hand.legal_actions()
        if legal.show:
            kind = ActionKind.MUCK
        else:
            kind = ActionKind.CHECK if legal.check else ActionKind.CALL
        hand.act(legal.seat, Action(kind))
    assert hand.seat_state(1).mucked
    history = hand.showdown_hands()
    assert set(history) == {1, 2}
    assert [str(c) for c in history[1]] == HANDS[1].split()
