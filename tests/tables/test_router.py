"""Issue 13, the router in one event loop: two (or three) table managers on one database and
one fan-out stand for processes. A table message reaches the table wherever it runs and its
refusal comes back with its code; a forged or malformed routed request is refused and
changes nothing; an owner that does not answer is a clear error within the timeout; a
table that moved is found again; the lobby's questions reach every live process.
(With real processes, PostgreSQL and Redis: tests/process/test_cluster_*.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import delete, update

from app.fanout import BaseFanout, channels
from app.jsontext import to_json
from app.store.db import Database
from app.store.directory import Directory
from app.store.lease_models import ServerProcess, TableLease
from app.store.types import utcnow
from app.tables import FakeClock, LedgerTableStore, TableError, TableManager, TableSettings
from app.tables import messages as m
from app.tables.router import ProcessOp, TableRouter
from tests import asks

SETTINGS = TableSettings(name="Routed", small_bet=100, big_bet=200, ante=10, bring_in=50)


@dataclass
class Process:
    manager: TableManager
    router: TableRouter


@pytest.fixture
async def processes(sqlite_db: Database, memory_fanout: BaseFanout) -> AsyncIterator[list[Process]]:
    made: list[Process] = []
    async with sqlite_db.transaction() as s:
        for name in ("a", "b", "c"):
            now = utcnow()
            s.add(ServerProcess(id=name, host="here", pid=0, started_at=now, heartbeat_at=now,
                                fanout="redis", capacity=10))  # fmt: skip
    directory = Directory(sqlite_db, lease_seconds=60)
    for name in ("a", "b", "c"):
        manager = TableManager(
            LedgerTableStore(sqlite_db, owner=name, lease_seconds=60),
            memory_fanout,
            FakeClock(),
            capacity=10,
        )
        router = TableRouter(manager, memory_fanout, me=name, directory=directory, timeout=2.0)
        await router.start()
        made.append(Process(manager, router))
    try:
        yield made
    finally:
        for p in made:
            await p.manager.stop()
            await p.router.stop()


async def test_a_message_reaches_the_table_wherever_it_runs(processes: list[Process]) -> None:
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    answer = await b.router.request(table.id, m.Resync(7))  # through the fan-out, to a
    assert answer["epoch"] == table.epoch and answer["snapshot"]["table"]["id"] == table.id
    assert b.router.owners[table.id] == "a"  # learned from the lease
    with pytest.raises(TableError) as refused:  # the table's own refusal, with its code
        await b.router.request(table.id, asks.leave(7))
    assert refused.value.code == "not_seated"
    local = await a.router.request(table.id, m.Resync(7))  # no hop: asked directly
    assert local["epoch"] == table.epoch
    with pytest.raises(TableError) as missing:
        await b.router.request(table.id + 100, m.Resync(7))
    assert missing.value.code == "no_such_table"


async def test_forged_routed_requests_are_refused_and_change_nothing(
    processes: list[Process], memory_fanout: BaseFanout
) -> None:
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    version = table.version
    forged = [
        {"kind": "TimedOut", "seat": 0, "turn_id": 1},  # a timer's, never a player's
        {"kind": "Sync"},
        {"kind": "Act", "user_id": 1},  # missing fields
        {"kind": "Nope"},
        "not a message",
    ]
    for msg in forged:
        with pytest.raises(TableError) as refused:
            await b.router.ask(table.id, "request", {"msg": msg})
        assert refused.value.code == "invalid_message", msg
    with pytest.raises(TableError) as unknown:
        await b.router.ask(table.id, "drop_table", {})
    assert unknown.value.code == "invalid_request"
    # garbage on the process's channel is ignored; the router answers on afterwards
    await memory_fanout.publish(channels.process("a"), "{not json")
    await memory_fanout.publish(channels.process("a"), to_json([1, 2]))
    assert (await b.router.request(table.id, m.Resync(7)))["epoch"] == table.epoch
    assert table.version == version  # nothing happened at the table


async def test_an_owner_that_does_not_answer_is_a_clear_error(
    processes: list[Process], sqlite_db: Database
) -> None:
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    async with sqlite_db.transaction() as s:  # the lease names a process nobody hears
        await s.execute(
            update(TableLease)
            .where(TableLease.table_id == table.id)
            .values(owner="ghost", expires_at=utcnow() + timedelta(seconds=60))
        )
    b.router.timeout = 0.3
    with pytest.raises(TableError) as silent:
        await b.router.request(table.id, m.Resync(7))
    assert silent.value.code == "server_unreachable"
    assert table.id not in b.router.owners  # asked again next time


async def test_a_table_that_moved_is_found_again(processes: list[Process]) -> None:
    a, b, c = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await c.router.request(table.id, m.Resync(7))
    assert c.router.owners[table.id] == "a"
    moved = await a.router.ask_process("a", "move", {"table": table.id, "to": "b", "seconds": 5})
    assert moved == {"moved": True, "target": "b", "owner": "b"}
    assert a.manager.get(table.id) is None and b.manager.get(table.id) is not None
    moved = b.manager.get(table.id)
    assert moved is not None
    # c still thinks a runs it: a says "not here", c asks the lease and finds b
    answer = await c.router.request(table.id, m.Resync(7))
    assert answer["epoch"] == moved.epoch != table.epoch
    assert c.router.owners[table.id] == "b"


async def _lease(db: Database, table_id: int) -> tuple[str | None, int]:
    async with db.session() as s:
        lease = await s.get(TableLease, table_id, populate_existing=True)
    assert lease is not None
    return lease.owner, lease.epoch


async def test_a_move_the_target_cannot_take_is_refused_before_anything_stops(
    processes: list[Process], sqlite_db: Database
) -> None:
    a, b, c = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    before = await _lease(sqlite_db, table.id)
    b.manager.capacity = c.manager.capacity = 0  # full, whatever the registry's rows say

    async def refusal(to: str | None) -> TableError:
        with pytest.raises(TableError) as refused:
            await a.router.ask_process("a", "move", {"table": table.id, "to": to, "seconds": 5})
        return refused.value

    full = await refusal("b")
    assert full.code == "server_full" and "b runs as many tables as it may" in full.message
    assert (await refusal(None)).code == "server_full"  # nobody else has room
    assert (await refusal("ghost")).code == "no_such_process"
    assert (await refusal("a")).code == "invalid_target"
    # it never stopped: the same table, epoch and lease
    assert a.manager.get(table.id) is table and not table.draining
    assert await _lease(sqlite_db, table.id) == before
    # with room again, the move goes through
    c.manager.capacity = 10
    moved = await a.router.ask_process("a", "move", {"table": table.id, "seconds": 5})
    assert moved == {"moved": True, "target": "c", "owner": "c"}
    assert c.manager.get(table.id) is not None and a.manager.get(table.id) is None


async def test_a_target_that_fills_up_meanwhile_leaves_the_table_where_it_was(
    processes: list[Process], sqlite_db: Database
) -> None:
    """b says it has room, then takes nothing (what a claim racing the move looks like): the
    table is back on its owner at once rather than free until a heartbeat."""
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    _, epoch = await _lease(sqlite_db, table.id)
    b.manager.capacity = 0

    async def room(args: dict[str, Any]) -> int:
        return 1

    b.router.process_op("room", room)
    moved = await a.router.ask_process("a", "move", {"table": table.id, "to": "b", "seconds": 5})
    assert moved == {"moved": True, "target": "b", "owner": "a"}
    back = a.manager.get(table.id)
    assert back is not None and back is not table and b.manager.get(table.id) is None
    assert await _lease(sqlite_db, table.id) == ("a", epoch + 1)


async def test_the_lobby_question_reaches_every_process(processes: list[Process]) -> None:
    a, b, c = processes
    b.router.process_op("count", _count(b.manager))
    a.router.process_op("count", _count(a.manager))
    c.router.process_op("count", _count(c.manager))
    await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await b.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await b.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    answers = await c.router.ask_all("count", {})
    assert sorted(answers) == [0, 1, 2]
    rooms = await c.router.rooms()
    assert {r.process: r.free for r in rooms} == {"a": 9, "b": 8}


def _count(manager: TableManager) -> ProcessOp:
    async def count(args: dict[str, Any]) -> int:
        return len(manager.tables)

    return count


async def test_a_dead_process_s_sockets_stop_counting_as_watchers(
    processes: list[Process], sqlite_db: Database
) -> None:
    a, b, c = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await b.router.request(table.id, m.Join(7, "b"))  # a socket on b
    await c.router.request(table.id, m.Join(8, "c"))  # and one on c
    assert table.observer_count() == 2
    a.router.peers_ttl = 0
    await a.router.sweep()  # all three alive
    async with sqlite_db.transaction() as s:  # c dies: its row leaves the registry
        await s.execute(delete(ServerProcess).where(ServerProcess.id == "c"))
    await a.router.sweep()
    await a.router.request(table.id, m.Resync(7))  # the table has handled what came before
    assert table.observer_count() == 1  # c's socket no longer counts; b's does
    await b.router.request(table.id, m.Unwatch(7, "b"))
    assert table.observer_count() == 0


async def test_a_table_nobody_runs_is_claimed_by_the_process_asked(
    processes: list[Process],
) -> None:
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await a.manager.stop()  # its process let it go (or died and its lease was freed)
    answer = await b.router.request(table.id, m.Resync(7))
    claimed = b.manager.get(table.id)
    assert claimed is not None  # b had room: it runs the table now, restored
    assert answer["epoch"] == claimed.epoch != table.epoch
