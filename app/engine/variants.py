"""The three games as data plus small hooks, in one registry (docs/design.md, "Engine")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Variant(StrEnum):
    """A game's short name; the values are what settings, events and files carry."""

    STUD = "stud"
    STUD8 = "stud8"
    RAZZ = "razz"


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """What makes one game different from the others.

    `razz` picks the bring-in and first-to-act orderings (R10, R12); `high` and `low` say how a
    pot is shared (R20: `low` is ``"eight"`` for eight-or-better, ``"razz"`` for razz, or
    ``None``); `open_pair_option` is the fourth-street big bet (R14).
    """

    variant: Variant
    title: str
    phh_code: str
    razz: bool
    high: bool
    low: str | None
    open_pair_option: bool


VARIANTS: dict[Variant, VariantSpec] = {
    Variant.STUD: VariantSpec(
        Variant.STUD, "Seven Card Stud", "F7S", False, True, None, open_pair_option=True
    ),
    Variant.STUD8: VariantSpec(
        Variant.STUD8, "Seven Card Stud Hi/Lo", "F7S/8", False, True, "eight", False
    ),
    Variant.RAZZ: VariantSpec(Variant.RAZZ, "Razz", "FR", True, False, "razz", False),
}


def spec_of(variant: str) -> VariantSpec:
    """The registry entry of a variant name (``"stud"``, ``"stud8"`` or ``"razz"``)."""
    try:
        return VARIANTS[Variant(variant)]
    except ValueError:
        raise ValueError(f"unknown variant {variant!r}; use stud, stud8 or razz") from None
