"""The engine rules of a tournament hand (docs/rules.md R26, R28, R29, R30) and when the
tables play hand for hand (R32)."""

from __future__ import annotations

from app.engine import Variant
from app.engine.tournament import payouts
from app.engine.tournament.structure import Level, Structure, preset
from app.engine.tournament.table_rules import (
    big_pay_jump,
    hand_for_hand,
    raise_cap_holds,
    table_rules,
)


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
    top15 = payouts.prizes("top15", 100_000, 100)  # 15 paid
    assert hand_for_hand(players_left=16, prizes=top15, tables=2)
    assert not hand_for_hand(players_left=17, prizes=top15, tables=3)
    assert not hand_for_hand(players_left=15, prizes=top15, tables=2)  # 14th's 1.07x 15th's
    three = payouts.prizes("sng_50_30_20", 4000, 4)
    assert not hand_for_hand(players_left=4, prizes=three, tables=1)  # one table: nothing to wait
    assert not hand_for_hand(players_left=4, prizes=[0, 0, 0], tables=2)  # nothing to win


def test_r32_hand_for_hand_at_a_big_pay_jump_in_the_money_and_not_after_it() -> None:
    """A big jump: the place above pays at least 1.24 times the next bust's place."""
    top20 = payouts.prizes("top20", 16_000, 16)  # 4 paid: 6234, 4156, 3117, 2493
    assert [big_pay_jump(top20, left) for left in (6, 5, 4, 3, 2)] == [
        False,  # 5th pays nothing either
        True,  # the bubble
        True,  # 3rd is 1.25 times 4th
        True,  # 2nd 1.33 times 3rd
        True,  # 1st 1.5 times 2nd
    ]
    assert hand_for_hand(players_left=4, prizes=top20, tables=2)
    assert not hand_for_hand(players_left=3, prizes=top20, tables=1)
    top15 = payouts.prizes("top15", 1_000_000, 1000)  # 150 paid, the harmonic curve
    jumps = [left for left in range(2, 200) if big_pay_jump(top15, left)]
    assert jumps == [2, 3, 4, 151]  # the last three busts and the bubble; 5th is 1.2 times 6th
    assert big_pay_jump([100, 100, 80], 3)  # 2nd is 1.25 times 3rd
    assert not big_pay_jump([100, 100, 81], 3)  # 1.23 times
    assert not big_pay_jump([200, 100, 100], 3)  # no jump at all to 2nd
    assert not big_pay_jump([100], 1)  # the winner: nobody left to bust
