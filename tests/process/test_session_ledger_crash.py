"""The host's session ledger after a crash: a real server process, players who buy in, top
up, cash out and buy in again over their sockets while hands are played, then kill -9 in
the middle of a hand and a restart. The host's table (`GET /api/tables/{id}/ledger`, and its
CSV) equals the chip ledger's rows for that table, read straight from the database."""

from __future__ import annotations

import asyncio
import csv
import io
import signal
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.models import LedgerTransaction
from tests.serverproc import (
    Player,
    free_port,
    ledger_check,
    open_socket,
    register,
    server,
    server_env,
)
from tests.tables.test_session_ledger import expected_from_rows, shown


async def _posted(db: Database, *keys: str) -> bool:
    async with db.session() as s:
        found = await s.scalars(
            select(LedgerTransaction.idempotency_key).where(
                LedgerTransaction.idempotency_key.in_(keys)
            )
        )
        return set(found) == set(keys)


async def _until(check: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_after_buy_ins_top_ups_cash_outs_and_kill_9_the_hosts_ledger_is_the_chip_ledger(
    tmp_path: Path,
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'stud.sqlite3'}")
    try:
        with server(tmp_path, port, log) as proc:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                users = [await register(http, name) for name in ("hostess", "anna", "bob")]
                host_token = users[0][1]
                r = await http.post(
                    "/api/tables",
                    headers={"Authorization": f"Bearer {host_token}"},
                    json={"name": "Home", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
                          "action_timer_ms": 60_000, "rake_bps": 500, "rake_cap": 50,
                          "private": True},
                )  # fmt: skip
                assert r.status_code == 201, r.text
                table_id, invite = r.json()["table"]["id"], r.json()["invite"]
            players = []
            for seat, (user_id, token) in enumerate(users):
                ws = await open_socket(port, table_id, token, f"?invite={invite}")
                p = Player(ws, user_id)
                await p.wait(lambda f: f.get("type") == "snapshot")
                p.seat = seat
                reply = await p.call(
                    {"type": "sit", "seat": seat, "amount": 2000, "request_id": f"s{seat}"}
                )
                assert reply["type"] == "ok", reply
                players.append(p)
            host, anna, bob = players
            await host.wait(lambda f: host.count("hand_ended") >= 2, timeout=60)
            assert (await bob.call({"type": "top_up", "amount": 700, "request_id": "t1"}))[
                "type"
            ] == "ok"
            left = await anna.call({"type": "leave"})
            assert left["type"] == "ok", left
            if not left["result"]["left"]:  # at the hand's end
                await anna.wait(lambda f: f.get("type") == "left" and f["seat"] == 1)
            again = await anna.call({"type": "sit", "seat": 1, "amount": 1500, "request_id": "s9"})
            assert again["type"] == "ok", again
            ended = host.count("hand_ended")
            await host.wait(lambda f: host.count("hand_ended") >= ended + 2, timeout=60)
            for p in players:
                p.acting = False  # the next hand stops at its first turn
            await host.wait(
                lambda f: (
                    host.count("hand_started") > host.count("hand_ended")
                    and f.get("type") == "turn"
                )
            )
            finished = {f["hand_id"] for f in host.frames if f.get("type") == "hand_ended"}

            async def written() -> bool:
                async with db.session() as s:
                    done = set(
                        await s.scalars(
                            select(HandRecord.id).where(
                                HandRecord.table_id == table_id,
                                HandRecord.status == HandStatus.DONE,
                            )
                        )
                    )
                return finished <= done

            await _until(written, "the finished hands were not written")
            keys = (
                f"buy_in:t{table_id}:u{users[2][0]}:t1",
                f"buy_in:t{table_id}:u{users[1][0]}:s9",
            )
            await _until(lambda: _posted(db, *keys), "the top-up and second buy-in")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            for p in players:
                await p.close()

        with server(tmp_path, port, log):
            expected = await expected_from_rows(db, table_id, {"t1"})
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}",
                headers={"Authorization": f"Bearer {host_token}"},
            ) as http:
                body = (await http.get(f"/api/tables/{table_id}/ledger")).json()
                text = (await http.get(f"/api/tables/{table_id}/ledger.csv")).text
            assert shown(body) == expected
            assert body["table_agrees"] is True  # the table's stored stacks, the ledger's seats
            anna_id, bob_id = users[1][0], users[2][0]
            assert expected[anna_id]["buy_ins"] == 3500 and expected[anna_id]["cash_outs"] > 0
            assert expected[bob_id]["top_ups"] == 700
            assert body["totals"]["net"] == -body["rake"]
            by_name = {line[0]: line[1:] for line in csv.reader(io.StringIO(text))}
            b = expected[bob_id]
            order = ("buy_ins", "top_ups", "cash_outs", "stack", "net")
            assert by_name["bob"] == [f"{b[k] / 100:.2f}" for k in order]
        check = ledger_check(server_env(tmp_path))
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        await db.dispose()
