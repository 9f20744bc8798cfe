"""The router in one event loop: two (or three) table managers on one database and
one fan-out stand for processes. A table message reaches the table wherever it runs and its
refusal comes back with its code; a forged or malformed routed request is refused and
changes nothing; an owner that does not answer is a clear error within the timeout; a
table that moved is found again; the lobby's questions reach every live process.
(With real processes, PostgreSQL and Redis: tests/process/test_cluster_*.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import delete, update

from app.fanout import BaseFanout, channels
from app.jsontext import from_json, to_json
from app.store.db import Database
from app.store.lease_models import ServerProcess, TableLease
from app.store.types import utcnow
from app.tables import (
    TableError,
    TableManager,
    TableSettings,
    publishing,
)
from app.tables import messages as m
from app.tables.rpc import ProcessOp
from app.tables.state import unkept
from app.wire import client as c
from app.wire.limits import MAX_CHIPS, MAX_SEATS
from app.wire.process import VERSION
from tests import asks
from tests.tables.routed import Routed, routed

SETTINGS = TableSettings(name="Routed", small_bet=100, big_bet=200, ante=10, bring_in=50)


@pytest.fixture
async def processes(sqlite_db: Database, memory_fanout: BaseFanout) -> AsyncIterator[list[Routed]]:
    async with routed(sqlite_db, memory_fanout) as made:
        yield made


async def test_a_message_reaches_the_table_wherever_it_runs(processes: list[Routed]) -> None:
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
    processes: list[Routed], memory_fanout: BaseFanout
) -> None:
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    version = table.version
    forged = [
        {"kind": "TurnAlarm", "seat": 0, "turn_id": 1},  # a timer's, never a player's
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
    processes: list[Routed], sqlite_db: Database
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


async def test_a_table_that_moved_is_found_again(processes: list[Routed]) -> None:
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
    processes: list[Routed], sqlite_db: Database
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
    assert a.manager.get(table.id) is table and not table.state.life.draining
    assert await _lease(sqlite_db, table.id) == before
    # with room again, the move goes through
    c.manager.capacity = 10
    moved = await a.router.ask_process("a", "move", {"table": table.id, "seconds": 5})
    assert moved == {"moved": True, "target": "c", "owner": "c"}
    assert c.manager.get(table.id) is not None and a.manager.get(table.id) is None


async def test_a_target_that_fills_up_meanwhile_leaves_the_table_where_it_was(
    processes: list[Routed], sqlite_db: Database
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
    # given to b (one more epoch), not taken, taken back by a (one more)
    assert await _lease(sqlite_db, table.id) == ("a", epoch + 2)


async def test_the_lobby_question_reaches_every_process(processes: list[Routed]) -> None:
    a, b, c = processes
    b.router.process_op("count", _count(b.manager))
    a.router.process_op("count", _count(a.manager))
    c.router.process_op("count", _count(c.manager))
    await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await b.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await b.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    answers = await c.peers.ask_all("count", {})
    assert sorted(answers) == [0, 1, 2]
    rooms = await c.peers.rooms()
    assert {r.process: r.free for r in rooms} == {"a": 9, "b": 8}


def _count(manager: TableManager) -> ProcessOp:
    async def count(args: dict[str, Any]) -> int:
        return len(manager.tables)

    return count


async def test_a_dead_process_s_sockets_stop_counting_as_watchers(
    processes: list[Routed], sqlite_db: Database
) -> None:
    a, b, c = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await b.router.request(table.id, m.Join(7, "b"))  # a socket on b
    await c.router.request(table.id, m.Join(8, "c"))  # and one on c
    assert publishing.unseated_watchers(table.state) == 2
    a.peers.ttl = 0
    await a.peers.sweep()  # all three alive
    async with sqlite_db.transaction() as s:  # c dies: its row leaves the registry
        await s.execute(delete(ServerProcess).where(ServerProcess.id == "c"))
    await a.peers.sweep()
    await a.router.request(table.id, m.Resync(7))  # the table has handled what came before
    assert publishing.unseated_watchers(table.state) == 1  # c's socket no longer counts; b's does
    await b.router.request(table.id, m.Unwatch(7, "b"))
    assert publishing.unseated_watchers(table.state) == 0


async def test_a_table_nobody_runs_is_claimed_by_the_process_asked(
    processes: list[Routed],
) -> None:
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    await a.manager.stop()  # its process let it go (or died and its lease was freed)
    answer = await b.router.request(table.id, m.Resync(7))
    claimed = b.manager.get(table.id)
    assert claimed is not None  # b had room: it runs the table now, restored
    assert answer["epoch"] == claimed.epoch != table.epoch


async def _raw(fanout: BaseFanout, to: str, body: Any) -> dict[str, Any]:
    """Publish `body` as is on process `to`'s channel, as another process (one of another
    release, say) would; its reply."""
    sub = fanout.subscribe(channels.process("elsewhere"), queue_size=8)
    await sub
    try:
        await fanout.publish(channels.process(to), to_json(body))
        async for _channel, text in sub:
            assert isinstance(text, str), text
            reply: dict[str, Any] = from_json(text)
            return reply
    finally:
        await sub.close()
    raise AssertionError("no reply")


def _socket_says(data: dict[str, Any]) -> tuple[str, str]:
    """What the table socket answers a client sending `data` (`ws.handle` refuses with this)."""
    with pytest.raises(ValidationError) as refused:
        c.client_message.validate_python(data)
    return c.refusal(refused.value)


@pytest.mark.parametrize(
    "wrong",
    [
        {"type": "sit", "seat": 0, "amount": MAX_CHIPS + 1, "request_id": "r1"},
        {"type": "sit", "seat": MAX_SEATS, "amount": 2000, "request_id": "r1"},
        {"type": "host_bots", "count": 0},
        {"type": "act", "hand_id": "h", "turn_id": -1, "action": "call"},
    ],
)
async def test_a_routed_command_is_checked_on_arrival_as_at_the_socket(
    processes: list[Routed], memory_fanout: BaseFanout, wrong: dict[str, Any]
) -> None:
    """Sent raw to the owner's channel (no socket checked it), out of the catalog's bounds:
    refused on the owning process with the socket's own code and words, and nothing done."""
    a, b, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    version = table.version
    mail = {"kind": "Ask", "user_id": 7, "name": "x", "via": "elsewhere", "msg": wrong}
    body = {"v": VERSION, "id": "r", "from": "elsewhere", "op": "request", "table": table.id,
            "args": {"msg": mail}}  # fmt: skip
    reply = await _raw(memory_fanout, "a", body)
    code, words = _socket_says(wrong)
    assert code == "invalid_message"
    assert reply["v"] == VERSION and reply["error"] == [code, words], reply
    # and through the router from another process, built past the model's checks
    forged = type(c.client_message.validate_python({**wrong, **_VALID[wrong["type"]]}))
    unchecked = forged.model_construct(**wrong)
    with pytest.raises(TableError) as refused:
        await b.router.request(table.id, m.Ask(7, "x", "b", unchecked))
    assert (refused.value.code, refused.value.message) == (code, words)
    assert table.version == version and not table.state.seats


# what makes each of the wrong messages above valid (to find its model)
_VALID: dict[str, dict[str, Any]] = {
    "sit": {"seat": 0, "amount": 2000},
    "host_bots": {"count": 1},
    "act": {"turn_id": 1},
}


async def test_the_release_befores_process_messages_are_still_understood(
    processes: list[Routed], memory_fanout: BaseFanout
) -> None:
    """A rolling deploy: a process of the release before (no `v`; a command as the table's
    dataclass by class name, its request id called `key`) is answered as before."""
    a, _, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    version = table.version
    said = {"kind": "Chat", "user_id": 7, "name": "old", "text": "from the old release"}
    body = {"id": "r1", "from": "elsewhere", "op": "request", "table": table.id,
            "args": {"msg": said}}  # fmt: skip
    reply = await _raw(memory_fanout, "a", body)
    assert reply.get("error") is None and set(reply["ok"]) == {"line"}, reply  # the chat line's id
    assert table.version == version + 1
    assert from_json(unkept(table.ring[-1])[0])["text"] == "from the old release"
    left = {"kind": "Leave", "user_id": 7}  # reaches the rule: refused by the table itself
    reply = await _raw(memory_fanout, "a", {**body, "args": {"msg": left}})
    assert reply["error"][0] == "not_seated", reply
    old_sit = {"kind": "Sit", "user_id": 7, "name": "old", "seat": 0, "amount": MAX_CHIPS + 1,
               "key": "k"}  # fmt: skip
    reply = await _raw(memory_fanout, "a", {**body, "args": {"msg": old_sit}})  # still checked
    assert reply["error"][0] == "invalid_message" and "amount" in reply["error"][1], reply


async def test_a_newer_releases_process_message_is_refused_by_name(
    processes: list[Routed], memory_fanout: BaseFanout
) -> None:
    """A version this process does not know is refused, saying so, never half understood."""
    a, _, _ = processes
    table = await a.manager.create(SETTINGS, host_user_id=None, password_hash=None)
    version = table.version
    said = {"kind": "Ask", "user_id": 7, "name": "new", "via": "elsewhere",
            "msg": {"type": "chat", "text": "from the future"}}  # fmt: skip
    body = {"v": VERSION + 1, "id": "r1", "from": "elsewhere", "op": "request",
            "table": table.id, "args": {"msg": said}}  # fmt: skip
    reply = await _raw(memory_fanout, "a", body)
    assert reply["error"][0] == "unsupported_version", reply
    assert f"not {VERSION + 1}" in reply["error"][1]  # the version it could not read
    assert table.version == version
    # the same request in this release's version is done
    reply = await _raw(memory_fanout, "a", {**body, "v": VERSION})
    assert reply.get("error") is None and table.version == version + 1, reply
