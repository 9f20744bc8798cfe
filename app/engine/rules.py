"""A table's settings for one hand and the seats dealt in (docs/rules.md R1, R2, R4, R19, R22)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.engine.variants import Variant, VariantSpec, spec_of

MAX_SEATS = 8
"""Seat numbers are 0..7; clockwise is increasing seat number, wrapping (R5)."""

TimeoutAction = Literal["all_in", "fold"]
ShowdownFirst = Literal["first_to_act", "lowest_seat"]
OpenPair = Literal["r14", "rp10f"]


@dataclass(frozen=True, slots=True)
class Rules:
    """The stakes and house settings; every chip amount is an int in the table's chip unit.

    `rake_bps` is the rake in basis points (500 = 5%); `rake_cap` None or 0 means uncapped
    (R4: a cap of 0 is no cap; it is kept as None). `raise_cap` False lifts R16's cap of a bet
    and three raises (R29: a tournament's last two players). `open_pair` is the fourth-street
    open pair of Stud Hi (R30): "r14" allows the big bet as R14 says, "rp10f" does not (TDA
    RP-10-F: fourth-street bets and raises are the small bet, open pair or not).
    """

    variant: Variant
    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    rake_bps: int = 0
    rake_cap: int | None = None
    rake_third_street: bool = False
    timeout_action: TimeoutAction = "all_in"
    showdown_first_when_checked: ShowdownFirst = "first_to_act"
    raise_cap: bool = True
    open_pair: OpenPair = "r14"

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", spec_of(self.variant).variant)
        for name in ("ante", "bring_in", "small_bet", "big_bet", "rake_bps"):
            value = getattr(self, name)
            if type(value) is not int:
                raise ValueError(f"{name} must be an int number of chips, not {value!r}")
        if self.small_bet <= 0:
            raise ValueError("the small bet must be positive")
        if self.big_bet != 2 * self.small_bet:
            raise ValueError("the big bet must be twice the small bet (R2)")
        if not 0 < self.bring_in <= self.small_bet:
            raise ValueError("the bring-in must be positive and at most the small bet")
        if self.ante < 0:
            raise ValueError("the ante cannot be negative")
        if not 0 <= self.rake_bps <= 10_000:
            raise ValueError("rake_bps must be between 0 and 10000")
        if self.rake_cap is not None and (type(self.rake_cap) is not int or self.rake_cap < 0):
            raise ValueError("rake_cap must be None (uncapped) or a non-negative int")
        if self.rake_cap == 0:
            object.__setattr__(self, "rake_cap", None)
        if self.timeout_action not in ("all_in", "fold"):
            raise ValueError("timeout_action must be 'all_in' or 'fold'")
        if self.showdown_first_when_checked not in ("first_to_act", "lowest_seat"):
            raise ValueError("showdown_first_when_checked must be 'first_to_act' or 'lowest_seat'")
        if type(self.raise_cap) is not bool:
            raise ValueError("raise_cap must be True or False")
        if self.open_pair not in ("r14", "rp10f"):
            raise ValueError("open_pair must be 'r14' or 'rp10f'")

    @property
    def spec(self) -> VariantSpec:
        return spec_of(self.variant)


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A player dealt into the hand: their table seat (0..7) and stack (> 0)."""

    seat: int
    stack: int

    def __post_init__(self) -> None:
        if type(self.seat) is not int or not 0 <= self.seat < MAX_SEATS:
            raise ValueError(f"seat must be 0..{MAX_SEATS - 1}, not {self.seat!r}")
        if type(self.stack) is not int or self.stack <= 0:
            raise ValueError(f"seat {self.seat}: the stack must be a positive int")
