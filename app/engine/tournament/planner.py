"""From "N players, about H hours, this speed" to a level table (docs/rules.md R26).

A tournament is taken to end about when the small bet reaches a twentieth of all the chips
(`END_DIVISOR`): the last players then hold a few small bets each and every hand is for their
stacks. The planner climbs the small-bet ladder of structure.py from the speed's first small
bet (`DEPTH`) by the speed's step (`STEP` ladder rungs a level: normal x1.2-1.33, turbo about
x1.5, hyper about x2), counts the levels before that end, and makes each of them last the
minutes that bring the total (breaks included) to H hours. A level is never shorter than
`MIN_HANDS_PER_LEVEL` hands at a full table's pace; when H hours would make them shorter, the
step grows until they are not. The levels go on past the end until the small bet is above all
the chips, so the tournament always ends.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from app.engine.tournament.structure import (
    BREAK_EVERY,
    BREAK_MINUTES,
    DEPTH,
    SPEEDS,
    Level,
    Structure,
    build,
    first_small_bet,
    ladder,
)

HANDS_PER_HOUR = {2: 110, 3: 95, 4: 85, 5: 77, 6: 70, 7: 65, 8: 60}
"""Stud hands dealt an hour at a table of this many players, online with a short action clock.

A reading, not a measurement: the figures commonly given for online limit games are about 60
hands an hour at a full ring and more short-handed (fewer players to act on each of five
streets), against about 30 an hour at a live table with a dealer. Used to keep levels long
enough to play (`MIN_HANDS_PER_LEVEL`) and to tell a host how many hands a level lasts."""

END_DIVISOR = 20
"""The tournament is estimated to end when the small bet reaches total chips / 20."""
STEP = {"normal": 1, "turbo": 2, "hyper": 3}
"""Ladder rungs a level climbs."""
MIN_HANDS_PER_LEVEL = 5
BREAKS_FROM_HOURS = 2
"""Normal speed plans of this many hours or more have a 5-minute break every 6 levels."""


def hands_per_level(minutes: int, seated: int) -> int:
    """About how many hands a level of `minutes` lasts at a table of `seated` players."""
    return minutes * HANDS_PER_HOUR[min(max(seated, 2), 8)] // 60


def end_index(levels: Iterable[Level], total_chips: int) -> int | None:
    """The index of the first playing level whose small bet reaches total / `END_DIVISOR`:
    where the tournament is estimated to end (None if no level does)."""
    for index, level in enumerate(levels):
        if not level.is_break and level.small_bet * END_DIVISOR >= total_chips:
            return index
    return None


def estimated_minutes(structure: Structure, total_chips: int) -> int:
    """The minutes of the levels (breaks included) before the estimated end."""
    end = end_index(structure.levels, total_chips)
    levels = structure.levels if end is None else structure.levels[:end]
    if any(level.minutes is None for level in levels):
        raise ValueError("a structure by hands has no length in minutes")
    return sum(level.minutes or 0 for level in levels)


def plan(
    players: int,
    hours: float,
    speed: str,
    starting_chips: int,
    *,
    seats_per_table: int = 8,
    rotation: bool = False,
) -> Structure:
    """A structure for `players` entrants expected to last about `hours` (see the module
    docstring)."""
    if type(players) is not int or players < 2:
        raise ValueError("a tournament needs at least two players")
    if type(hours) not in (int, float) or not 0 < hours <= 72:
        raise ValueError("hours must be more than 0 and at most 72")
    if speed not in SPEEDS:
        raise ValueError(f"speed must be one of {', '.join(SPEEDS)}")
    if seats_per_table not in HANDS_PER_HOUR:
        raise ValueError("a stud table seats 2 to 8 players")
    total = players * starting_chips
    rungs = ladder(first_small_bet(starting_chips, DEPTH[speed]), total)
    shortest = math.ceil(MIN_HANDS_PER_LEVEL * 60 / HANDS_PER_HOUR[seats_per_table])
    breaks = speed == "normal" and hours >= BREAKS_FROM_HOURS
    for step in range(STEP[speed], len(rungs) + 1):
        smalls = rungs[::step]
        if smalls[-1] <= total:
            smalls.append(rungs[-1])
        before_end = max(1, next(i for i, s in enumerate(smalls) if s * END_DIVISOR >= total))
        pauses = before_end // BREAK_EVERY if breaks else 0  # the one just before the end too
        minutes = round((60 * hours - BREAK_MINUTES * pauses) / before_end)
        if minutes >= shortest:
            return build(smalls, minutes=minutes, hands=None, breaks=breaks, rotation=rotation)
    raise ValueError(f"{hours} hours is too short for levels of {shortest} minutes")
