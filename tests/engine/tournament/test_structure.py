"""Levels, breaks and the presets (docs/rules.md R26, R30)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from app.engine.tournament.structure import (
    MAX_ENTRANTS,
    SPEEDS,
    Level,
    Structure,
    ladder,
    nice,
    preset,
    stakes,
)


def lv(small: int, **kw: Any) -> Level:
    settings: dict[str, Any] = {"minutes": 20} | kw
    return Level(small // 5, small * 3 // 10, small, 2 * small, **settings)


def pause(level: Level, minutes: int = 5) -> Level:
    return Level(level.ante, level.bring_in, level.small_bet, level.big_bet, minutes, None, True)


# -- levels and their checks ---------------------------------------------------------------


def test_r26_a_level_is_stakes_and_minutes_or_hands() -> None:
    by_time, by_hands = lv(100), lv(100, minutes=None, hands=30)
    assert (by_time.ante, by_time.bring_in, by_time.big_bet) == (20, 30, 200)
    assert by_time.over(1200, 0) and not by_time.over(1199.5, 10_000)
    assert by_hands.over(0, 30) and not by_hands.over(10**6, 29)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"ante": 1.5}, "whole number"),
        ({"ante": True}, "whole number"),
        ({"ante": -1}, "not negative"),
        ({"big_bet": 150}, "twice"),
        ({"bring_in": 0}, "bring-in"),
        ({"bring_in": 100}, "bring-in"),
        ({"ante": 100}, "ante must be below"),
        ({"minutes": None}, "either"),
        ({"hands": 10}, "either"),
        ({"minutes": 0}, "positive"),
        ({"variant": "holdem"}, "variant"),
        ({"is_break": 1}, "is_break"),
    ],
)
def test_r26_a_wrong_level_is_refused_saying_why(fields: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {
        "ante": 20,
        "bring_in": 30,
        "small_bet": 100,
        "big_bet": 200,
        "minutes": 20,
    } | fields
    with pytest.raises(ValueError, match=message):
        Level(**settings)


def test_r26_a_break_lasts_minutes_and_keeps_the_stakes_of_the_level_before() -> None:
    first, second = lv(100), lv(120)
    structure = Structure((first, pause(first), second))
    assert structure.playing_level(1) is first
    assert structure.playing_level(2) is second
    assert structure.playing_level(99) is second  # past the last level its stakes stay
    with pytest.raises(ValueError, match="minutes, not hands"):
        Level(20, 30, 100, 200, None, 20, True)


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ((), "at least one playing level"),
        ((pause(lv(100)), lv(100)), "level 1 \\(a break\\): a break cannot be the first"),
        ((lv(100), pause(lv(120)), lv(120)), "level 2 \\(a break\\): a break keeps the stakes"),
        ((lv(100), pause(lv(100))), "level 2 \\(a break\\): a break cannot be the last"),
        ((lv(100), lv(120), lv(100)), "level 3: the ante goes down"),
        ((lv(100), lv(120), Level(24, 36, 100, 200, 20)), "level 3: the small bet goes down"),
        ((lv(100), Level(25, 30, 100, 200, 20)), None),
        ((lv(100), Level(10, 30, 100, 200, 20)), "level 2: the ante goes down"),
    ],
)
def test_r26_a_structure_names_its_first_wrong_level(
    levels: tuple[Level, ...], message: str | None
) -> None:
    if message is None:
        Structure(levels).validate()
        return
    with pytest.raises(ValueError, match=message):
        Structure(levels)


def test_r26_a_structure_round_trips_through_plain_data() -> None:
    structure = Structure(
        (lv(100), pause(lv(100)), lv(120, variant="razz"), lv(150, minutes=None, hands=40)),
        open_pair="rp10f",
    )
    data = structure.to_dict()
    assert data["levels"][1] == {
        "ante": 20,
        "bring_in": 30,
        "small_bet": 100,
        "big_bet": 200,
        "minutes": 5,
        "hands": None,
        "is_break": True,
        "variant": None,
    }
    assert Structure.from_dict(data) == structure
    bare = {"ante": 0, "bring_in": 5, "small_bet": 10, "big_bet": 20, "hands": 8}
    assert Structure.from_dict({"levels": [bare]}) == Structure((Level(0, 5, 10, 20, None, 8),))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "an object"),
        ({"levels": "x"}, "a list of levels"),
        ({"levels": [], "speed": "turbo"}, "no field 'speed'"),
        ({"levels": [{"ante": 1}]}, "level 1: a level needs bring_in, small_bet, big_bet"),
        (
            {"levels": [{"ante": 1, "bring_in": 2, "small_bet": 10, "big_bet": 20, "min": 5}]},
            "level 1: a level has no field 'min'",
        ),
        ({"levels": [7]}, "level 1: a level is an object"),
        ({"levels": [lv(100).to_dict() | {"variant": 3}]}, "variant must be"),
        ({"levels": [lv(100).to_dict() | {"hands": True}]}, "hands must be"),
        ({"levels": [lv(100).to_dict()], "open_pair": "both"}, "open_pair"),
    ],
)
def test_r26_from_dict_is_strict(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Structure.from_dict(data)


# -- presets --------------------------------------------------------------------------------


def test_r26_the_ladder_and_its_nice_antes_and_bring_ins() -> None:
    assert ladder(10, 100) == [10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120]
    assert [(s.ante, s.bring_in) for s in map(stakes, (10, 12, 15, 25, 60, 80))] == [
        (2, 3),
        (2, 4),
        (3, 5),
        (5, 8),
        (12, 20),
        (15, 25),
    ]
    # WSOP-like figures: limits 2,500/5,000 with ante 500; 250,000/500,000 with ante 50,000
    assert (stakes(2500).ante, stakes(2500).bring_in) == (500, 800)
    assert (stakes(250_000).ante, stakes(250_000).bring_in) == (50_000, 80_000)
    assert nice(7) == 7 and nice(18) == 20 and nice(16) == 15


@pytest.mark.parametrize("speed", SPEEDS)
@pytest.mark.parametrize("chips", [1500, 3000, 10_000, 20_000])
def test_r26_presets_follow_real_stud_ratios_and_always_end(speed: str, chips: int) -> None:
    structure = preset(speed, chips)
    playing = [level for level in structure.levels if not level.is_break]
    depth = {"normal": 100, "turbo": 75, "hyper": 50}[speed]
    first = playing[0].small_bet
    assert chips / depth / 1.34 < first <= chips / depth
    for level in playing:
        assert 0.16 <= level.ante / level.small_bet <= 0.21, level
        assert 0.25 <= level.bring_in / level.small_bet <= 0.34, level
        assert level.big_bet == 2 * level.small_bet
        assert level.minutes == {"normal": 20, "turbo": 10, "hyper": 5}[speed]
    for before, after in pairwise(playing):
        assert 1.2 <= after.small_bet / before.small_bet <= 1.34
    assert playing[-1].small_bet > MAX_ENTRANTS * chips
    assert playing[-2].small_bet <= MAX_ENTRANTS * chips


def test_r26_normal_breaks_every_six_levels_and_turbo_hyper_and_by_hands_never() -> None:
    normal = preset("normal", 10_000).levels
    breaks = [i for i, level in enumerate(normal) if level.is_break]
    assert breaks[:3] == [6, 13, 20]  # after levels 6, 12, 18
    assert all(normal[i].minutes == 5 for i in breaks)
    for structure in (preset("turbo", 10_000), preset("hyper", 10_000)):
        assert not any(level.is_break for level in structure.levels)
    by_hands = preset("normal", 10_000, by_hands=12)
    assert all(level.hands == 12 and level.minutes is None for level in by_hands.levels)


def test_r26_a_variant_rotation_cycles_stud_stud8_razz_skipping_breaks() -> None:
    structure = preset("normal", 5000, variant_rotation=True)
    playing = [level.variant for level in structure.levels if not level.is_break]
    assert playing[:7] == ["stud", "stud8", "razz", "stud", "stud8", "razz", "stud"]
    assert all(level.variant is None for level in structure.levels if level.is_break)
    assert all(level.variant is None for level in preset("normal", 5000).levels)


def test_r26_presets_refuse_what_they_cannot_build() -> None:
    with pytest.raises(ValueError, match="speed"):
        preset("ludicrous", 10_000)
    with pytest.raises(ValueError, match="at least 200"):
        preset("normal", 150)
    with pytest.raises(ValueError, match="by_hands"):
        preset("normal", 10_000, by_hands=0)
    assert preset("hyper", 200).levels[0].small_bet == 10


def test_r30_a_structure_names_its_open_pair_rule() -> None:
    assert preset("normal", 10_000).open_pair == "r14"
    assert Structure((lv(100),), open_pair="rp10f").open_pair == "rp10f"
    with pytest.raises(ValueError, match="open_pair"):
        Structure((lv(100),), open_pair="tda")
