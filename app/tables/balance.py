"""How many tables each live server process should run, and who hands which over to even
them out (pure: no database, no clock of its own; `app.tables.rebalance` acts on it).

A process's fair share: the tables the live processes run between them, spread as evenly
as their capacities (`TABLE_CAPACITY`) allow, tournament tables counted like any; the odd
ones go to the processes holding most (fewest moves), then by id. The shares sum to the
tables, so one process above its share means another below it.

Nothing moves while every process is within `margin` of its share, or while a process
joined less than `hold_down` seconds ago. Otherwise only the most loaded process sheds, at
most `step` tables, each to the process furthest below its share, and never past it: every
move takes a table from above its share to below its share, so the total distance from the
shares falls by two a move and rebalancing cannot swing back and forth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.store.directory import Load


@dataclass(frozen=True, slots=True)
class Shed:
    """`source` hands one table to each of `targets` (a process may appear more than once)."""

    source: str
    targets: list[str]


def shares(loads: Sequence[Load]) -> dict[str, int]:
    """Each process's fair share of the tables they run between them (see the module)."""
    total = sum(load.tables for load in loads)
    if not loads:
        return {}
    capacities = {load.process: max(0, load.capacity) for load in loads}
    if total >= sum(capacities.values()):
        return dict(capacities)
    # the lowest level whose capped shares hold every table
    level = 0
    while sum(min(c, level) for c in capacities.values()) < total:
        level += 1
    share = {p: min(c, level - 1) for p, c in capacities.items()}
    odd = total - sum(share.values())
    for load in sorted(loads, key=lambda ld: (-ld.tables, ld.process)):
        if odd == 0:
            break
        if capacities[load.process] >= level:
            share[load.process] += 1
            odd -= 1
    return share


def margin(loads: Sequence[Load], minimum: int) -> int:
    """How far from its share a process may be before tables move: `minimum`, or a tenth of
    the average share when that is more (a large cluster does not chase single tables)."""
    if not loads:
        return minimum
    average = sum(load.tables for load in loads) // len(loads)
    return max(minimum, average // 10)


def plan(
    loads: Sequence[Load],
    *,
    now: datetime,
    hold_down: float,
    minimum_margin: int,
    step: int,
) -> Shed | None:
    """Who sheds which count of tables to whom this round, or None (balanced, held down)."""
    if len(loads) < 2 or step <= 0:
        return None
    if any(load.since > now - timedelta(seconds=hold_down) for load in loads):
        return None  # a process just joined: its own start-up claims come first
    share = shares(loads)
    over = {load.process: load.tables - share[load.process] for load in loads}
    if max(abs(x) for x in over.values()) <= margin(loads, minimum_margin):
        return None
    source = min(over, key=lambda p: (-over[p], p))
    short = {p: -x for p, x in over.items() if x < 0}
    targets: list[str] = []
    for _ in range(min(step, max(0, over[source]))):
        if not short:
            break
        target = min(short, key=lambda p: (-short[p], p))
        targets.append(target)
        short[target] -= 1
        if short[target] == 0:
            del short[target]
    return Shed(source, targets) if targets else None
