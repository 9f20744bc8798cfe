"""A tournament's levels (docs/rules.md R26, R30): the stakes, how long each lasts, breaks.

A level is an ante, a bring-in and the two limits, lasting a number of minutes or a number
of hands (the tournament's hands dealt since the level began, summed over its tables: a level
by hands ends for everyone at once). A break is a level too: no dealing for its minutes, its
stakes are those of the level before. Past the last level its stakes stay.

Presets (`preset`) follow real stud structures: the small bets climb the ladder 10, 12, 15,
20, 25, 30, 40, 50, 60, 80, then the same times 10, 100, … (x1.2 to x1.33 a step); the ante
is the ladder value nearest a fifth of the small bet and the bring-in the one nearest three
tenths of it (values under 10 are whole chips rounded half up), so limits 2,500/5,000 play
with an ante of 500 and a bring-in of 800. Chips are worth 1: every amount is a whole number
of chips and no chip race is ever needed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from app.engine.variants import ROTATION as GAMES
from app.engine.variants import Variant

VARIANTS = tuple(v.value for v in Variant)  # "stud", "stud8", "razz"
ROTATION = tuple(v.value for v in GAMES)
"""The order of a variant rotation, level by level (the engine's one order, variants.py)."""
OPEN_PAIRS = ("r14", "rp10f")
SPEEDS = ("normal", "turbo", "hyper")

LADDER_STEPS = (10, 12, 15, 20, 25, 30, 40, 50, 60, 80)
"""One decade of the small-bet ladder; the next decade is these times 10."""

DEPTH = {"normal": 100, "turbo": 75, "hyper": 50}
"""The first small bet is the ladder value at or below starting chips / depth."""
MINUTES = {"normal": 20, "turbo": 10, "hyper": 5}
BREAK_EVERY = 6  # normal speed by time: a break after every sixth level
BREAK_MINUTES = 5
MIN_DEPTH = 20  # a stack starts with at least this many small bets
MAX_ENTRANTS = 10_000
"""A preset's levels go on until the small bet is above this many starting stacks."""

_LEVEL_KEYS = ("ante", "bring_in", "small_bet", "big_bet", "minutes", "hands", "is_break")


def _int(value: object) -> bool:
    return type(value) is int


@dataclass(frozen=True, slots=True)
class Level:
    """One level's stakes and length; see the module docstring."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    minutes: int | None = None
    hands: int | None = None
    is_break: bool = False
    variant: str | None = None

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise ValueError(problem)

    def problem(self) -> str | None:
        """What is wrong with this level on its own, or None."""
        for name in ("ante", "bring_in", "small_bet", "big_bet"):
            if not _int(getattr(self, name)):
                return f"{name} must be a whole number of chips, not {getattr(self, name)!r}"
        if self.small_bet <= 0 or self.ante < 0:
            return "the small bet must be positive and the ante not negative"
        if self.big_bet != 2 * self.small_bet:
            return "the big bet must be twice the small bet"
        if not 1 <= self.bring_in < self.small_bet:
            return "the bring-in must be at least 1 chip and below the small bet"
        if self.ante >= self.small_bet:
            return "the ante must be below the small bet"
        for name in ("minutes", "hands"):
            value = getattr(self, name)
            if value is not None and (not _int(value) or value <= 0):
                return f"{name} must be a positive whole number, not {value!r}"
        if type(self.is_break) is not bool:
            return "is_break must be true or false"
        if self.is_break:
            if self.minutes is None or self.hands is not None or self.variant is not None:
                return "a break lasts a number of minutes, not hands, and has no variant"
        elif (self.minutes is None) == (self.hands is None):
            return "a level lasts either a number of minutes or a number of hands"
        if self.variant is not None and self.variant not in VARIANTS:
            return f"variant must be one of {', '.join(VARIANTS)} or null, not {self.variant!r}"
        return None

    def same_stakes(self, other: Level) -> bool:
        return (self.ante, self.bring_in, self.small_bet) == (
            other.ante,
            other.bring_in,
            other.small_bet,
        )

    def over(self, seconds: float, hands: int) -> bool:
        """Whether the level has run its course after `seconds` of play (breaks: of the
        break) and `hands` hands dealt since it began."""
        if self.hands is not None:
            return hands >= self.hands
        assert self.minutes is not None
        return seconds >= 60 * self.minutes

    def to_dict(self) -> dict[str, Any]:
        return {
            "ante": self.ante,
            "bring_in": self.bring_in,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "minutes": self.minutes,
            "hands": self.hands,
            "is_break": self.is_break,
            "variant": self.variant,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Level:
        if not isinstance(d, Mapping):
            raise ValueError(f"a level is an object, not {d!r}")
        unknown = sorted(set(d) - {*_LEVEL_KEYS, "variant"})
        if unknown:
            raise ValueError(f"a level has no field {', '.join(map(repr, unknown))}")
        missing = [k for k in ("ante", "bring_in", "small_bet", "big_bet") if k not in d]
        if missing:
            raise ValueError(f"a level needs {', '.join(missing)}")
        variant = d.get("variant")
        if variant is not None and not isinstance(variant, str):
            raise ValueError(f"variant must be a name or null, not {variant!r}")
        return cls(
            d["ante"],
            d["bring_in"],
            d["small_bet"],
            d["big_bet"],
            d.get("minutes"),
            d.get("hands"),
            d.get("is_break", False),
            variant,
        )


def _goes_down(before: Level, level: Level) -> str | None:
    """R26: stakes never go down from one playing level to the next."""
    for name, words in (("ante", "ante"), ("bring_in", "bring-in"), ("small_bet", "small bet")):
        if getattr(level, name) < getattr(before, name):
            return f"the {words} goes down"
    return None


@dataclass(frozen=True, slots=True)
class Structure:
    """The levels in order and the fourth-street open-pair rule (R30): ``"r14"`` (a Stud Hi
    open pair on fourth street allows the big bet) or ``"rp10f"`` (TDA RP-10-F: it does not,
    fourth-street bets stay small). Always valid: the constructor calls `validate`."""

    levels: tuple[Level, ...]
    open_pair: str = "r14"

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", tuple(self.levels))
        self.validate()

    def validate(self) -> None:
        """ValueError naming the first wrong level (numbered from 1)."""
        if self.open_pair not in OPEN_PAIRS:
            raise ValueError(f"open_pair must be one of {', '.join(OPEN_PAIRS)}")
        if not any(not lv.is_break for lv in self.levels):
            raise ValueError("a structure needs at least one playing level")
        before: Level | None = None  # the last playing level
        for number, level in enumerate(self.levels, 1):
            problem = level.problem() if isinstance(level, Level) else "not a Level"
            if problem is None and level.is_break:
                if before is None:
                    problem = "a break cannot be the first level"
                elif not level.same_stakes(before):
                    problem = "a break keeps the stakes of the level before it"
                elif number == len(self.levels):
                    problem = "a break cannot be the last level"
            if problem is None and before is not None and not level.is_break:
                problem = _goes_down(before, level)
            if problem:
                kind = " (a break)" if isinstance(level, Level) and level.is_break else ""
                raise ValueError(f"level {number}{kind}: {problem}")
            if not level.is_break:
                before = level

    def playing_level(self, index: int) -> Level:
        """The level whose stakes are in force at level `index` (0-based): a break's are the
        level's before it; past the last level, the last level's."""
        if type(index) is not int or index < 0:
            raise ValueError(f"a level index is a whole number from 0, not {index!r}")
        for level in reversed(self.levels[: index + 1]):
            if not level.is_break:
                return level
        raise AssertionError("validate() keeps a break from being first")

    def to_dict(self) -> dict[str, Any]:
        return {"open_pair": self.open_pair, "levels": [lv.to_dict() for lv in self.levels]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Structure:
        if not isinstance(d, Mapping):
            raise ValueError(f"a structure is an object, not {d!r}")
        unknown = sorted(set(d) - {"levels", "open_pair"})
        if unknown:
            raise ValueError(f"a structure has no field {', '.join(map(repr, unknown))}")
        levels = d.get("levels")
        if not isinstance(levels, list):
            raise ValueError("a structure needs a list of levels")
        parsed = []
        for number, item in enumerate(levels, 1):
            try:
                parsed.append(Level.from_dict(item))
            except ValueError as exc:
                raise ValueError(f"level {number}: {exc}") from None
        return cls(tuple(parsed), d.get("open_pair", "r14"))


# -- the ladder and the presets -----------------------------------------------------------


def ladder(start: int, stop: int) -> list[int]:
    """The ladder's small bets from the first at or above `start` up to the first above
    `stop`, inclusive."""
    out: list[int] = []
    scale = 1
    while True:
        for step in LADDER_STEPS:
            value = step * scale
            if value >= start:
                out.append(value)
                if value > stop:
                    return out
        scale *= 10


def rung_at_most(value: Fraction | int) -> int:
    """The highest ladder value at or below `value` (the ladder's first, 10, at least)."""
    best = LADDER_STEPS[0]
    for rung in ladder(LADDER_STEPS[0], max(int(value), LADDER_STEPS[0])):
        if rung <= value:
            best = rung
    return best


def nice(value: Fraction | int) -> int:
    """`value` rounded to the nearest ladder value (by ratio; ties go up), or below 10 to the
    nearest whole chip (halves up), at least 1."""
    if value < LADDER_STEPS[0]:
        return max(1, math.floor(value + 0.5))
    below = rung_at_most(value)
    above = next(r for r in ladder(below, int(value) + 1) if r >= value)
    return below if value * value < below * above else above


def stakes(small_bet: int) -> Level:
    """A preset level's stakes for this small bet (time and variant set afterwards)."""
    ante, bring_in = nice(Fraction(small_bet, 5)), nice(Fraction(3 * small_bet, 10))
    return Level(ante, bring_in, small_bet, 2 * small_bet, minutes=1)


def first_small_bet(starting_chips: int, depth: int) -> int:
    if not _int(starting_chips) or starting_chips <= 0:
        raise ValueError("starting chips must be a positive whole number")
    small = rung_at_most(Fraction(starting_chips, depth))
    if starting_chips < MIN_DEPTH * small:
        raise ValueError(
            f"starting chips must be at least {MIN_DEPTH * LADDER_STEPS[0]}"
            f" ({MIN_DEPTH} small bets of {LADDER_STEPS[0]})"
        )
    return small


def build(
    smalls: list[int],
    *,
    minutes: int | None,
    hands: int | None,
    breaks: bool,
    rotation: bool,
) -> Structure:
    """Levels at these small bets, each `minutes` or `hands` long, a break after every
    `BREAK_EVERY` levels when `breaks`, variants rotating when `rotation`."""
    levels: list[Level] = []
    for i, small in enumerate(smalls):
        variant = ROTATION[i % len(ROTATION)] if rotation else None
        level = replace(stakes(small), minutes=minutes, hands=hands, variant=variant)
        if breaks and i and i % BREAK_EVERY == 0:
            levels.append(replace(levels[-1], minutes=BREAK_MINUTES, is_break=True, variant=None))
        levels.append(level)
    return Structure(tuple(levels))


def preset(
    speed: str,
    starting_chips: int,
    *,
    by_hands: int | None = None,
    variant_rotation: bool = False,
    max_entrants: int = MAX_ENTRANTS,
) -> Structure:
    """A ready structure: normal (20-minute levels, first small bet about 1/100 of the stack,
    a 5-minute break every 6 levels), turbo (10 minutes, about 1/75) or hyper (5 minutes,
    about 1/50); with `by_hands`, every level lasts that many hands and there are no breaks.
    The small bet rises one ladder step a level until it is above `max_entrants` starting
    stacks, so the tournament always ends."""
    if speed not in SPEEDS:
        raise ValueError(f"speed must be one of {', '.join(SPEEDS)}")
    if by_hands is not None and (not _int(by_hands) or by_hands <= 0):
        raise ValueError("by_hands must be a positive whole number of hands")
    first = first_small_bet(starting_chips, DEPTH[speed])
    smalls = ladder(first, max_entrants * starting_chips)
    return build(
        smalls,
        minutes=None if by_hands else MINUTES[speed],
        hands=by_hands,
        breaks=speed == "normal" and by_hands is None,
        rotation=variant_rotation,
    )
