"""An attacker with a scripted client against a real server process (issue: hidden cards by
a refused sit and by elimination, chips from a repeated request id, a writer that fell
behind without bound). Each test here failed on the code before the fix.

- A refused `sit`, raced against the deal, delivers no down card of a seat the user does
  not hold (both fan-outs).
- A repeated request id is answered with its first answer and moves no chip again; the same
  id asking something else is refused; the table's stacks equal the ledger's after each step
  (`python -m app ledger check` compares them).
- No audience (a player, an observer) learns a hidden card by elimination over everything it
  was sent: every seeded-v2 reveal opens only cards that audience saw, and each audience's
  check of each hand passes, the players' seeds used (R39).
- A table whose hand records cannot be written deals at most `MAX_UNWRITTEN` + 1 more hands,
  then waits ("saving"), and deals on once the writes go through.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from app.engine import seeded
from app.tables.table import MAX_UNWRITTEN
from tests.conftest import REDIS_URL, unavailable
from tests.serverproc import (
    Frame,
    Player,
    free_port,
    leaked_down_cards,
    ledger_check,
    open_socket,
    register,
    server,
    server_env,
)

TABLE = {
    "name": "Attack",
    "small_bet": 100,
    "ante": 10,
    "max_seats": 4,
    "hand_pause_ms": 500,
    "bot_delay_ms": 100,
    "action_timer_ms": 60_000,
}
SIT_EVERY = 0.06  # the attacker keeps under the socket's rate limit (20 a second)


def _redis_env() -> dict[str, str]:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except Exception as exc:
        unavailable(f"Redis at {REDIS_URL} is unreachable: {exc!r}")
    return {"REDIS_URL": REDIS_URL, "REDIS_NAMESPACE": f"attack{secrets.token_hex(4)}"}


@contextmanager
def running(tmp_path: Path, **extra: str) -> Iterator[tuple[int, dict[str, str]]]:
    port = free_port()
    env = server_env(tmp_path, **extra)
    with server(tmp_path, port, tmp_path / "server.log", env):
        yield port, env


async def _table(port: int, token: str, **settings: Any) -> int:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        r = await http.post(
            "/api/tables",
            headers={"Authorization": f"Bearer {token}"},
            json={**TABLE, **settings},
        )
        assert r.status_code == 201, r.text
        return int(r.json()["table"]["id"])


async def _users(port: int, *names: str) -> list[tuple[int, str]]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        return [await register(http, name) for name in names]


async def _sit(p: Player, seat: int, amount: int = 2_000) -> None:
    p.seat = seat  # before the reply: the first turn may come right behind it
    reply = await p.call({"type": "sit", "seat": seat, "amount": amount, "request_id": "sit"})
    assert reply["type"] == "ok", reply


class Racer(Player):
    """Mallory: just before each of her actions (which may close a street and deal the next
    card), her other sockets ask to sit in every other seat, so each request is in flight
    while the table deals."""

    spies: list[Player]
    n = 0

    async def before_acting(self, turn: Frame) -> None:
        for seat, spy in enumerate(self.spies):
            self.n += 1
            sit = {"type": "sit", "seat": seat, "amount": 2_000, "request_id": f"race{self.n}"}
            await spy.ws.send(json.dumps(sit))


@pytest.mark.parametrize("fanout", ["memory", "redis"])
async def test_refused_sits_raced_against_the_deal_deliver_no_down_card(
    tmp_path: Path, fanout: str
) -> None:
    extra = _redis_env() if fanout == "redis" else {}
    with running(tmp_path, **extra) as (port, _env):
        (host, host_token), (mal, mal_token), (_eve, eve_token) = await _users(
            port, "host", "mallory", "eve"
        )
        table_id = await _table(port, host_token)
        host_player = await Player.connect(port, table_id, host_token, host)
        mallory = Racer(await open_socket(port, table_id, mal_token), mal)
        mallory.spies = []
        players = [host_player, mallory]
        for seat, p in enumerate(players):
            await p.wait(lambda f: f.get("type") == "snapshot")
            await _sit(p, seat)
        bots = await host_player.call({"type": "host_bots", "count": 2})
        assert bots["type"] == "ok", bots
        # one more socket of mallory's for each seat, and eve (not seated) asking too
        mallory.spies = [
            Player(await open_socket(port, table_id, mal_token), mal) for _ in range(4)
        ]
        eve = Player(await open_socket(port, table_id, eve_token), _eve)
        for spy in (*mallory.spies, eve):
            spy.acting = False
        refused = 0

        async def hammer() -> None:
            nonlocal refused
            n = 0
            while host_player.count("hand_ended") < 8:
                for seat in range(4):
                    n += 1
                    reply = await eve.call(
                        {"type": "sit", "seat": seat, "amount": 2_000, "request_id": f"x{n}"}
                    )
                    assert reply["type"] == "error", reply  # every seat is taken
                    refused += 1
                    await asyncio.sleep(SIT_EVERY)

        await asyncio.wait_for(hammer(), 240)
        await host_player.wait(lambda f: host_player.count("hand_ended") >= 8)
        captured = {"mallory": mallory.frames, "eve": eve.frames}
        captured |= {f"mallory's socket {i}": spy.frames for i, spy in enumerate(mallory.spies)}
        for name, frames in captured.items():
            leaked = leaked_down_cards(frames, None if name == "eve" else 1)
            assert leaked == [], f"{name} received {len(leaked)} down cards of other seats"
        own = [
            f for f in mallory.spies[0].frames if f.get("type") == "card_dealt" and f.get("card")
        ]
        assert own, "mallory's own cards do reach all of her sockets"
        raced = sum(spy.count("error") for spy in mallory.spies)
        assert raced >= 8 and refused >= 20
        print(
            f"frames captured: {sum(len(f) for f in captured.values())}; sits refused: "
            f"{raced} raced + {refused} hammered; hands: {host_player.count('hand_ended')}; "
            "down cards of others received: 0"
        )
        for p in (*players, *mallory.spies, eve):
            await p.close()


async def test_a_repeated_request_id_moves_no_chip_twice(tmp_path: Path) -> None:
    with running(tmp_path) as (port, env):
        [(ann, token)] = await _users(port, "ann")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            host = {"Authorization": f"Bearer {token}"}
            r = await http.post("/api/tables", headers=host, json={**TABLE, "max_buy_in": 5_000})
            assert r.status_code == 201, r.text
            table_id = r.json()["table"]["id"]
            start = (await http.get("/api/me", headers=host)).json()["balance"]
        p = await Player.connect(port, table_id, token, ann)
        await p.wait(lambda f: f.get("type") == "snapshot")

        def in_ledger() -> None:
            check = ledger_check(env)  # includes: the table's stacks are the ledger's
            assert check.returncode == 0, check.stdout + check.stderr

        async def balance() -> int:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                me = (await http.get("/api/me", headers=host)).json()
                return int(me["balance"])

        sit = {"type": "sit", "seat": 0, "amount": 1_000, "request_id": "r1"}
        first = await p.call(sit)
        assert first["result"] == {"seat": 0, "stack": 1_000}, first
        again = await p.call(sit)
        assert again["type"] == "ok" and again["result"] == first["result"]
        other = await p.call({**sit, "amount": 1_200})
        assert other["type"] == "error" and other["code"] == "request_id_reused"
        assert await balance() == start - 1_000
        in_ledger()

        # three top-ups with one id, sent at once: one of them moves chips
        top_up = {"type": "top_up", "amount": 100, "request_id": "t1"}
        replies = await asyncio.gather(*(p.call(top_up) for _ in range(3)))
        assert [r["type"] for r in replies] == ["ok"] * 3
        assert {r["result"]["stack"] for r in replies} == {1_100}
        for reused in ({**top_up, "amount": 200}, {**top_up, "request_id": "r1"}):
            refusal = await p.call(reused)
            assert refusal["type"] == "error" and refusal["code"] == "request_id_reused"
        assert await balance() == start - 1_100
        in_ledger()

        left = await p.call({"type": "leave"})
        assert left["result"] == {"left": True, "amount": 1_100}
        assert await balance() == start
        # sit, leave, and the first sit again: its first answer, and nobody sits
        replay = await p.call(sit)
        assert replay["type"] == "ok" and replay["result"] == first["result"]
        seats = [f for f in p.frames if f.get("type") == "seats"][-1]
        assert seats["seats"] == []
        assert await balance() == start
        in_ledger()
        await p.close()


def _cards_in(frame: Frame) -> set[str]:
    """Every card a frame shows (a reveal's opened slots included)."""
    if frame.get("type") == "deal_revealed":
        return {p["card"] for p in frame["reveal"]["slots"] if "card" in p}
    cards = {frame["card"]} if frame.get("card") else set()
    return cards | set(frame.get("cards") or ())


async def _hands_seen(p: Player, hands: int) -> None:
    await p.wait(lambda f: p.count("hand_ended") >= hands, timeout=240)


def _h(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


async def _seed_along(p: Player, sent: dict[str, bytes]) -> None:
    """The browser's flow (docs/fairness.md): once seated, at the first `deal_committed` a
    first-of-chain message for the next hand, then at each one the seed committed to before
    and the hash of the following one; `sent`: sealed deck -> seed sent for it."""
    coming = secrets.token_bytes(32)
    chained = False
    i = 0
    while True:
        await p.wait(lambda f: True, start=i, timeout=600)
        f = p.frames[i]
        i += 1
        if f.get("type") != "deal_committed" or p.seat is None:
            continue
        sealed = f["next"]["sealed"]
        seed, coming = (coming, secrets.token_bytes(32)) if chained else (bytes(32), coming)
        msg = {"type": "seed", "seed": seed.hex(), "commit": _h(coming), "sealed": sealed}
        await p.ws.send(json.dumps({**msg, "ref": f"seed-{sealed[:16]}"}))
        if chained:
            sent[sealed] = seed
        chained = True


def _masked(events: list[Frame], seats: set[int]) -> list[Frame]:
    """A hand's events as an audience that sees the down cards of `seats` saw them."""
    return [
        {**e, "card": None}
        if e["type"] == "card_dealt" and not e["face_up"] and e["seat"] not in seats
        else e
        for e in events
    ]


async def test_r39_no_audience_learns_a_hidden_card_by_elimination(tmp_path: Path) -> None:
    """Many seeded-v2 hands, two players sending seeds, two bots, an observer: every reveal
    opens only cards its audience saw, elimination pins no hidden card, and each audience's
    check of each hand (check_deal_v2) passes, the players' own seeds used."""
    with running(tmp_path) as (port, _env):
        (host, host_token), (ann, ann_token), (eve, eve_token) = await _users(
            port, "host", "ann", "eve"
        )
        table_id = await _table(port, host_token)
        players = [
            await Player.connect(port, table_id, host_token, host),
            await Player.connect(port, table_id, ann_token, ann),
        ]
        sent: list[dict[str, bytes]] = [{}, {}]
        seeding = [
            asyncio.create_task(_seed_along(p, out)) for p, out in zip(players, sent, strict=True)
        ]
        for seat, p in enumerate(players):
            await p.wait(lambda f: f.get("type") == "snapshot")
            await _sit(p, seat)
        assert (await players[0].call({"type": "host_bots", "count": 2}))["type"] == "ok"
        observer = Player(await open_socket(port, table_id, eve_token), eve)
        hands = 10
        for p in (*players, observer):
            await _hands_seen(p, hands)
        for task in seeding:
            task.cancel()
        recoverable = 0
        audiences: dict[str, tuple[Player, int | None, str | None]] = {
            "host": (players[0], 0, host_token),
            "ann": (players[1], 1, ann_token),
            "observer": (observer, None, None),
        }
        checked = seeds_used = 0
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            for name, (who, own, token) in audiences.items():
                by_hand: dict[str, list[Frame]] = defaultdict(list)
                for f in who.frames:
                    if "hand_id" in f and "v" in f:
                        by_hand[f["hand_id"]].append(f)
                committed = {
                    f["hand_id"]: f for f in who.frames if f.get("type") == "deal_committed"
                }
                # each hand's announce: the hand before's `next`, or the snapshot's next_deal
                announced = {c["next"]["sealed"]: c for c in committed.values()}
                shot = next(f for f in who.frames if f.get("type") == "snapshot")
                announces = {c["next"]["sealed"]: c["next"] for c in committed.values()}
                announces[shot["next_deal"]["sealed"]] = shot["next_deal"]
                for hand_id, frames in by_hand.items():
                    reveals = [f for f in frames if f["type"] == "deal_revealed"]
                    if not reveals or hand_id not in committed:
                        continue  # the hand was on when the test began or stopped reading
                    seen = set().union(
                        *(_cards_in(f) for f in frames if f["type"] != "deal_revealed")
                    )
                    opened = set().union(*(_cards_in(f) for f in reveals))
                    assert opened <= seen, f"{name}, hand {hand_id}: opened {opened - seen}"
                    dealt_down = [
                        f for f in frames if f["type"] == "card_dealt" and not f["face_up"]
                    ]
                    shown = {f["seat"] for f in frames if f["type"] == "hand_shown"}
                    hidden = sum(
                        1 for f in dealt_down if f["seat"] != own and f["seat"] not in shown
                    )
                    # what elimination leaves: the 52 cards less all it saw must hold more
                    # cards than the hidden ones, else they are exactly the hidden hands
                    pool = 52 - len(seen | opened)
                    if hidden and pool == hidden:
                        recoverable += hidden
                    # the audience's own check of the hand, from what it may read
                    number = next(f["number"] for f in frames if f["type"] == "hand_started")
                    proof = (await http.get(f"/api/proof/{number}")).json()
                    reveal = reveals[-1]["reveal"]  # a player's own comes after the table's
                    dc = committed[hand_id]
                    if own is None:
                        assert reveal == proof["reveal"]
                        events = proof["events"]
                        mine = None
                    else:
                        history = await http.get(
                            f"/api/hands/{number}", headers={"Authorization": f"Bearer {token}"}
                        )
                        events = _masked(history.json()["events"], shown | {own})
                        seed = sent[own].get(dc["commitment"])
                        used = [s for s in dc["seeds"] if s["seat"] == own]
                        mine = (own, seed.hex()) if seed is not None and used else None
                        seeds_used += mine is not None
                    before = announced.get(dc["commitment"])
                    problems = seeded.check_deal_v2(
                        events, announces[dc["commitment"]], reveal, own_seed=mine,
                        previous_commits=before["commits"] if before else None, committed=dc,
                    )  # fmt: skip
                    assert problems == [], (name, number, problems)
                    checked += 1
        assert checked >= 3 * (hands - 1)
        assert recoverable == 0
        assert seeds_used >= hands  # both players' seeds went into most hands
        print(f"hands checked (per audience): {checked}; players' seeds used: {seeds_used}")
        for p in (*players, observer):
            await p.close()


async def test_a_table_waits_for_its_records_instead_of_running_ahead(tmp_path: Path) -> None:
    with running(tmp_path) as (port, env):
        (host, host_token), (ann, ann_token) = await _users(port, "host", "ann")
        table_id = await _table(port, host_token)
        players = [
            await Player.connect(port, table_id, host_token, host),
            await Player.connect(port, table_id, ann_token, ann),
        ]
        for seat, p in enumerate(players):
            await p.wait(lambda f: f.get("type") == "snapshot")
            await _sit(p, seat)
        watcher = players[0]
        await watcher.wait(lambda f: watcher.count("hand_ended") >= 2, timeout=60)
        # the database stops taking writes: another process holds SQLite's write lock
        locker = sqlite3.connect(tmp_path / "stud.sqlite3", timeout=30, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")
        locked_at = len(watcher.frames)
        try:
            held = await watcher.wait(
                lambda f: f.get("type") == "table" and f["table"].get("saving"), timeout=60
            )
            after = watcher.frames[locked_at:]
            ended = sum(1 for f in after if f.get("type") == "hand_ended")
            started = sum(1 for f in after if f.get("type") == "hand_started")
            # the hand on when the lock came, then at most MAX_UNWRITTEN more, then it waits
            assert ended <= MAX_UNWRITTEN + 1 and started <= MAX_UNWRITTEN + 1, (ended, started)
            assert held["table"]["saving"] is True
            mark = len(watcher.frames)
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        await watcher.wait(lambda f: f.get("type") == "table" and f["table"].get("saving") is False)
        await watcher.wait(lambda f: f.get("type") == "hand_started", start=mark)
        print(f"hands finished while the database was locked: {ended} (bound {MAX_UNWRITTEN + 1})")
        for p in players:
            p.acting = False
        check = ledger_check(env)
        assert check.returncode == 0, check.stdout + check.stderr
        for p in players:
            await p.close()


async def test_tokens_and_invites_never_reach_the_log(tmp_path: Path) -> None:
    with running(tmp_path) as (port, _env):
        [(_ann, token)] = await _users(port, "ann")
        table_id = await _table(port, token, private=True)
        secrets_sent = [f"s{secrets.token_hex(8)}" for _ in range(3)]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            r = await http.get(f"/api/mail/verify?token={secrets_sent[0]}")
            assert r.status_code >= 400  # a made-up verification token
        # a session token in a socket's URL is refused, and not written down either
        with pytest.raises(InvalidStatus):
            await connect(
                f"ws://127.0.0.1:{port}/ws/tables/{table_id}?token={token}&invite={secrets_sent[1]}"
            )
        sock = await open_socket(port, table_id, token, f"?invite={secrets_sent[2]}")
        await sock.close()
    log = (tmp_path / "server.log").read_text()
    assert "/api/mail/verify?token=[redacted]" in log  # the line is there, its secret not
    for secret in [token, *secrets_sent]:
        assert secret not in log
