"""Issue 13, fencing with real processes on the real PostgreSQL and Redis: the owner of a
table is stopped (SIGSTOP) in the middle of a hand, past its lease; a second process starts,
finds it dead, claims the table under a higher epoch and voids the hand. The old owner is
woken (SIGCONT) with a player's action waiting for it. Whichever comes first on waking,
its renewal (which finds the lease gone and stops the table) or the action (the hand goes on
and its writes meet the fence), nothing it does is written: the hand is still void, no chip
moved, no hand it announced after waking is recorded, `ledger check` passes. (Each write's
refusal on its own is `tests/store/test_fencing.py`.)"""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import TableLease
from app.store.models import LedgerTransaction, Seat
from app.store.types import utcnow
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.serverproc import Player, free_port, ledger_check, register, server, server_env

LEASE = "2"  # seconds: short, so the test waits little for the lease to run out


async def _until(check: Any, what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


@pytest.mark.postgresql
async def test_a_woken_stale_owner_writes_nothing(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    name = pg_server.new_database(template=pg_server.template)
    # a process stopped inside a transaction must not hold its row locks for ever
    await pg_server.execute(f"ALTER DATABASE {name} SET idle_in_transaction_session_timeout = '1s'")
    url = pg_server.url_for(name)
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    env_a, env_b = (
        server_env(
            tmp_path / d, DATABASE_URL=url, REDIS_URL=redis_url, REDIS_NAMESPACE=namespace,
            LEASE_SECONDS=LEASE, HEARTBEAT_SECONDS="0.5",
        )
        for d in ("a", "b")
    )  # fmt: skip
    db = Database(url)
    port_a, port_b = free_port(), free_port()
    try:
        with server(tmp_path, port_a, tmp_path / "a.log", env_a) as a:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port_a}") as http:
                ann, ann_token = await register(http, "ann")
                bob, bob_token = await register(http, "bob")
                r = await http.post(
                    "/api/tables",
                    headers={"Authorization": f"Bearer {ann_token}"},
                    json={"name": "Fenced", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
                          "action_timer_ms": 60_000},
                )  # fmt: skip
                assert r.status_code == 201, r.text
                table_id = r.json()["table"]["id"]
            players = [
                await Player.connect(port_a, table_id, ann_token, ann),
                await Player.connect(port_a, table_id, bob_token, bob),
            ]
            for seat, p in enumerate(players):
                await p.wait(lambda f: f.get("type") == "snapshot")
                p.seat = seat
                await p.ws.send(
                    json.dumps({"type": "sit", "seat": seat, "amount": 2000, "request_id": "s"})
                )
                reply = await p.wait(lambda f: f.get("type") in ("ok", "error"))
                assert reply["type"] == "ok", reply
            watcher = players[0]
            await watcher.wait(lambda f: watcher.count("hand_ended") >= 2, timeout=30)
            for p in players:
                p.acting = False  # the next hand stops at its first turn
            turn = await watcher.wait(
                lambda f: (
                    f.get("type") == "turn"
                    and watcher.count("hand_started") >= watcher.count("hand_ended") + 1
                )
            )
            live_hand = turn["hand_id"]

            async def live_row() -> bool:
                async with db.session() as s:
                    status = await s.scalar(
                        select(HandRecord.status).where(HandRecord.id == live_hand)
                    )
                return status == HandStatus.LIVE

            await _until(live_row, "the live hand's start row")
            async with db.session() as s:
                old = await s.get(TableLease, table_id)
                assert old is not None
                stacks = {n: st for n, st in await s.execute(select(Seat.seat_no, Seat.stack))}

            a.send_signal(signal.SIGSTOP)

            async def expired() -> bool:
                async with db.session() as s:
                    lease = await s.get(TableLease, table_id, populate_existing=True)
                    return lease is not None and lease.expires_at < utcnow()

            await _until(expired, "the stopped owner's lease runs out")
            with server(tmp_path, port_b, tmp_path / "b.log", env_b):
                async with db.session() as s:
                    new = await s.get(TableLease, table_id, populate_existing=True)
                    status = await s.scalar(
                        select(HandRecord.status).where(HandRecord.id == live_hand)
                    )
                assert new is not None and new.owner != old.owner
                assert new.epoch == old.epoch + 1
                assert status == HandStatus.VOID

                # the old owner wakes with an action waiting: the players play on with it
                mover = next(p for p in players if p.seat == turn["seat"])
                for p in players:
                    p.acting = True
                marks = {p.user_id: len(p.frames) for p in players}
                await mover.ws.send(json.dumps(Player.answer(turn)))
                a.send_signal(signal.SIGCONT)
                log_a = tmp_path / "a.log"

                async def let_go() -> bool:
                    return "lease lost to another process" in log_a.read_text()

                await _until(let_go, "the old owner sees its lease gone")
                a.send_signal(signal.SIGTERM)  # and whatever it still queued is tried now
                a.wait(timeout=30)
                woke = [f for p in players for f in p.frames[marks[p.user_id] :]]
                after_hands = {f["hand_id"] for f in woke if "hand_id" in f}

                async with db.session() as s:
                    rows = dict((await s.execute(select(HandRecord.id, HandRecord.status))).all())
                    settled = await s.scalar(
                        select(LedgerTransaction.id).where(
                            LedgerTransaction.idempotency_key == f"hand_settlement:{live_hand}"
                        )
                    )
                    seats = {n: st for n, st in await s.execute(select(Seat.seat_no, Seat.stack))}
                assert rows[live_hand] == HandStatus.VOID and settled is None
                for hand_id in after_hands - {live_hand}:  # hands the woken owner dealt
                    assert rows.get(hand_id) != HandStatus.DONE
                assert seats == stacks  # no chip moved for the fenced hand
            for p in players:
                await p.close()
        check = ledger_check(env_a)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        await db.dispose()
        pg_server.drop(name)
