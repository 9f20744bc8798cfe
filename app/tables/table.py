"""One table: a task that owns all of its state and handles its mailbox one message at a time.

Everything outside (WebSocket handlers, timers, bots) only sends messages: a user's command
of the wire catalog in a `messages.Ask`, or the table's own mail (`messages.py`); nothing
else changes a table. `_HANDLERS` (at the end) maps each message type to its rule. The
rules are modules of functions over the table's state (`state.TableState`), none of which
imports another (but `hosting`, which seats and frees through `seating`):

- `dealing`: a hand: dealing it, turns and their timers, timeouts, settlement and record;
- `seating`: buy-in, top-up, leave, sit out / in, removal (the chips);
- `hosting`: the host's commands and closing;
- `publishing`: what watchers see: the engine's events told, snapshots, resyncs, chat.

They `say` what happened; this class alone numbers those events and publishes them (after
each message), runs the life cycle (`state.Lifecycle`, its moves in `state.MOVES`), and
decides what follows: when the next hand is dealt, what happens between hands, closing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from app.engine import Hand
from app.engine.cards import shuffled_deck
from app.fanout import BaseFanout, channels
from app.inbox import Inbox
from app.store.hands import HandFinish, HandStart
from app.tables import dealing, directed, fair, hosting, publishing, seating
from app.tables import messages as m
from app.tables.clock import Alarm, Clock, TimerHandle
from app.tables.errors import MOVED, TableError
from app.tables.numbers import HandNumbers
from app.tables.publishing import HISTORY
from app.tables.settings import TableSettings
from app.tables.state import MOVES, DeckSource, Directed, Kept, Lifecycle, Recording, SeatInfo
from app.tables.store import StoredTable, TableStore
from app.tables.writer import HandWriter
from app.wire import client as c
from app.wire import process
from app.wire.envelope import encode, owner_notice, placeholder
from app.wire.events import HandVoided, PostAnteDue, ServerEvent, TableResumed

__all__ = ["COMMANDS", "MAX_UNWRITTEN", "DeckSource", "Lifecycle", "SeatInfo", "Table"]

log = logging.getLogger("app.tables")

# finished hands a table may have unwritten before it deals again: what a crash can undo
MAX_UNWRITTEN = 2
RETRY_SECONDS = 1.0  # a table cut off from its players looks again this often

TIMERS: frozenset[type] = frozenset({m.TimedOut, m.BotAct, m.StartHand})
# What a watcher reads (being counted, catching up): answered only by a table that surely
# still runs here, from what it surely published.
READS: frozenset[type] = frozenset({m.Join, m.Resync})
# What moves the game on, handled only while what the table says surely reaches its players
# (`Table.reaches`): every command of the catalog (`COMMANDS`, below) and the timers.


class Table:
    def __init__(
        self,
        table_id: int,
        settings: TableSettings,
        *,
        store: TableStore,
        fanout: BaseFanout,
        clock: Clock,
        host_user_id: int | None = None,
        invite_token: str | None = None,
        password_hash: str | None = None,
        members: set[int] | None = None,
        deck_source: DeckSource = shuffled_deck,
        writer: HandWriter | None = None,
        bots_play_alone: bool = False,
        tournament_id: int | None = None,
    ) -> None:
        self.id = table_id
        # a tournament's table: seats, stakes and deals are its director's (directed.py)
        self.directed = Directed(tournament_id) if tournament_id is not None else None
        self.settings = settings
        self.store = store
        self.fanout = fanout
        self.clock = clock
        self.host_user_id = host_user_id
        self.invite_token = invite_token
        self.password_hash = password_hash
        self.members: set[int] = set(members or ())
        self.deck_source = deck_source
        self.writer = writer or HandWriter()
        self.bots_play_alone = bots_play_alone  # demo tables; else a person must be dealt in
        self.voided: list[dict[str, Any]] = []  # hands cancelled by the last restart
        self.channel = channels.table(table_id)
        self.seats: dict[int, SeatInfo] = {}
        self.by_user: dict[int, int] = {}
        self._init_play()
        self._init_events()
        self.lifecycle = Lifecycle.OPEN
        self.paused = False  # the host's switch: no new hand while it is on
        self.draining = False  # the process is stopping: no new hand here (manager.drain)
        self.pending_settings: TableSettings | None = None
        # chip requests answered, by ledger key: (what was asked, the answer), oldest first
        self.answered: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self.hands_played = 0
        # (user, process holding the socket) -> open sockets (Join / Unwatch)
        self.viewers: dict[tuple[int, str], int] = {}
        self.observers = 0  # connected users not seated, as last announced
        self.mailbox: Inbox[tuple[m.Message, asyncio.Future[Any] | None]] = Inbox()
        self.task: asyncio.Task[None] | None = None
        self.turn_alarm = Alarm(self.clock)  # the action timer (R19)
        self.start_token = 0  # the scheduled start that counts (older ones are stale)
        self.unwritten = 0  # finished hands the hand writer has not written yet
        # why the table's clocks are stopped ("lease", "fanout", "database"), and since when
        self.frozen: str | None = None
        self.frozen_at = 0.0
        self._retry: TimerHandle | None = None

    def _init_play(self) -> None:
        """No hand yet: the hand's state, its numbers and the button."""
        self.recording: Recording | None = None  # the hand being played, for its record
        self.fair = fair.TableSeeds()  # the next hand's announce, the seed chains (R39)
        self.hand: Hand | None = None
        self.hand_id: str | None = None  # internal: the hand's rows and postings
        self.hand_number: int | None = None  # what players see (numbers.py)
        self.numbers = HandNumbers(
            self.store.reserve_numbers, lambda block: self.post(m.NumbersReserved(block))
        )
        self.hand_users: dict[int, int] = {}  # seat -> user for the hand being played
        self.start_stacks: dict[int, int] = {}
        self.turn_id = 0
        self.button = -1

    def _init_events(self) -> None:
        """Nothing said yet: the numbering, this run's epoch, the ring for reconnects."""
        self.version = 0
        self.published = 0  # the last version surely published: all a watcher may be told
        self.epoch = secrets.token_hex(4)
        self.ring: deque[Kept] = deque(maxlen=HISTORY)
        # (type, wire object, its user) to number
        self.said: list[tuple[str, dict[str, Any], int | None]] = []
        self.outgoing: list[tuple[str, str]] = []

    # -- life ------------------------------------------------------------------------------

    @classmethod
    def restore(cls, stored: StoredTable, **kwargs: Any) -> Table:
        table = cls(
            stored.table_id,
            stored.settings,
            host_user_id=stored.host_user_id,
            invite_token=stored.invite_token,
            password_hash=stored.password_hash,
            members=stored.members,
            tournament_id=stored.tournament_id,
            **kwargs,
        )
        table.button = stored.button
        table.voided = list(stored.voided)
        for s in stored.seats:
            info = SeatInfo(s.seat_no, s.user_id, s.name, s.stack, secrets.token_hex(8), s.is_bot)
            info.sitting_out = s.sitting_out or s.stack <= 0
            table.seats[s.seat_no] = info
            table.by_user[s.user_id] = s.seat_no
        return table

    def announce(self, owner: str) -> None:
        """A new owner (a failover, a move): its notice goes out before the table's first
        event, and like every event it waits for the fan-out while Redis is away, so every
        process's sockets at the table learn of the new owner and resync."""
        self.outgoing.append((self.channel, owner_notice(owner, self.epoch)))

    def start(self) -> None:
        for void in self.voided:  # players who reconnect see the cancelled hand
            self.say(HandVoided(**void))
        self._number()  # in the ring before anyone connects
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")
        self.numbers.refill()  # the first block, while the first hand's pause runs
        if self.directed is not None:
            directed.report(self)  # its director says when to deal
        self.want_hand()

    async def stop(self) -> None:
        """Stop the task (server shutdown): a hand in progress is left unsettled (void)."""
        self.turn_alarm.cancel()
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        await self.numbers.stop()
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def post(self, msg: m.Message) -> None:
        """Send without waiting for an answer (timers, bots)."""
        if not self.closed:
            self.mailbox.put_nowait((msg, None))

    async def request(self, msg: m.Message) -> Any:
        """Send and wait for the answer; a refusal raises `TableError`."""
        if self.closed:
            raise TableError("table_closed", "this table is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.mailbox.put_nowait((msg, future))
        return await future

    async def run(self) -> None:
        while not self.closed:
            msg, future = await self.mailbox.get()
            if self.outgoing:  # what waits (held, or its publishing failed) goes first
                await self._flush()
            try:
                result = await self._handle(msg) if self._gate(msg) else None
            except TableError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
            except asyncio.CancelledError:  # stopped here (moved on): the asker may retry there
                if future is not None and not future.done():
                    future.set_exception(TableError("table_moved", MOVED))
                raise
            except Exception:
                log.exception("table %s: failed handling %r", self.id, msg)
                if future is not None and not future.done():
                    failed = TableError("internal_error", "the table could not do that")
                    future.set_exception(failed)
            else:
                if future is not None and not future.done():
                    future.set_result(result)
            publishing.note_observers(self)
            self._number()
            await self._flush()
        while not self.mailbox.empty():  # answer whoever is still waiting
            _, future = self.mailbox.get_nowait()
            if future is not None and not future.done():
                future.set_exception(TableError("table_closed", "this table is closed"))

    # -- events: said by the rules, numbered and published here ---------------------------

    def say(self, event: ServerEvent | dict[str, Any], seat: int | None = None) -> None:
        """Queue an event: one of the catalog's (`app.wire.events`) or an engine event's wire
        object (`events.engine_body`); `seat`: only the user this table holds in that seat
        may see it."""
        user = None
        if seat is not None:
            user = self.hand_users.get(seat)
            if user is None:
                user = self.seats[seat].user_id
        if isinstance(event, ServerEvent):
            self.said.append((event.type, event.body(), user))
        else:
            self.said.append((event["type"], event, user))

    def send(self, channel: str, text: str) -> None:
        """Publish a text that is not one of the table's events (a report to the tournament's
        director) behind what the table said, under the same lease rule."""
        self.outgoing.append((channel, text))

    def _number(self) -> None:
        """Number what was said, keep it in the ring, and queue it for the fan-out: a public
        event on the table's channel, a private one on its user's, with the bare number on
        the table's channel in its place."""
        if not self.said:
            return
        said, self.said = self.said, []
        for kind, body, user in said:
            self.version += 1
            v = self.version
            text = encode(v, body)
            self.ring.append(Kept(v, kind, text, user))
            if user is None:
                self.outgoing.append((self.channel, text))
            else:
                self.outgoing.append((channels.user(self.id, user), text))
                self.outgoing.append((self.channel, placeholder(v)))

    # -- database writes: the rules ask, the table queues them behind its earlier ones --------

    def record_start(self, start: HandStart) -> None:
        """The live hand's row (nothing secret), behind the table's earlier writes."""
        label = f"hand #{start.number} start"
        self.writer.submit(self.id, label, lambda: self.store.record_start(start), item=start)

    def record_finish(self, finish: HandFinish) -> None:
        """The finished hand's record with its settlement; counted until written (the next
        hand waits while more than `MAX_UNWRITTEN` are not)."""
        written = self.writer.submit(
            self.id,
            f"hand #{finish.start.number}",
            lambda: self.store.record_hand(finish),
            item=finish,
        )
        self.unwritten += 1
        written.add_done_callback(lambda _: self.post(m.HandWritten()))

    def write_later(self, label: str, job: Callable[[], Awaitable[Any]]) -> None:
        """Another write that must follow the table's earlier ones (a cash-out, closing)."""
        self.writer.submit(self.id, label, job)

    async def caught_up(self, timeout: float) -> bool:
        """Wait until the table's writes are in the database; False if `timeout` ran out."""
        return await self.writer.drain(self.id, timeout)

    async def _flush(self) -> None:
        if not self.outgoing:
            return
        if not self.store.holds(self.id):
            # the lease may have moved on (this process was paused or cut off): a newer owner
            # may be dealing this table, so nothing goes out until a renewal says it is ours
            # (the manager then sends `Wake`) or the table stops here
            self.freeze("lease")
            return
        out, self.outgoing = self.outgoing, []
        try:
            await self.fanout.publish_many(out)
        except Exception as exc:
            # kept, in order, for the next try: nothing said is lost, nothing skips ahead
            self.outgoing[:0] = out
            if self.frozen is None:
                log.warning("table %s: could not publish %d events (%s)", self.id, len(out), exc)
            self.freeze("fanout")
            return
        if not self.outgoing:
            self.published = self.version

    # -- reaching the players: no clock runs while what the table says may reach nobody -----

    def reaches(self) -> bool:
        """Whether what the table says now surely reaches its players: it surely still holds
        its lease, its fan-out is connected, and nothing it said waits to be published."""
        return not self.outgoing and self.fanout.reachable and self.store.holds(self.id)

    def freeze(self, why: str) -> None:
        """Stop the table's clocks: no turn times out, no bot acts, no hand is dealt, and
        players' commands are refused, until it reaches its players again (`_resume`)."""
        if self.frozen is None:
            self.frozen = why
            self.frozen_at = self.clock.monotonic()
            log.warning("table %s: cannot reach its players (%s): its clocks stop", self.id, why)
            self.turn_alarm.clear()
            if self.lifecycle is Lifecycle.STARTING:
                self.become(Lifecycle.OPEN)  # `_resume` asks for the hand again
        if self._retry is None:
            self._retry = self.clock.call_later(RETRY_SECONDS, self._look_again)

    def _look_again(self) -> None:
        self._retry = None
        self.post(m.Wake())

    def _resume(self) -> None:
        """The table reaches its players again: it says so, and whoever was to act gets the
        whole clock (a turn nobody could see never timed out)."""
        why, since = self.frozen, self.frozen_at
        self.frozen = None
        log.warning("table %s: reaches its players again; play resumes", self.id)
        self.say(TableResumed(str(why), round((self.clock.monotonic() - since) * 1000)))
        if self.hand is not None and self.hand.to_act is not None:
            dealing.start_turn(self)
            return
        if self.lifecycle is Lifecycle.STARTING:
            self.become(Lifecycle.OPEN)  # a start dropped while frozen: ask again
        self.want_hand()

    def _gate(self, msg: m.Message) -> bool:
        """Whether `msg` is handled now. A watcher's read needs the lease surely held (else
        `not_here`: the router looks for the table's current owner) and everything said
        published; a game message needs the table to reach its players: if it does not, the
        table freezes, a timer's message is dropped and a command refused."""
        kind = _kind(msg)
        if kind in READS and not self.store.holds(self.id):
            raise TableError("not_here", "this server may no longer run this table")
        if self.frozen is None and kind in GAME and not self.reaches():
            self.freeze("lease" if not self.store.holds(self.id) else "fanout")
        elif self.frozen is not None and kind is m.Wake and self.reaches():
            self._resume()  # on a look again (`RETRY_SECONDS`, or a renewal), not any message
        if self.frozen is None:
            return True
        self.freeze(self.frozen)  # and look again soon
        if kind in TIMERS:
            return False  # given back in full when the table resumes
        if kind in GAME:
            raise TableError(
                "table_frozen",
                "the table cannot reach its players just now: its clock is stopped until it can",
            )
        if kind is m.Resync and self.published != self.version:
            raise TableError("unavailable", "the table cannot reach its players just now")
        return True

    # -- what others read ------------------------------------------------------------------

    def observer_count(self) -> int:
        """Connected users who are not seated here."""
        return len({user for user, _ in self.viewers if user not in self.by_user})

    def seat_list(self) -> list[dict[str, Any]]:
        stacks = self.hand.stacks if self.hand is not None else {}
        return [info.public(stacks.get(s)) for s, info in sorted(self.seats.items())]

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            **self.settings.to_dict(),
            "host_user_id": self.host_user_id,
            "paused": self.paused,
            "closing": self.closing,
            "closed": self.closed,
            "hands_played": self.hands_played,
            "saving": self.lifecycle is Lifecycle.SAVING,  # waits for earlier hands' records
            "tournament": directed.info(self),
        }

    def summary(self) -> dict[str, Any]:
        """A lobby line."""
        in_hand = set(self.hand.seats) if self.hand is not None else set()
        s = self.settings
        return {
            "id": self.id,
            "name": s.name,
            "variant": s.variant,
            "small_bet": s.small_bet,
            "big_bet": s.big_bet,
            "ante": s.ante,
            "bring_in": s.bring_in,
            "min_buy_in": s.min_buy_in,
            "max_buy_in": s.max_buy_in,
            "max_seats": s.max_seats,
            "seats_taken": len(self.seats),
            "waiting": sum(1 for seat in self.seats if seat not in in_hand),
            "observers": self.observer_count(),
            "private": s.private,
            "paused": self.paused,
        }

    # -- the life cycle: the one place that decides what the table does next ---------------

    @property
    def closed(self) -> bool:
        return self.lifecycle is Lifecycle.CLOSED

    @property
    def closing(self) -> bool:
        return self.lifecycle is Lifecycle.CLOSING

    def become(self, stage: Lifecycle) -> None:
        if stage not in MOVES[self.lifecycle]:
            raise RuntimeError(f"table {self.id}: no move from {self.lifecycle} to {stage}")
        self.lifecycle = stage

    def want_hand(self, delay: float | None = None) -> None:
        """Something changed that may let a hand be dealt: start one after the pause (or
        `delay`), unless one is on, on its way, waited for, or the table is closing."""
        if self.lifecycle is not Lifecycle.OPEN or self.frozen is not None:
            return  # a frozen table asks again when it resumes
        self.become(Lifecycle.STARTING)
        self.start_token += 1
        token = self.start_token
        wait = self.settings.hand_pause_ms / 1000 if delay is None else delay
        self.clock.call_later(wait, lambda: self.post(m.StartHand(token)))

    async def _start_hand(self, msg: m.StartHand) -> None:
        if msg.token == self.start_token and self.lifecycle is Lifecycle.STARTING:
            await self._deal()

    async def _numbers_reserved(self, msg: m.NumbersReserved) -> None:
        if self.numbers.add(msg.block) and self.lifecycle is Lifecycle.OPEN:
            self.become(Lifecycle.STARTING)  # a hand waited for a number: its pause is over
            self.start_token += 1  # a start already scheduled is stale: this one deals now
            await self._deal()

    async def _hand_written(self, msg: m.HandWritten) -> None:
        self.unwritten -= 1
        if self.directed is not None:
            directed.report(self)  # written: its busts are sure; the director may place them
            return
        if self.lifecycle is Lifecycle.SAVING and self.unwritten <= MAX_UNWRITTEN:
            self.become(Lifecycle.STARTING)
            publishing.say_table(self)
            self.start_token += 1
            await self._deal()

    async def _deal(self) -> None:
        """STARTING: deal the next hand if it may be dealt, else wait (OPEN or SAVING)."""
        if self.paused or self.draining or self.frozen is not None or not self._may_deal():
            self.become(Lifecycle.OPEN)  # unpausing asks again; a drained table moves on
            return
        if self.pending_settings is not None:
            await hosting.apply_settings(self, self.pending_settings)
        players = [info for _, info in sorted(self.seats.items()) if dealing.dealt_in(self, info)]
        alone = not self.bots_play_alone and all(info.bot for info in players)
        alone = alone and self.directed is None  # a tournament plays to its end, bots or not
        if len(players) < 2 or alone:
            self.become(Lifecycle.OPEN)  # bots alone do not play on; a sit asks again
            return
        if self.unwritten > MAX_UNWRITTEN:
            self.become(Lifecycle.SAVING)  # `_hand_written` deals on once the writer is back
            publishing.say_table(self)
            return
        number = self.numbers.take()
        if number is None:
            log.info("table %s: no hand number in reserve; the hand waits for one", self.id)
            self.become(Lifecycle.OPEN)  # `_numbers_reserved` deals it
            return
        if self.directed is not None:
            self.directed.go = False  # one hand for each go
        else:
            await self._free_sat_out(players)
        self.become(Lifecycle.IN_HAND)
        await dealing.deal(self, players, number)
        await self._after_play()

    def _may_deal(self) -> bool:
        return self.directed is None or self.directed.go

    async def _free_sat_out(self, players: list[SeatInfo]) -> None:
        limit = self.settings.sit_out_limit
        for info in list(self.seats.values()):
            if info in players:
                info.sat_out_hands = 0
                continue
            info.sat_out_hands += 1
            if limit and info.sat_out_hands > limit and not info.bot:
                try:
                    await seating.remove(self, info, "sat_out")
                except TableError as exc:
                    log.warning("table %s: could not remove seat %s: %s", self.id, info.seat, exc)

    async def _after_play(self) -> None:
        if self.hand is None and self.lifecycle in (Lifecycle.IN_HAND, Lifecycle.CLOSING):
            await self._between_hands()

    async def _between_hands(self) -> None:
        if self.directed is not None and self.lifecycle is Lifecycle.IN_HAND:
            if self.pending_settings is not None:
                await hosting.apply_settings(self, self.pending_settings)
            await directed.apply_behind(self)
            directed.hand_over(self)  # reports once written; deals on the director's word
            self.become(Lifecycle.OPEN)
            return
        for info in list(self.seats.values()):
            try:
                if info.leaving:
                    await seating.remove(self, info, "left")
                    continue
                for amount, key in info.top_ups:
                    await seating.apply_top_up(self, info, amount, key)
            except TableError as exc:
                log.warning("table %s seat %s: %s", self.id, info.seat, exc.message)
            finally:
                info.top_ups.clear()
            if info.stack <= 0:
                info.sitting_out = True
        if self.lifecycle is Lifecycle.CLOSING:
            await hosting.close_now(self)
            return
        self.become(Lifecycle.OPEN)
        if self.pending_settings is not None:
            await hosting.apply_settings(self, self.pending_settings)
        for info in self.seats.values():
            if not info.auto_post and not info.sitting_out:
                self.say(PostAnteDue(info.seat))
        publishing.say_seats(self)
        self.want_hand()

    # -- dispatch --------------------------------------------------------------------------

    async def _handle(self, msg: m.Message) -> Any:
        if self.directed is not None and _kind(msg) in directed.REFUSED:
            directed.refuse(_kind(msg))
        handler = _HANDLERS.get(_kind(msg))
        if handler is None:
            raise TableError("unknown_message", f"unknown message {_kind(msg).__name__}")
        return await handler(self, msg)

    def seat_of(self, user_id: int) -> SeatInfo:
        seat = self.by_user.get(user_id)
        if seat is None:
            raise TableError("not_seated", "you are not seated at this table")
        return self.seats[seat]

    def host_only(self, user_id: int) -> None:
        if self.host_user_id is None or user_id != self.host_user_id:
            raise TableError("not_host", "only the table's host may do that")

    def in_hand(self, seat: int) -> bool:
        return self.hand is not None and seat in self.hand.by_seat


def in_play(rule: Callable[[Any, Any], Awaitable[Any]]) -> Callable[[Table, Any], Any]:
    """A player's or a timer's move in the hand; if it ended the hand, what follows."""

    async def move(table: Table, msg: Any) -> Any:
        result = await rule(table, msg)
        await table._after_play()
        return result

    return move


def _kind(msg: m.Message) -> type:
    """What decides a message's handling: a command's catalog model, else its own type."""
    return type(msg.msg) if isinstance(msg, m.Ask) else type(msg)


# The one map from a message's type to its rule. A user's command (`m.Ask`) is looked up by
# its catalog model (`app.wire.client`): a new command is a model there, a rule, and a line
# here (a test holds every catalog message to a line here or to the socket's own few).
_HANDLERS: dict[type, Callable[[Table, Any], Any]] = {
    # users' commands
    c.SitMsg: seating.sit,
    c.TopUpMsg: seating.top_up,
    c.LeaveMsg: seating.leave,
    c.SitOutMsg: seating.sit_out,
    c.SitInMsg: seating.sit_in,
    c.AutoPostMsg: seating.auto_post,
    c.PostAnteMsg: seating.post_ante,
    c.ActMsg: in_play(dealing.act),
    c.SeedMsg: fair.seed,
    c.ChatMsg: publishing.chat,
    c.HostSettingsMsg: hosting.host_settings,
    c.HostPauseMsg: hosting.host_pause,
    c.HostRemoveMsg: hosting.host_remove,
    c.HostBotsMsg: hosting.host_bots,
    c.HostCloseMsg: hosting.host_close,
    # the table's own mail
    m.Admit: hosting.admit,
    m.Join: publishing.join,
    m.Unwatch: publishing.unwatch,
    m.ViewersGone: publishing.viewers_gone,
    m.Resync: publishing.resync,
    m.Sync: publishing.sync,
    m.Wake: publishing.wake,
    m.StartHand: Table._start_hand,
    m.HandWritten: Table._hand_written,
    m.NumbersReserved: Table._numbers_reserved,
    m.BotAct: in_play(dealing.bot_act),
    m.TimedOut: in_play(dealing.timed_out),
    m.ReportAgain: directed.report_again,
    process.DirectorOrders: directed.orders,
}

COMMANDS: frozenset[type[c.ClientMessage]] = frozenset(
    kind for kind in _HANDLERS if issubclass(kind, c.ClientMessage)
)
GAME: frozenset[type] = COMMANDS | TIMERS | {process.DirectorOrders}
