"""A table's own log lines say which table and which hand (app/logs.py): a table that stops
its clocks because its lease is in doubt logs it from its task, and the JSON line carries
its id and the number of the hand in play, and no user's id (though a user's request made
the table). The hand dealt is counted (`stud_hands_dealt_total`, app/metrics.py)."""

from __future__ import annotations

import io
import json
import logging

from app import logs, metrics
from app.fanout import create_fanout
from app.store.db import Database
from app.tables import LedgerTableStore
from app.tables import messages as m
from tests.tables.test_reach import seated, until


async def test_a_tables_lines_carry_its_id_and_hand_number(sqlite_db: Database) -> None:
    out = io.StringIO()
    handler = logs.handler("json", out)
    logger = logging.getLogger("app.tables")
    logger.addHandler(handler)
    dealt = metrics.REGISTRY.get_sample_value("stud_hands_dealt_total") or 0
    store = LedgerTableStore(sqlite_db, lease_seconds=1.0, watch_expiry=True)
    fanout = create_fanout("memory://")
    logs.bind_user(99)  # this test is "a request" of user 99: the table must not say so
    manager, table, clock, heard = await seated(sqlite_db, store, fanout)
    try:
        assert metrics.REGISTRY.get_sample_value("stud_hands_dealt_total") == dealt + 1
        await until(lambda: not store.holds(table.id), "the lease is in doubt")
        clock.advance(3.0)
        await table.request(m.Sync())
        assert table.frozen == "lease"
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        (frozen,) = [line for line in lines if "cannot reach its players" in line["message"]]
        assert frozen["table_id"] == table.id and frozen["hand"] == table.state.hand_number
        assert "user_id" not in frozen
    finally:
        logs.unbind()
        logger.removeHandler(handler)
        await heard.close()
        await manager.stop()
        await fanout.close()
