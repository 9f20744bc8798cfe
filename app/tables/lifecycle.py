"""A table's life cycle: where it is (`Lifecycle`, its allowed moves in `MOVES`) and what
holds its next hand back (`Hold`: the host's pause, the process draining). Both are data of
the table's state (`state.TableState.life`); a move that `MOVES` does not allow raises.

The `Table` (the actor) makes the moves of dealing (OPEN -> STARTING -> IN_HAND / SAVING ->
OPEN); the rules make the host's and the director's (CLOSING, CLOSED) and set or lift a
hold. Nothing outside the table's task changes either: the manager sends `messages.Drain`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Lifecycle(enum.Enum):
    """Where a table is in its life; the allowed moves are `MOVES`, made by `Life.move`."""

    OPEN = "open"  # no hand, none on its way: waits for players (or the host, or numbers)
    STARTING = "starting"  # the next hand is due after the pause
    IN_HAND = "in_hand"
    SAVING = "saving"  # the next hand waits for earlier hands' records (`MAX_UNWRITTEN`)
    CLOSING = "closing"  # closes when the hand being played ends
    CLOSED = "closed"


MOVES: dict[Lifecycle, frozenset[Lifecycle]] = {
    Lifecycle.OPEN: frozenset(
        {Lifecycle.STARTING, Lifecycle.IN_HAND, Lifecycle.CLOSING, Lifecycle.CLOSED}
    ),
    Lifecycle.STARTING: frozenset(
        {Lifecycle.OPEN, Lifecycle.IN_HAND, Lifecycle.SAVING, Lifecycle.CLOSING, Lifecycle.CLOSED}
    ),
    Lifecycle.SAVING: frozenset({Lifecycle.STARTING, Lifecycle.CLOSING, Lifecycle.CLOSED}),
    # to CLOSED in a hand: its lease went to another process, which voids the hand
    Lifecycle.IN_HAND: frozenset({Lifecycle.OPEN, Lifecycle.CLOSING, Lifecycle.CLOSED}),
    Lifecycle.CLOSING: frozenset({Lifecycle.CLOSED}),
    Lifecycle.CLOSED: frozenset(),
}


class Hold(enum.Flag):
    """What keeps an open table from dealing its next hand (a hand on plays to its end)."""

    NONE = 0
    PAUSED = enum.auto()  # the host's switch
    DRAINING = enum.auto()  # the process is stopping, or the table is being moved elsewhere


# a closed table holds nothing: it deals no more anyway
HOLDS_IN: frozenset[Lifecycle] = frozenset(set(Lifecycle) - {Lifecycle.CLOSED})


@dataclass(slots=True)
class Life:
    """The stage (`Lifecycle`) and its guarded sub-state, the holds on the next hand."""

    stage: Lifecycle = Lifecycle.OPEN
    hold: Hold = Hold.NONE

    def move(self, to: Lifecycle) -> None:
        if to not in MOVES[self.stage]:
            raise RuntimeError(f"no move from {self.stage} to {to}")
        self.stage = to

    def held(self, why: Hold, on: bool) -> None:
        """Set (`on`) or lift a hold; a closed table takes none."""
        if self.stage not in HOLDS_IN:
            return
        self.hold = self.hold | why if on else self.hold & ~why

    @property
    def paused(self) -> bool:
        return Hold.PAUSED in self.hold

    @property
    def draining(self) -> bool:
        return Hold.DRAINING in self.hold

    @property
    def closing(self) -> bool:
        return self.stage is Lifecycle.CLOSING

    @property
    def closed(self) -> bool:
        return self.stage is Lifecycle.CLOSED


__all__ = ["HOLDS_IN", "MOVES", "Hold", "Life", "Lifecycle"]
