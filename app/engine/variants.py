"""The three games as data plus small hooks, in one registry (docs/design.md, "Engine")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from app.engine.cards import Card
from app.engine.evaluate import LowHand, low_eight, low_eight_value, low_razz, low_razz_value


class Variant(StrEnum):
    """A game's short name; the values are what settings, events and files carry."""

    STUD = "stud"
    STUD8 = "stud8"
    RAZZ = "razz"


@dataclass(frozen=True, slots=True)
class LowRule:
    """How a game finds a low (R20): `value` is the evaluate.py int (greater is better, 0 when
    the cards make no low) and `hand` the low itself, None when there is none."""

    name: str
    value: Callable[[Sequence[Card]], int]
    hand: Callable[[Sequence[Card]], LowHand | None]

    def describe(self, cards: Sequence[Card]) -> str | None:
        """The low in words (``"8-6-4-2-A low"``), None when the cards make none."""
        hand = self.hand(cards)
        return hand.describe() if hand else None

    def odd_chip_key(self, cards: Sequence[Card]) -> int:
        """R21: the highest card of the low five with aces low, then its suit; greater wins
        the odd chip. Only asked of a hand that has a low."""
        hand = self.hand(cards)
        assert hand is not None
        return max(((c >> 2) + 1) % 13 * 4 + (c & 3) for c in hand.cards)


EIGHT_OR_BETTER = LowRule("eight-or-better", low_eight_value, low_eight)
RAZZ_LOW = LowRule("razz", low_razz_value, low_razz)


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """What makes one game different from the others.

    `razz` picks the bring-in and first-to-act orderings (R10, R12); `high` and `low` say how a
    pot is shared (R20: `low` is the game's `LowRule`, None in Stud Hi); `open_pair_option` is
    the fourth-street big bet (R14).
    """

    variant: Variant
    title: str
    phh_code: str
    razz: bool
    high: bool
    low: LowRule | None
    open_pair_option: bool


VARIANTS: dict[Variant, VariantSpec] = {
    Variant.STUD: VariantSpec(
        Variant.STUD, "Seven Card Stud", "F7S", False, True, None, open_pair_option=True
    ),
    Variant.STUD8: VariantSpec(
        Variant.STUD8, "Seven Card Stud Hi/Lo", "F7S/8", False, True, EIGHT_OR_BETTER, False
    ),
    Variant.RAZZ: VariantSpec(Variant.RAZZ, "Razz", "FR", True, False, RAZZ_LOW, False),
}


ROTATION: tuple[Variant, ...] = (Variant.STUD, Variant.STUD8, Variant.RAZZ)
"""The order of a game rotation (Stud Hi, Stud Hi/Lo, Razz, and again): a tournament's levels
(R26) and a rotation table's steps (R45) both follow it."""


def next_game(variant: Variant) -> Variant:
    """The game after `variant` in the rotation."""
    return ROTATION[(ROTATION.index(variant) + 1) % len(ROTATION)]


def spec_of(variant: str) -> VariantSpec:
    """The registry entry of a variant name (``"stud"``, ``"stud8"`` or ``"razz"``)."""
    try:
        return VARIANTS[Variant(variant)]
    except ValueError:
        raise ValueError(f"unknown variant {variant!r}; use stud, stud8 or razz") from None
