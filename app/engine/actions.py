"""Player commands, what the player to act may do, and the refusal of anything else."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"
    SHOW = "show"
    MUCK = "muck"


WAGERS = frozenset({ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})


@dataclass(frozen=True, slots=True)
class Action:
    """A command. For BRING_IN, COMPLETE, BET and RAISE `amount` is the seat's total wager on
    this street after the action (the "to" amount); it may be left out when only one amount
    is allowed. CALL may carry its "to" amount or nothing; the others carry nothing."""

    kind: ActionKind
    amount: int | None = None

    def __str__(self) -> str:
        return self.kind.value if self.amount is None else f"{self.kind.value} {self.amount}"


class IllegalAction(ValueError):
    """The action was refused; the message is written for the player. Nothing changed."""


@dataclass(frozen=True, slots=True)
class LegalActions:
    """Exactly what `seat` may do now. Wager amounts are "to" amounts; `call` is the chips a
    call adds (all-in for less when the stack is short). Empty/None/False means not allowed."""

    seat: int
    fold: bool = False
    check: bool = False
    call: int | None = None
    bring_in: int | None = None
    complete: int | None = None
    bets: tuple[int, ...] = ()
    raises: tuple[int, ...] = ()
    show: bool = False
    muck: bool = False

    def actions(self) -> list[Action]:
        """Every allowed action with its exact amount (one entry per bet/raise amount)."""
        out: list[Action] = []
        if self.fold:
            out.append(Action(ActionKind.FOLD))
        if self.check:
            out.append(Action(ActionKind.CHECK))
        if self.call is not None:
            out.append(Action(ActionKind.CALL))
        if self.bring_in is not None:
            out.append(Action(ActionKind.BRING_IN, self.bring_in))
        if self.complete is not None:
            out.append(Action(ActionKind.COMPLETE, self.complete))
        out.extend(Action(ActionKind.BET, a) for a in self.bets)
        out.extend(Action(ActionKind.RAISE, a) for a in self.raises)
        if self.show:
            out.append(Action(ActionKind.SHOW))
        if self.muck:
            out.append(Action(ActionKind.MUCK))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "fold": self.fold,
            "check": self.check,
            "call": self.call,
            "bring_in": self.bring_in,
            "complete": self.complete,
            "bets": list(self.bets),
            "raises": list(self.raises),
            "show": self.show,
            "muck": self.muck,
        }
