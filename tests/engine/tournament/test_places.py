"""Finishing places (docs/rules.md R31) and the prizes they win (R34)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.tournament.payouts import prizes
from app.engine.tournament.places import Bust, Placed, place_busts, winner

PRIZES = [500, 300, 200]


def test_r31_one_bust_takes_the_place_of_the_players_left_before_it() -> None:
    assert place_busts([Bust(7, 120, 3)], 4, PRIZES) == [Placed(7, 4, 0)]
    assert place_busts([Bust(7, 120, 3)], 3, PRIZES) == [Placed(7, 3, 200)]


def test_r31_same_hand_busts_place_by_the_stack_they_started_the_hand_with() -> None:
    busts = [Bust(1, 300, 1), Bust(2, 900, 2), Bust(3, 600, 3)]
    assert place_busts(busts, 4, PRIZES) == [
        Placed(2, 2, 300),  # the biggest start stack finishes highest
        Placed(3, 3, 200),
        Placed(1, 4, 0),
    ]


def test_r31_equal_start_stacks_share_their_places_prizes() -> None:
    busts = [Bust(10, 400, 5), Bust(11, 400, 2)]
    assert place_busts(busts, 3, PRIZES) == [Placed(11, 2, 250), Placed(10, 3, 250)]


def test_r31_the_odd_chips_of_a_share_go_one_each_by_order() -> None:
    busts = [Bust(10, 400, 9), Bust(11, 400, 4), Bust(12, 400, 6)]
    # places 2, 3, 4 of [700, 301, 200, 100]: 601 shared by three, 200 each and 1 over
    out = place_busts(busts, 4, [700, 301, 200, 100])
    assert out == [Placed(11, 2, 201), Placed(12, 3, 200), Placed(10, 4, 200)]
    out = place_busts(busts, 5, [700, 301, 201, 100, 0])  # places 3..5: 301 -> 101, 100, 100
    assert [(p.entry_id, p.place, p.prize) for p in out] == [
        (11, 3, 101),
        (12, 4, 100),
        (10, 5, 100),
    ]


def test_r31_a_tie_across_the_bubble_shares_the_one_paid_place() -> None:
    # hand-for-hand (R32): two busts of equal stacks at two tables, 4 left, 3 paid
    busts = [Bust(20, 55, 2), Bust(21, 55, 1)]
    assert place_busts(busts, 4, PRIZES) == [Placed(21, 3, 100), Placed(20, 4, 100)]


def test_r31_winner_and_refusals() -> None:
    assert winner(5, PRIZES) == Placed(5, 1, 500)
    assert winner(5, []) == Placed(5, 1, 0)
    with pytest.raises(ValueError, match="everyone"):
        place_busts([Bust(1, 10, 1), Bust(2, 20, 2)], 2, PRIZES)
    with pytest.raises(ValueError, match="different entry"):
        place_busts([Bust(1, 10, 1), Bust(1, 20, 2)], 5, PRIZES)
    with pytest.raises(ValueError, match="own order"):
        place_busts([Bust(1, 10, 1), Bust(2, 20, 1)], 5, PRIZES)
    with pytest.raises(ValueError, match="chips"):
        place_busts([Bust(1, 0, 1)], 5, PRIZES)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    entrants=st.integers(2, 60),
    pool=st.integers(0, 100_000),
    scheme=st.sampled_from(["top10", "top20", "sng_50_30_20", "winner_takes_all"]),
)
def test_r31_r34_a_whole_tournament_gives_every_place_once_and_pays_the_pool(
    data: st.DataObject, entrants: int, pool: int, scheme: str
) -> None:
    table = prizes(scheme, pool, entrants)
    left = list(range(entrants))
    placed: list[Placed] = []
    while len(left) > 1:
        count = data.draw(st.integers(1, min(4, len(left) - 1)))
        out = data.draw(st.permutations(left))[:count]
        stacks = data.draw(st.lists(st.sampled_from([5, 10, 20]), min_size=count, max_size=count))
        busts = [Bust(e, s, e) for e, s in zip(out, stacks, strict=True)]
        group = place_busts(busts, len(left), table)
        assert sorted(p.place for p in group) == list(range(len(left) - count + 1, len(left) + 1))
        ranked = sorted(group, key=lambda p: p.place)
        by_id = {b.entry_id: b.start_stack for b in busts}
        assert all(by_id[a.entry_id] >= by_id[b.entry_id] for a, b in pairwise(ranked))
        placed += group
        left = [e for e in left if e not in out]
    placed.append(winner(left[0], table))
    assert sorted(p.place for p in placed) == list(range(1, entrants + 1))
    assert sum(p.prize for p in placed) == pool  # no chip made or lost
