"""A tournament server in the test's own process: the real app (HTTP through httpx's ASGI
transport), its table services on a fake clock and the memory fan-out, a real database (both
backends), and each tournament's director run by the services' own `Directors`.

What a test arranges, and nothing else: the cards (`rig`: each hand's deck is prearranged so
the players a test names win, in its order), and how its own players act (`puppets`: a
strategy per user, sent through the table's command path as a client's `act` would be; a
player with no strategy, or whose strategy says nothing, is absent and plays by the clock,
R28). Bots play as the server's bots do: bring in, check or call. Time moves only when
`run_until` moves the fake clock, a little at a time, each step once everything the last one
caused has been handled (`settle`): so the hands play out in the same order every run."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from collections.abc import Set as AbstractSet
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from app.api.services import TableServices, start_table_services, stop_table_services
from app.engine import Action, ActionKind, LegalActions
from app.engine.cards import Card
from app.engine.scripted import dealing_order, scripted_deck
from app.fanout import BaseFanout, channels
from app.store import accounts, ledger
from app.store import tournaments as store
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.tournament_models import TournamentEntry
from app.tables import FakeClock, LedgerTableStore, Table, TableError, TableManager
from app.tables import messages as m
from app.tournaments import service
from app.tournaments.director import Director
from app.wire import client as c
from app.wire.limits import MAX_TRANSPORT_FRAME
from tests.store.factories import make_user
from tests.tables.live import Live

Strategy = Callable[[LegalActions], Action | None]  # None: away, the clock plays (R28)
STEP = 1.0  # the most fake seconds the clock moves between two looks
QUADS = "AKQJT9"  # the i-th best hand of a rigged deal holds four of these
JUNK = [f"{r}{s}" for r in "2345678" for s in "cdhs"]  # the rest: never better than quads


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    token: str


@dataclass(frozen=True)
class Deal:
    """How one hand is to fall: `ranking` the users dealt in, best hand first; `bring_in`
    the user whose door card is lowest (default the last of the ranking); `folds` the users
    who fold on third street (their later cards are not dealt, so the deck skips them)."""

    ranking: Sequence[int]
    bring_in: int | None = None
    folds: AbstractSet[int] = frozenset()


Policy = Callable[[Table], Deal]


@dataclass
class Seen:
    """One table's deal as it happened: the hand's number, its hand-for-hand round and its
    level, and how every table of the tournament stood at that moment: its players seated,
    and the number of the hand it was playing (None: between hands)."""

    table_id: int
    number: int
    round: int | None
    level: int
    seats: dict[int, int]
    playing: dict[int, int | None]
    heard: int  # how many events had been heard by then (`Server.heard`)
    at: float  # when, on the clock


def quads_deck(table: Table, deal: Deal) -> list[Card]:
    """A deck that gives the users of `deal.ranking` four aces, four kings, … in that order
    (no two hands tie), and the lowest door card to `deal.bring_in`."""
    seat_of = {user: seat for seat, user in table.state.hand_users.items()}
    order = dealing_order(sorted(table.state.hand_users), table.state.button)
    assert sorted(seat_of) == sorted(deal.ranking), "a rigged deal names who is dealt in"
    bring_in = deal.bring_in if deal.bring_in is not None else deal.ranking[-1]
    junk = list(JUNK)
    doors = {bring_in: junk.pop(0)}  # 2c: the lowest card of all (R10)
    for user in deal.ranking:
        doors.setdefault(user, junk.pop())  # the highest left
    hands: dict[int, str] = {}
    for rank, user in zip(QUADS, deal.ranking, strict=False):
        quads = [f"{rank}{s}" for s in "cdhs"]
        cards = [quads[0], quads[1], doors[user], quads[2], quads[3], junk.pop(0), junk.pop(0)]
        hands[seat_of[user]] = "".join(cards[:3] if user in deal.folds else cards)
    folds = {seat_of[u]: 3 for u in deal.folds}
    return scripted_deck(order, hands, last_street=folds)


def play_call_down(legal: LegalActions) -> Action:
    """A player who is there: bring in, check or call to the end (as a bot does)."""
    if legal.muck:
        return Action(ActionKind.MUCK)
    if legal.show:
        return Action(ActionKind.SHOW)
    if legal.bring_in is not None:
        return Action(ActionKind.BRING_IN, legal.bring_in)
    if legal.check:
        return Action(ActionKind.CHECK)
    if legal.call is not None:
        return Action(ActionKind.CALL)
    return Action(ActionKind.FOLD)


def by_registration(server: Server, order: Sequence[int]) -> Policy:
    """Deals where the earliest of `order` dealt in wins (then the lowest user id), the last one
    present brings in, and a player away (no strategy, no bot) folds on third street, as
    the clock folds for them (R28)."""

    def policy(table: Table) -> Deal:
        rank = {user: i for i, user in enumerate(order)}  # then the others, by id
        dealt = sorted(table.state.hand_users.values(), key=lambda u: (rank.get(u, len(rank)), u))
        bots = {info.user_id for info in table.state.seats.values() if info.bot}
        present = [u for u in dealt if u in server.puppets or u in bots]
        away = frozenset(u for u in dealt if u not in present)
        return Deal(dealt, bring_in=present[-1] if present else None, folds=away)

    return policy


def play_raise(legal: LegalActions) -> Action:
    """A maniac: the most it may put in, every time."""
    if legal.raises:
        return Action(ActionKind.RAISE, legal.raises[-1])
    if legal.bets:
        return Action(ActionKind.BET, legal.bets[-1])
    if legal.complete is not None:
        return Action(ActionKind.COMPLETE, legal.complete)
    return play_call_down(legal)


def play_fold(legal: LegalActions) -> Action:
    """Checks when it costs nothing, else folds (the bring-in is posted)."""
    if legal.bring_in is not None:
        return Action(ActionKind.BRING_IN, legal.bring_in)
    if legal.check:
        return Action(ActionKind.CHECK)
    if legal.fold:
        return Action(ActionKind.FOLD)
    return play_call_down(legal)


@dataclass
class Server:
    app: FastAPI
    services: TableServices
    db: Database
    clock: FakeClock
    puppets: dict[int, Strategy] = field(default_factory=dict)
    policies: dict[int, Policy] = field(default_factory=dict)  # table -> its deals
    seen: list[Seen] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)  # raised where the test is not
    # (channel, event, when on the clock): what the tables and the director published
    heard: list[tuple[str, dict[str, Any], float]] = field(default_factory=list)
    listeners: list[asyncio.Task[None]] = field(default_factory=list)
    names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    # -- people and HTTP ---------------------------------------------------------------------

    async def person(self, name: str | None = None, balance: int = 100_000) -> Person:
        name = name or f"player{next(self.names)}"
        async with self.db.transaction() as s:
            user = await make_user(s, name, balance=balance)
            new = await accounts.open_session(s, user.id, lifetime=timedelta(days=1))
        return Person(user.id, name, new.token)

    def http(self, who: Person | None = None) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {who.token}"} if who is not None else {}
        transport = httpx.ASGITransport(app=self.app)
        return httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=headers)

    async def post(self, who: Person | None, path: str, body: dict[str, Any]) -> httpx.Response:
        async with self.http(who) as http:
            return await http.post(path, json=body)

    async def create(self, host: Person, **spec: Any) -> int:
        """A tournament made through the host form (`POST /api/tournaments`)."""
        r = await self.post(host, "/api/tournaments", {"name": "Test stud", **spec})
        assert r.status_code == 201, r.text
        tid: int = r.json()["id"]
        return tid

    async def register(self, who: Person, tid: int, **body: Any) -> httpx.Response:
        return await self.post(
            who, f"/api/tournaments/{tid}/register", {"request_id": f"r{who.id}", **body}
        )

    async def bots(self, tid: int, count: int) -> list[int]:
        """Bots registered as players are (each granted exactly its buy-in and fee)."""
        before = {e.user_id for e in await self.entries(tid)}
        await service.add_bots(self.db, tid, count)
        return [e.user_id for e in await self.entries(tid) if e.user_id not in before]

    # -- the tournament running --------------------------------------------------------------

    def director(self, tid: int) -> Director:
        director = self.services.directors.running.get(tid) if self.services.directors else None
        assert director is not None, f"tournament {tid} is not directed here"
        return director

    def tables(self, tid: int) -> list[Table]:
        return sorted(
            (
                t
                for t in self.services.manager.tables.values()
                if t.state.directed is not None
                and t.state.directed.tournament_id == tid
                and not t.closed
            ),
            key=lambda t: t.id,
        )

    async def start(self, tid: int) -> Director:
        """Start the tournament here (as a full sit & go's last registration does) and wait
        for its first decision: the seat draw, its tables, the players seated."""
        assert self.services.directors is not None
        await self.services.directors.start_now(tid)
        return await self.begun(tid)

    async def begun(self, tid: int) -> Director:
        director = self.director(tid)
        await heard(director)  # after `begin`, which the start posted first
        tables = self.tables(tid)
        for table in tables:
            table.deck_source = lambda table=table: self._deck(table)  # type: ignore[misc]
        names = [channels.table(t.id) for t in tables]
        names += [channels.tournament(tid), channels.director(tid)]
        sub = self.services.fanout.subscribe(*names, queue_size=1_000_000)
        await sub
        self.listeners.append(asyncio.get_running_loop().create_task(self._listen(sub)))
        return director

    async def _listen(self, sub: Any) -> None:
        async for channel, text in sub:
            body = json.loads(text)
            if isinstance(body, dict) and "table" in body and "type" not in body:
                body = {"type": "report", **body}  # a table's report to its director
            if isinstance(body, dict) and "type" in body:
                self.heard.append((channel, body, self.clock.monotonic()))

    def events(
        self, channel: str, kind: str, since: int = 0, until: int | None = None
    ) -> list[dict[str, Any]]:
        """The events of type `kind` heard on `channel` (a table's, the tournament's), of
        those heard from `since` to `until` (indexes in `heard`, as `Seen.heard` gives)."""
        return [body for _, body in self.timed(channel, kind, since, until)]

    def timed(
        self, channel: str, kind: str, since: int = 0, until: int | None = None
    ) -> list[tuple[float, dict[str, Any]]]:
        """As `events`, each with when it was heard on the clock."""
        return [
            (at, body)
            for name, body, at in self.heard[since:until]
            if name == channel and body["type"] == kind
        ]

    def rig(self, tid: int, policy: Policy) -> None:
        """Every hand of the tournament's tables is dealt as `policy` says."""
        for table in self.tables(tid):
            self.policies[table.id] = policy

    def _deck(self, table: Table) -> list[Card]:
        try:
            return self._rigged(table)
        except BaseException as exc:  # the table only logs it: the test must fail
            self.errors.append(exc)
            raise

    def _rigged(self, table: Table) -> list[Card]:
        d, number = table.state.directed, table.state.hand_number
        assert d is not None and number is not None
        tables = self.tables(d.tournament_id)
        playing = {
            t.id: t.state.hand_number if t.state.hand is not None or t is table else None
            for t in tables
        }
        self.seen.append(
            Seen(
                table.id, number, d.round, d.level,
                {t.id: len(t.state.seats) for t in tables}, playing, len(self.heard),
                self.clock.monotonic(),
            )
        )  # fmt: skip
        policy = self.policies.get(table.id)
        if policy is None:
            return quads_deck(table, Deal(sorted(table.state.hand_users.values())))
        return quads_deck(table, policy(table))

    async def _act_for_puppets(self, tid: int) -> bool:
        acted = False
        for table in self.tables(tid):
            hand = table.state.hand
            if hand is None or hand.to_act is None:
                continue
            user = table.state.hand_users.get(hand.to_act)
            strategy = self.puppets.get(user) if user is not None else None
            if strategy is None:
                continue
            action = strategy(hand.legal_actions())
            if action is None:
                continue
            assert table.state.hand_id is not None and user is not None
            move = c.ActMsg(
                type="act", hand_id=table.state.hand_id, turn_id=table.state.turn_id,
                action=action.kind.value, amount=action.amount,
            )  # fmt: skip
            await table.request(m.Ask(user, table.state.seats[hand.to_act].name, "", move))
            acted = True
        return acted

    async def _numbers_in(self, tid: int) -> None:
        """Every hand-number reservation on its way has arrived: a table reserves its
        numbers in the background (`app.tables.numbers`), off the fake clock; a settle that
        did not wait for them let the clock run on while a table waited for its first
        number, so its hand was dealt at whatever moment the database answered."""
        fetching = [
            t.numbers.task
            for t in self.tables(tid)
            if t.numbers.task is not None and not t.numbers.task.done()
        ]
        if fetching:
            await asyncio.wait(fetching, timeout=30)

    def _mark(self, tid: int) -> tuple[Any, ...]:
        director = self.services.directors.running.get(tid) if self.services.directors else None
        tables = tuple(
            (
                t.id,
                t.version,
                t.lifecycle,
                t.state.unwritten,
                len(t.outgoing),
                t.mailbox.qsize(),
                t.numbers.available(),
                t.numbers.asked,
            )
            for t in self.tables(tid)
        )
        if director is None:
            return tables
        return (*tables, director.hands, director.moves_made, director.mailbox.qsize())

    async def settle(self, tid: int) -> None:
        """Until nothing more happens without the clock: every table's records written and
        its mail handled, every report heard and answered by the director, the puppets'
        moves made."""
        for _ in range(200):
            if self.errors:
                raise self.errors[0]
            await self._numbers_in(tid)
            before = self._mark(tid)
            await self.services.manager.writer.drain(timeout=30)
            for table in self.tables(tid):
                with contextlib.suppress(TableError):  # it closed meanwhile
                    await table.request(m.Sync())
                    await table.request(m.Sync())  # and what the written records posted
            for _ in range(3):
                await asyncio.sleep(0)  # the director's reader takes what was published
            director = self.services.directors.running.get(tid) if self.services.directors else None
            if director is not None:
                await heard(director)
            acted = await self._act_for_puppets(tid)
            if not acted and self._mark(tid) == before:
                return
        raise AssertionError("the tournament never settled")

    async def run_until(
        self,
        tid: int,
        done: Callable[[], bool | Awaitable[bool]],
        *,
        seconds: float = 3600.0,
        step: float = STEP,
        watch: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Move the clock `step` at a time, settling after each, until `done` holds; fails
        after `seconds` of the tournament's time. `watch` looks at every settled moment."""
        spent = 0.0
        while True:
            await self.settle(tid)
            if watch is not None:
                await watch()
            result = done()
            if not isinstance(result, bool):
                result = await result
            if result:
                return
            assert spent < seconds, f"not done after {seconds} s of play: {self.state(tid)}"
            moved = min(step, max(0.0, self.next_due() - self.clock.monotonic()))
            self.clock.advance(moved)
            spent += moved

    def state(self, tid: int) -> list[Any]:
        """How the tables stand (what a failure says)."""
        return [
            (t.id, t.lifecycle.value, t.state.hand_number,
             t.state.directed and t.state.directed.go, t.frozen,
             {s: (i.user_id, i.stack) for s, i in t.state.seats.items()})
            for t in self.tables(tid)
        ]  # fmt: skip

    def next_due(self) -> float:
        """When the clock's next timer is due (the fake clock's own heap: a step straight to
        it skips the time in which nothing could happen)."""
        due = [when for when, _, timer in self.clock._timers if not timer.cancelled]
        return min(due, default=self.clock.monotonic() + STEP)

    async def finished(self, tid: int) -> bool:
        return bool((await self.tournament(tid)).status == "finished")

    # -- the books ---------------------------------------------------------------------------

    async def tournament(self, tid: int) -> Any:
        async with self.db.session() as s:
            return await store.get_tournament(s, tid)

    async def entries(self, tid: int) -> list[TournamentEntry]:
        async with self.db.session() as s:
            rows = await store.entries(s, tid)
        return sorted(rows, key=lambda e: (e.registered_at, e.id))

    async def balance(self, user_id: int) -> int:
        async with self.db.session() as s:
            return await ledger.player_balance(s, user_id)

    async def pool(self, tid: int) -> int:
        async with self.db.session() as s:
            return await ledger.balance(s, ledger.prize_pool_code(tid))

    async def ledger_ok(self) -> None:
        async with self.db.snapshot() as s:  # as `ledger check`: tables may be playing
            report = await check_ledger(s)
        assert report.ok, report.violations


async def heard(director: Director) -> None:
    """Once the director has handled everything posted to it so far (or has finished)."""
    if director.done.is_set():
        return
    asked = asyncio.ensure_future(director.request("view", {}))
    ended = asyncio.ensure_future(director.done.wait())
    await asyncio.wait([asked, ended], timeout=30, return_when=asyncio.FIRST_COMPLETED)
    ended.cancel()
    if not asked.done():
        asked.cancel()
        assert director.done.is_set(), "the director did not answer"
    elif asked.exception() is None:
        asked.result()


async def open_server(app: FastAPI, db: Database, fanout: BaseFanout, clock: FakeClock) -> Server:
    manager = TableManager(LedgerTableStore(db), fanout, clock)
    services = await start_table_services(
        app, db=db, fanout=fanout, clock=clock, manager=manager, freeze_gc=False
    )
    assert services.directors is not None
    services.directors.clock = clock  # the directors' level clocks and ticks: the test's
    return Server(app, services, db, clock)


@asynccontextmanager
async def listening(server: Server) -> AsyncIterator[Live]:
    """The server's app on a loopback port (uvicorn in the test's loop), for WebSocket
    clients (`tests.tables.live.Client`)."""
    config = uvicorn.Config(
        server.app, host="127.0.0.1", port=0, lifespan="off", log_level="warning",
        ws_max_size=MAX_TRANSPORT_FRAME, ws_per_message_deflate=False,
        timeout_graceful_shutdown=1,
    )  # fmt: skip
    web = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(web.serve())
    async with asyncio.timeout(30):
        while not web.started:
            assert not task.done(), "uvicorn stopped before it listened"
            await asyncio.sleep(0.005)
    port = web.servers[0].sockets[0].getsockname()[1]
    live = Live(f"http://127.0.0.1:{port}", server.services, server.clock, server.db)
    try:
        yield live
    finally:
        await asyncio.gather(*(c.close() for c in live.clients), return_exceptions=True)
        web.should_exit = True
        await task


async def close_server(server: Server) -> None:
    for task in server.listeners:
        task.cancel()
    await stop_table_services(server.app)
