"""The action timer's `Alarm` (R19): one deadline at a time, moved without a new timer per
turn; whatever moves it, it rings once, at the last deadline set, with the last callback."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from app.tables.clock import Alarm, FakeClock, RealClock


def test_rings_once_at_its_deadline() -> None:
    clock = FakeClock()
    rung: list[str] = []
    alarm = Alarm(clock)
    alarm.set(10, lambda: rung.append("a"))
    assert alarm.at == clock.monotonic() + 10
    clock.advance(9.5)
    assert rung == []
    clock.advance(0.5)
    assert rung == ["a"] and alarm.at is None
    clock.advance(60)
    assert rung == ["a"]


def test_a_later_deadline_keeps_the_timer_and_rings_at_the_new_time() -> None:
    clock = FakeClock()
    rung: list[tuple[str, float]] = []
    alarm = Alarm(clock)

    def ring(turn: int) -> Callable[[], None]:
        return lambda: rung.append((f"turn {turn}", clock.monotonic()))

    for turn in range(20):  # a turn every half second, each with a fresh ten seconds
        alarm.set(10, ring(turn))
        clock.advance(0.5)
    assert clock.pending() == 1  # one timer for all twenty turns
    clock.advance(9.4)
    assert rung == []
    clock.advance(0.1)
    assert rung == [("turn 19", 19 * 0.5 + 10)]
    assert clock.pending() == 0


def test_an_earlier_deadline_rings_first_and_only_once() -> None:
    clock = FakeClock()
    rung: list[str] = []
    alarm = Alarm(clock)
    alarm.set(30, lambda: rung.append("long"))
    alarm.set(5, lambda: rung.append("short"))
    clock.advance(5)
    assert rung == ["short"]
    clock.advance(60)
    assert rung == ["short"]


def test_clear_and_cancel_ring_nothing() -> None:
    clock = FakeClock()
    rung: list[str] = []
    alarm = Alarm(clock)
    alarm.set(10, lambda: rung.append("cleared"))
    alarm.clear()
    assert alarm.at is None
    clock.advance(11)
    alarm.set(10, lambda: rung.append("cancelled"))
    alarm.cancel()
    assert clock.pending() == 0
    clock.advance(11)
    assert rung == []


async def test_rings_on_the_event_loop() -> None:
    rang = asyncio.Event()
    Alarm(RealClock()).set(0.01, rang.set)
    await asyncio.wait_for(rang.wait(), timeout=10)
