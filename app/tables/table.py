"""One table: an actor (`Table`) that owns the table's state (`state.TableState`, plain data)
and handles its mailbox one message at a time.

Everything outside (WebSocket handlers, timers, bots, the manager) only sends messages: a
user's command of the wire catalog in a `messages.Ask`, or the table's own mail
(`messages.py`); nothing else changes a table. `_RULES` (at the end) maps each message type
to its rule. A rule takes the state, the message and the few questions it may ask (`Io`),
changes the state, and returns an `effects.Outcome`: the answer and the effects, in order.
The rule modules (none imports the table):

- `dealing`: a hand: dealing it, turns, timeouts, settlement and record;
- `seating`: buy-in, top-up, leave, sit out / in, removal (the chips);
- `hosting`: the host's commands and closing;
- `directed`: a tournament table's orders from its director, and its reports;
- `between`: what follows a hand (leavers, top-ups, the busted, closing);
- `watching`: sockets joining and leaving, chat.

The actor alone applies their effects (`apply`): it numbers and publishes the events, sets
the timers, submits the writes, and runs the life cycle (`lifecycle.py`): when the next hand
is dealt, and whether it may be (held, frozen, waiting for records or numbers).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from app import logs, metrics
from app.engine.cards import shuffled_deck
from app.fanout import BaseFanout, channels
from app.inbox import Inbox
from app.store.hands import HandFinish
from app.tables import (
    approval,
    between,
    dealing,
    directed,
    fair,
    hosting,
    publishing,
    rotation,
    seating,
    waiting,
    watching,
)
from app.tables import messages as m
from app.tables.clock import Alarm, Clock, TimerHandle
from app.tables.effects import (
    DealNext,
    Effect,
    Freeze,
    Mail,
    Outcome,
    Record,
    Said,
    StopClock,
    Told,
    TurnClock,
    WriteLater,
)
from app.tables.errors import MOVED, TableError
from app.tables.hurry import HURRY
from app.tables.lifecycle import Hold, Lifecycle
from app.tables.numbers import HandNumbers
from app.tables.publishing import HISTORY
from app.tables.settings import TableSettings
from app.tables.state import (
    DeckSource,
    Directed,
    Io,
    Kept,
    SeatInfo,
    TableState,
    kept,
    kept_v,
)
from app.tables.store import StoredTable, TableStore
from app.tables.writer import HandWriter
from app.wire import client as c
from app.wire import process
from app.wire.envelope import encode, owner_notice, placeholder
from app.wire.events import HandVoided, ServerEvent, TableResumed

__all__ = ["COMMANDS", "MAX_UNWRITTEN", "DeckSource", "Lifecycle", "SeatInfo", "Table"]

log = logging.getLogger("app.tables")

# finished hands a table may have unwritten before it deals again: what a crash can undo
MAX_UNWRITTEN = 2
RETRY_SECONDS = 1.0  # a table cut off from its players looks again this often

TIMERS: frozenset[type] = frozenset({m.TurnAlarm, m.BotAct, m.StartHand, m.OfferRunsOut})
# What a watcher reads (being counted, catching up): answered only by a table that surely
# still runs here, from what it surely published.
READS: frozenset[type] = frozenset({m.Join, m.Resync})
# What moves the game on, handled only while what the table says surely reaches its players
# (`Table.reaches`): every command of the catalog (`COMMANDS`, below) and the timers.

Rule = Callable[[TableState, Any, Io], Awaitable[Outcome]]


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
        # the game: a tournament's table's seats, stakes and deals are its director's
        self.state = TableState(
            table_id,
            settings,
            host_user_id=host_user_id,
            members=set(members or ()),
            bots_play_alone=bots_play_alone,
            directed=Directed(tournament_id) if tournament_id is not None else None,
        )
        self.store = store
        self.fanout = fanout
        self.clock = clock
        self.invite_token = invite_token
        self.password_hash = password_hash
        self.deck_source = deck_source
        self.writer = writer or HandWriter()
        self.channel = channels.table(table_id)
        self.io = Io(store, self.caught_up, clock.monotonic, clock.time, self._rigged)
        self.numbers = HandNumbers(
            self.store.reserve_numbers, lambda block: self.post(m.NumbersReserved(block))
        )
        self._init_events()
        self.mailbox: Inbox[tuple[m.Message, asyncio.Future[Any] | None]] = Inbox()
        self.task: asyncio.Task[None] | None = None
        self.turn_alarm = Alarm(self.clock)  # the action timer (R19)
        self.start_token = 0  # the scheduled start that counts (older ones are stale)
        # why the table's clocks are stopped ("lease", "fanout", "database"), and since when
        self.frozen: str | None = None
        self.frozen_at = 0.0
        self._retry: TimerHandle | None = None

    def _rigged(self) -> Sequence[Any] | None:
        """A deck a test chose (None: the house's seeded deal); looked up when dealt, as a
        test may swap it."""
        return None if self.deck_source is shuffled_deck else self.deck_source()

    def _init_events(self) -> None:
        """Nothing said yet: the numbering, this run's epoch, the ring for reconnects."""
        self.version = 0
        self.published = 0  # the last version surely published: all a watcher may be told
        self.epoch = secrets.token_hex(4)
        self.ring: deque[Kept] = deque(maxlen=HISTORY)
        self.last_deal = 0  # the version of the last hand's `hand_started`
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
        state = table.state
        state.button = stored.button
        state.hands_before = stored.hands_recorded
        state.voided = list(stored.voided)
        state.limits = dict(stored.limits)
        state.muted = set(stored.muted)
        for s in stored.seats:
            info = SeatInfo(s.seat_no, s.user_id, s.name, s.stack, secrets.token_hex(8), s.is_bot)
            info.sitting_out = s.sitting_out or s.stack <= 0
            info.time_bank_ms = stored.settings.time_bank * 1000  # R42: full again
            state.seats[s.seat_no] = info
            state.by_user[s.user_id] = s.seat_no
        state.waiting.line = [(u, n) for u, n in stored.waiting if u not in state.by_user]
        rotation.resume(state, stored.last_hand)  # R45: on from the last recorded hand
        return table

    def start(self, owner: str | None = None) -> None:
        """Run. `owner`: this process took the table over (a failover, a move): its notice
        goes out before the table's first event, and like every event it waits for the
        fan-out while Redis is away, so every process's sockets at the table learn of the
        new owner and resync."""
        if owner is not None:
            self.outgoing.append((self.channel, owner_notice(owner, self.epoch)))
        for void in self.state.voided:  # players who reconnect see the cancelled hand
            self.say(HandVoided(**void))
        self.apply(waiting.offer_seats(self.state, self.io))  # a restored list's offers (R44)
        if self.state.seats:  # R40: who did not come back is away after the grace
            self.apply([Mail(m.PresenceCheck(), watching.RETURN_GRACE)])
        self._number()  # in the ring before anyone connects
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")
        self.numbers.refill()  # the first block, while the first hand's pause runs
        self.apply(directed.report(self.state))  # a tournament's: its director says when
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

    def stopped(self) -> None:
        """The table runs elsewhere now (its task stopped): closed here, for good."""
        self.state.life.move(Lifecycle.CLOSED)

    def post(self, msg: m.Message, *, first: bool = False) -> None:
        """Send without waiting for an answer (timers, bots, the manager); `first`: ahead of
        what the mailbox holds (`Drain`: no hand already on its way is dealt)."""
        if self.closed:
            return
        if first:
            self.mailbox.put_first((msg, None))
        else:
            self.mailbox.put_nowait((msg, None))

    async def request(self, msg: m.Message) -> Any:
        """Send and wait for the answer; a refusal raises `TableError`."""
        if self.closed:
            raise TableError("table_closed", "this table is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.mailbox.put_nowait((msg, future))
        return await future

    async def run(self) -> None:
        logs.bind_table(self)  # its lines (and its timers' and tasks') say table and hand
        while not self.closed:
            msg, future = await self.mailbox.get()
            if self.outgoing:  # what waits (held, or its publishing failed) goes first
                await self._flush()
            if HURRY.urgent and type(msg) is m.BotAct:
                HURRY.later(functools.partial(self.post, msg))  # a move's orders first
                continue
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
            self.apply(publishing.watchers_said(self.state))
            self._number()
            await self._flush()
        while not self.mailbox.empty():  # answer whoever is still waiting
            _, future = self.mailbox.get_nowait()
            if future is not None and not future.done():
                future.set_exception(TableError("table_closed", "this table is closed"))

    # -- effects: what the rules returned, applied here, in order ---------------------------

    def apply(self, effects: Sequence[Effect]) -> None:
        for effect in effects:
            match effect:
                case Said(event, user):
                    self.say(event, user)
                case Told(channel, text):
                    # behind what the table published, under the same lease rule
                    self.outgoing.append((channel, text))
                case DealNext(delay):
                    self.want_hand(delay)
                case Mail(msg, None):
                    self.post(msg)
                case Mail(msg, after):
                    self.clock.call_later(after or 0.0, self._poster(msg))
                case TurnClock(seconds, alarm):
                    self.turn_alarm.set(seconds, self._poster(alarm))
                case StopClock(True):
                    self.turn_alarm.cancel()
                case StopClock():
                    self.turn_alarm.clear()
                case Record(row):
                    self._record(row)
                case WriteLater(label, job):
                    self.writer.submit(self.id, label, job)
                case Freeze(why):
                    self.freeze(why)

    def _poster(self, msg: m.Message) -> Callable[[], None]:
        return lambda: self.post(msg)

    def _record(self, row: Any) -> None:
        """A hand's row (its start: nothing secret), or its record with its settlement,
        behind the table's earlier writes; a finished hand is counted until written (the
        next hand waits while more than `MAX_UNWRITTEN` are not)."""
        if not isinstance(row, HandFinish):
            label = f"hand #{row.number} start"
            self.writer.submit(self.id, label, lambda: self.store.record_start(row), item=row)
            return
        written = self.writer.submit(
            self.id, f"hand #{row.start.number}", lambda: self.store.record_hand(row), item=row,
            urgent=self.state.directed is not None,  # its director waits for it to deal again
        )  # fmt: skip
        self.state.unwritten += 1
        written.add_done_callback(lambda _: self.post(m.HandWritten()))

    # -- events: said by the rules, numbered and published here ---------------------------

    def say(self, event: ServerEvent | dict[str, Any], user: int | None = None) -> None:
        """Queue an event: one of the catalog's (`app.wire.events`) or an engine event's wire
        object (`events.engine_body`); `user`: only they may see it."""
        if isinstance(event, ServerEvent):
            self.said.append((event.type, event.body(), user))
        else:
            self.said.append((event["type"], event, user))

    def _keep_from(self, dealt: int) -> None:
        """A hand is dealt at version `dealt`: the ring keeps the hand before it and this one
        (a client away for less than a hand is told what it missed, one away longer gets the
        snapshot, whose hand log is this hand's), not `HISTORY` events of hands long over."""
        while self.ring and kept_v(self.ring[0]) < self.last_deal:
            self.ring.popleft()
        self.last_deal = dealt

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
            if kind == "hand_started" and user is None:
                self._keep_from(v)
            self.ring.append(kept(text, user))
            if user is None:
                self.outgoing.append((self.channel, text))
            else:
                self.outgoing.append((channels.user(self.id, user), text))
                self.outgoing.append((self.channel, placeholder(v)))

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
        metrics.published()
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
        self.apply(waiting.renew(self.state, self.io))  # offers, like turns, in full
        hand = self.state.hand
        if hand is not None and hand.to_act is not None:
            self.apply(dealing.start_turn(self.state))
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

    @property
    def closed(self) -> bool:
        return self.state.closed

    @property
    def closing(self) -> bool:
        return self.state.closing

    def info(self) -> dict[str, Any]:
        return publishing.info(self.state)

    def summary(self) -> dict[str, Any]:
        """A lobby line."""
        return publishing.summary(self.state)

    def remaining_ms(self) -> int | None:
        """What is left of the turn's clock."""
        at = self.turn_alarm.at
        return None if at is None else max(0, round((at - self.clock.monotonic()) * 1000))

    def snapshot(self, user_id: int | None) -> dict[str, Any]:
        return publishing.snapshot(
            self.state,
            user_id,
            v=self.version,
            epoch=self.epoch,
            ring=self.ring,
            dealt=self.last_deal,
            remaining_ms=self.remaining_ms(),
            now=self.clock.monotonic(),
        )

    async def _join(self, msg: m.Join) -> dict[str, Any]:
        joined = await watching.join(self.state, msg, self.io)
        self.apply(joined.effects)  # back from away (R40)
        return {**joined.answer, "epoch": self.epoch}

    async def _resync(self, msg: m.Resync) -> dict[str, Any]:
        """Only what the table surely published (the table answers no read while anything it
        said waits: `Table._gate`), so a client is never told what no other watcher will be."""
        last = msg.last_v
        assert self.published == self.version, "a read answered with events unpublished"
        first_kept = kept_v(self.ring[0]) if self.ring else self.version + 1
        if (
            msg.epoch == self.epoch
            and last is not None
            and 0 <= last <= self.version
            and last + 1 >= first_kept
        ):
            texts = publishing.missed(self.ring, last, msg.user_id)
            return {"v": self.version, "epoch": self.epoch, "events": texts, "snapshot": None}
        snap = self.snapshot(msg.user_id)
        return {"v": self.version, "epoch": self.epoch, "events": [], "snapshot": snap}

    async def _sync(self, msg: m.Sync) -> int:
        """A barrier: every message before it is handled and the table's records written."""
        await self.caught_up(SYNC_WAIT)
        return self.version

    async def _wake(self, msg: m.Wake) -> None:
        """Deal if a hand may start; what waits is published before and after every message
        anyway, and a frozen table that reaches its players again resumes (`_gate`)."""
        self.want_hand()

    async def _drain(self, msg: m.Drain) -> None:
        """The process is stopping, or the table moves elsewhere (`TableManager.drain`,
        `move`): no new hand while `on`; a hand on its way is not dealt. Lifted: deal on."""
        self.state.life.held(Hold.DRAINING, msg.on)
        if not msg.on:
            self.want_hand()

    # -- the life cycle: the one place that decides what the table does next ---------------

    @property
    def lifecycle(self) -> Lifecycle:
        return self.state.life.stage

    def become(self, stage: Lifecycle) -> None:
        self.state.life.move(stage)

    def want_hand(self, delay: float | None = None) -> None:
        """Something changed that may let a hand be dealt: start one after the pause (or
        `delay`), unless one is on, on its way, waited for, or the table is closing."""
        if self.lifecycle is not Lifecycle.OPEN or self.frozen is not None:
            return  # a frozen table asks again when it resumes
        self.become(Lifecycle.STARTING)
        self.start_token += 1
        token = self.start_token
        wait = self.state.settings.hand_pause_ms / 1000 if delay is None else delay
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
        state = self.state
        state.unwritten -= 1
        if state.directed is not None:
            # written: its busts are sure; the director may place them (unless a go came
            # since, `deal_if_ended`: the director had this hand's report in its answer)
            if not state.directed.go:
                self.apply(directed.report(state))
            return
        if self.lifecycle is Lifecycle.SAVING and state.unwritten <= MAX_UNWRITTEN:
            self.become(Lifecycle.STARTING)
            self.apply([publishing.table_said(state)])
            self.start_token += 1
            await self._deal()

    async def _deal(self) -> None:
        """STARTING: deal the next hand if it may be dealt, else wait (OPEN or SAVING)."""
        state = self.state
        if state.life.hold is not Hold.NONE or self.frozen is not None or not self._may_deal():
            self.become(Lifecycle.OPEN)  # lifting the hold asks again; a drained table moves on
            return
        if state.pending_settings is not None:
            self.apply(await hosting.apply_settings(state, state.pending_settings, self.io))
        players = [info for _, info in sorted(state.seats.items()) if dealing.dealt_in(info)]
        alone = not state.bots_play_alone and all(info.bot for info in players)
        alone = alone and state.directed is None  # a tournament plays to its end, bots or not
        if len(players) < 2 or alone:
            self.become(Lifecycle.OPEN)  # bots alone do not play on; a sit asks again
            return
        if state.unwritten > MAX_UNWRITTEN:
            self.become(Lifecycle.SAVING)  # `_hand_written` deals on once the writer is back
            self.apply([publishing.table_said(state)])
            return
        number = self.numbers.take()
        if number is None:
            log.info("table %s: no hand number in reserve; the hand waits for one", self.id)
            self.become(Lifecycle.OPEN)  # `_numbers_reserved` deals it
            return
        if state.directed is not None:
            state.directed.go = False  # one hand for each go
        else:
            self.apply(await between.free_sat_out(state, players, self.io))
        self.become(Lifecycle.IN_HAND)
        self.apply(dealing.deal(state, players, number, self.io))
        await self._after_play()

    def _may_deal(self) -> bool:
        return self.state.directed is None or self.state.directed.go

    async def _after_play(self) -> None:
        state = self.state
        if state.hand is None and self.lifecycle in (Lifecycle.IN_HAND, Lifecycle.CLOSING):
            self.apply(await between.hand_ended(state, self.io))

    # -- dispatch --------------------------------------------------------------------------

    async def _handle(self, msg: m.Message) -> Any:
        kind = _kind(msg)
        if self.state.directed is not None and kind in directed.REFUSED:
            directed.refuse(kind)
        own = _OWN.get(kind)
        if own is not None:
            return await own(self, msg)
        rule = _RULES.get(kind)
        if rule is None:
            raise TableError("unknown_message", f"unknown message {kind.__name__}")
        outcome = await rule(self.state, msg, self.io)
        self.apply(outcome.effects)
        if kind in IN_PLAY:  # a player's or a timer's move: if it ended the hand, what follows
            await self._after_play()
        return outcome.answer


def _kind(msg: m.Message) -> type:
    """What decides a message's handling: a command's catalog model, else its own type."""
    return type(msg.msg) if isinstance(msg, m.Ask) else type(msg)


SYNC_WAIT = 30.0

# The one map from a message's type to its rule. A user's command (`m.Ask`) is looked up by
# its catalog model (`app.wire.client`): a new command is a model there, a rule, and a line
# here (a test holds every catalog message to a line here or to the socket's own few).
_RULES: dict[type, Rule] = {
    # users' commands
    c.SitMsg: seating.sit,
    c.TopUpMsg: seating.top_up,
    c.LeaveMsg: seating.leave,
    c.SitOutMsg: seating.sit_out,
    c.SitInMsg: seating.sit_in,
    c.AutoPostMsg: seating.auto_post,
    c.PostAnteMsg: seating.post_ante,
    c.ActMsg: dealing.act,
    c.ShowMsg: dealing.show,
    c.SeedMsg: fair.seed,
    c.ChatMsg: watching.chat,
    c.ReportChatMsg: watching.report_chat,
    c.HostSettingsMsg: hosting.host_settings,
    c.HostPauseMsg: hosting.host_pause,
    c.HostRemoveMsg: hosting.host_remove,
    c.HostBotsMsg: hosting.host_bots,
    c.HostMuteMsg: hosting.host_mute,
    c.HostCloseMsg: hosting.host_close,
    c.SeatWithdrawMsg: approval.withdraw,
    c.HostSeatAnswerMsg: hosting.host_seat_answer,
    c.HostLimitsMsg: hosting.host_limits,
    c.WaitJoinMsg: waiting.join,
    c.WaitLeaveMsg: waiting.leave,
    # the table's own mail
    m.Admit: hosting.admit,
    m.Evict: hosting.evict,
    m.Shut: hosting.shut,
    m.Unwatch: watching.unwatch,
    m.WatchersGone: watching.watchers_gone,
    m.BotAct: dealing.bot_act,
    m.TurnAlarm: dealing.turn_alarm,
    m.ReportAgain: directed.report_again,
    m.OfferRunsOut: waiting.runs_out,
    m.PresenceCheck: watching.presence_check,
    process.DirectorOrders: directed.orders,
}
# what the actor handles itself: its numbering (reads), its writer, its life cycle
_OWN: dict[type, Callable[[Table, Any], Awaitable[Any]]] = {
    m.Join: Table._join,
    m.Resync: Table._resync,
    m.Sync: Table._sync,
    m.Wake: Table._wake,
    m.Drain: Table._drain,
    m.StartHand: Table._start_hand,
    m.HandWritten: Table._hand_written,
    m.NumbersReserved: Table._numbers_reserved,
}
# a move in the hand: if it ended the hand, the actor runs what follows it
IN_PLAY: frozenset[type] = frozenset({c.ActMsg, m.BotAct, m.TurnAlarm})

COMMANDS: frozenset[type[c.ClientMessage]] = frozenset(
    kind for kind in _RULES if issubclass(kind, c.ClientMessage)
)
GAME: frozenset[type] = COMMANDS | TIMERS | {process.DirectorOrders, m.Evict, m.Shut}
