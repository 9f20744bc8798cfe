"""Sit & gos on a cluster of real server processes (`tests/process/cluster.py`): made and
entered over HTTP, their rows read from the cluster's own database, and scripted human
players whose one socket follows them from table to table.

`Sng` is one tournament's view from the test: which process directs it and which runs each
of its tables (by the leases and the registered pids), its rows, and the checks that must
hold at every moment (no user in two seats) and at the end (every place once, the prizes
of the payout scheme, one prize posting per paid entry)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aredis
from sqlalchemy import func, select

from app.engine.tournament import draws, payouts
from app.fanout import channels
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import ServerProcess, TableLease, TournamentLease
from app.store.models import LedgerTransaction, PokerTable, Seat, TxKind
from app.store.tournament_models import Tournament, TournamentDraw, TournamentEntry
from app.tournaments import service
from app.tournaments.spec import TournamentSpec
from tests.process.cluster import Cluster, until
from tests.serverproc import Frame, Player, leaked_down_cards, open_socket

PLAYERS = 20
SNG: dict[str, Any] = {
    "name": "Cluster sit & go", "variant": "stud", "seats_per_table": 8, "buy_in": 1000,
    "fee": 100, "starting_chips": 1500, "structure": {"preset": "hyper", "by_hands": 3},
    "payouts": "top15", "min_players": 2, "max_players": PLAYERS, "start": "full",
    "bots": PLAYERS - 2, "hand_pause_ms": 500, "bot_delay_ms": 100,
    # a human whose socket's process died is played by the clock: soon
    "action_timer_ms": 2000, "time_bank_ms": 0, "time_bank_refill_ms": 0,
}  # fmt: skip
FINISH = 420.0  # seconds a sit & go of 20 may take on a loaded machine


@dataclass
class Dealt:
    """A hand a scripted person was dealt into (Human.hands_at)."""

    hand_id: str
    seat: int
    stack: int
    all_in_forced: bool = False


class Human(Player):
    """A scripted person at a tournament table: brings in when it must, checks when it
    may, else folds (it lasts: the bots, who call everything, bust each other), shows at a
    showdown. Every act
    carries a ref, so the table's answer to it is on record, with the table it was sent
    at. The socket is never reopened: a move's `moved` event and the new table's snapshot
    come on it."""

    def __init__(self, ws: Any, user_id: int, token: str) -> None:
        super().__init__(ws, user_id)
        self.token = token
        self.table_id: int | None = None  # the table the last snapshot was of
        self.acts: list[tuple[int, str]] = []  # (table, ref) of every act sent

    @classmethod
    async def at(cls, port: int, table_id: int, token: str, user_id: int) -> Human:
        return cls(await open_socket(port, table_id, token), user_id, token)

    async def before_acting(self, turn: Frame) -> None:
        snapshot = next(f for f in reversed(self.frames) if f.get("type") == "snapshot")
        self.table_id = int(snapshot["table"]["id"])

    def answer(self, turn: Frame) -> Frame:  # type: ignore[override]
        legal = turn["legal"]
        action = next((a for a in ("bring_in", "show", "muck", "check") if legal.get(a)), "fold")
        ref = f"act{len(self.acts)}"
        assert self.table_id is not None
        self.acts.append((self.table_id, ref))
        return {
            "type": "act", "hand_id": turn["hand_id"], "turn_id": turn["turn_id"],
            "action": action, "ref": ref,
        }  # fmt: skip

    def tables_seen(self) -> list[int]:
        """The tables this socket was given a snapshot of, in order (repeats dropped)."""
        out: list[int] = []
        for f in self.frames:
            if f.get("type") == "snapshot" and (not out or out[-1] != f["table"]["id"]):
                out.append(int(f["table"]["id"]))
        return out

    def moves_followed(self) -> list[tuple[int, int]]:
        """Each `moved` event of this player to another table, followed on this socket by
        a snapshot of that table: (from, to)."""
        out = []
        at: int | None = None
        for i, f in enumerate(self.frames):
            kind = f.get("type")
            if kind == "snapshot":
                at = int(f["table"]["id"])
            elif kind == "moved" and f["user_id"] == self.user_id and f["to_table"] != at:
                then = next((g for g in self.frames[i + 1 :] if g.get("type") == "snapshot"), None)
                if then is not None and then["table"]["id"] == f["to_table"] and at is not None:
                    out.append((at, int(f["to_table"])))
        return out

    def taken_at(self, table_id: int) -> list[str]:
        """The refs of this player's acts at `table_id` that the table took (`ok`)."""
        ok = {f["ref"] for f in self.frames if f.get("type") == "ok" and "ref" in f}
        return [ref for t, ref in self.acts if t == table_id and ref in ok]

    def located(self) -> Iterator[tuple[Frame, int | None, int | None]]:
        """Each frame this socket got, with the table and seat it was at as it came: the
        last snapshot's, or the seat a later `seats` gives them (a moved player may be
        seated at the new table after its snapshot reached them)."""
        at: int | None = None
        seat: int | None = None
        for f in self.frames:
            kind = f.get("type")
            if kind == "snapshot":
                at, seat = int(f["table"]["id"]), f["you"]["seat"]
            elif kind == "seats":
                mine = [s["seat"] for s in f["seats"] if s["user_id"] == self.user_id]
                seat = mine[0] if mine else None
            yield f, at, seat

    def hands_at(self, table_id: int) -> list[Dealt]:
        """The hands at `table_id` this player was dealt into, in order: the seat, its stack
        when the hand began, and whether its ante or bring-in put it all in (then no betting
        turn comes to it: the forced bets decided its hand, not the table)."""
        out: list[Dealt] = []
        for f, at, seat in self.located():
            kind = f.get("type")
            if (
                kind == "hand_started"
                and at == table_id
                and seat is not None
                and seat in f["seats"]
            ):
                stack = f["stacks"][f["seats"].index(seat)]
                out.append(Dealt(str(f["hand_id"]), seat, stack))
            elif (
                kind in ("ante_posted", "brought_in")
                and out
                and f.get("hand_id") == out[-1].hand_id
                and f["seat"] == out[-1].seat
                and f["all_in"]
            ):
                out[-1].all_in_forced = True
        return out


def check_story(human: Human) -> None:
    """What one socket was sent, table by table: from each snapshot on, every numbered
    event follows the one before, and no other seat's down card came to the player's seat
    (`Human.located`)."""
    last: int | None = None
    for f, _, seat in human.located():
        if f.get("type") == "snapshot":
            last = int(f["v"])
            continue
        assert leaked_down_cards([f], seat) == [], f"a down card of another seat: {f}"
        if "v" in f and last is not None:
            assert f["v"] == last + 1, f"event {f['v']} after {last}: {f}"
            last = int(f["v"])


@dataclass
class Sng:
    """One sit & go on the cluster, as the test sees it."""

    c: Cluster
    id: int
    host_token: str
    humans: dict[int, str] = field(default_factory=dict)  # user -> token
    clients: list[Human] = field(default_factory=list)
    # the test's reads: a loaded machine may keep one open past the cluster database's 1 s
    # limit on an idle transaction (that limit is for stopped servers)
    db: Database = field(init=False)

    def __post_init__(self) -> None:
        self.db = Database(str(self.c.url), idle_transaction_seconds=120)

    # -- over HTTP -------------------------------------------------------------------------

    @classmethod
    async def create(cls, c: Cluster, at: int, host_token: str, **over: Any) -> Sng:
        async with c.http(at, host_token) as http:
            r = await http.post("/api/tournaments", json={**SNG, **over})
        assert r.status_code == 201, r.text
        return cls(c, int(r.json()["id"]), host_token)

    async def enter(self, at: int, user: int, token: str) -> None:
        async with self.c.http(at, token) as http:
            r = await http.post(
                f"/api/tournaments/{self.id}/register", json={"request_id": f"u{user}"}
            )
        assert r.status_code == 200, r.text
        self.humans[user] = token

    async def rebuy(self, at: int, user: int) -> dict[str, Any]:
        """R35: a rebuy for `user` (the starting stack again), retried while the director
        is between processes."""
        async with self.c.http(at, self.humans[user]) as http:

            async def bought() -> dict[str, Any] | None:
                r = await http.post(
                    f"/api/tournaments/{self.id}/rebuy", json={"request_id": f"rebuy{user}"}
                )
                if r.status_code == 503:
                    return None
                assert r.status_code == 200, r.text
                body: dict[str, Any] = r.json()
                return body

            return await until(bought, f"user {user}'s rebuy")

    async def page(self, at: int) -> dict[str, Any]:
        async with self.c.http(at, self.host_token) as http:
            r = await http.get(f"/api/tournaments/{self.id}")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    async def host(self, at: int, command: str) -> dict[str, Any]:
        """A host's command, retried while the director is between processes."""
        async with self.c.http(at, self.host_token) as http:

            async def sent() -> dict[str, Any] | None:
                r = await http.post(f"/api/tournaments/{self.id}/host", json={"type": command})
                if r.status_code == 503:
                    return None
                assert r.status_code == 200, r.text
                body: dict[str, Any] = r.json()
                return body

            return await until(sent, f"the director takes {command}")

    # -- rows ------------------------------------------------------------------------------

    async def row(self) -> Tournament:
        async with self.db.session() as s:
            t = await s.get(Tournament, self.id, populate_existing=True)
            assert t is not None
            return t

    async def entries(self) -> list[TournamentEntry]:
        async with self.db.session() as s:
            rows = await s.scalars(
                select(TournamentEntry)
                .where(TournamentEntry.tournament_id == self.id)
                .order_by(TournamentEntry.id)
                .execution_options(populate_existing=True)
            )
            return list(rows)

    async def tables(self, *, open_only: bool = True) -> list[int]:
        query = select(PokerTable.id).where(PokerTable.tournament_id == self.id)
        if open_only:
            query = query.where(PokerTable.status == "open")
        async with self.db.session() as s:
            return list(await s.scalars(query.order_by(PokerTable.id)))

    async def hands(self) -> list[HandRecord]:
        async with self.db.session() as s:
            rows = await s.scalars(
                select(HandRecord)
                .where(HandRecord.tournament_id == self.id)
                .order_by(HandRecord.started_at)
                .execution_options(populate_existing=True)
            )
            return list(rows)

    async def draws(self) -> list[tuple[int, str, str | None]]:
        async with self.db.session() as s:
            rows = await s.execute(
                select(TournamentDraw.seq, TournamentDraw.purpose, TournamentDraw.seed)
                .where(TournamentDraw.tournament_id == self.id)
                .order_by(TournamentDraw.seq)
            )
            return [(seq, purpose, seed) for seq, purpose, seed in rows]

    async def prize_postings(self) -> dict[int, int]:
        """Prize postings by entry: how many `tournament_prize` transactions each has."""
        async with self.db.session() as s:
            keys = await s.scalars(
                select(LedgerTransaction.idempotency_key).where(
                    LedgerTransaction.kind == TxKind.TOURNAMENT_PRIZE,
                    LedgerTransaction.idempotency_key.like(f"%prize:{self.id}:%"),
                )
            )
            out: dict[int, int] = {}
            for key in keys:
                entry = int(key.rsplit(":", 1)[-1])
                out[entry] = out.get(entry, 0) + 1
            return out

    async def snapshot(self) -> dict[str, Any]:
        """Everything a director writes, as the database has it now: the tournament row,
        the entries, the draws and the ledger's transactions (this database holds only this
        tournament's)."""
        t = await self.row()
        columns = (
            "status", "frozen", "level", "level_elapsed_ms", "level_hands", "hand_for_hand",
            "prize_pool", "prizes", "break_order", "state", "issued",
        )  # fmt: skip
        entries = [
            (e.id, e.status, e.chips, e.table_id, e.seat, e.moves, e.place, e.prize)
            for e in await self.entries()
        ]
        async with self.db.session() as s:
            ledger = list(
                await s.execute(
                    select(LedgerTransaction.id, LedgerTransaction.idempotency_key).order_by(
                        LedgerTransaction.id
                    )
                )
            )
        return {
            "tournament": {k: getattr(t, k) for k in columns},
            "entries": entries,
            "draws": await self.draws(),
            "ledger": [tuple(row) for row in ledger],
        }

    async def chips_in_play(self) -> tuple[int, int]:
        """The entries' chips and the chips the tournament issued, in one statement: one
        snapshot (two statements would each see their own, a rebuy committed between them)."""
        chips = (
            select(func.coalesce(func.sum(TournamentEntry.chips), 0))
            .where(TournamentEntry.tournament_id == self.id)
            .scalar_subquery()
        )
        issued = select(Tournament.issued).where(Tournament.id == self.id).scalar_subquery()
        async with self.db.session() as s:
            row = (await s.execute(select(chips, issued))).one()
        return int(row[0] or 0), int(row[1] or 0)

    async def double_seats(self) -> list[tuple[int, int]]:
        """Users with more than one seat at this tournament's tables (user, seats)."""
        async with self.db.session() as s:
            rows = await s.execute(
                select(Seat.user_id, func.count())
                .join(PokerTable, PokerTable.id == Seat.table_id)
                .where(PokerTable.tournament_id == self.id)
                .group_by(Seat.user_id)
                .having(func.count() > 1)
            )
            return [(user, n) for user, n in rows]

    # -- who runs what ---------------------------------------------------------------------

    async def _index(self, owner: str | None) -> int | None:
        if owner is None:
            return None
        async with self.db.session() as s:
            pid = await s.scalar(select(ServerProcess.pid).where(ServerProcess.id == owner))
        pids = [p.pid for p in self.c.procs]
        return pids.index(pid) if pid in pids else None

    async def director_lease(self) -> TournamentLease | None:
        async with self.db.session() as s:
            return await s.get(TournamentLease, self.id, populate_existing=True)

    async def director(self) -> int | None:
        """Which of the processes directs the tournament now."""
        lease = await self.director_lease()
        return None if lease is None else await self._index(lease.owner)

    async def runners(self) -> dict[int, int | None]:
        """Each open table and the process that runs it."""
        out: dict[int, int | None] = {}
        for table_id in await self.tables():
            async with self.db.session() as s:
                lease = await s.get(TableLease, table_id, populate_existing=True)
            out[table_id] = None if lease is None else await self._index(lease.owner)
        return out

    # -- the players -----------------------------------------------------------------------

    async def live_hands(self) -> list[HandRecord]:
        return [h for h in await self.hands() if h.status == HandStatus.LIVE]

    async def played(self, hands: int) -> None:
        """Wait until `hands` of its hands are over (recorded)."""

        async def done() -> bool:
            return sum(h.status == HandStatus.DONE for h in await self.hands()) >= hands

        await until(done, f"{hands} hands are played", timeout=120)

    async def started(self) -> None:
        async def running() -> bool:
            return (await self.row()).status == "running" and bool(await self.seated())

        await until(running, "the sit & go starts and seats everyone", timeout=60)

    async def seated(self) -> dict[int, int]:
        """Every entry's table (user -> table), once every entry has one."""
        es = await self.entries()
        if any(e.table_id is None for e in es):
            return {}
        return {e.user_id: int(e.table_id) for e in es if e.table_id is not None}

    async def connect_humans(self, on: Sequence[int] | None = None) -> list[Human]:
        """Each human's socket, on one of the processes `on` (default: any) other than
        their table's owner where there is one (one each, when there are two such)."""
        where = await self.seated()
        runners = await self.runners()
        allowed = list(range(len(self.c.procs)) if on is None else on)
        for k, (user, token) in enumerate(self.humans.items()):
            table_id = where[user]
            others = [i for i in allowed if i != runners.get(table_id)] or allowed
            human = await Human.at(self.c.ports[others[k % len(others)]], table_id, token, user)
            await human.wait(lambda f: f.get("type") == "snapshot")
            self.clients.append(human)
        return self.clients

    async def close(self) -> None:
        for human in self.clients:
            with contextlib.suppress(Exception):
                await human.close()
        await self.db.dispose()

    # -- the end ---------------------------------------------------------------------------

    async def finished(self, timeout: float = FINISH) -> Tournament:
        async def done() -> Tournament | None:
            t = await self.row()
            assert t.status in ("running", "finished"), t.status
            return t if t.status == "finished" else None

        return await until(done, "the sit & go plays to a winner", timeout=timeout)

    async def check_result(self) -> list[TournamentEntry]:
        """Every place 1..N once, the prizes the scheme gives the pool, each paid prize
        posted once, and the ledger check passes."""
        t = await self.row()
        es = await self.entries()
        assert sorted(e.place for e in es if e.place is not None) == list(range(1, len(es) + 1))
        pool = sum(e.paid for e in es)  # entries and rebuys
        assert int(t.prize_pool) == pool, (t.prize_pool, pool, [(e.paid, e.rebuys) for e in es])
        prizes = payouts.prizes(t.payouts, pool, len(es))
        by_place = {int(e.place or 0): int(e.prize or 0) for e in es}
        assert [by_place[i + 1] for i in range(len(prizes))] == prizes
        assert all(by_place[place] == 0 for place in by_place if place > len(prizes))
        posted = await self.prize_postings()
        assert posted == {e.id: 1 for e in es if e.prize}, posted
        assert sum(e.chips for e in es) == int(t.issued)  # no chip made or lost
        self.c.ledger_ok()
        return es


@contextlib.asynccontextmanager
async def watching_seats(sng: Sng) -> AsyncIterator[list[int]]:
    """While the block runs, look again and again: no user ever has two seats at the
    tournament's tables, and the entries' chips always sum to what was issued (each hand's
    record, seat and unseat writes them in one transaction). Yields the count of looks
    so far (a one-item list)."""
    looks = [0]
    problems: list[Any] = []

    async def watch() -> None:
        while True:
            found = await sng.double_seats()
            if found:
                problems.append(found)
            chips, issued = await sng.chips_in_play()
            if chips != issued:
                problems.append(("chips", chips, "issued", issued))
            looks[0] += 1
            await asyncio.sleep(0.1)

    task = asyncio.get_running_loop().create_task(watch())
    try:
        yield looks
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert problems == [], f"a user in two seats, or chips astray: {problems[:3]}"


async def people(c: Cluster, host_at: int, last_at: int) -> list[tuple[int, str]]:
    """ann (who hosts) signs up on process `host_at`, bob on `last_at`."""
    return [await c.user(host_at, "ann"), await c.user(last_at, "bob")]


async def sng_on(
    c: Cluster, *, host_at: int = 1, last_at: int = 0, seed: bytes | None = None, **over: Any
) -> Sng:
    """A sit & go of 18 bots and two people, ann (its host) and bob, made over HTTP on
    process `host_at` (or, with `seed`, by the service the route runs, with the seed that
    fixes its draws, as `tournaments simulate --seed` does); bob's registration, the last
    seat, goes to `last_at`, which starts it."""
    (ann, ann_token), (bob, bob_token) = await people(c, host_at, last_at)
    if seed is None:
        sng = await Sng.create(c, host_at, ann_token, **over)
    else:
        sng = Sng(c, 0, ann_token)
        spec = TournamentSpec.parse({**SNG, **over})
        sng.id = int((await service.create(sng.db, spec, host_user_id=ann, seed=seed))["id"])
    try:
        await sng.enter(host_at, ann, ann_token)
        await sng.enter(last_at, bob, bob_token)
        await sng.started()
    except BaseException:
        await sng.close()
        raise
    return sng


def seed_seating_both_at_first_break(players: int = PLAYERS, seats: int = 8) -> bytes:
    """A seed whose seat draw puts the last two entrants (ann and bob register after the
    bots) at the table that breaks first: the first table to break moves everyone left at
    it to the other tables. The draw depends only on the entries' order (`seat_draw`
    sorts them), so ranks stand for the entries' ids."""
    tables = -(-players // seats)
    for k in range(10_000):
        seed = hashlib.sha256(f"tournament cluster {k}".encode()).digest()
        drawn = draws.seat_draw(seed, list(range(players)), tables, seats)
        order = list(range(tables))
        draws.Rng(seed, "break_order").shuffle(order)
        if drawn[players - 1][0] == drawn[players - 2][0] == order[0]:
            return seed
    raise AssertionError("no seed seats them so")


class Heard:
    """What the tournament's channels carried, as a Redis subscriber of the test's own
    heard it: its public news (`tournament:ID`: the clock, places, freezes) and its tables'
    reports to the director (`director:ID`)."""

    def __init__(self, redis_url: str, namespace: str, tournament_id: int) -> None:
        self.url = redis_url
        self.news_channel = channels.qualify(namespace, channels.tournament(tournament_id))
        self.reports_channel = channels.qualify(namespace, channels.director(tournament_id))
        self.news: list[dict[str, Any]] = []
        self.reports: list[dict[str, Any]] = []
        self.ready = asyncio.Event()

    async def run(self) -> None:
        client = aredis.Redis.from_url(self.url, decode_responses=True)
        try:
            pubsub = client.pubsub()
            await pubsub.subscribe(self.news_channel, self.reports_channel)
            self.ready.set()
            async for message in pubsub.listen():
                if message["type"] != "message":
                    continue
                body = json.loads(message["data"])
                if message["channel"] == self.news_channel:
                    self.news.append(body)
                else:
                    self.reports.append(body)
        finally:
            await client.aclose()

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [n for n in self.news if n.get("type") == kind]

    def waiting_again(self, tables: list[int], since: int) -> bool:
        """Every table of `tables` reported, from report `since` on, the same hand twice:
        it has finished its hand and waits for the director's word."""
        seen: dict[int, list[Any]] = {}
        for r in self.reports[since:]:
            seen.setdefault(int(r["table"]), []).append(r.get("hand"))
        return all(len(h) >= 2 and h[-1] == h[-2] for t in tables for h in [seen.get(t, [])])


@contextlib.asynccontextmanager
async def heard(redis_url: str, namespace: str, tournament_id: int) -> AsyncIterator[Heard]:
    listener = Heard(redis_url, namespace, tournament_id)
    task = asyncio.get_running_loop().create_task(listener.run())
    try:
        await asyncio.wait_for(listener.ready.wait(), 10)
        yield listener
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
