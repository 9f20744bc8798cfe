"""A bot's fixed strategy: bring in, check or call to the end, muck what cannot win.

Bots act through the same `Act` command as people, after a short think (`bot_delay_ms`).
"""

from __future__ import annotations

from app.engine import Action, ActionKind, LegalActions


def bot_action(legal: LegalActions) -> Action:
    if legal.muck:
        return Action(ActionKind.MUCK)
    if legal.show:
        return Action(ActionKind.SHOW)
    if legal.bring_in is not None:
        return Action(ActionKind.BRING_IN, legal.bring_in)
    if legal.check:
        return Action(ActionKind.CHECK)
    if legal.call is not None:
        return Action(ActionKind.CALL)
    if legal.complete is not None:
        return Action(ActionKind.COMPLETE, legal.complete)
    return Action(ActionKind.FOLD)
