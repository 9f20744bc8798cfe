"""Checking a command against the legal actions, with reasons a player can read."""

from __future__ import annotations

from app.engine.actions import WAGERS, Action, ActionKind, IllegalAction, LegalActions
from app.engine.betting import BettingRound
from app.engine.money import chips
from app.engine.state import Player

_DECIDE = frozenset({ActionKind.SHOW, ActionKind.MUCK})


def validate(
    action: Action, legal: LegalActions, rnd: BettingRound | None, p: Player
) -> tuple[ActionKind, int]:
    """The action's kind and "to" amount if `legal` allows it, else IllegalAction."""
    kind = action.kind
    if action.amount is None and (  # the common cases first
        (kind is ActionKind.CALL and legal.call is not None)
        or (kind is ActionKind.CHECK and legal.check)
        or (kind is ActionKind.FOLD and legal.fold)
    ):
        return kind, 0
    if type(kind) is not ActionKind:
        try:
            kind = ActionKind(kind)
        except ValueError:
            raise IllegalAction(f"Unknown action {action.kind!r}") from None
    amount = action.amount
    if amount is not None and type(amount) is not int:
        raise IllegalAction("The amount must be a whole number of chips")
    if kind in _DECIDE:
        if not (legal.show if kind is ActionKind.SHOW else legal.muck):
            raise IllegalAction("There is no show or muck decision now")
        if amount is not None:
            raise IllegalAction(f"{kind.value} takes no amount")
        return kind, 0
    if legal.show:
        raise IllegalAction("The betting is over: show or muck")
    if kind is ActionKind.FOLD or kind is ActionKind.CHECK:
        if amount is not None:
            raise IllegalAction(f"{kind.value} takes no amount")
        if legal.bring_in is not None:
            raise IllegalAction("You must bring in or complete; you may not fold or check")
        if kind is ActionKind.FOLD and not legal.fold:
            raise IllegalAction("Nothing to call: check instead of folding")
        if kind is ActionKind.CHECK and not legal.check:
            raise IllegalAction(f"You cannot check: {chips(legal.call or 0)} to call")
        return kind, 0
    if kind is ActionKind.CALL:
        if legal.call is None:
            if legal.bring_in is not None:
                raise IllegalAction("You must bring in or complete")
            raise IllegalAction("Nothing to call: check or bet")
        if amount is not None and amount != p.wager + legal.call:
            raise IllegalAction(f"A call is to {chips(p.wager + legal.call)}")
        return kind, p.wager + legal.call
    return kind, _wager_to(kind, amount, legal, rnd, p)


def _wager_to(
    kind: ActionKind, amount: int | None, legal: LegalActions, rnd: BettingRound | None, p: Player
) -> int:
    """The "to" amount of a bring-in, completion, bet or raise, else IllegalAction."""
    assert kind in WAGERS
    allowed: tuple[int, ...]
    if kind is ActionKind.BRING_IN:
        allowed, wrong = (() if legal.bring_in is None else (legal.bring_in,)), "The bring-in is {}"
    elif kind is ActionKind.COMPLETE:
        allowed, wrong = (() if legal.complete is None else (legal.complete,)), "Complete to {}"
    elif kind is ActionKind.BET:
        allowed, wrong = legal.bets, "Bet to {}"
    else:
        allowed, wrong = legal.raises, "Raise to {}"
    if not allowed:
        raise IllegalAction(why_not(kind, legal, rnd, p))
    if amount is None:
        if len(allowed) > 1:
            raise IllegalAction(wrong.format(" or ".join(chips(a) for a in allowed)))
        return allowed[0]
    if amount not in allowed:
        raise IllegalAction(wrong.format(" or ".join(chips(a) for a in allowed)))
    return amount


def why_not(kind: ActionKind, legal: LegalActions, rnd: BettingRound | None, p: Player) -> str:
    """Why a bring-in, completion, bet or raise is not allowed now."""
    if kind is ActionKind.BRING_IN:
        return "Only the bring-in player brings in, before anyone else acts"
    if legal.bring_in is not None:
        return "You must bring in or complete"
    if legal.complete is not None:
        return "Third street is not completed yet: complete to the small bet"
    if legal.bets and kind is ActionKind.RAISE:
        return "There is no bet to raise: bet"
    if legal.raises and kind is ActionKind.BET:
        return "There is a bet already: raise"
    assert rnd is not None
    if kind is ActionKind.COMPLETE and rnd.completed:
        return "There is nothing to complete"
    reason = rnd.why_no_raise(p)
    if reason:
        return reason
    return "You have no chips beyond the call: you may only call or fold"
