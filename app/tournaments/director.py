"""One tournament's director: a task that owns the tournament's state and handles one
message at a time (a table's report, its clock's tick, a host's or player's command), as a
table does (lichess's round actor is the model).

Its tables deal one hand for each of its go's: after every hand a table reports (once the
hand is written) and the director answers with orders: the busts placed and paid (R31,
R34), the players moved (R33), the level's stakes (R26), and deal or wait (hand-for-hand on
the bubble and big pay jumps R32, a break, a table waiting to be balanced, the tournament
frozen R37). Every choice it makes by chance comes from the seed it committed to when the
tournament was made (R38). Everything that outlives a crash is written first (`Books`,
fenced by its lease): after kill -9 another process rebuilds it from the database and asks
each table how it stands.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.tournament import balancing, draws, payouts, places, table_rules
from app.engine.tournament.structure import Level, Structure
from app.fanout import BaseFanout, channels
from app.inbox import Inbox
from app.store.types import utcnow
from app.tables.clock import Clock
from app.tables.errors import TableError
from app.tournaments.books import Books
from app.tournaments.spec import edited_levels
from app.tournaments.state import Bust, Entry, LevelClock, Slot
from app.wire import process as p

log = logging.getLogger("app.tournaments")

TICK = 1.0  # seconds between looks at the level clock
AskTable = Callable[[int, p.DirectorOrders], Awaitable[dict[str, Any]]]
MakeTable = Callable[[dict[str, Any]], Awaitable[int]]  # a table's settings -> its id


@dataclass(frozen=True, slots=True)
class Reported:
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Tick:
    pass


@dataclass(frozen=True, slots=True)
class Unanswered:
    """Orders to deal or wait, not awaited, that the table refused (or never answered):
    the table stands as the director found it, and says so again (`REPORT_AGAIN`)."""

    table_id: int
    sent: int  # which of the table's orders not awaited: only its latest counts
    lost: bool  # refused as a stale director's: the lease is gone


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    args: dict[str, Any]


class Director:
    def __init__(
        self,
        books: Books,
        *,
        fanout: BaseFanout,
        clock: Clock,
        ask_table: AskTable,
        make_table: MakeTable,
        on_finish: Callable[[int], Awaitable[None]] | None = None,
        holds: Callable[[], bool] = lambda: True,
    ) -> None:
        self.books = books
        self.holds = holds  # its lease is surely held: else it says and writes nothing
        self.id = books.id
        self.fanout = fanout
        self.clock = clock
        self.ask_table = ask_table
        self.make_table = make_table
        self.on_finish = on_finish
        self.mailbox: Inbox[tuple[Any, asyncio.Future[Any] | None]] = Inbox()
        self.entries: dict[int, Entry] = {}
        # the entries still in (`Entry.alive`), in `entries`' order: asked several times a
        # hand, it is kept as they bust, win or come in (`enter`, `out`), not scanned for
        self.live: dict[int, Entry] = {}
        self.live_by_user: dict[int, Entry] = {}  # the same by player (one entry in at a time)
        self._entrants = 0  # entries not unregistered (a status no entry takes after `enter`)
        self._prizes: tuple[tuple[str, int, int], list[int]] | None = None  # (its inputs, it)
        self.slots: dict[int, Slot] = {}
        self.clock_: LevelClock = LevelClock()
        self.pending: list[Bust] = []  # busts not placed yet
        self.round: int | None = None  # hand-for-hand: the round being played
        self.status = "registering"
        self.frozen = False
        self.moves_made = 0
        self.hands = 0
        self.most_tables = 0
        self.breaks: list[int] = []  # tables broken, in order
        self.break_order: list[int] = []
        self.waiting: frozenset[int] = frozenset()  # tables 3 or more short: wait (R33)
        self.notices: dict[int, list[p.Finished]] = {}  # table -> places it is to announce
        self.busted_at: dict[int, int] = {}  # entry -> the table it busted at
        self.refilled: dict[int, int] = {}  # table -> the level its time banks were refilled for
        self.seed: bytes | None = None
        # what every draw reads: the seed, with the entrants' seeds mixed in at the seat draw
        self.draw_seed: bytes | None = None
        self.pool = 0  # the prize pool: the prices paid in, less refunds
        self.task: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._sub: Any = None
        self._tick: Any = None
        self.done = asyncio.Event()
        # orders sent and not awaited (deal or wait), by table: a table's next orders go
        # after them, so it takes its orders in the order they were given
        self.sending: dict[int, asyncio.Task[None]] = {}
        self.sent: dict[int, int] = {}  # table -> how many orders it was sent not awaited

    # -- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the tournament and run: a fresh start deals it, a rebuild goes on."""
        t = await self.books.tournament()
        self.t = t
        self.structure = Structure.from_dict(t.structure)
        self.seed = bytes.fromhex((t.state or {}).get("seed", "")) or None
        recorded = await self.books.draws()
        master = [d for d in recorded if d.purpose == "master"]
        seats = [d for d in recorded if d.purpose == "seats"]
        given = (seats[0].result or {}).get("entrant_seeds") if seats else None
        self.draw_seed = self.seed  # with the entrants' seeds mixed in, once drawn
        if self.seed is not None and given:
            mixed = [(g["entry"], bytes.fromhex(g["seed"])) for g in given]
            self.draw_seed = draws.mix(self.seed, mixed)
        self.commitment = master[0].commitment if master else ""
        self._sub = await self.fanout.subscribe(channels.director(self.id))
        self._reader = asyncio.get_running_loop().create_task(
            self._read(), name=f"dir-{self.id}-in"
        )
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"director-{self.id}")
        self.post(Command("begin", {}))

    async def stop(self) -> None:
        for task in (self.task, self._reader, *self.sending.values()):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._tick is not None:
            self._tick.cancel()
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.close()

    def post(self, msg: Any) -> None:
        self.mailbox.put_nowait((msg, None))

    async def request(self, name: str, args: dict[str, Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.mailbox.put_nowait((Command(name, args), future))
        return await future

    async def _read(self) -> None:
        assert self._sub is not None
        async for _, text in self._sub:
            try:
                body = json.loads(text)
            except ValueError:
                continue
            if isinstance(body, dict) and isinstance(body.get("table"), int):
                self.post(Reported(body))

    async def _run(self) -> None:
        try:
            await self._loop()
        finally:  # whoever still waits is answered: the tournament moved on or ended
            while not self.mailbox.empty():
                _, future = self.mailbox.get_nowait()
                if future is not None and not future.done():
                    future.set_exception(
                        TableError("tournament_moving", "the tournament's director stopped")
                    )

    async def _loop(self) -> None:
        while not self.done.is_set():
            msg, future = await self.mailbox.get()
            while not self.holds():  # a renewal in doubt: nothing goes out until it is settled
                if self.done.is_set():
                    return
                await asyncio.sleep(0.1)
            try:
                result = await self._handle(msg)
            except TableError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
                elif exc.code == "lease_lost":
                    log.warning("tournament %s: lease lost; the director stops", self.id)
                    self.done.set()
            except Exception as exc:
                log.exception("tournament %s: failed handling %r", self.id, msg)
                if future is not None and not future.done():
                    future.set_exception(TableError("internal_error", str(exc)))
            else:
                if future is not None and not future.done():
                    future.set_result(result)

    async def _handle(self, msg: Any) -> Any:
        if isinstance(msg, Reported):
            return await self._reports([msg.body, *self._queued_reports()])
        if isinstance(msg, Tick):
            return await self._ticked()
        if isinstance(msg, Unanswered):
            return await self._unanswered(msg)
        handler = COMMANDS.get(msg.name)
        if handler is None:
            raise TableError("unknown_command", f"unknown tournament command {msg.name}")
        return await handler(self, msg.args)

    def _schedule_tick(self) -> None:
        self._tick = self.clock.call_later(TICK, lambda: self.post(Tick()))

    # -- what the tournament is now --------------------------------------------------------

    def alive(self) -> list[Entry]:
        return list(self.live.values())

    def forget_entries(self) -> None:
        """Known again from the books (`begin`)."""
        self.entries, self.live, self.live_by_user, self._entrants = {}, {}, {}, 0

    def enter(self, entry: Entry) -> None:
        """A new entry known from now on (the start, a late entry or re-entry)."""
        self.entries[entry.id] = entry
        self._entrants += entry.status != "unregistered"
        if entry.alive:
            self.live[entry.id] = entry
            self.live_by_user[entry.user_id] = entry

    def out(self, entry: Entry, status: str) -> None:
        """An entry no longer in: busted, or the winner."""
        entry.status = status
        self.live.pop(entry.id, None)
        if self.live_by_user.get(entry.user_id) is entry:
            del self.live_by_user[entry.user_id]

    def level(self) -> Level:
        return self.structure.playing_level(min(self.clock_.level, len(self.structure.levels) - 1))

    def entrants(self) -> int:
        return self._entrants

    def prizes(self) -> list[int]:
        """The prizes by place (asked several times a hand: worked out again only when the
        pool or the entrants change)."""
        key = (self.t.payouts, self.pool, max(1, self._entrants))
        if self._prizes is None or self._prizes[0] != key:
            self._prizes = (key, payouts.prizes(self.t.payouts, self.pool, key[2]))
        return list(self._prizes[1])

    def late_open(self) -> bool:
        return self.status == "running" and self.clock_.level < int(self.t.late_levels or 0)

    def stakes(self) -> p.Stakes:
        level = self.level()
        variant = level.variant or (self.t.variant if self.t.variant != "rotation" else "stud")
        return p.Stakes(
            level=self.clock_.level + 1,
            ante=level.ante,
            bring_in=level.bring_in,
            small_bet=level.small_bet,
            big_bet=level.big_bet,
            variant=variant,  # type: ignore[arg-type]
            raise_cap=len(self.live) > 2,  # R29
            open_pair=self.structure.open_pair,  # type: ignore[arg-type]
        )

    def state(self) -> dict[str, Any]:
        """The director's own state beside the tournament's columns (the crash window)."""
        return {
            "seed": self.seed.hex() if self.seed else "",
            "pending": [b.to_dict() for b in self.pending],
            "round": self.round,
            "moves": self.moves_made,
            "hands": self.hands,
            "most_tables": self.most_tables,
            "breaks": self.breaks,
        }

    async def save(self, **values: Any) -> None:
        c = self.clock_
        now = self.clock.monotonic()
        await self.books.save(
            {
                "status": self.status,
                "frozen": self.frozen,
                "level": c.level,
                "level_elapsed_ms": c.now_ms(now),
                "clock_at": utcnow() if c.since is not None else None,
                "level_hands": c.hands,
                "hand_for_hand": self.round is not None,
                "break_order": self.break_order,
                "prize_pool": self.pool,
                "prizes": self.prizes() if self.entries else None,
                "state": self.state(),
                **values,
            }
        )

    # -- the report of a table's hand ------------------------------------------------------

    def _queued_reports(self) -> list[dict[str, Any]]:
        """The reports waiting next in the mailbox, taken with the one in hand: one decision
        answers them all (with many tables, reports come faster than decisions one by one)."""
        bodies = []
        while isinstance(head := self.mailbox.peek(), tuple) and isinstance(head[0], Reported):
            bodies.append(self.mailbox.get_nowait()[0].body)
        return bodies

    async def _reports(self, bodies: list[dict[str, Any]]) -> None:
        wanted = [await self._reported(body) for body in bodies]
        if "decide" in wanted and self.status == "running":
            await self.decide()
        elif "deal" in wanted:
            await self._deal()

    async def _reported(self, body: dict[str, Any]) -> str | None:
        """A table's report taken in; what it asks for next: a decision, the orders to deal
        (or wait), or nothing."""
        slot = self.slots.get(body["table"])
        if slot is None:
            return None
        hand = body.get("hand")
        if hand is not None and hand == slot.reported and slot.in_hand:
            # a report again that crossed the orders to deal: its seats are from before
            # them (a player moved away would sit at two tables), and it says nothing new
            return None
        if self.status != "running":  # over: a table that was in a hand closes now
            self._took(slot, body)
            await self.close_table(slot)
            return None
        if hand == slot.reported:
            if not slot.in_hand:
                slot.told = False  # a report again: it waits for word, whatever it was told
                return "deal"
            return None  # else said before it took its go (a new table's first word): it deals
        self._took(slot, body)
        if self.t.rebuy:  # a rebuy waiting behind the hand was posted with it: the pool grew
            self.pool = await self.books.pool()
        return "decide"

    def _took(self, slot: Slot, body: dict[str, Any]) -> None:
        """The table's word on its seats. A player dealt into its hand and gone from its
        seats busted there; one seated after the hand began (a move) is not in its report
        yet and keeps the seat the director gave."""
        seats = {int(s): int(v[0]) for s, v in body["seats"].items()}
        chips = {int(v[0]): int(v[1]) for v in body["seats"].values()}
        starts = {int(u): int(v) for u, v in (body.get("start") or {}).items()}
        hand: int | None = body.get("hand")
        fresh = hand is not None and hand != slot.reported
        by_user = self.live_by_user
        if fresh:
            group = f"r{body['round']}" if body.get("round") is not None else f"h{hand}"
            for user in set(starts) - set(chips):
                self._bust(by_user.get(user), slot, starts[user], int(hand or 0), group)
        for seat, user in slot.seats.items():
            if user not in starts and user not in chips and seat not in seats:
                seats[seat] = user  # seated by the director after the hand began
        slot.opened += [s for s in slot.seats if s not in seats]
        slot.opened = [s for s in slot.opened if s not in seats]
        slot.seats = seats
        for user, stack in chips.items():
            entry = by_user.get(user)
            if entry is not None:
                entry.chips, entry.table_id, entry.status = stack, slot.table_id, "playing"
        if fresh:
            self.hands += 1
            self.clock_.hands += 1
        slot.reported = hand
        slot.in_hand = False
        slot.told = False

    def _bust(self, entry: Entry | None, slot: Slot, start: int, hand: int, group: str) -> None:
        if entry is None or entry.table_id != slot.table_id:
            return
        self.out(entry, "busted")
        entry.chips, entry.table_id, entry.seat = 0, None, None
        self.busted_at[entry.id] = slot.table_id
        self.pending.append(Bust(entry.id, start, hand, group))

    # -- deciding: places, the end, balance, the level, who deals ---------------------------

    async def decide(self) -> None:
        await self._place()
        if self.status != "running":
            return
        if len(self.live) <= 1:
            await self._finish()
            return
        await self._level_up()
        await self._balance()
        await self._deal()

    async def _place(self) -> None:
        """Place the busts whose places are decided (R31): not while late registration is
        open (more entrants may come), and a hand-for-hand round once every table has
        played it. Prizes are paid in the same step, once (R34)."""
        if not self.pending or self.late_open():
            return
        if self.round is not None and any(s.in_hand for s in self.slots.values()):
            return
        prizes = self.prizes()
        groups: dict[str, list[Bust]] = {}
        for bust in self.pending:
            groups.setdefault(bust.group, []).append(bust)
        remaining = len(self.live) + len(self.pending)
        placed: list[tuple[int, int, int]] = []
        for group in sorted(groups.values(), key=lambda g: min(b.hand for b in g)):
            ranked = [
                places.Bust(b.entry_id, b.start_stack, self.entries[b.entry_id].order)
                for b in group
            ]
            for done in places.place_busts(ranked, remaining, prizes):
                placed.append((done.entry_id, done.place, done.prize))
            remaining -= len(group)
        await self.books.pay(placed)
        self.pending = []
        await self._tell_places(placed)

    async def _tell_places(self, placed: list[tuple[int, int, int]]) -> None:
        """Each place is told at the table where it was decided (the busted player's page
        still watches it: "You finished 7th of 60")."""
        of = self.entrants()
        for entry_id, place, prize in placed:
            e = self.entries[entry_id]
            e.place, e.prize = place, prize
            table = self.busted_at.get(e.id, e.table_id)
            if table is not None:
                finished = p.Finished(
                    user_id=e.user_id, name=e.name, place=place, of=of, prize=prize
                )
                self.notices.setdefault(table, []).append(finished)
        await self.publish("places", {"places": [list(x) for x in placed]})

    async def _finish(self) -> None:
        winner = self.alive()
        if winner:
            w = winner[0]
            done = places.winner(w.id, self.prizes())
            await self.books.pay([(done.entry_id, done.place, done.prize)])
            self.out(w, "won")
            w.place, w.prize = 1, done.prize
            await self._tell_places([(done.entry_id, done.place, done.prize)])
        self.status = "finished"
        self.clock_.stop(self.clock.monotonic())
        await self.save(finished_at=utcnow())
        if self.seed is not None:
            await self._reveal()
        await self.publish("finished", {})
        if self.on_finish is not None:  # the summaries owe nothing to the tables' answers
            await self.on_finish(self.id)
        for slot in list(self.slots.values()):
            await self.close_table(slot)

    async def close_table(self, slot: Slot) -> None:
        """The tournament is over: the table's players stand up with their chips (the winner's
        are every chip) and it closes, now or, if a hand is on there, when it reports. The
        director is done once every table is closed."""
        if not slot.in_hand:
            answer = await self._send(slot, p.DirectorOrders(
                tournament_id=self.id, epoch=self.books.epoch, unseat=d_unseat(self, slot),
                finished=self.notices.pop(slot.table_id, []), close=True,
            ))  # fmt: skip
            if answer is not None:
                del self.slots[slot.table_id]
        if not self.slots:
            self.done.set()

    async def _level_up(self) -> None:
        """R26: the level moves on by time or by hands; the next hand dealt at every table
        plays it (its stakes go with each table's next go)."""
        levels = self.structure.levels
        while self.clock_.level < len(levels) - 1:
            level = levels[self.clock_.level]
            seconds = self.clock_.now_ms(self.clock.monotonic()) / 1000
            if not level.over(seconds, self.clock_.hands):
                return
            self.clock_.next_level(self.clock.monotonic())
            await self.save()
            await self.publish("level", {"level": self.clock_.level + 1})
            stakes = self.stakes()
            for slot in self.slots.values():  # let deal already: a hand it deals from now
                if slot.in_hand:  # plays the new level (one in play keeps its own)
                    orders = p.DirectorOrders(
                        tournament_id=self.id, epoch=self.books.epoch, stakes=stakes
                    )
                    self._send_later(slot, orders, settles=False)

    # -- balance (R33) ----------------------------------------------------------------------

    def views(self) -> list[balancing.TableView]:
        by_user = self.live_by_user
        return [
            balancing.TableView(
                s.table_id, s.max_seats,
                {seat: by_user[u].id for seat, u in s.seats.items() if u in by_user},
                tuple(s.opened), s.in_hand,
            )
            for s in sorted(self.slots.values(), key=lambda s: s.table_id)
        ]  # fmt: skip

    def _settled(self) -> bool:
        """Whether the balancing plan would do nothing (`balancing.settled`, from the counts:
        the usual case after a hand, without building the plan's inputs)."""
        users = self.live_by_user
        return balancing.settled(
            {t: sum(1 for u in s.seats.values() if u in users) for t, s in self.slots.items()},
            {t: s.max_seats for t, s in self.slots.items()},
            final_table_seats=self.t.seats_per_table
            if len(self.live) <= self.t.seats_per_table else None,
            break_order=self.break_order,
        )  # fmt: skip

    async def _balance(self) -> None:
        self.waiting = frozenset()
        if len(self.slots) < 2 or self.seed is None or self._settled():
            return
        purpose = f"balance:{self.hands}:{self.moves_made}"
        inputs: dict[str, Any] = {
            "views": [
                [v.table_id, v.max_seats, {str(k): e for k, e in v.seats.items()},
                 list(v.opened), v.in_hand]
                for v in self.views()
            ],
            "moved": {str(e.id): e.moves for e in self.alive()},
            "final_table_seats": self.t.seats_per_table
            if len(self.live) <= self.t.seats_per_table else None,
            "break_order": [t for t in self.break_order if t in self.slots],
        }  # fmt: skip
        assert self.draw_seed is not None
        plan = balance_plan(self.draw_seed, purpose, inputs)
        self.waiting = plan.waiting | frozenset(plan.break_after_hand)
        if plan.moves:
            await self.books.draw(purpose, draws.SCHEME, self.commitment, {
                **inputs, "moves": moves_of(plan),
            })  # fmt: skip
            await self._carry_out(plan.moves)
        for table_id in plan.breaking:
            slot = self.slots.get(table_id)
            if slot is not None and not slot.seats and not slot.in_hand:
                await self._close(slot)

    async def _carry_out(self, moves: Sequence[balancing.Move]) -> None:
        """Everyone moving stands up, each source table in one order (between its hands),
        then sits down, each target table in one order, as soon as the tables its arrivals
        leave (and itself, if players leave it: a final table's redraw seats players in
        seats others are leaving) have stood them up. Never at two tables; the chips written
        with each step. One who could not be seated is in transit, seated by the draw at the
        next decision (`_seat_strays`)."""
        by_entry = {e.id: e for e in self.alive()}
        sources: dict[int, list[balancing.Move]] = {}
        targets: dict[int, list[balancing.Move]] = {}
        for move in moves:
            sources.setdefault(move.from_table, []).append(move)
            targets.setdefault(move.to_table, []).append(move)
        loop = asyncio.get_running_loop()
        standing = {  # each source table its own order, all at once
            table_id: loop.create_task(self._stand(table_id, group, by_entry))
            for table_id, group in sources.items()
        }

        async def arrive(table_id: int, group: list[balancing.Move]) -> None:
            leaving = {m.from_table for m in group} | ({table_id} & standing.keys())
            stood: set[int] = set()
            for each in await asyncio.gather(*(standing[t] for t in leaving)):
                stood |= each
            arrivals = [(by_entry[m.entry_id], m.to_seat) for m in group if m.entry_id in stood]
            if arrivals:
                await self._seat_all(self.slots[table_id], arrivals, deal_idle=True)

        await asyncio.gather(
            *(arrive(table_id, group) for table_id, group in targets.items()), *standing.values()
        )

    async def _stand(
        self, table_id: int, group: list[balancing.Move], by_entry: dict[int, Entry]
    ) -> set[int]:
        """One source table's movers stood up (in transit, their chips with them): the
        entries it stood."""
        slot = self.slots[table_id]
        answer = await self._send(slot, p.DirectorOrders(
            tournament_id=self.id, epoch=self.books.epoch, unseat=[
                p.UnseatOrder(user_id=by_entry[m.entry_id].user_id, entry_id=m.entry_id,
                              to_table=m.to_table, seat=m.to_seat)
                for m in group
            ],
        ))  # fmt: skip
        if answer is None:
            return set()
        for m in group:
            entry = by_entry[m.entry_id]
            chips, bank = answer["moved"][str(entry.user_id)]
            slot.seats = {s: u for s, u in slot.seats.items() if u != entry.user_id}
            entry.chips, entry.time_bank_ms = int(chips), int(bank)
            entry.table_id = entry.seat = None
            entry.moves += 1
            self.moves_made += 1
        return {m.entry_id for m in group}

    async def _seat_all(
        self, target: Slot, arrivals: list[tuple[Entry, int]], *, deal_idle: bool = False
    ) -> bool:
        """Seat `arrivals` at `target`, in one order. `deal_idle` (a balancing move): a table
        between hands that this decision would let deal is told to deal by the same order
        (its arrivals are dealt in without another round trip)."""
        orders = [
            p.SeatOrder(
                entry_id=e.id, user_id=e.user_id, name=e.name, seat=seat, chips=e.chips,
                bot=e.bot, time_bank_ms=e.time_bank_ms,
            )
            for e, seat in arrivals
        ]  # fmt: skip
        deals_on = self._deals_on(target, len(arrivals))
        at_once = target.in_hand and deals_on
        deal = deal_idle and not target.in_hand and deals_on
        answer = await self._send(target, p.DirectorOrders(
            tournament_id=self.id, epoch=self.books.epoch, seat=orders, stakes=self.stakes(),
            deal_if_ended=at_once, deal=deal,
            finished=self.notices.pop(target.table_id, []) if deal else [],
            refill_ms=self._refill_for(target) if deal else 0,
            bank_cap_ms=int(self.t.time_bank_ms or 0),
        ))  # fmt: skip
        if answer is None:
            return False
        if deal:  # let deal, as `_answer` would have
            target.in_hand, target.round, target.told = True, None, False
        for entry, seat in arrivals:
            entry.table_id, entry.seat, entry.status = target.table_id, seat, "playing"
            target.seats[seat] = entry.user_id
            if seat in target.opened:
                target.opened.remove(seat)
        if answer.get("ended") is not None:  # its hand had ended: its report, and it deals
            self._took(target, answer["ended"])
            target.in_hand, target.round = True, None
        return True

    def _deals_on(self, target: Slot, arriving: int) -> bool:
        """Whether a table, its players moved in, would be let deal between hands (for one
        believed in a hand: once that hand is over, if nobody busts in it; the table deals
        at once on such a hand's end, `deal_if_ended`): as `may_deal` says, and not hand
        for hand, not now nor from this decision (R32)."""
        if self.round is not None or not self.may_deal(target, arriving):
            return False
        return not table_rules.hand_for_hand(len(self.live), self.prizes(), len(self.slots))

    async def _seat(self, entry: Entry, target: Slot, seat: int) -> bool:
        return await self._seat_all(target, [(entry, seat)])

    async def _close(self, slot: Slot) -> None:
        answer = await self._send(slot, p.DirectorOrders(
            tournament_id=self.id, epoch=self.books.epoch, close=True,
            finished=self.notices.pop(slot.table_id, []),
        ))  # fmt: skip
        if answer is not None:
            del self.slots[slot.table_id]
            self.breaks.append(slot.table_id)

    # -- who deals --------------------------------------------------------------------------

    def may_deal(self, slot: Slot, arriving: int = 0) -> bool:
        """Whether a table between hands may deal (`arriving`: players about to sit there)."""
        if self.frozen or self.status != "running" or self.level().is_break:
            return False
        return slot.table_id not in self.waiting and len(slot.seats) + arriving >= 2

    async def _deal(self) -> None:
        """Every table between hands gets its orders: deal, or wait. Hand-for-hand (R32),
        no table deals until every table has finished the round's hand; then all deal the
        next round together."""
        self._hand_for_hand()
        idle = [s for s in self.slots.values() if not s.in_hand]
        stakes = self.stakes()
        go: list[tuple[Slot, bool, int | None]]
        if self.round is None:
            go = [(slot, self.may_deal(slot), None) for slot in idle]
        elif len(idle) < len(self.slots):
            go = [(slot, False, None) for slot in idle]
        else:
            self.round += 1
            go = [(slot, self.may_deal(slot), self.round) for slot in idle]
        # every table its orders at once, not awaited: no table waits for another's answer
        # nor for this decision's, and the next reports are taken in meanwhile
        for each in go:
            self._answer(*each, stakes)

    def _hand_for_hand(self) -> None:
        """R32: while the next bust is on a big pay jump (the bubble, or a jump in the money:
        `table_rules.big_pay_jump`) and more than one table plays, every table plays each
        hand together; a round's busts are simultaneous. It ends between rounds."""
        on = table_rules.hand_for_hand(len(self.live), self.prizes(), len(self.slots))
        if on and self.round is None:
            self.round = 0
        elif not on and self.round is not None and not any(s.in_hand for s in self.slots.values()):
            self.round = None

    def _answer(
        self, slot: Slot, deal: bool, round_: int | None, stakes: p.Stakes | None = None
    ) -> None:
        """A table between hands is told to deal, or to wait; a wait is said once (until the
        table reports again), places and refills whenever there are some."""
        news = bool(self.notices.get(slot.table_id)) or self._refill_due(slot)
        if not deal and slot.told and not news:
            return
        orders = p.DirectorOrders(
            tournament_id=self.id, epoch=self.books.epoch, stakes=stakes or self.stakes(),
            deal=deal, round=round_, finished=self.notices.pop(slot.table_id, []),
            refill_ms=self._refill_for(slot), bank_cap_ms=int(self.t.time_bank_ms or 0),
        )  # fmt: skip
        slot.told = not deal  # as if answered: a refusal comes back as `Unanswered`
        if deal:
            slot.in_hand = True
            slot.round = round_
        self._send_later(slot, orders)

    def _send_later(self, slot: Slot, orders: p.DirectorOrders, *, settles: bool = True) -> None:
        """Orders not awaited, after the table's earlier ones. `settles`: they decide whether
        it deals (a refusal, `Unanswered`, undoes what the director took them to do); else
        a refusal changes nothing (stakes also go with the next orders to deal)."""
        table_id = slot.table_id
        before = self.sending.get(table_id)
        number = self.sent[table_id] = self.sent.get(table_id, 0) + (1 if settles else 0)

        async def send() -> None:
            if before is not None:
                await asyncio.wait([before])
            try:
                await self.ask_table(table_id, orders)
            except TableError as exc:
                lost = exc.code == "stale_director"
                if not lost:
                    log.info("tournament %s: table %s refused orders: %s", self.id, table_id, exc)
                if lost or settles:
                    self.post(Unanswered(table_id, number, lost))
            except Exception:
                log.exception("tournament %s: orders to table %s failed", self.id, table_id)
                if settles:
                    self.post(Unanswered(table_id, number, False))
            finally:
                if self.sending.get(table_id) is task:
                    del self.sending[table_id]

        task = asyncio.get_running_loop().create_task(send(), name=f"dir-{self.id}-t{table_id}")
        self.sending[table_id] = task

    async def _sent(self, table_id: int) -> None:
        """The orders not awaited that this table has yet to answer, answered first."""
        before = self.sending.get(table_id)
        if before is not None:
            await asyncio.wait([before])

    async def _unanswered(self, msg: Unanswered) -> None:
        if msg.lost:
            raise TableError("lease_lost", "a newer director runs this tournament")
        slot = self.slots.get(msg.table_id)
        if slot is not None and self.sent.get(msg.table_id) == msg.sent:
            slot.in_hand = False  # no go taken: its report again is answered anew
            slot.told = False

    def _refill_due(self, slot: Slot) -> bool:
        return self.refilled.get(slot.table_id, self.clock_.level) < self.clock_.level

    def _refill_for(self, slot: Slot) -> int:
        """R27: each level refills the time banks a little, once per table and level."""
        done = self.refilled.setdefault(slot.table_id, self.clock_.level)
        if done < self.clock_.level:
            self.refilled[slot.table_id] = self.clock_.level
            return int(self.t.time_bank_refill_ms or 0)
        return 0

    async def _send(self, slot: Slot, orders: p.DirectorOrders) -> dict[str, Any] | None:
        await self._sent(slot.table_id)
        try:
            return await self.ask_table(slot.table_id, orders)
        except TableError as exc:
            if exc.code == "stale_director":
                raise TableError("lease_lost", "a newer director runs this tournament") from None
            log.info("tournament %s: table %s refused orders: %s", self.id, slot.table_id, exc)
            return None

    async def publish(self, kind: str, body: dict[str, Any]) -> None:
        text = json.dumps({"type": kind, "tournament_id": self.id, **body}, separators=(",", ":"))
        with contextlib.suppress(Exception):
            await self.fanout.publish_many([(channels.tournament(self.id), text)])

    # -- the clock -------------------------------------------------------------------------

    async def _ticked(self) -> None:
        self._schedule_tick()
        if self.status != "running" or self.frozen:
            return
        await self._seat_strays()
        await self.decide()
        await self.save()  # the clock, each second: a crash loses at most that (R37)

    async def _seat_strays(self) -> None:
        """Entries between tables (a move cut by a crash, a late entry): seated by TDA 10's
        two-step draw among the tables with the fewest players, each draw recorded."""
        strays = [e for e in self.alive() if e.table_id is None]
        for entry in strays:
            if self.seed is None or not self.slots:
                return
            purpose = f"stray:{entry.id}:{self.hands}:{self.moves_made}"
            free = {
                str(s.table_id): [i for i in range(s.max_seats) if i not in s.seats]
                for s in self.slots.values()
            }
            assert self.draw_seed is not None
            drawn = open_seat(self.draw_seed, purpose, free)
            if drawn is None:
                return
            await self.books.draw(purpose, draws.SCHEME, self.commitment, {
                "free": free, "drawn": list(drawn),
            })  # fmt: skip
            await self._seat(entry, self.slots[drawn[0]], drawn[1])

    async def _reveal(self) -> None:
        assert self.seed is not None
        for d in await self.books.draws():
            if d.purpose == "master":
                await self.books.reveal(d.seq, self.seed.hex(), d.result)


def balance_plan(seed: bytes, purpose: str, inputs: dict[str, Any]) -> balancing.Plan:
    """The balancing plan from recorded inputs (the director's, and `verify --tournament`'s)."""
    views = [
        balancing.TableView(t, n, {int(k): e for k, e in seats.items()}, tuple(opened), busy)
        for t, n, seats, opened, busy in inputs["views"]
    ]
    return balancing.plan(
        views,
        moved={int(k): v for k, v in inputs["moved"].items()},
        rng=draws.Rng(seed, purpose),
        final_table_seats=inputs["final_table_seats"],
        break_order=inputs["break_order"],
    )


def moves_of(plan: balancing.Plan) -> list[list[int]]:
    return [[m.entry_id, m.from_table, m.to_table, m.to_seat] for m in plan.moves]


def open_seat(seed: bytes, purpose: str, free: dict[str, list[int]]) -> tuple[int, int] | None:
    """TDA 10's two-step draw: a table (of those with the fewest players, so balance
    holds), then one of its free seats."""
    rng = draws.Rng(seed, purpose)
    open_tables = {int(t): seats for t, seats in free.items() if seats}
    if not open_tables:
        return None
    most = max(len(seats) for seats in open_tables.values())
    table = rng.choice(sorted(t for t, seats in open_tables.items() if len(seats) == most))
    return table, rng.choice(open_tables[table])


COMMANDS: dict[str, Callable[[Director, dict[str, Any]], Awaitable[Any]]] = {}


def d_unseat(d: Director, slot: Slot) -> list[p.UnseatOrder]:
    """Everyone off a table that closes (the tournament is over, or cancelled)."""
    by_user = {e.user_id: e.id for e in d.entries.values() if e.table_id == slot.table_id}
    return [
        p.UnseatOrder(user_id=u, entry_id=by_user[u]) for u in slot.seats.values() if u in by_user
    ]


# -- the commands: the start, a rebuild, and what hosts, players and operators ask -------


async def begin(d: Director, args: dict[str, Any]) -> None:
    d.forget_entries()
    fresh = d.t.status == "registering"
    for e in await (d.books.close_registration() if fresh else d.books.entries()):
        d.enter(e)
    d.pool = await d.books.pool()
    if fresh:
        await _start_fresh(d)
    else:
        await _rebuild(d)
    d._schedule_tick()


def _table_values(d: Director, number: int) -> dict[str, Any]:
    """A tournament table's settings: the first level's stakes, no rake, the tournament's
    clock, and a timeout that checks or folds (R28: no all-in protection)."""
    stakes = d.stakes()
    t = d.t
    return {
        "name": f"{t.name[:52]} {number}",
        "variant": stakes.variant,
        "ante": stakes.ante,
        "bring_in": stakes.bring_in,
        "small_bet": stakes.small_bet,
        "big_bet": stakes.big_bet,
        "max_seats": t.seats_per_table,
        "action_timer_ms": t.action_timer_ms,
        "hand_pause_ms": t.hand_pause_ms,
        "bot_delay_ms": t.bot_delay_ms,
        "timeout_action": "fold",
        "private": bool(t.private),
        "sit_out_limit": 0,
        "open_pair": d.structure.open_pair,
    }


async def _start_fresh(d: Director) -> None:
    """The draw for seats (R33, R38), the tables, and the first deal."""
    players = sorted(
        (e for e in d.entries.values() if e.status == "registered"), key=lambda e: e.id
    )
    if len(players) < max(2, int(d.t.min_players)):
        await _cancel(d, "too few players")
        return
    assert d.seed is not None
    seats = int(d.t.seats_per_table)
    count = math.ceil(len(players) / seats)
    given = await d.books.entrant_seeds([e.id for e in players])
    d.draw_seed = draws.mix(d.seed, [(entry, bytes.fromhex(seed)) for entry, seed in given])
    drawn = draws.seat_draw(d.draw_seed, [e.id for e in players], count, seats)
    record: dict[str, Any] = {
        "entries": [e.id for e in players], "tables": count, "seats_per_table": seats,
        "drawn": {str(k): list(v) for k, v in drawn.items()},
    }  # fmt: skip
    if given:  # revealed with the draw: anyone checks its own seed was mixed in
        record["entrant_seeds"] = [{"entry": entry, "seed": seed} for entry, seed in given]
    await d.books.draw("seats", draws.SCHEME, d.commitment, record)
    table_ids = [await d.make_table(_table_values(d, i + 1)) for i in range(count)]
    order = list(range(count))
    draws.Rng(d.draw_seed, "break_order").shuffle(order)
    d.break_order = [table_ids[i] for i in order]
    await d.books.draw(
        "break_order", draws.SCHEME, d.commitment, {"tables": table_ids, "order": d.break_order}
    )
    for table_id in table_ids:
        d.slots[table_id] = Slot(table_id, seats, in_hand=False)
    d.most_tables = count
    d.status = "running"
    d.clock_.run(d.clock.monotonic())
    await d.save(started_at=utcnow())
    for entry in players:
        index, seat = drawn[entry.id]
        await d._seat(entry, d.slots[table_ids[index]], seat)
    await d.publish("started", {"tables": table_ids})
    await d.decide()


async def _rebuild(d: Director) -> None:
    """After a crash or a move: the tournament as the database has it, each table asked
    how it stands; the clock goes on where it was written, the outage left out (R37)."""
    t = d.t
    state = t.state or {}
    d.status, d.frozen = t.status, bool(t.frozen)
    d.clock_ = LevelClock(int(t.level), int(t.level_elapsed_ms), None, int(t.level_hands))
    d.round = state.get("round")
    d.moves_made, d.hands = int(state.get("moves", 0)), int(state.get("hands", 0))
    d.most_tables, d.breaks = int(state.get("most_tables", 0)), list(state.get("breaks", []))
    d.break_order = list(t.break_order or [])
    d.pending = [Bust(**b) for b in state.get("pending", [])]
    pending = {b.entry_id for b in d.pending}
    for e in d.entries.values():
        if e.status == "busted" and e.place is None and e.id not in pending:
            d.pending.append(Bust(e.id, e.bust_stack, e.bust_hand, e.bust_group))
    if d.status != "running":
        d.done.set()
        return
    for table_id, seats in (await d.books.open_tables()).items():
        slot = d.slots[table_id] = Slot(table_id, seats)
        answer = await d._send(slot, p.DirectorOrders(tournament_id=d.id, epoch=d.books.epoch))
        if answer is not None:
            slot.seats = {int(s): int(v[0]) for s, v in answer["seats"].items()}
            slot.in_hand, slot.reported = bool(answer["in_hand"]), answer["reported"]
    outage = 0
    if t.clock_at is not None and not d.frozen:
        outage = max(0, round((utcnow() - t.clock_at).total_seconds() * 1000))
        d.clock_.run(d.clock.monotonic())
    await d.save()
    await d.publish("clock", {"resumed": True, "outage_ms": outage, "level": d.clock_.level + 1,
                              "elapsed_ms": d.clock_.elapsed_ms})  # fmt: skip
    log.warning("tournament %s: rebuilt; the clock resumes, %d ms of outage left out", d.id, outage)
    await d._seat_strays()
    await d.decide()


async def _cancel(d: Director, why: str) -> None:
    """R36 before anyone busted: everything paid in goes back."""
    await d.books.refund_all()
    await _close_all(d, why)


async def _close_all(d: Director, why: str) -> None:
    d.status = "cancelled"
    d.clock_.stop(d.clock.monotonic())
    await d.save(finished_at=utcnow())
    if d.seed is not None:
        await d._reveal()
    await d.publish("cancelled", {"why": why})
    log.info("tournament %s cancelled: %s", d.id, why)
    await _hold(d)  # a table let deal deals no hand once everything is paid back
    for slot in list(d.slots.values()):
        await d.close_table(slot)


async def freeze(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """R37: every table stops at the end of its hand, and the clock stops; resuming gives
    the clock and the level back exactly."""
    if d.status != "running":
        raise TableError("not_running", "the tournament is not running")
    on = bool(args.get("frozen", True))
    if on and not d.frozen:
        d.frozen = True
        d.clock_.stop(d.clock.monotonic())
        await _hold(d)
    elif not on and d.frozen:
        d.frozen = False
        d.clock_.run(d.clock.monotonic())
    await d.save()
    await d.publish("frozen" if d.frozen else "resumed", {"level": d.clock_.level + 1})
    await d.decide()
    return {"frozen": d.frozen}


async def _hold(d: Director) -> None:
    """R37: no hand is dealt while frozen, not even one a table was let deal just before
    (it waits out the pause between hands): the go is taken back. A table whose hand is on
    finishes it and reports as usual."""
    for slot in list(d.slots.values()):
        if not slot.in_hand:
            continue
        answer = await d._send(slot, p.DirectorOrders(
            tournament_id=d.id, epoch=d.books.epoch, hold=True,
        ))  # fmt: skip
        if answer is not None and not answer["in_hand"] and answer["reported"] == slot.reported:
            slot.in_hand = False  # taken back: between hands, as after its last report


async def cancel(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """R36: the host may cancel until the first bust (everyone refunded); an operator also
    later: the prizes decided stay paid, the rest of the pool is shared by chips."""
    if d.status != "running":
        raise TableError("not_running", "the tournament is not running")
    anyone_out = any(e.status == "busted" for e in d.entries.values())
    if anyone_out and not args.get("operator"):
        raise TableError(
            "in_the_money_already",
            "a player is out already: only an operator may cancel now (docs/rules.md R36)",
        )
    if anyone_out:
        await _chop(d)
        return {"cancelled": True, "chopped": True}
    await _cancel(d, str(args.get("why", "cancelled by the host")))
    return {"cancelled": True}


async def _chop(d: Director) -> None:
    """R36 under way: the busts pending are placed, then the prizes still to be won are
    chopped (`payouts.chip_chop`: the sure prize each, the rest by chips); the players left
    take the places by their chips."""
    await d._place()
    left = sorted(d.alive(), key=lambda e: (-e.chips, e.order))
    paid = payouts.chip_chop(
        d.prizes(), {e.id: e.chips for e in left}, {e.id: e.order for e in left}
    )
    placed = [(e.id, i + 1, paid[e.id]) for i, e in enumerate(left)]
    await d.books.pay(placed)
    for e, (_, place, prize) in zip(left, placed, strict=True):
        d.out(e, "busted")
        e.place, e.prize = place, prize
    await _close_all(d, "cancelled by an operator: the prizes still to be won chopped by chips")


async def edit_levels(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """A host's edit of the levels to come (R26): the level in play and those before it
    stay as they were; the next level change plays the new ones. Written before it is
    used, so a director rebuilt after a crash plays them too."""
    if d.status != "running":
        raise TableError("not_running", "the tournament is not running")
    structure = edited_levels(d.structure, d.clock_.level, args.get("levels"))
    await d.books.save_structure(structure.to_dict())
    d.structure = structure
    await d.publish("levels", {"from_level": d.clock_.level + 2})
    return {"from_level": d.clock_.level + 2, "levels": len(structure.levels)}


async def entries_changed(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """A late registration, a re-entry: the new entries are seated by the draw."""
    for e in await d.books.entries():
        if e.id not in d.entries:
            d.enter(e)
    d.t = await d.books.tournament()
    d.pool = await d.books.pool()
    await d._seat_strays()
    await d.decide()
    return {"entries": d.entrants()}


async def view(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """The tournament as its page shows it, now."""
    now = d.clock.monotonic()
    level = d.structure.levels[min(d.clock_.level, len(d.structure.levels) - 1)]
    left_ms = None
    if level.minutes is not None:
        left_ms = max(0, level.minutes * 60_000 - d.clock_.now_ms(now))
    alive = d.alive()
    return {
        "status": d.status,
        "frozen": d.frozen,
        "level": d.clock_.level + 1,
        "level_left_ms": left_ms,
        "level_hands_left": None if level.hands is None else max(0, level.hands - d.clock_.hands),
        "is_break": level.is_break,
        "stakes": d.stakes().model_dump(),
        "players_left": len(alive),
        "average_stack": sum(e.chips for e in alive) // len(alive) if alive else 0,
        "hand_for_hand": d.round is not None,
        "tables": [{"id": s.table_id, "players": len(s.seats)} for s in d.slots.values()],
        "hands": d.hands,
        "moves": d.moves_made,
        "most_tables": d.most_tables,
        "breaks": list(d.breaks),
    }


COMMANDS.update(
    {
        "begin": begin,
        "freeze": freeze,
        "cancel": cancel,
        "edit_levels": edit_levels,
        "entries": entries_changed,
        "view": view,
    }
)


async def pause_for_me(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """The host gives a player time ("pause for me") from the player's own allowance: it
    joins their time bank at their table (R27)."""
    user, ms = int(args["user"]), int(args["ms"])
    entry = next((e for e in d.alive() if e.user_id == user), None)
    if entry is None or entry.table_id is None:
        raise TableError("not_playing", "that player is not seated in this tournament")
    if not 0 < ms <= entry.pause_left_ms:
        raise TableError(
            "allowance_spent", f"that player has {entry.pause_left_ms // 1000} s of pause left"
        )
    slot = d.slots[entry.table_id]
    answer = await d._send(slot, p.DirectorOrders(
        tournament_id=d.id, epoch=d.books.epoch, bank_add={str(user): ms},
    ))  # fmt: skip
    if answer is None:
        raise TableError("try_again", "the player's table did not answer: try again")
    entry.pause_left_ms -= ms
    entry.time_bank_ms += ms
    await d.books.set_bank(entry.id, entry.time_bank_ms, entry.pause_left_ms)
    return {"pause_left_ms": entry.pause_left_ms}


COMMANDS["pause_for_me"] = pause_for_me


async def buy_chips(d: Director, args: dict[str, Any]) -> dict[str, Any]:
    """R35: a rebuy during the rebuy period, at or below the starting stack; the add-on
    once, in the level after it. Paid and added by the player's table between hands."""
    kind, user = str(args["kind"]), int(args["user"])
    cfg = d.t.rebuy
    if d.status != "running" or not cfg:
        raise TableError("no_rebuys", "this tournament has no rebuys")
    entry = next((e for e in d.alive() if e.user_id == user), None)
    if entry is None or entry.table_id is None or entry.table_id not in d.slots:
        raise TableError("not_playing", "you have no seat in this tournament just now")
    period = int(cfg["levels"])
    starting = int(d.t.starting_chips)
    if kind == "rebuy":
        if d.clock_.level >= period:
            raise TableError("rebuys_over", "the rebuy period is over")
        if entry.chips > starting:
            raise TableError(
                "stack_too_big", f"a rebuy is at or below the starting stack ({starting} chips)"
            )
        chips, price, fee = int(cfg.get("chips") or starting), int(cfg["price"]), int(cfg["fee"])
    else:
        if cfg.get("addon_price") is None:
            raise TableError("no_addon", "this tournament has no add-on")
        if d.clock_.level != period:
            raise TableError("addon_closed", "the add-on is taken in the level after the rebuys")
        if entry.addon:
            raise TableError("add_on_taken", "you have taken the add-on already")
        chips = int(cfg.get("addon_chips") or starting)
        price, fee = int(cfg["addon_price"]), int(cfg.get("addon_fee") or 0)
    order = p.AddChips(
        user_id=user, kind=kind, chips=chips, price=price, fee=fee,  # type: ignore[arg-type]
        key=f"{kind}:{d.id}:u{user}:{args['request_id']}",
    )  # fmt: skip
    await d._sent(entry.table_id)
    answer = await d.ask_table(entry.table_id, p.DirectorOrders(
        tournament_id=d.id, epoch=d.books.epoch, add=[order],
    ))  # fmt: skip
    added = answer["added"][0]
    if kind == "addon":
        entry.addon = True
    else:
        entry.rebuys += 1
    # the stack the next rebuy is judged by holds these chips, behind or not (a hand's
    # report sets it again from the table's stacks)
    entry.chips = int(added["stack"]) if "stack" in added else entry.chips + chips
    d.pool = await d.books.pool()  # the prize pool grew
    return {"kind": kind, "chips": chips, **added}


COMMANDS["buy_chips"] = buy_chips
