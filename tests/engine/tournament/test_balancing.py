"""Breaking and balancing tables, the final table (docs/rules.md R33): TDA Rules 10 and 11
and RP-9 as stud reads them, every draw from a seeded `Rng`."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from itertools import count

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.tournament.balancing import Move, Plan, TableView, plan, settled
from app.engine.tournament.draws import Rng

SEED = hashlib.sha256(b"balancing").digest()


def rng(purpose: str = "balance") -> Rng:
    return Rng(SEED, purpose)


def view(table_id: int, entries: Sequence[int], *, max_seats: int = 8, **kw: object) -> TableView:
    """A table with `entries` in seats 0, 1, 2, …"""
    return TableView(table_id, max_seats, dict(enumerate(entries)), **kw)  # type: ignore[arg-type]


def apply(tables: Sequence[TableView], result: Plan) -> dict[int, dict[int, int]]:
    """The tables after the plan: every mover stands up, then sits down."""
    seats = {t.table_id: dict(t.seats) for t in tables}
    for move in result.moves:
        seat = next(s for s, e in seats[move.from_table].items() if e == move.entry_id)
        del seats[move.from_table][seat]
    for move in result.moves:
        assert move.to_seat not in seats[move.to_table], move
        seats[move.to_table][move.to_seat] = move.entry_id
    for table in result.breaking:
        assert not seats.pop(table), f"table {table} breaks with players left"
    return seats


# -- balancing --------------------------------------------------------------------------------


def test_r33_the_least_moved_player_of_the_fullest_table_takes_the_last_seat_opened() -> None:
    tables = [
        view(1, [10, 11, 12, 13, 14, 15, 16]),
        TableView(2, 8, {0: 20, 3: 21, 5: 22, 6: 23, 7: 24}, opened=(1, 4, 2)),
    ]
    moved = {10: 1, 11: 2, 12: 1, 13: 1, 14: 1, 16: 3}  # 15 was never moved
    result = plan(tables, moved=moved, rng=rng())
    assert result.moves == (Move(15, 1, 2, 2),)  # seat 2 opened last at table 2
    assert result.breaking == () and result.waiting == frozenset()


def test_r33_ties_for_least_moved_are_drawn_and_without_an_opened_seat_a_seat_is_drawn() -> None:
    tables = [view(1, [10, 11, 12, 13, 14, 15]), view(2, [20, 21, 22, 23])]
    chosen = set()
    for k in range(30):
        result = plan(tables, moved={}, rng=rng(f"tie-{k}"))
        (move,) = result.moves
        assert move.from_table == 1 and move.to_table == 2 and move.to_seat in range(4, 8)
        chosen.add((move.entry_id, move.to_seat))
        assert plan(tables, moved={}, rng=rng(f"tie-{k}")) == result  # the same seed, the same
    assert len({e for e, _ in chosen}) >= 4 and len({s for _, s in chosen}) >= 3


def test_r33_tables_one_apart_are_balanced_and_nothing_moves() -> None:
    tables = [
        view(1, [1, 2, 3, 4, 5, 6]),
        view(2, [7, 8, 9, 10, 11]),
        view(3, [12, 13, 14, 15, 16, 17]),
    ]
    assert plan(tables, moved={}, rng=rng()) == Plan((), (), frozenset())


def test_r33_a_table_in_a_hand_keeps_its_players_and_three_short_waits() -> None:
    tables = [view(1, [1, 2, 3, 4, 5, 6, 7], in_hand=True), view(2, [8, 9, 10, 11])]
    result = plan(tables, moved={}, rng=rng())
    assert result.moves == () and result.waiting == frozenset({2})
    after = [tables[0], view(2, [8, 9, 10, 11, 12, 13])]  # two short: it deals on
    assert plan(after, moved={}, rng=rng()).waiting == frozenset()


def test_r33_balancing_moves_as_many_as_it_takes() -> None:
    tables = [
        view(1, [1, 2, 3, 4, 5, 6, 7, 8]),
        view(2, [9, 10, 11, 12, 13, 14, 15, 16]),
        view(3, [17, 18]),
    ]
    result = plan(tables, moved={}, rng=rng())
    assert [(m.from_table, m.to_table) for m in result.moves] == [(1, 3), (2, 3), (1, 3), (2, 3)]
    assert sorted(map(len, apply(tables, result).values())) == [6, 6, 6]


# -- breaking ---------------------------------------------------------------------------------


def test_r33_when_the_players_fit_one_table_fewer_the_next_in_the_break_order_breaks() -> None:
    tables = [
        view(1, [1, 2, 3, 4, 5, 6]),
        view(2, [7, 8, 9, 10, 11, 12]),
        view(3, [13, 14, 15, 16, 17]),
    ]
    assert plan(tables, moved={}, rng=rng(), break_order=(2, 3, 1)).breaking == ()  # 17 > 16
    tables[2] = view(3, [13, 14, 15, 16])  # 16 players fit at two tables of 8
    result = plan(tables, moved={}, rng=rng(), break_order=(4, 2, 3, 1))  # 4 is gone already
    assert result.breaking == (2,)
    assert sorted(m.entry_id for m in result.moves) == [7, 8, 9, 10, 11, 12]
    assert {m.to_table for m in result.moves} == {1, 3}
    assert sorted(map(len, apply(tables, result).values())) == [8, 8]


def test_r33_a_broken_tables_players_are_seated_by_a_two_step_draw() -> None:
    tables = [view(1, [1, 2, 3]), view(2, [4, 5, 6, 7, 8, 9, 10]), view(3, [11, 12])]
    first_tables = []
    for k in range(40):
        result = plan(tables, moved={}, rng=rng(f"break-{k}"), break_order=(3,))
        assert result.breaking == (3,)
        moves = [m for m in result.moves if m.from_table == 3]
        assert [m.entry_id for m in moves] == [11, 12]  # lowest seat first
        first_tables.append(moves[0].to_table)
        for m in moves:
            assert m.to_seat not in dict(tables[m.to_table - 1].seats)
    # step one draws a table, equally likely whatever its empty seats (5 at 1, 1 at 2)
    assert 10 <= first_tables.count(2) <= 30 and 10 <= first_tables.count(1) <= 30


def test_r33_a_table_due_to_break_in_a_hand_breaks_after_it() -> None:
    tables = [view(1, [1, 2, 3, 4, 5]), view(2, [6, 7, 8, 9], in_hand=True), view(3, [10, 11])]
    result = plan(tables, moved={}, rng=rng(), break_order=(2, 1, 3))
    assert result.breaking == () and result.break_after_hand == (2,)
    (move,) = result.moves  # the others balance meanwhile: 5 and 2 -> 4 and 3
    assert (move.from_table, move.to_table) == (1, 3) and move.to_seat in range(2, 8)


def test_r33_several_tables_break_at_once_and_an_empty_table_closes() -> None:
    tables = [view(1, [1, 2]), view(2, [3, 4]), view(3, [5]), view(4, [])]
    result = plan(tables, moved={}, rng=rng(), break_order=(3, 2, 1))
    assert result.breaking == (4, 3, 2)
    assert [len(s) for s in apply(tables, result).values()] == [5]


# -- the final table ------------------------------------------------------------------------


def test_r33_the_final_table_is_a_new_draw_for_everyone_left() -> None:
    tables = [view(1, [1, 2, 3, 4]), view(2, [5, 6, 7, 8])]
    plain = plan(tables, moved={}, rng=rng(), break_order=(1, 2))
    assert plain.breaking == (1,) and {m.entry_id for m in plain.moves} == {1, 2, 3, 4}
    final = plan(tables, moved={}, rng=rng(), break_order=(1, 2), final_table_seats=8)
    assert final.breaking == (1,)
    assert sorted(m.entry_id for m in final.moves) == list(range(1, 9))  # table 2's too
    assert {m.to_table for m in final.moves} == {2}
    assert sorted(m.to_seat for m in final.moves) == list(range(8))
    seats = apply(tables, final)
    assert seats[2] != {0: 5, 1: 6, 2: 7, 3: 8} and len(seats[2]) == 8


def test_r33_until_the_players_fit_the_final_table_the_last_two_play_balanced() -> None:
    tables = [view(1, [1, 2, 3, 4]), view(2, [5, 6, 7])]
    assert plan(tables, moved={}, rng=rng()).breaking == (1,)  # 7 fit at one table of 8
    waits = plan(tables, moved={}, rng=rng(), final_table_seats=6)
    assert waits == Plan((), (), frozenset())  # a 6-handed final table: 4 and 3 play on
    tables[1] = view(2, [5, 6])
    final = plan(tables, moved={}, rng=rng(), final_table_seats=6, break_order=(2, 1))
    assert final.breaking == (2,) and {m.to_table for m in final.moves} == {1}


def test_r33_the_final_table_draw_waits_for_every_hand_to_end() -> None:
    tables = [view(1, [1, 2, 3, 4], in_hand=True), view(2, [5, 6, 7]), view(3, [8])]
    result = plan(tables, moved={}, rng=rng(), final_table_seats=8)
    assert result.moves == () and result.waiting == frozenset({2, 3})
    with pytest.raises(ValueError, match="final table"):
        plan(tables, moved={}, rng=rng(), final_table_seats=9)


def test_r33_wrong_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="one seat"):
        plan([view(1, [1, 2]), view(2, [2, 3])], moved={}, rng=rng())
    with pytest.raises(ValueError, match=r"seats are 0\.\.5"):
        plan([view(1, [1, 2, 3, 4, 5, 6, 7], max_seats=6)], moved={}, rng=rng())
    with pytest.raises(ValueError, match="once"):
        plan([view(1, [1]), view(1, [2])], moved={}, rng=rng())


# -- properties ---------------------------------------------------------------------------


@st.composite
def layouts(draw: st.DrawFn, in_hand: bool) -> tuple[list[TableView], dict[int, int]]:
    max_seats = draw(st.integers(2, 8))
    entry = count(1)
    tables = []
    for table_id in range(draw(st.integers(1, 6))):
        seats = draw(st.lists(st.integers(0, max_seats - 1), unique=True))
        opened = draw(st.lists(st.integers(0, max_seats - 1), max_size=4))
        busy = bool(seats) and in_hand and draw(st.booleans())
        tables.append(TableView(table_id, max_seats, {s: next(entry) for s in seats}, opened, busy))
    moved = draw(st.dictionaries(st.integers(1, 50), st.integers(0, 3)))
    return tables, moved


def check(tables: list[TableView], result: Plan) -> dict[int, dict[int, int]]:
    """What holds for every plan: each mover once, from a table not in a hand, into a seat
    that ends up theirs alone; nobody lost or added."""
    movers = [m.entry_id for m in result.moves]
    assert len(movers) == len(set(movers))
    busy = {t.table_id for t in tables if t.in_hand}
    assert not {m.from_table for m in result.moves} & busy
    assert not set(result.breaking) & busy
    seats = apply(tables, result)
    before = sorted(e for t in tables for e in t.seats.values())
    assert sorted(e for s in seats.values() for e in s.values()) == before
    final = len(seats) == 1 and len(tables) > 1 and len(result.moves) == len(before)
    if not final:  # the final table's draw moves everyone at once; any other move is to a seat
        by_id = {t.table_id: t for t in tables}  # empty before the plan
        assert all(m.to_seat not in by_id[m.to_table].seats for m in result.moves)
    return seats


@settings(max_examples=300, deadline=None)
@given(
    layout=layouts(in_hand=False),
    final=st.none() | st.integers(2, 8),
    order=st.randoms(use_true_random=False),
    seed=st.binary(min_size=32, max_size=32),
)
def test_r33_with_no_hand_in_play_a_plan_leaves_the_tables_balanced_and_settled(
    layout: tuple[list[TableView], dict[int, int]], final: int | None, order: object, seed: bytes
) -> None:
    tables, moved = layout
    final = None if final is None or final > tables[0].max_seats else final
    ids = [t.table_id for t in tables]
    order.shuffle(ids)  # type: ignore[attr-defined]
    result = plan(tables, moved=moved, rng=Rng(seed, "p"), final_table_seats=final, break_order=ids)
    seats = check(tables, result)
    counts = [len(s) for s in seats.values()]
    if counts:
        assert max(counts) - min(counts) <= 1 and result.waiting == frozenset()
    again = [TableView(t, tables[0].max_seats, s) for t, s in seats.items()]
    settled = plan(again, moved=moved, rng=Rng(seed, "q"), final_table_seats=final, break_order=ids)
    assert settled.moves == () and settled.breaking == ()


@settings(max_examples=300, deadline=None)
@given(
    layout=layouts(in_hand=True),
    final=st.none() | st.integers(2, 8),
    seed=st.binary(min_size=32, max_size=32),
)
def test_r33_with_hands_in_play_only_idle_tables_move_and_three_short_waits(
    layout: tuple[list[TableView], dict[int, int]], final: int | None, seed: bytes
) -> None:
    tables, moved = layout
    final = None if final is None or final > tables[0].max_seats else final
    result = plan(tables, moved=moved, rng=Rng(seed, "p"), final_table_seats=final)
    seats = check(tables, result)
    seated = [t for t in tables if t.seats]
    players = sum(len(t.seats) for t in tables)
    if final is not None and len(seated) > 1 and players <= final:  # the final table's draw
        idle = {t.table_id for t in seated if not t.in_hand}
        if len(idle) < len(seated):
            assert result.moves == () and result.waiting == idle
        return
    playing = {t: s for t, s in seats.items() if t not in result.break_after_hand}
    if playing:
        fullest = max(len(s) for s in playing.values())
        short = {t for t, s in playing.items() if len(s) <= fullest - 3}
        assert short == result.waiting, (short, result)


@st.composite
def field_of_tables(draw: st.DrawFn) -> tuple[list[TableView], int | None, list[int]]:
    """2 to 6 tables of 2 to 8 seats, each with some players (entries numbered across them),
    some in a hand; a final table size or none; a break order of some of them."""
    n = draw(st.integers(2, 6))
    seats = draw(st.integers(2, 8))
    ids = count(1)
    tables = []
    for table_id in range(1, n + 1):
        players = draw(st.integers(0, seats))
        chosen = draw(st.permutations(range(seats)))[:players]
        tables.append(
            TableView(table_id, seats, {s: next(ids) for s in sorted(chosen)},
                      in_hand=draw(st.booleans()))
        )  # fmt: skip
    final = draw(st.one_of(st.none(), st.integers(2, seats)))
    order = draw(st.permutations(range(1, n + 1)))[: draw(st.integers(0, n))]
    return tables, final, list(order)


@settings(max_examples=400, deadline=None)
@given(field_of_tables())
def test_r33_settled_says_so_only_when_the_plan_does_nothing(
    case: tuple[list[TableView], int | None, list[int]],
) -> None:
    """The director skips the plan when `settled` says the counts ask for nothing: then the
    plan, whatever is in a hand, moves no one, closes, breaks and holds no table."""
    tables, final, order = case
    counts = {t.table_id: len(t.seats) for t in tables}
    seats = {t.table_id: t.max_seats for t in tables}
    quiet = settled(counts, seats, final_table_seats=final, break_order=order)
    result = plan(tables, moved={}, rng=rng(), final_table_seats=final, break_order=order)
    if quiet:
        assert result == Plan((), (), frozenset(), ())


def test_r33_settled_sees_each_thing_to_do() -> None:
    eight = {1: 8, 2: 8, 3: 8}
    assert settled({1: 7, 2: 8, 3: 7}, eight)
    assert not settled({1: 6, 2: 8, 3: 7}, eight)  # two apart: balance
    assert not settled({1: 0, 2: 8, 3: 7}, eight)  # empty: it closes
    assert not settled({1: 5, 2: 5, 3: 5}, eight)  # 15 fit at two tables: one breaks
    assert settled({1: 5, 2: 5}, {1: 8, 2: 8}, final_table_seats=8, break_order=[1])
    assert not settled({1: 4, 2: 4}, {1: 8, 2: 8}, final_table_seats=8)  # the final table
    assert settled({1: 3}, {1: 8})
