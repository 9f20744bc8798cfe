"""R44 with several processes: the waiting list is the table's, reached wherever the table
runs (the lobby's `wait` op and the socket's commands are routed to its owner), and it goes
with the table when the table moves to another process."""

from __future__ import annotations

import pytest

from app.api import table_ops
from app.store.db import Database
from app.tables import TableError, TableSettings
from app.tables import messages as m
from tests import asks
from tests.store.factories import make_user
from tests.tables.routed import Routed
from tests.tables.test_router import processes

__all__ = ["processes"]  # the three processes of test_router, used here as a fixture

FULL = TableSettings.parse({"name": "Routed list", "small_bet": 100, "max_seats": 2})


async def test_r44_the_list_is_the_tables_wherever_it_runs_and_moves_with_it(
    processes: list[Routed], sqlite_db: Database
) -> None:
    a, b, c = processes
    for p in processes:
        table_ops.install(p.router)  # what the lobby and the sockets ask a table (app.api)
    async with sqlite_db.transaction() as s:
        ann, bob, cy = [(await make_user(s, n)).id for n in ("ann", "bob", "cy")]
    table = await a.manager.create(FULL, host_user_id=ann, password_hash=None)
    for seat, user in enumerate((ann, bob)):
        await b.router.request(table.id, asks.sit(user, f"u{user}", seat, 1000, f"s{seat}"))
    # cy joins from the lobby of process c: the op travels to a, where the table runs
    joined = await c.router.ask(
        table.id, "wait", {"user": cy, "name": "cy", "body": {"type": "wait_join"}}
    )
    assert joined == {"waiting": 1, "count": 1}
    # the lobby's route carries only the list's commands, checked on arrival
    with pytest.raises(TableError) as forged:
        body = {"type": "sit", "seat": 1, "amount": 1000, "request_id": "x"}
        await c.router.ask(table.id, "wait", {"user": cy, "name": "cy", "body": body})
    assert forged.value.code == "unknown_type"
    await table.request(m.Sync())  # the list is written behind the table's other writes
    moved = await a.router.ask_process("a", "move", {"table": table.id, "to": "b", "seconds": 5})
    assert moved["owner"] == "b"
    there = b.manager.get(table.id)
    assert there is not None and there.state.waiting.line == [(cy, "cy")]
    # a seat frees on b: cy is offered it, and a racer routed from c is refused
    await c.router.request(table.id, asks.leave(bob))
    assert there.state.waiting.offers[cy].seat == 1
    with pytest.raises(TableError) as raced:
        await c.router.request(table.id, asks.sit(ann + 100, "racer", 1, 1000, "r"))
    assert raced.value.code == "seat_offered"
    await c.router.request(table.id, asks.sit(cy, "cy", 1, 1000, "take"))
    assert there.state.seats[1].user_id == cy and there.state.waiting.line == []
