"""The engine rules of a tournament hand (docs/rules.md R26, R28, R29, R30) and when the
tables play hand for hand (R32)."""

from __future__ import annotations

from app.engine import Variant
from app.engine.tournament.structure import Level, Structure, preset
from app.engine.tournament.table_rules import hand_for_hand, raise_cap_holds, table_rules


def test_r26_a_hand_plays_the_stakes_of_its_level_and_a_break_those_before_it() -> None:
    structure = preset("normal", 10_000)
    first = table_rules(structure, 0, "stud", 50)
    assert (first.ante, first.bring_in, first.small_bet, first.big_bet) == (20, 30, 100, 200)
    assert structure.levels[6].is_break
    assert table_rules(structure, 6, "stud", 50) == table_rules(structure, 5, "stud", 50)
    assert first.rake_bps == 0 and first.variant is Variant.STUD


def test_r26_a_rotation_level_sets_the_game_else_the_tournaments() -> None:
    rotating = preset("turbo", 5000, variant_rotation=True)
    assert [table_rules(rotating, i, "stud", 9).variant for i in range(3)] == [
        Variant.STUD,
        Variant.STUD8,
        Variant.RAZZ,
    ]
    assert table_rules(preset("turbo", 5000), 1, "razz", 9).variant is Variant.RAZZ


def test_r28_a_tournament_gives_no_all_in_protection() -> None:
    assert table_rules(preset("hyper", 1500), 0, "stud8", 6).timeout_action == "fold"


def test_r29_the_cap_holds_until_two_players_remain() -> None:
    assert raise_cap_holds(3) and not raise_cap_holds(2)
    structure = preset("hyper", 1500)
    assert table_rules(structure, 3, "stud", 3).raise_cap is True
    assert table_rules(structure, 3, "stud", 2).raise_cap is False


def test_r30_the_structures_open_pair_rule_reaches_the_table() -> None:
    level = Level(20, 30, 100, 200, 20)
    assert table_rules(Structure((level,)), 0, "stud", 9).open_pair == "r14"
    assert table_rules(Structure((level,), "rp10f"), 0, "stud", 9).open_pair == "rp10f"


def test_r32_hand_for_hand_on_the_bubble_with_more_than_one_table() -> None:
    assert hand_for_hand(players_left=16, paid_places=15, tables=2)
    assert not hand_for_hand(players_left=17, paid_places=15, tables=3)
    assert not hand_for_hand(players_left=15, paid_places=15, tables=2)  # in the money
    assert not hand_for_hand(players_left=4, paid_places=3, tables=1)  # one table: nothing to wait
