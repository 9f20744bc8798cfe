"""The five streets of seven card stud as data: what is dealt, the bet, who opens (R2, R4,
R7–R14). The flow reads this table instead of asking which street number it is on, as
pokerkit's `Street` does."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Opener(Enum):
    """Who acts first on a street."""

    BRING_IN = "bring_in"  # R10, R13: the door card decides; the first wager is forced
    BEST_BOARD = "best_board"  # R12: the best face-up cards decide


@dataclass(frozen=True, slots=True, eq=False)  # each street is one object: `is` and index fast
class Street:
    """One street. `number` is also how many cards each player holds after it (R5, R8).

    `faces` holds one entry per card dealt to each player still in, in dealing order, True
    when face up (R7, R8); `burn` says a card is burned first (R8); `big_bet` sets the bet
    (R2); `open_pair_option` says the R14 choice of bet may apply here (in the variants that
    have it); `raked` says a hand that ends here pays rake without `rake_third_street` (R4);
    `last` is the river: the showdown follows it and the community card can only be dealt
    here (R9).
    """

    number: int
    faces: tuple[bool, ...]
    burn: bool
    big_bet: bool
    opener: Opener
    open_pair_option: bool
    raked: bool
    last: bool

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # a copied or pickled hand keeps the table's own street, so `is` and index still hold
        return street_of, (self.number,)


THIRD = Street(3, (False, False, True), False, False, Opener.BRING_IN, False, False, False)
FOURTH = Street(4, (True,), True, False, Opener.BEST_BOARD, True, True, False)
FIFTH = Street(5, (True,), True, True, Opener.BEST_BOARD, False, True, False)
SIXTH = Street(6, (True,), True, True, Opener.BEST_BOARD, False, True, False)
SEVENTH = Street(7, (False,), True, True, Opener.BEST_BOARD, False, True, True)

STREETS: tuple[Street, ...] = (THIRD, FOURTH, FIFTH, SIXTH, SEVENTH)
"""In the order they are dealt."""

BRING_IN = Opener.BRING_IN
"""For the hot path: a module constant is quicker to reach than an enum member."""

_BY_NUMBER = {s.number: s for s in STREETS}


def street_of(number: int) -> Street:
    """The street of that number (3..7), as events and results carry it."""
    return _BY_NUMBER[number]
