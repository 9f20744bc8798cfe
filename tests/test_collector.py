"""`app.collector`: the garbage collector's schedule for a server full of long-lived sockets."""

from __future__ import annotations

import gc
import weakref

import pytest

from app.collector import MIDDLE, NEVER, YOUNG, Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def collector() -> object:
    saved = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*saved)


@pytest.mark.usefixtures("collector")
async def test_start_freezes_what_exists_and_stops_automatic_full_collections() -> None:
    c = Collector(settle=3600, sweep=3600)
    before = gc.get_threshold()
    c.start()
    try:
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG, MIDDLE, NEVER)
    finally:
        await c.stop()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


@pytest.mark.usefixtures("collector")
async def test_a_full_sweep_frees_a_cycle_among_frozen_objects() -> None:
    c = Collector(settle=3600, sweep=3600)
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: reference counting alone never frees it
    probe = weakref.ref(a)
    c.start()  # the cycle is frozen with everything else
    try:
        del a, b
        gc.collect()  # an ordinary collection does not look at frozen objects
        assert probe() is not None
        freed = c.full_sweep()
        assert probe() is None
        assert freed >= 2
        assert c.sweeps == 1
        assert gc.get_freeze_count() > 0  # the survivors are frozen again
    finally:
        await c.stop()
