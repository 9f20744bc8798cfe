"""Fencing with real processes on the real PostgreSQL and Redis: the owner of a
table, with its players' sockets on it, is stopped (SIGSTOP) in the middle of a hand, past
its lease; the second process finds the lease expired, claims the table under a higher epoch
and voids the hand. The old owner is woken (SIGCONT) with a player's action waiting on its
socket. Whichever comes first on waking, its renewal (which finds the lease gone and stops
the table) or the action (the hand goes on and its writes meet the fence), nothing it does
is written: the hand is still void, no chip moved, no hand it announced after waking is
recorded, `ledger check` passes. (Each write's refusal on its own is
`tests/store/test_fencing.py`; the players on other processes: test_cluster_failover.py.)"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest
from sqlalchemy import select

from app.store.hand_models import HandRecord, HandStatus
from app.store.models import LedgerTransaction
from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import HEARTBEAT, LEASE, SLACK, cluster, until
from tests.serverproc import Frame, Player

pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("cluster")]


async def test_a_woken_stale_owner_writes_nothing(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    async with cluster(tmp_path, pg_server, redis_url, n=2) as c:
        stage = await c.seated(at=(0, 0))
        old = stage.lease
        live = stage.live
        c.signal(0, signal.SIGSTOP)
        new = await c.moved_from(stage.table_id, old, timeout=LEASE + HEARTBEAT + SLACK)
        assert new.epoch == old.epoch + 1

        await c.until_status(live, HandStatus.VOID, "the new owner voids the interrupted hand")

        # the old owner wakes with an action waiting: the players play on with it
        mover = stage.mover
        for p in stage.players:
            p.acting = True
        marks = {p.user_id: len(p.frames) for p in stage.players}
        await mover.ws.send(json.dumps(Player.answer(stage.turn)))
        c.signal(0, signal.SIGCONT)

        async def let_go() -> bool:
            return "lease lost to another process" in c.log(0)

        await until(let_go, "the old owner sees its lease gone")
        c.signal(0, signal.SIGTERM)  # and whatever it still queued is tried now
        await asyncio.to_thread(c.procs[0].wait, 30)
        # what the old owner told its sockets after waking: their frames until the new
        # owner's snapshot (another epoch; the sockets follow the table there)
        woke = [f for p in stage.players for f in _until_new_epoch(p, marks[p.user_id])]
        after_hands = {f["hand_id"] for f in woke if "hand_id" in f}
        async with c.db.session() as s:
            rows = dict((await s.execute(select(HandRecord.id, HandRecord.status))).all())
            settled = await s.scalar(
                select(LedgerTransaction.id).where(
                    LedgerTransaction.idempotency_key == f"hand_settlement:{live}"
                )
            )
        assert rows[live] == HandStatus.VOID and settled is None
        for hand_id in after_hands - {live}:  # hands the woken owner dealt
            assert rows.get(hand_id) != HandStatus.DONE
        for p in stage.players:
            await p.close()
        c.ledger_ok()


def _until_new_epoch(player: Player, mark: int) -> list[Frame]:
    """The player's frames from `mark` until a snapshot of another epoch than the last one
    it had before `mark`."""
    epoch = next(f["epoch"] for f in reversed(player.frames[:mark]) if f.get("type") == "snapshot")
    out = []
    for f in player.frames[mark:]:
        if f.get("type") == "snapshot" and f["epoch"] != epoch:
            break
        out.append(f)
    return out
