"""The rebalancer and an operator's move in one event loop (three table managers on one
database and one fan-out stand for processes): a table being handed over already is left
out of a round, a second hand-over of it is refused, and a table an operator moved is not
moved on by the next automatic rounds of its new process (an operator's `tables balance`
may). (With real processes, PostgreSQL and Redis: tests/process/test_rebalance.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from app.fanout import BaseFanout
from app.store.db import Database
from app.tables import TableError, TableManager, TableSettings
from app.tables.handover import HELD_ROUNDS, Handover
from app.tables.rebalance import Balancing, Rebalancer, age
from app.tables.rpc import TableRouter
from tests.tables.routed import Routed, routed

SETTINGS = TableSettings(name="Held", small_bet=100, big_bet=200, ante=10, bring_in=50)
NAMES = ("a", "b", "c")


@dataclass
class Process:
    manager: TableManager
    router: TableRouter
    handover: Handover
    rebalancer: Rebalancer

    @classmethod
    def of(cls, p: Routed) -> Process:
        rebalancer = Rebalancer(p.handover, Balancing(step=2, margin=0))
        return cls(p.manager, p.router, p.handover, rebalancer)

    async def table(self) -> int:
        return (await self.manager.create(SETTINGS, host_user_id=None, password_hash=None)).id

    def runs(self) -> set[int]:
        return {t.id for t in self.manager.running()}

    async def automatic(self) -> list[int]:
        """One heartbeat's round (no hold-down: every process here registered just now)."""
        done = await self.rebalancer.round(2, 5.0, 0.0, automatic=True)
        return [d["table"] for d in done]


@pytest.fixture
async def processes(sqlite_db: Database, memory_fanout: BaseFanout) -> AsyncIterator[list[Process]]:
    async with routed(sqlite_db, memory_fanout, NAMES) as made:
        yield [Process.of(p) for p in made]


async def test_a_table_being_handed_over_is_left_out_and_not_handed_twice(
    processes: list[Process],
) -> None:
    a, b, c = processes
    tables = [await a.table() for _ in range(3)]  # a sheds two: 1 each is the share
    newest = tables[-1]  # the one a round would take first
    a.handover.handing.add(newest)  # as while an operator's move of it waits for its hand
    moved = await a.automatic()
    assert len(moved) == 2 and newest not in moved
    assert a.runs() == {newest}
    assert b.runs() | c.runs() == set(moved)
    with pytest.raises(TableError) as twice:  # an operator's move meanwhile: refused at once
        await b.router.ask_process("a", "move", {"table": newest, "to": "b"})
    assert twice.value.code == "table_moving"
    assert "handed over already" in twice.value.message
    assert a.runs() == {newest}  # nothing stopped
    a.handover.handing.discard(newest)
    answer = await b.router.ask_process("a", "move", {"table": newest, "to": "b"})
    assert (answer["moved"], answer["owner"]) == (True, "b")
    assert not a.handover.handing and not b.handover.handing  # nothing left marked


async def test_a_table_an_operator_moved_stays_for_the_next_automatic_rounds(
    processes: list[Process],
) -> None:
    a, b, _ = processes
    own = await b.table()
    brought = await a.table()  # newer: a round would take it first
    answer = await b.router.ask_process("a", "move", {"table": brought, "to": "b"})
    assert answer["owner"] == "b"
    assert b.handover.held == {brought: HELD_ROUNDS}
    assert await a.automatic() == []  # a is below its share: b sheds, not a
    # b runs both, a and c none: b sheds one, but not the table an operator brought
    assert await b.automatic() == [own]
    assert b.runs() == {brought}
    assert b.handover.held == {brought: HELD_ROUNDS - 1}


async def test_tables_balance_may_move_a_held_table(processes: list[Process]) -> None:
    a, b, _ = processes
    own = await b.table()
    brought = await a.table()  # newer: a round takes it first unless it is held
    await b.router.ask_process("a", "move", {"table": brought, "to": "b"})
    assert b.runs() == {own, brought} and brought in b.handover.held
    done = await b.router.ask_process("b", "balance", {"step": 1})  # an operator's order
    assert [d["table"] for d in done] == [brought]
    assert b.runs() == {own}


def test_a_hold_lasts_its_rounds_and_ends_when_the_table_is_gone() -> None:
    held = {1: 2, 2: 5}
    age(held, {1, 2})
    assert held == {1: 1, 2: 4}
    age(held, {1})  # table 2 went (closed, or its lease lost)
    assert held == {}
