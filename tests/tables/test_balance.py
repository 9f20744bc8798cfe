"""The fair shares and the rebalancing plan (`app.tables.balance`), pure: odd counts,
capacities, the margin, the hold-down after a join, and no flapping: applying the plan
round after round ends balanced, every move goes from above a share to below one, and a
balanced cluster moves nothing."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from app.store.directory import Load
from app.tables.balance import Shed, margin, plan, shares

NOW = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)
OLD = NOW - timedelta(minutes=5)


def loads(*tables: int, capacity: int = 500) -> list[Load]:
    return [Load(f"p{i}", capacity, n, OLD) for i, n in enumerate(tables)]


def shed(ls: list[Load], step: int = 100, minimum: int = 1, hold: float = 5.0) -> Shed | None:
    return plan(ls, now=NOW, hold_down=hold, minimum_margin=minimum, step=step)


def test_odd_counts_share_as_evenly_as_can_be_the_odd_ones_to_those_holding_most() -> None:
    assert shares(loads(10, 0, 0)) == {"p0": 4, "p1": 3, "p2": 3}
    assert shares(loads(0, 6, 4)) == {"p0": 3, "p1": 4, "p2": 3}
    assert shares(loads(4, 3, 0)) == {"p0": 3, "p1": 2, "p2": 2}
    assert shares(loads(0, 0, 0)) == {"p0": 0, "p1": 0, "p2": 0}
    assert shares([]) == {}


def test_a_small_capacity_caps_a_share_and_the_rest_go_to_the_others() -> None:
    small = [Load("p0", 2, 0, OLD), Load("p1", 500, 9, OLD), Load("p2", 500, 0, OLD)]
    assert shares(small) == {"p0": 2, "p1": 4, "p2": 3}
    assert sum(shares(small).values()) == 9


def test_the_margin_is_one_table_or_a_tenth_of_the_average() -> None:
    assert margin(loads(3, 3, 3), 1) == 1
    assert margin(loads(300, 300, 300), 1) == 30
    assert margin(loads(3, 3, 3), 2) == 2


def test_balanced_within_the_margin_moves_nothing() -> None:
    for counts in ((3, 3, 3), (4, 3, 2), (4, 4, 2), (1, 0), (0, 0, 0), (7,)):
        assert shed(loads(*counts)) is None, counts


def test_a_process_that_came_back_gets_tables_from_the_most_loaded_only() -> None:
    got = shed(loads(5, 4, 0))
    assert got is not None
    assert got.source == "p0"  # the most above its share (3); p1 is within the margin
    assert got.targets == ["p2", "p2"]  # down to its share, no further
    got = shed(loads(9, 0, 0))
    assert got is not None and got.source == "p0"
    assert got.targets == ["p1", "p2", "p1", "p2", "p1", "p2"]  # the furthest below first


def test_at_most_step_tables_a_round() -> None:
    got = shed(loads(9, 0, 0), step=2)
    assert got is not None and got.targets == ["p1", "p2"]
    assert shed(loads(9, 0, 0), step=0) is None  # automatic rebalancing off


def test_nothing_moves_while_a_process_has_just_joined() -> None:
    young = [*loads(6, 3), Load("p2", 500, 0, NOW - timedelta(seconds=2))]
    assert shed(young, hold=5.0) is None
    assert shed(young, hold=1.0) is not None  # once its hold-down is over


def test_the_plan_does_not_depend_on_the_order_the_processes_are_listed() -> None:
    ls = loads(8, 1, 0, 3)
    assert shed(ls) == shed(list(reversed(ls)))


def test_rounds_end_balanced_and_never_move_a_table_back() -> None:
    rng = random.Random(25)
    for _ in range(300):
        counts = {f"p{i}": rng.randrange(0, 40) for i in range(rng.randrange(2, 6))}
        moved_from: set[str] = set()
        moved_to: set[str] = set()
        for _ in range(200):
            ls = [Load(p, 500, n, OLD) for p, n in counts.items()]
            share = shares(ls)
            got = shed(ls, step=rng.randrange(1, 5))
            if got is None:
                break
            assert counts[got.source] > share[got.source]
            for target in got.targets:
                assert counts[target] < share[target]  # never past its share
                counts[got.source] -= 1
                counts[target] += 1
            moved_from.add(got.source)
            moved_to.update(got.targets)
        else:
            raise AssertionError(f"still moving after 200 rounds: {counts}")
        assert not moved_from & moved_to  # no process both gave and took: no flapping
        ls = [Load(p, 500, n, OLD) for p, n in counts.items()]
        share = shares(ls)
        assert all(abs(n - share[p]) <= margin(ls, 1) for p, n in counts.items())
