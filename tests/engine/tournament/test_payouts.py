"""Prize schemes (docs/rules.md R34): whole chips, summing to the pool, never growing."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.tournament.payouts import SCHEMES, chip_chop, paid_places, prizes


def test_r34_the_fixed_splits_pay_their_real_figures() -> None:
    assert prizes("sng_50_30_20", 1000, 9) == [500, 300, 200]
    assert prizes("sng_65_35", 1000, 6) == [650, 350]
    assert prizes("sng_70_30", 1000, 2) == [700, 300]
    assert prizes("winner_takes_all", 1234, 50) == [1234]


def test_r34_odd_chips_go_to_the_best_places_first() -> None:
    assert prizes("sng_50_30_20", 1001, 9) == [501, 300, 200]
    assert prizes("sng_50_30_20", 1002, 9) == [502, 300, 200]  # 501 + 300.6 + 200.4: 1 over
    assert prizes("sng_50_30_20", 1004, 9) == [503, 301, 200]  # 502 + 301.2 + 200.8: 1 over
    assert prizes("sng_65_35", 3, 6) == [2, 1]


def test_r34_a_split_with_fewer_entrants_than_places_scales_the_paid_ones_up() -> None:
    assert paid_places("sng_50_30_20", 2) == 2
    assert prizes("sng_50_30_20", 1000, 2) == [625, 375]  # 50:30 of the whole pool
    assert prizes("sng_65_35", 1000, 1) == [1000]


@pytest.mark.parametrize(
    ("scheme", "entrants", "paid"),
    [
        ("top10", 100, 10),
        ("top10", 101, 11),
        ("top15", 100, 15),
        ("top20", 9, 2),
        ("top10", 4, 2),
        ("top10", 3, 1),
        ("top20", 1, 1),
        ("top20", 1000, 200),
        ("winner_takes_all", 500, 1),
        ("sng_50_30_20", 9, 3),
    ],
)
def test_r34_paid_places(scheme: str, entrants: int, paid: int) -> None:
    assert paid_places(scheme, entrants) == paid


def test_r34_the_top_schemes_pay_a_real_curve() -> None:
    top10 = prizes("top10", 100_000, 100)  # 100 entrants of 1,000 chips
    assert top10 == sorted(top10, reverse=True) and len(top10) == 10
    assert 0.20 <= top10[0] / 100_000 <= 0.30
    assert top10[0] / top10[1] == pytest.approx(1.5, abs=0.01)  # weights 1/2 : 1/3
    assert top10[-1] > 1000  # the last place paid wins more than a buy-in
    top20 = prizes("top20", 100_000, 100)
    assert 0.17 <= top20[0] / 100_000 <= 0.25 and top20[-1] > 1000


def test_r34_every_paid_place_gets_a_chip_when_the_pool_has_one_for_each() -> None:
    assert prizes("top10", 10, 100) == [1] * 10
    small = prizes("top20", 25, 100)
    assert len(small) == 20 and min(small) == 1 and sum(small) == 25
    assert prizes("top10", 0, 100) == [0] * 10


def test_r34_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="scheme"):
        prizes("top5", 100, 10)
    with pytest.raises(ValueError, match="entrants"):
        paid_places("top10", 0)
    with pytest.raises(ValueError, match="pool"):
        prizes("top10", -1, 10)


@settings(max_examples=400, deadline=None)
@given(
    scheme=st.sampled_from(SCHEMES),
    pool=st.integers(0, 10**9) | st.integers(0, 50),
    entrants=st.integers(1, 3000),
)
def test_r34_prizes_sum_to_the_pool_never_grow_and_are_positive(
    scheme: str, pool: int, entrants: int
) -> None:
    out = prizes(scheme, pool, entrants)
    paid = paid_places(scheme, entrants)
    assert len(out) == paid <= entrants
    assert sum(out) == pool
    assert all(a >= b for a, b in pairwise(out))
    assert all(type(p) is int and p >= 0 for p in out)
    if pool >= paid:
        assert min(out) > 0


def test_r36_a_cancellation_under_way_pays_the_sure_prize_then_chops_by_chips() -> None:
    # docs/rules.md R36's worked example: 60 entrants, a pool of 6,000, top10 pays 6
    table = prizes("top10", 6000, 60)
    assert table == [1884, 1256, 942, 753, 627, 538]  # 6th and 5th already paid
    chips = {1: 70_000, 2: 45_000, 3: 25_000, 4: 10_000}
    out = chip_chop(table, chips, order={1: 4, 2: 3, 3: 2, 4: 1})
    assert out == {1: 753 + 851, 2: 753 + 547, 3: 753 + 304, 4: 753 + 121}
    assert sum(out.values()) == 6000 - 627 - 538  # the whole rest of the pool, no chip more


def test_r36_a_chop_shares_odd_chips_by_stack_then_order() -> None:
    out = chip_chop([50, 30, 20], {7: 100, 8: 100, 9: 100}, order={7: 3, 8: 1, 9: 2})
    assert out == {8: 34, 9: 33, 7: 33}  # 20 each, the 40 over: 13 each and 1 to order 1
    assert chip_chop([100], {5: 10}, {5: 1}) == {5: 100}
    assert chip_chop([10, 5], {1: 3, 2: 1, 3: 1}, {1: 1, 2: 2, 3: 3}) == {1: 9, 2: 3, 3: 3}
    with pytest.raises(ValueError, match="chips"):
        chip_chop([10], {1: 0}, {1: 1})
