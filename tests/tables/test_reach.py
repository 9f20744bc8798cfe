"""A table whose events cannot reach its players stops its clocks (R19's timer among them),
deals no new hand and refuses commands, and tells watchers nothing it has not surely
published; when it reaches them again it says so (`resumed`) and whoever was to act gets the
whole clock. Three ways of being cut off, each with the real part that fails:
- its lease in doubt (the process's own clock ran past it: paused, or the database away);
- the Redis fan-out away (a TCP proxy in front of the real Redis taken down);
- the database unable to count an R19 all-in protection (a proxy in front of PostgreSQL).

The same with real server processes: tests/process/test_outages.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from app.engine import Variant
from app.fanout import GAP, BaseFanout, Subscription, channels, create_fanout
from app.jsontext import from_json
from app.store.db import Database
from app.store.models import AllInProtection
from app.tables import FakeClock, LedgerTableStore, Table, TableError, TableManager, TableSettings
from app.tables import messages as m
from app.tables.table import RETRY_SECONDS
from tests import asks
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.fanout.proxy import RedisProxy as TcpProxy
from tests.store.factories import make_user
from tests.store.hands_play import act_once

TIMER_MS = 3_000
SETTINGS: dict[str, Any] = dict(
    name="Reach", small_bet=100, big_bet=200, ante=10, bring_in=50, hand_pause_ms=500,
    action_timer_ms=TIMER_MS,
)  # fmt: skip


async def until(
    check: Callable[[], bool | Awaitable[bool]], what: str, timeout: float = 20
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        done = check()
        if not isinstance(done, bool):
            done = await done
        if done:
            return
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


class Heard:
    """What a subscriber to the table's channel received (the events surely published)."""

    def __init__(self, sub: Subscription) -> None:
        self.sub = sub
        self.events: list[dict[str, Any]] = []
        self.gaps = 0
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for _channel, text in self.sub:
            if text is GAP:
                self.gaps += 1
            else:
                self.events.append(from_json(text))

    async def mark(self, table: Table) -> int:
        """Where the events heard stand once everything the table published has arrived."""
        await until(
            lambda: bool(self.events) and self.events[-1]["v"] >= table.published,
            "the subscriber hears what was published",
        )
        return len(self.events)

    def types(self, since: int = 0) -> list[str]:
        return [str(e.get("type")) for e in self.events[since:] if "type" in e]

    async def close(self) -> None:
        self.task.cancel()
        await self.sub.close()


async def seated(
    db: Database, store: LedgerTableStore, fanout: BaseFanout, **settings: Any
) -> tuple[TableManager, Table, FakeClock, Heard]:
    clock = FakeClock()
    manager = TableManager(store, fanout, clock)
    users = []
    async with db.transaction() as s:
        for i in range(2):
            users.append((await make_user(s, f"reach{i}", balance=10_000)).id)
    table = await manager.create(
        TableSettings(**{**SETTINGS, **settings}, variant=Variant("stud")),
        host_user_id=users[0],
        password_hash=None,
    )
    sub = fanout.subscribe(channels.table(table.id))
    await sub
    heard = Heard(sub)
    for seat, user in enumerate(users):
        await table.request(asks.sit(user, f"reach{seat}", seat, 2000, f"k{seat}"))
    task = table.numbers.task
    if task is not None:
        await asyncio.shield(task)
    clock.advance(1.0)  # the pause before the first hand
    await table.request(m.Sync())
    assert table.state.hand is not None and table.state.hand.to_act is not None
    return manager, table, clock, heard


def turn_frames(heard: Heard, since: int) -> list[dict[str, Any]]:
    return [e for e in heard.events[since:] if e.get("type") == "turn"]


async def check_frozen(table: Table, clock: FakeClock, why: str) -> None:
    """Past the whole action timer and more: nobody timed out; a command is refused, a
    watcher's resync too when it cannot be answered from what was surely published."""
    hand = table.state.hand
    assert hand is not None
    seat, turn, inputs = hand.to_act, table.state.turn_id, list(table.state.recording.inputs)  # type: ignore[union-attr]
    clock.advance(3 * TIMER_MS / 1000)
    await table.request(m.Sync())
    assert table.frozen == why
    assert table.state.hand is hand and hand.to_act == seat and table.state.turn_id == turn
    assert (
        table.state.recording is not None and table.state.recording.inputs == inputs
    )  # no timeout
    user = table.state.hand_users[seat]  # type: ignore[index]
    assert table.state.hand_id is not None
    with pytest.raises(TableError) as refused:
        await table.request(asks.act(user, table.state.hand_id, turn, "bring_in", None))
    assert refused.value.code == "table_frozen"
    assert hand.to_act == seat and table.state.turn_id == turn


async def test_r19_a_table_unsure_of_its_lease_stops_its_clock_and_resumes_it_in_full(
    sqlite_db: Database,
) -> None:
    """A server's store (`watch_expiry`) with a 1 s lease: no renewal comes (as when the
    process is paused or the database away), so after a second the table is not sure it
    still runs here. Nothing moves until a renewal confirms the lease."""
    store = LedgerTableStore(sqlite_db, lease_seconds=1.0, watch_expiry=True)
    fanout = create_fanout("memory://")
    manager, table, clock, heard = await seated(sqlite_db, store, fanout)
    try:
        await until(lambda: not store.holds(table.id), "the lease is in doubt")
        mark = await heard.mark(table)
        await check_frozen(table, clock, "lease")
        with pytest.raises(TableError) as refused:  # it may not run here: ask the owner
            await table.request(m.Resync(table.state.hand_users[0], 0, table.epoch))
        assert refused.value.code == "not_here"
        clock.advance(2.5)  # it looks again meanwhile (`RETRY_SECONDS`), still in doubt
        await table.request(m.Sync())
        assert table.frozen == "lease"
        assert heard.events[mark:] == []  # nothing went out meanwhile

        assert await manager.renew_leases() == set()  # the lease was still ours
        await table.request(m.Sync())
        assert table.frozen is None
        assert heard.types(mark)[:2] == ["resumed", "turn"]
        resumed = heard.events[mark]
        assert resumed["reason"] == "lease" and resumed["paused_ms"] == 2500
        (turn,) = turn_frames(heard, mark)
        assert turn["timer_ms"] == TIMER_MS and turn["turn_id"] == table.state.turn_id
        # the whole clock from now: a moment before it runs out nothing has timed out
        assert table.state.recording is not None
        inputs = list(table.state.recording.inputs)
        clock.advance(TIMER_MS / 1000 - 0.1)
        await table.request(m.Sync())
        assert table.state.recording is not None and table.state.recording.inputs == inputs
        clock.advance(0.2)  # and then the turn times out as any turn does
        await table.request(m.Sync())
        await until(lambda: "timed_out" in heard.types(mark), "the turn times out")
    finally:
        await heard.close()
        await manager.stop()
        await fanout.close()


async def test_r19_a_table_cut_off_from_redis_keeps_its_events_and_its_clock(
    sqlite_db: Database,
    redis_url: str,  # noqa: F811
) -> None:
    """The fan-out reaches Redis through a proxy that is taken down mid-turn. The turn does
    not time out; what the table says meanwhile (an observer arrives) is kept and published
    in order once Redis is back, before the table says it resumes."""
    proxy = TcpProxy("127.0.0.1", int(redis_url.rsplit(":", 1)[1].split("/")[0]))
    await proxy.start()
    fanout = create_fanout(proxy.url, namespace=f"test-reach-{time.monotonic_ns()}")
    store = LedgerTableStore(sqlite_db)
    manager, table, clock, heard = await seated(sqlite_db, store, fanout)
    try:
        mark = await heard.mark(table)
        version = table.version
        proxy.go_down()
        await until(lambda: not fanout.reachable, "the fan-out notices Redis is away")
        await check_frozen(table, clock, "fanout")
        await table.request(m.Join(99, "elsewhere"))  # an observer: said, not published
        await table.request(m.Sync())
        assert table.version > version and table.published == version
        with pytest.raises(TableError) as refused:  # nothing unpublished is told
            await table.request(m.Resync(99, None, None))
        assert refused.value.code == "unavailable"

        proxy.come_up()
        await until(lambda: fanout.reachable, "the fan-out reconnects")
        clock.advance(RETRY_SECONDS)  # the table looks again
        await table.request(m.Sync())
        assert table.frozen is None and table.published == table.version
        await until(lambda: "resumed" in heard.types(mark), "the resumption is heard")
        assert heard.gaps >= 1  # it missed what went out before it resubscribed: it resyncs
        # what a socket catching up from before the outage is told: all of it, in order
        caught = await table.request(m.Resync(99, version, table.epoch))
        told = [from_json(text) for text in caught["events"]]
        assert [e["v"] for e in told] == list(range(version + 1, table.version + 1))
        kinds = [e["type"] for e in told]
        assert kinds.index("observers") < kinds.index("resumed") < kinds.index("turn")
        assert [e["timer_ms"] for e in told if e["type"] == "turn"] == [TIMER_MS]
    finally:
        await heard.close()
        await manager.stop()
        await fanout.close()
        await proxy.close()


@pytest.mark.postgresql
async def test_r19_no_protection_is_spent_nor_anyone_folded_while_the_database_is_away(
    pg_server: PgServer,
) -> None:
    """R19: a turn that times out while the database cannot count the player's all-in
    protections neither spends one nor folds the player: the clock stops and the turn
    starts again in full once the database answers; then it times out as usual (one
    protection spent)."""
    name = pg_server.new_database(template=pg_server.template)
    proxy = TcpProxy(pg_server.url.host or "127.0.0.1", pg_server.url.port or 5432)
    await proxy.start()
    direct = Database(pg_server.url_for(name))
    through = Database(
        pg_server.url.set(database=name, port=proxy.port, host="127.0.0.1").render_as_string(
            hide_password=False
        )
    )
    fanout = create_fanout("memory://")
    manager, table, clock, heard = await seated(
        through, LedgerTableStore(through), fanout, timeout_action="all_in"
    )

    async def protections() -> int:
        async with direct.session() as s:
            return int(await s.scalar(select(func.count()).select_from(AllInProtection)) or 0)

    try:
        # to the first turn after the bring-in: a betting turn, where R19 protects
        while (
            table.state.hand is not None and table.state.hand.legal_actions().bring_in is not None
        ):
            seat = table.state.hand.to_act
            assert seat is not None and table.state.hand_id is not None
            await table.request(
                asks.act(
                    table.state.hand_users[seat],
                    table.state.hand_id,
                    table.state.turn_id,
                    "bring_in",
                    None,
                )
            )
        assert table.state.hand is not None
        mark = await heard.mark(table)
        proxy.go_down()
        await check_frozen(table, clock, "database")
        assert await protections() == 0
        assert all(not p.folded and not p.all_in for p in table.state.hand.players)

        proxy.come_up()
        clock.advance(RETRY_SECONDS)
        await table.request(m.Sync())
        assert table.frozen is None
        assert heard.types(mark)[:2] == ["resumed", "turn"]
        clock.advance(TIMER_MS / 1000)
        await table.request(m.Sync())
        assert await protections() == 1
        await until(lambda: "timed_out" in heard.types(mark), "the turn times out")
    finally:
        await heard.close()
        await manager.stop()
        await fanout.close()
        await through.dispose()
        await direct.dispose()
        await proxy.close()
        pg_server.drop(name)


async def test_r19_a_table_frozen_between_hands_deals_the_next_one_when_it_resumes(
    sqlite_db: Database,
) -> None:
    """Its lease in doubt between two hands, a table deals nothing however long it waits
    (it keeps looking again meanwhile); once a renewal confirms the lease it deals on."""
    store = LedgerTableStore(sqlite_db, lease_seconds=1.0, watch_expiry=True)
    fanout = create_fanout("memory://")
    manager, table, clock, heard = await seated(sqlite_db, store, fanout)
    try:
        while table.state.hand is not None:  # the first hand, to its end
            await act_once(table)
        played = table.state.hands_played
        await until(lambda: not store.holds(table.id), "the lease is in doubt")
        mark = await heard.mark(table)
        for _ in range(5):  # the pause between hands, many times over
            clock.advance(1.0)
            await table.request(m.Sync())
        assert table.state.hand is None and table.state.hands_played == played
        assert table.frozen == "lease" and heard.events[mark:] == []

        assert await manager.renew_leases() == set()
        await table.request(m.Sync())
        clock.advance(SETTINGS["hand_pause_ms"] / 1000)
        await table.request(m.Sync())
        assert table.state.hand is not None  # the next hand
        await until(lambda: "hand_started" in heard.types(mark), "the next hand is told")
        assert heard.types(mark)[0] == "resumed"
    finally:
        await heard.close()
        await manager.stop()
        await fanout.close()
