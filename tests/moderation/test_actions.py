"""What an operator does from the admin page, over the real routes and sockets: balance
adjustments (idempotent by key, audited by `ledger check`), mutes (a muted player's chat is
refused and reaches nobody), chat reports (the lines around a reported one, as the table
kept them), bans (sockets closed, login refused, the seat cashed out at the hand's end),
closing a table, and the moderation log that records each."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, update

from app.fanout import create_fanout
from app.store import moderation
from app.store.db import Database
from app.store.models import Seat, User
from app.store.passwords import Passwords
from app.tables import FakeClock
from tests.moderation.support import banned, ledger_report, log, operator
from tests.tables.live import Client, Live, live_server
from tests.tables.test_ws_rules import reopen_token

ADMIN = "/api/admin"


async def table_of(live: Live, n: int) -> tuple[int, list[tuple[int, str]], list[Client]]:
    """A table hosted by the first of `n` players, each with a socket; the first two seated."""
    users = [await live.user(f"p{i}") for i in range(n)]
    created = await live.create_table(users[0][1], name="Mod", small_bet=100, ante=10)
    table_id = created["table"]["id"]
    clients = [await Client.open(live, table_id, token, user) for user, token in users]
    for seat, client in enumerate(clients[:2]):
        sit = {"type": "sit", "seat": seat, "amount": 2000, "request_id": f"buy{seat}"}
        assert (await client.call(sit))["type"] == "ok"
    return table_id, users, clients


async def test_an_adjustment_posts_once_by_key_and_ledger_check_counts_it(live: Live) -> None:
    player, _ = await live.user("Pat")
    _, token = await operator(live)
    before = await live.balance(player)
    body = {"amount": 2_500, "key": "refund-7", "reason": "lost a hand to a server bug"}
    async with live.http(token) as http:
        first = await http.post(f"{ADMIN}/players/{player}/adjust", json=body)
        again = await http.post(f"{ADMIN}/players/{player}/adjust", json=body)
        other = await http.post(f"{ADMIN}/players/{player}/adjust", json={**body, "amount": 9})
        blank = await http.post(f"{ADMIN}/players/{player}/adjust", json={**body, "reason": ""})
        too_much = {"amount": -(before + 2_501), "key": "k2", "reason": "x"}
        broke = await http.post(f"{ADMIN}/players/{player}/adjust", json=too_much)
        seen = (await http.get(f"{ADMIN}/players/{player}")).json()
    assert first.status_code == 200 and not first.json()["replayed"]
    assert again.json() == {**first.json(), "replayed": True}
    assert other.status_code == 409 and other.json()["detail"]["code"] == "idempotency_conflict"
    assert blank.status_code == 422
    assert broke.status_code == 409 and broke.json()["detail"]["code"] == "insufficient_funds"
    assert await live.balance(player) == before + 2_500
    assert seen["balance"] == before + 2_500
    assert [e["kind"] for e in seen["ledger"]][:1] == ["adjustment"]
    report = await ledger_report(live)
    assert report.ok, report.violations
    assert (report.adjustments, report.adjusted) == (1, 2_500)
    assert "adjustments: 1 (net 2500 to players)" in report.lines()
    adjusts = [line for line in await log(live) if line["action"] == "adjust"]
    assert len(adjusts) == 1 and adjusts[0]["detail"]["amount"] == 2_500
    assert adjusts[0]["actor"] == "Olga" and adjusts[0]["target"] == "Pat"


async def test_a_muted_players_chat_is_refused_and_reaches_nobody(live: Live) -> None:
    _, users, clients = await table_of(live, 3)
    _, token = await operator(live)
    muted, watcher = clients[1], clients[2]
    async with live.http(token) as http:
        r = await http.post(f"{ADMIN}/players/{users[1][0]}/mute", json={"minutes": 60})
        assert r.status_code == 200
    refused = await muted.call({"type": "chat", "text": "buy my chips"})
    assert refused["type"] == "error" and refused["code"] == "muted"
    assert refused["message"].startswith("You are muted until ")
    said = await clients[0].call({"type": "chat", "text": "hello"})
    assert said["type"] == "ok"
    # the first chat any other socket hears is the line said after the refused one
    first = await watcher.wait(lambda f: f.get("type") == "chat")
    assert first["text"] == "hello"
    assert all("buy my chips" not in text for text in watcher.raw + clients[0].raw)
    async with live.http(token) as http:
        await http.post(f"{ADMIN}/players/{users[1][0]}/unmute", json={})
        await http.post(f"{ADMIN}/players/{users[1][0]}/mute", json={})  # for good
    forever = await muted.call({"type": "chat", "text": "again"})
    assert forever["code"] == "muted" and "for good" in forever["message"]
    actions = [line["action"] for line in await log(live)]
    assert actions[:3] == ["mute", "unmute", "mute"]


async def test_a_host_mutes_a_player_at_their_own_table_only(live: Live) -> None:
    table_id, users, clients = await table_of(live, 3)
    host, player, other = clients
    forged = await other.call({"type": "host_mute", "user_id": users[1][0]})
    assert forged["code"] == "not_host"
    assert (await host.call({"type": "host_mute", "user_id": users[1][0]}))["type"] == "ok"
    refused = await player.call({"type": "chat", "text": "hey"})
    assert refused["code"] == "muted"
    assert refused["message"] == "The host has muted you at this table"
    await live.settle(table_id)
    entries = await log(live)
    assert entries[0]["action"] == "host_mute" and entries[0]["actor"] == "p0"
    assert entries[0]["target"] == "p1" and entries[0]["table"] == table_id


async def test_a_host_mute_outlives_a_restart_of_the_table_and_so_does_its_lifting(
    db: Database,
) -> None:
    """The host's mute is saved with the table: after a restart on the same database the
    muted player is still refused; lifted, it stays lifted after the next restart."""

    async def chat(live: Live, table_id: int, user: tuple[int, str], text: str) -> Any:
        player_id, token = await reopen_token(live, user[0])
        client = await Client.open(live, table_id, token, player_id)
        return await client.call({"type": "chat", "text": text})

    fanouts = [create_fanout("memory://") for _ in range(3)]
    try:
        async with live_server(db, fanouts[0], FakeClock()) as live:
            table_id, users, clients = await table_of(live, 3)
            host = clients[0]
            assert (await host.call({"type": "host_mute", "user_id": users[1][0]}))["type"] == "ok"
            await live.settle(table_id)
        async with live_server(db, fanouts[1], FakeClock()) as again:
            assert again.table(table_id).state.muted == {users[1][0]}
            assert (await chat(again, table_id, users[1], "back?"))["code"] == "muted"
            assert (await chat(again, table_id, users[2], "hi"))["type"] == "ok"
            host_id, token = await reopen_token(again, users[0][0])
            host = await Client.open(again, table_id, token, host_id)
            lift = {"type": "host_mute", "user_id": users[1][0], "muted": False}
            assert (await host.call(lift))["type"] == "ok"
            await again.settle(table_id)
        async with live_server(db, fanouts[2], FakeClock()) as third:
            assert third.table(table_id).state.muted == set()
            assert (await chat(third, table_id, users[1], "thanks"))["type"] == "ok"
    finally:
        for fanout in fanouts:
            await fanout.close()


async def test_a_report_carries_the_lines_the_table_kept(live: Live) -> None:
    table_id, _, clients = await table_of(live, 3)
    _, token = await operator(live)
    lines: list[str] = []
    for client, text in [
        (clients[0], "gl all"),
        (clients[1], "you are all idiots"),
        (clients[0], "easy"),
    ]:
        said = await client.call({"type": "chat", "text": text})
        line = str(said["result"]["line"])
        lines.append(line)

        def heard(f: dict[str, Any], line: str = line) -> bool:
            return f.get("type") == "chat" and f["line"] == line

        await clients[2].wait(heard)
    assert (await clients[2].call({"type": "report_chat", "line": "f" * 16}))[
        "code"
    ] == "no_such_line"
    own = await clients[1].call({"type": "report_chat", "line": lines[1]})
    assert own["code"] == "own_line"
    reported = await clients[2].call({"type": "report_chat", "line": lines[1]})
    assert reported["result"] == {"reported": True}
    again = await clients[2].call({"type": "report_chat", "line": lines[1]})
    assert again["result"] == {"reported": True, "again": True}
    async with live.http(token) as http:
        found = (await http.get(f"{ADMIN}/reports")).json()["reports"]
    assert len(found) == 1
    (report,) = found
    assert (report["reporter"], report["reported"], report["table"]) == ("p2", "p1", table_id)
    assert [c["text"] for c in report["context"]] == ["gl all", "you are all idiots", "easy"]


async def _seats(live: Live, user_id: int) -> list[Any]:
    async with live.db.session() as s:
        return list(await s.scalars(select(Seat).where(Seat.user_id == user_id)))


async def test_a_ban_closes_sockets_refuses_login_and_cashes_out_at_the_hands_end(
    live: Live,
) -> None:
    table_id, users, clients = await table_of(live, 2)
    banned_id, _ = users[1]
    password = "correct horse battery"
    hashed = await Passwords(time_cost=1, memory_kib=8192, parallelism=1).hash(password)
    async with live.db.transaction() as s:
        await s.execute(update(User).where(User.id == banned_id).values(password_hash=hashed))
    second = await Client.open(live, table_id, users[1][1], banned_id)  # a second socket
    table = live.table(table_id)
    for _ in range(20):
        if table.state.hand is not None:
            break
        await live.settle(table_id, 1.0)
    assert table.state.hand is not None
    _, token = await operator(live)
    async with live.http(token) as http:
        r = await http.post(f"{ADMIN}/players/{banned_id}/ban", json={"reason": "collusion"})
    assert r.status_code == 200, r.text
    assert r.json()["seats"] == [{"table": table_id, "seated": True, "at_hand_end": True}]
    for client in (clients[1], second):  # closed by the fan-out's word: waited on
        with pytest.raises(ConnectionError):
            await client.wait(lambda f: False, timeout=5.0)
        assert client.ws.close_code == 4001
    async with live.http() as http:
        refused = await http.post("/api/login", json={"name": "p1", "password": password})
        old = await http.get("/api/me", headers={"Authorization": f"Bearer {users[1][1]}"})
    assert refused.status_code == 403
    assert refused.json()["detail"] == {
        "code": "banned",
        "message": "This account is banned: you can no longer log in",
    }
    assert old.status_code == 401
    for _ in range(60):  # the hand plays on by the clock, then the seat is cashed out
        if banned_id not in table.state.by_user:
            break
        await live.settle(table_id, 11.0)
    assert banned_id not in table.state.by_user
    await live.settle(table_id)
    assert await _seats(live, banned_id) == []
    report = await ledger_report(live)
    assert report.ok, report.violations
    left = await clients[0].wait(lambda f: f.get("type") == "left" and f["user_id"] == banned_id)
    assert left["reason"] == "left"  # as a host's removal in a hand
    assert await banned(live, banned_id)
    async with live.http(token) as http:
        await http.post(f"{ADMIN}/players/{banned_id}/unban", json={"reason": "appeal"})
    async with live.http() as http:
        back = await http.post("/api/login", json={"name": "p1", "password": password})
    assert back.status_code == 200
    actions = [line["action"] for line in await log(live)]
    assert actions[:2] == ["unban", "ban"]


async def test_an_operator_closes_a_table_as_its_host_would(live: Live) -> None:
    table_id, users, clients = await table_of(live, 2)
    _, token = await operator(live)
    before = [await live.balance(u) for u, _ in users]
    async with live.http(token) as http:
        r = await http.post(f"{ADMIN}/tables/{table_id}/close", json={"reason": "abuse"})
        again = await http.post(f"{ADMIN}/tables/{table_id}/close", json={})
    assert r.json() == {"closed": True}
    assert again.status_code == 404 and again.json()["detail"]["code"] == "no_such_table"
    await clients[0].wait(lambda f: f.get("type") == "closed")
    assert [await live.balance(u) for u, _ in users] == [b + 2000 for b in before]
    assert (await ledger_report(live)).ok
    entries = await log(live)
    assert entries[0]["action"] == "close_table" and entries[0]["reason"] == "abuse"
    async with live.db.session() as s:
        assert await moderation.read_log(s, target=users[0][0]) == []
