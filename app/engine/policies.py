"""Seeded action policies for simulations, tests and benchmarks (never used at a real table).

A policy picks one action from `LegalActions`. `random_policy` can take every legal action,
folds, all-ins and the fourth-street big bet included; `calldown_policy` always checks or
calls (and brings in, when it must), so every hand goes to a showdown.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from app.engine.actions import WAGERS, Action, ActionKind, LegalActions
from app.engine.hand import Hand

Policy = Callable[[LegalActions], Action]

_FOLD = Action(ActionKind.FOLD)
_CHECK = Action(ActionKind.CHECK)
_CALL = Action(ActionKind.CALL)
_SHOW = Action(ActionKind.SHOW)
_MUCK = Action(ActionKind.MUCK)


def calldown_policy(legal: LegalActions) -> Action:
    """Check, call, or bring in; at a show/muck choice, muck (the default, R23)."""
    if legal.check:
        return _CHECK
    if legal.call is not None:
        return _CALL
    if legal.bring_in is not None:
        return Action(ActionKind.BRING_IN, legal.bring_in)
    if legal.muck:
        return _MUCK
    if legal.show:
        return _SHOW
    actions = legal.actions()
    if not actions:
        raise ValueError(f"seat {legal.seat} has no legal action")
    return actions[0]


def random_policy(rng: random.Random, *, fold: float = 0.12, wager: float = 0.35) -> Policy:
    """Random legal play from a seeded source.

    Folding (when it costs something) has weight `fold`, a wager (bring-in, completion, bet or
    raise, at any legal amount) `wager`, and checking or calling the rest, so that hands reach
    the later streets and showdowns often. Show or muck is a coin toss.
    """
    check_or_call = max(0.0, 1.0 - fold - wager)

    def choose(legal: LegalActions) -> Action:
        if legal.show or legal.muck:
            if legal.show and legal.muck:
                return _SHOW if rng.random() < 0.5 else _MUCK
            return _SHOW if legal.show else _MUCK
        wagers = [action for action in legal.actions() if action.kind in WAGERS]
        passive: Action | None = None
        if legal.check:
            passive = _CHECK
        elif legal.call is not None:
            passive = _CALL
        options: list[tuple[float, Action | list[Action]]] = []
        if legal.fold and not legal.check:
            options.append((fold, _FOLD))
        if passive is not None:
            options.append((check_or_call, passive))
        if wagers:
            options.append((wager, wagers))
        if not options:
            if legal.fold:
                return _FOLD
            raise ValueError(f"seat {legal.seat} has no legal action")
        option = rng.choices([o for _, o in options], [w for w, _ in options])[0]
        if isinstance(option, list):
            return rng.choice(option)
        return option

    return choose


POLICIES: dict[str, Callable[[random.Random], Policy]] = {
    "random": random_policy,
    "calldown": lambda _rng: calldown_policy,
}


def play_out(hand: Hand, policy: Policy) -> Hand:
    """Drive a started hand to its end, every decision taken by `policy`."""
    while not hand.is_over:
        seat = hand.to_act
        if seat is None:  # pragma: no cover - the engine always has someone to act
            raise RuntimeError("the hand is stuck: nobody is to act")
        hand.act(seat, policy(hand.legal_actions()))
    return hand
