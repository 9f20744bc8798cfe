"""Shared helpers of the engine tests: default stakes and a passive way to play a hand."""

from __future__ import annotations

from app.engine import Action, ActionKind, Hand, Rules, Variant


def rules(variant: Variant = Variant.STUD, **kw: object) -> Rules:
    """Ante 5, bring-in 10, bets 20/40, with any setting overridden."""
    settings: dict[str, object] = {"ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40}
    settings.update(kw)
    return Rules(variant, **settings)  # type: ignore[arg-type]


def passive(hand: Hand, until_street: int = 8) -> Hand:
    """Bring in, check, call (or show) until the hand reaches `until_street` or is over."""
    while hand.to_act is not None and hand.street < until_street:
        legal = hand.legal_actions()
        if legal.show:
            hand.act(legal.seat, Action(ActionKind.SHOW))
        elif legal.bring_in is not None:
            hand.act(legal.seat, Action(ActionKind.BRING_IN))
        elif legal.check:
            hand.act(legal.seat, Action(ActionKind.CHECK))
        else:
            hand.act(legal.seat, Action(ActionKind.CALL))
    return hand
