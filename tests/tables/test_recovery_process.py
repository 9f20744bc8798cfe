"""The server as a real process: play hands over WebSockets, SIGKILL it in the middle of a
hand, start it again, and find every balance, stack and finished hand exactly right, the
interrupted hand void (and the players told), and `python -m app ledger check` clean."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.store import ledger
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.models import Seat
from tests.serverproc import Player, ledger_check, register, server
from tests.serverproc import free_port as _free_port
from tests.serverproc import server_env as _env


async def _register(http: httpx.AsyncClient, name: str) -> tuple[int, str]:
    return await register(http, name)


async def _connect(port: int, table_id: int, token: str, user_id: int) -> Player:
    return await Player.connect(port, table_id, token, user_id)


async def _db_state(db: Database, table_id: int) -> dict[str, Any]:
    async with db.session() as s:
        rows = list(await s.scalars(select(HandRecord).where(HandRecord.table_id == table_id)))
        seats = {seat.seat_no: seat.stack for seat in await s.scalars(select(Seat))}
        balances = {}
        for user in {p["user_id"] for r in rows for p in r.seats}:
            balances[user] = await ledger.player_balance(s, user)
        house = await ledger.balance(s, ledger.HOUSE)
    return {
        "done": sorted(r.id for r in rows if r.status == HandStatus.DONE),
        "live": sorted(r.id for r in rows if r.status == HandStatus.LIVE),
        "void": sorted(r.id for r in rows if r.status == HandStatus.VOID),
        "seats": seats,
        "balances": balances,
        "house": house,
    }


async def test_sigkill_mid_hand_then_restart_finds_everything_right(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "server.log"
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'stud.sqlite3'}")
    try:
        with server(tmp_path, port, log) as proc:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                ann, ann_token = await _register(http, "ann")
                bob, bob_token = await _register(http, "bob")
                r = await http.post(
                    "/api/tables",
                    headers={"Authorization": f"Bearer {ann_token}"},
                    json={"name": "Crash", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
                          "action_timer_ms": 60_000, "rake_bps": 500, "rake_cap": 50},
                )  # fmt: skip
                assert r.status_code == 201, r.text
                table_id = r.json()["table"]["id"]
            players = [
                await _connect(port, table_id, ann_token, ann),
                await _connect(port, table_id, bob_token, bob),
            ]
            for seat, p in enumerate(players):
                await p.wait(lambda f: f.get("type") == "snapshot")
                # before sitting: the first hand's first turn may come right behind the reply
                p.seat = seat
                await p.ws.send(
                    json.dumps({"type": "sit", "seat": seat, "amount": 2000, "request_id": "s"})
                )
                reply = await p.wait(lambda f: f.get("type") in ("ok", "error"))
                assert reply["type"] == "ok", reply
            watcher = players[0]
            await watcher.wait(lambda f: watcher.count("hand_ended") >= 3, timeout=30)
            for p in players:
                p.acting = False  # the next hand stops at its first turn
            await watcher.wait(
                lambda f: (
                    watcher.count("hand_started") >= watcher.count("hand_ended") + 1
                    and watcher.count("turn") > 0
                )
            )
            started = [f for f in watcher.frames if f.get("type") == "hand_started"][-1]
            ended = [f["hand_id"] for f in watcher.frames if f.get("type") == "hand_ended"]
            live_hand = started["hand_id"]
            assert live_hand not in ended
            deadline = time.monotonic() + 10
            while True:  # the finished hands are written (and the live one's start row)
                before = await _db_state(db, table_id)
                if set(ended) <= set(before["done"]) and before["live"] == [live_hand]:
                    break
                assert time.monotonic() < deadline, before
                await asyncio.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            for p in players:
                await p.close()
        starting = dict(zip(started["seats"], started["stacks"], strict=True))
        assert before["seats"] == starting  # the database never saw the live hand's chips

        with server(tmp_path, port, log):
            after = await _db_state(db, table_id)
            assert after["done"] == before["done"]
            # the table deals on at once (its players are still seated): a new live hand
            assert after["void"] == [live_hand] and live_hand not in after["live"]
            assert after["seats"] == starting
            assert after["balances"] == before["balances"] and after["house"] == before["house"]
            back = await _connect(port, table_id, ann_token, ann)
            snap = await back.wait(lambda f: f.get("type") == "snapshot")
            assert [v["hand_id"] for v in snap["voided"]] == [live_hand]
            assert snap["voided"][0]["stacks"] == {str(s): n for s, n in starting.items()}
            # the stacks the table plays on are the voided hand's: with a new hand already
            # dealt, the ones it started from (its antes are out of the seats' stacks)
            if snap["hand"] is None:
                now = {s["seat"]: s["stack"] for s in snap["seats"]}
            else:
                first = snap["log"][0]
                assert first["type"] == "hand_started", snap["log"][:3]
                assert first["hand_id"] == snap["hand"]["hand_id"] != live_hand
                now = dict(zip(first["seats"], first["stacks"], strict=True))
            assert now == starting
            await back.close()
        check = ledger_check(_env(tmp_path))
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        await db.dispose()
