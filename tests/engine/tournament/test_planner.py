"""The planner: N players, about H hours, a speed -> levels (docs/rules.md R26)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from app.engine.tournament.planner import (
    END_DIVISOR,
    HANDS_PER_HOUR,
    end_index,
    estimated_minutes,
    hands_per_level,
    plan,
)
from app.engine.tournament.structure import SPEEDS, preset

CASES = [
    (players, hours, speed, chips)
    for players, chips in (
        (2, 1500),
        (6, 1500),
        (9, 3000),
        (45, 5000),
        (180, 10_000),
        (1000, 20_000),
    )
    for hours in (0.5, 1, 2, 4, 8)
    for speed in SPEEDS
]


@pytest.mark.parametrize(("players", "hours", "speed", "chips"), CASES)
def test_r26_the_plan_lasts_about_the_hours_asked(
    players: int, hours: float, speed: str, chips: int
) -> None:
    structure = plan(players, hours, speed, chips)
    structure.validate()
    total = players * chips
    minutes = estimated_minutes(structure, total)  # up to the small bet reaching total / 20
    assert 0.75 * 60 * hours <= minutes <= 1.25 * 60 * hours, (minutes, structure.levels[0])
    playing = [level for level in structure.levels if not level.is_break]
    assert all(a.small_bet < b.small_bet for a, b in pairwise(playing))
    assert all(a.ante <= b.ante and a.bring_in <= b.bring_in for a, b in pairwise(playing))
    assert playing[-1].small_bet > total  # the tournament always ends
    assert all((level.minutes or 0) >= 5 for level in structure.levels)


def test_r26_speed_sets_how_deep_it_starts_and_how_steep_it_climbs() -> None:
    normal, hyper = plan(100, 3, "normal", 10_000), plan(100, 3, "hyper", 10_000)
    assert normal.levels[0].small_bet == 100 and hyper.levels[0].small_bet == 200
    n0, n1 = normal.levels[0].small_bet, normal.levels[1].small_bet
    h0, h1 = hyper.levels[0].small_bet, hyper.levels[1].small_bet
    assert n1 / n0 < 1.34 < h1 / h0
    assert any(level.is_break for level in normal.levels)  # normal, 2 hours or more
    assert not any(level.is_break for level in hyper.levels)


def test_r26_a_longer_plan_has_longer_levels_and_rotation_sets_variants() -> None:
    short, long = plan(50, 1, "normal", 5000), plan(50, 6, "normal", 5000)
    assert (long.levels[0].minutes or 0) > (short.levels[0].minutes or 0)
    rotating = plan(50, 2, "turbo", 5000, rotation=True)
    assert [lv.variant for lv in rotating.levels[:3]] == ["stud", "stud8", "razz"]


def test_r26_the_estimated_end_is_the_small_bet_reaching_a_twentieth_of_the_chips() -> None:
    structure = preset("turbo", 1000)
    index = end_index(structure.levels, 20_000)
    assert index is not None
    assert structure.levels[index].small_bet * END_DIVISOR >= 20_000
    assert structure.levels[index - 1].small_bet * END_DIVISOR < 20_000
    assert estimated_minutes(structure, 20_000) == 10 * index
    with pytest.raises(ValueError, match="by hands"):
        estimated_minutes(preset("turbo", 1000, by_hands=10), 20_000)


def test_r26_hands_per_hour_is_faster_short_handed() -> None:
    assert 55 <= HANDS_PER_HOUR[8] <= 65
    paces = [HANDS_PER_HOUR[n] for n in range(2, 9)]
    assert paces == sorted(paces, reverse=True)
    assert hands_per_level(20, 8) == 20 and hands_per_level(10, 2) > hands_per_level(10, 8)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 2, "normal", 1000), "two players"),
        ((10, 0, "normal", 1000), "hours"),
        ((10, 2, "slow", 1000), "speed"),
        ((10, 0.05, "normal", 1000), "too short"),
    ],
)
def test_r26_the_planner_refuses_what_it_cannot_plan(
    args: tuple[int, float, str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        plan(*args)
    with pytest.raises(ValueError, match="2 to 8"):
        plan(10, 2, "normal", 1000, seats_per_table=9)
