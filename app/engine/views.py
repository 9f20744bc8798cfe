"""The hand as one seat, or an observer, may see it: JSON-friendly snapshots.

Nobody sees another seat's face-down cards until that seat shows them; a folded or mucked
hand's down cards are never shown to anyone but their owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.engine.events import HandShown
from app.engine.hand import Hand
from app.engine.pots import Pot
from app.engine.state import Player


def view_for(hand: Hand, seat: int) -> dict[str, Any]:
    """What the player in `seat` may see, with their legal actions when it is their turn."""
    if seat not in hand.by_seat:
        raise KeyError(f"seat {seat} is not in this hand")
    return _view(hand, seat)


def observer_view(hand: Hand) -> dict[str, Any]:
    """What someone watching the table may see."""
    return _view(hand, None)


def _view(hand: Hand, viewer: int | None) -> dict[str, Any]:
    shown = {e.seat: e for e in hand.events if isinstance(e, HandShown)}
    view: dict[str, Any] = {
        "variant": hand.rules.variant.value,
        "street": hand.street,
        "phase": hand.phase.value,
        "button": hand.button,
        "to_act": hand.to_act,
        "viewer": viewer,
        "community": None if hand.community is None else str(hand.community),
        "seats": [_seat(p, viewer, shown.get(p.seat)) for p in hand.players],
        "pots": _pots(hand.pots()),
        "legal": None,
        "result": None,
    }
    if viewer is not None and hand.to_act == viewer:
        view["legal"] = hand.legal_actions().to_dict()
    if hand.result is not None:
        result = hand.result
        view["pots"] = _pots(result.pots)
        view["result"] = {
            "rake": result.rake,
            "showdown": result.showdown,
            "awards": [
                {"pot": a.pot, "seat": a.seat, "amount": a.amount, "share": a.share}
                for a in result.awards
            ],
            "stacks": {str(s): stack for s, stack in result.stacks.items()},
        }
    return view


POT_EVENTS = frozenset({"street_started", "showdown_started", "hand_ended"})


def pots_now(hand: Hand) -> list[dict[str, Any]]:
    """The pots after the hand's last step: the chips of the streets before this one (a
    street's wagers join them when it ends); once the hand is over, the pots it was settled
    with (before the rake). The table adds them to the step's `POT_EVENTS`: no wager comes
    between two of those within one step."""
    return _pots(hand.result.pots if hand.result is not None else hand.pots())


def _pots(pots: Sequence[Pot]) -> list[dict[str, Any]]:
    return [{"amount": pot.amount, "eligible": list(pot.eligible)} for pot in pots]


def _seat(p: Player, viewer: int | None, shown: HandShown | None) -> dict[str, Any]:
    down = p.down
    visible: list[str] | None = None
    if p.seat == viewer or shown is not None:
        visible = [str(c) for c in down]
    return {
        "seat": p.seat,
        "stack": p.stack,
        "wager": p.wager,
        "folded": p.folded,
        "all_in": p.all_in,
        "up": [str(c) for c in p.up],
        "down_count": len(down),
        "down": visible,
        "shown": p.shown,
        "mucked": p.mucked,
        "high": shown.high if shown else None,
        "low": shown.low if shown else None,
    }
