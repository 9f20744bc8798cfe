"""A table's life cycle (`app/tables/lifecycle.py`): its moves are guarded, and what holds
the next hand back (the host's pause, the process draining) is a sub-state of it."""

from __future__ import annotations

import pytest

from app.tables.lifecycle import MOVES, Hold, Life, Lifecycle


def test_only_the_allowed_moves_are_made() -> None:
    life = Life()
    for stage in (Lifecycle.STARTING, Lifecycle.IN_HAND, Lifecycle.CLOSING, Lifecycle.CLOSED):
        life.move(stage)
    assert life.closed and not life.closing
    with pytest.raises(RuntimeError):
        life.move(Lifecycle.OPEN)
    assert MOVES[Lifecycle.CLOSED] == frozenset()
    with pytest.raises(RuntimeError):
        Life(Lifecycle.SAVING).move(Lifecycle.IN_HAND)  # a hand waits for its records first


def test_holds_are_set_and_lifted_one_by_one_and_a_closed_table_takes_none() -> None:
    life = Life()
    life.held(Hold.PAUSED, True)
    life.held(Hold.DRAINING, True)
    assert life.paused and life.draining
    life.held(Hold.PAUSED, False)  # the host unpauses: the process still drains
    assert not life.paused and life.draining and life.hold is Hold.DRAINING
    life.held(Hold.DRAINING, False)
    assert life.hold is Hold.NONE
    life.move(Lifecycle.CLOSED)
    life.held(Hold.PAUSED, True)
    assert life.hold is Hold.NONE
