"""`app.collector`: the garbage collector's schedule for a server full of long-lived sockets."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from app import collector as collector_module
from app.collector import MIDDLE, NEVER, YOUNG, Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def collector() -> Iterator[None]:
    saved = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*saved)


@pytest.mark.usefixtures("collector")
async def test_start_freezes_what_exists_and_stops_automatic_full_collections() -> None:
    c = Collector(tick=3600, sweep=3600)
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
    c = Collector(tick=3600, sweep=3600)
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


@pytest.mark.usefixtures("collector")
async def test_each_tick_freezes_what_survived_so_young_collections_find_nothing() -> None:
    c = Collector(tick=0.01, sweep=3600)
    c.start()
    try:
        frozen = gc.get_freeze_count()
        kept = [Node() for _ in range(1000)]  # made after the start: young
        assert len(gc.get_objects(0)) >= 1000
        while gc.get_freeze_count() < frozen + 1000:
            await asyncio.sleep(0.01)  # the collector's task runs its ticks
        assert len(gc.get_objects(0)) < 1000
        assert c.sweeps == 0
        del kept
    finally:
        await c.stop()


@pytest.mark.usefixtures("collector")
async def test_memory_grown_past_the_share_makes_a_sweep_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resident = [1000 << 20]
    monkeypatch.setattr(collector_module, "resident_bytes", lambda: resident[0])
    c = Collector(tick=0.01, sweep=3600, growth=0.5, floor=64 << 20)
    c.start()
    try:
        assert not c.grown()
        resident[0] += 400 << 20  # +40%: not yet
        assert not c.grown()
        resident[0] += 100 << 20  # +50%
        assert c.grown()
        while c.sweeps == 0:
            await asyncio.sleep(0.01)
        assert not c.grown()  # measured again at the sweep
    finally:
        await c.stop()


@pytest.mark.usefixtures("collector")
async def test_a_small_process_waits_for_the_floor_not_the_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resident = [50 << 20]
    monkeypatch.setattr(collector_module, "resident_bytes", lambda: resident[0])
    c = Collector(tick=3600, sweep=3600, growth=0.5, floor=64 << 20)
    c.start()
    try:
        resident[0] += 40 << 20  # +80%, but under 64 MB
        assert not c.grown()
        resident[0] += 24 << 20
        assert c.grown()
    finally:
        await c.stop()


def test_resident_bytes_reads_this_process() -> None:
    found = collector_module.resident_bytes()
    assert found is None or found > 1 << 20
