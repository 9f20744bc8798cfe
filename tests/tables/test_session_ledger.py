"""The host's session ledger over HTTP (`GET /api/tables/{id}/ledger`, `.csv`): each
player's buy-ins, top-ups, cash-outs, stack and net, as the chip ledger's own rows have
them; who may read it (the host; every player of the table once the host shares it; nobody
else); a public table keeps none."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from typing import Any

from sqlalchemy import select

from app.store import ledger
from app.store.db import Database
from app.store.models import LedgerAccount, LedgerEntry, LedgerTransaction, Seat, TxKind
from tests.tables.live import Client, Live
from tests.tables.test_extras import ledger_ok, play_hand
from tests.tables.test_ws_play import PAUSE, calldown


async def expected_from_rows(db: Database, table_id: int, top_up_keys: set[str]) -> dict[int, Any]:
    """Each player's totals straight from the ledger's rows: the player's legs of every
    posting that also moved the table's escrow, a sit and a top-up told apart by the
    request ids the test itself sent (`top_up_keys`), the stack from the ledger's seat."""
    totals: dict[int, dict[str, int]] = defaultdict(
        lambda: {"buy_ins": 0, "top_ups": 0, "cash_outs": 0, "stack": 0}
    )
    async with db.session() as s:
        escrow = await ledger.account_id(s, ledger.escrow_code(table_id))
        at_table = select(LedgerEntry.transaction_id).where(LedgerEntry.account_id == escrow)
        rows = await s.execute(
            select(
                LedgerTransaction.kind,
                LedgerTransaction.idempotency_key,
                LedgerAccount.user_id,
                LedgerEntry.amount,
            )
            .join(LedgerEntry, LedgerEntry.transaction_id == LedgerTransaction.id)
            .join(LedgerAccount, LedgerAccount.id == LedgerEntry.account_id)
            .where(LedgerTransaction.id.in_(at_table), LedgerAccount.kind == "player")
        )
        for kind, key, user, amount in rows:
            assert user is not None  # a player's account
            if kind == TxKind.CASH_OUT:
                totals[user]["cash_outs"] += amount
            elif key.split(":")[-1] in top_up_keys:
                totals[user]["top_ups"] -= amount
            else:
                totals[user]["buy_ins"] -= amount
        for user, stack in await s.execute(
            select(Seat.user_id, Seat.stack).where(Seat.table_id == table_id)
        ):
            totals[user]["stack"] = stack
    return {
        user: {**t, "net": t["cash_outs"] + t["stack"] - t["buy_ins"] - t["top_ups"]}
        for user, t in totals.items()
    }


def shown(body: dict[str, Any]) -> dict[int, Any]:
    keys = ("buy_ins", "top_ups", "cash_outs", "stack", "net")
    return {p["user_id"]: {k: p[k] for k in keys} for p in body["players"]}


async def test_the_session_ledger_is_the_chip_ledgers_rows_and_only_the_host_reads_it(
    live: Live,
) -> None:
    host_id, host_token = await live.user("host")
    anna_id, anna_token = await live.user("anna")
    bob_id, bob_token = await live.user("bob")
    _, stranger_token = await live.user("stranger")
    created = await live.create_table(
        host_token, name="Home", small_bet=100, ante=10, private=True, rake_bps=500, rake_cap=50,
        hand_pause_ms=int(PAUSE * 1000),
    )  # fmt: skip
    table_id, invite = created["table"]["id"], created["invite"]
    host = await Client.open(live, table_id, host_token, host_id)
    anna = await Client.open(live, table_id, anna_token, anna_id, invite=invite)
    bob = await Client.open(live, table_id, bob_token, bob_id, invite=invite)
    clients = {0: host, 1: anna, 2: bob}
    for seat, client in clients.items():
        reply = await client.call(
            {"type": "sit", "seat": seat, "amount": 2000, "request_id": f"s{seat}"}
        )
        assert reply["type"] == "ok", reply
    await play_hand(live, table_id, clients, calldown)
    assert (await bob.call({"type": "top_up", "amount": 700, "request_id": "t1"}))["type"] == "ok"
    assert (await anna.call({"type": "leave"}))["result"]["left"] is True
    again = await anna.call({"type": "sit", "seat": 1, "amount": 1500, "request_id": "s9"})
    assert again["type"] == "ok", again
    await play_hand(live, table_id, clients, calldown)
    await live.services.manager.writer.drain()

    async with live.http(host_token) as http:
        r = await http.get(f"/api/tables/{table_id}/ledger")
        assert r.status_code == 200, r.text
        body = r.json()
        csv_r = await http.get(f"/api/tables/{table_id}/ledger.csv")
    expected = await expected_from_rows(live.db, table_id, {"t1"})
    assert shown(body) == expected
    assert body["table_agrees"] is True  # the table's stored stacks are the ledger's seats
    assert expected[anna_id]["buy_ins"] == 3500 and expected[anna_id]["cash_outs"] > 0
    assert expected[bob_id]["top_ups"] == 700
    assert body["totals"]["net"] == -body["rake"] and body["rake"] > 0
    async with live.db.session() as s:
        escrow = await ledger.balance(s, ledger.escrow_code(table_id))
    assert body["totals"]["stack"] == body["escrow"] == escrow
    # the CSV says the same, in dollars
    assert csv_r.status_code == 200 and csv_r.headers["content-type"].startswith("text/csv")
    assert "attachment" in csv_r.headers["content-disposition"]
    lines = list(csv.reader(io.StringIO(csv_r.text)))
    assert lines[0] == ["player", "buy_ins", "top_ups", "cash_outs", "stack_now", "net"]
    anna_line = next(line for line in lines if line[0] == "anna")
    a = expected[anna_id]
    assert anna_line[1:] == [
        f"{a[k] / 100:.2f}" for k in ("buy_ins", "top_ups", "cash_outs", "stack", "net")
    ]

    # a player of the table is refused until the host shares it; a stranger is not told
    async with live.http(anna_token) as http:
        r = await http.get(f"/api/tables/{table_id}/ledger.csv")
        assert r.status_code == 403 and r.json()["detail"]["code"] == "ledger_not_shared"
    async with live.http(stranger_token) as http:
        r = await http.get(f"/api/tables/{table_id}/ledger")
        assert r.status_code == 404 and r.json()["detail"]["code"] == "no_such_table"
    shared = await host.call({"type": "host_settings", "changes": {"ledger_shared": True}})
    assert shared["type"] == "ok", shared
    await live.settle(table_id)
    table = live.table(table_id)
    if table.state.hand is not None:
        await play_hand(live, table_id, clients, calldown)
    assert table.state.settings.ledger_shared
    async with live.http(anna_token) as http:
        r = await http.get(f"/api/tables/{table_id}/ledger")
        assert r.status_code == 200
    async with live.http(stranger_token) as http:
        assert (await http.get(f"/api/tables/{table_id}/ledger")).status_code == 404
    async with live.http() as http:
        assert (await http.get(f"/api/tables/{table_id}/ledger")).status_code == 401
    await ledger_ok(live)


async def test_a_public_table_keeps_no_session_ledger(live: Live) -> None:
    _, token = await live.user("pub")
    created = await live.create_table(token, name="Open", small_bet=100)
    async with live.http(token) as http:
        r = await http.get(f"/api/tables/{created['table']['id']}/ledger")
        assert r.status_code == 404 and r.json()["detail"]["code"] == "no_session_ledger"
        r = await http.post(
            "/api/tables", json={"name": "X", "small_bet": 100, "ledger_shared": True}
        )
        assert r.status_code == 422
        assert (await http.get("/api/tables/999999/ledger")).status_code == 404
