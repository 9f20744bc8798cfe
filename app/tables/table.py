"""One table: a task that owns all of its state and handles its mailbox one message at a time.

Everything outside (WebSocket handlers, timers, bots) only sends messages (`messages.py`);
the table runs hands with the engine, moves chips through its `TableStore` (the ledger), and
publishes every outgoing event, numbered, through the fan-out. The work is split by
responsibility into modules of functions that take the table:

- `publishing`: event numbering, the history ring, snapshots and resyncs, fan-out;
- `seating`: buy-in, top-up, leave, sit out / in, removal (the chips);
- `dealing`: running a hand: start, turns and timers, timeouts, settlement and its record;
- `hosting`: the host's commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from app.engine import Hand
from app.engine.cards import Card, shuffled_deck
from app.fanout import BaseFanout, channels
from app.inbox import Inbox
from app.tables import dealing, hosting, publishing, seating
from app.tables import messages as m
from app.tables.clock import Alarm, Clock
from app.tables.errors import TableError
from app.tables.numbers import HandNumbers
from app.tables.publishing import HISTORY, version_of
from app.tables.seating import SeatInfo
from app.tables.settings import TableSettings
from app.tables.store import StoredTable, TableStore
from app.tables.writer import HandWriter

__all__ = ["DeckSource", "SeatInfo", "Table", "version_of"]

log = logging.getLogger("app.tables")

DeckSource = Callable[[], Sequence[Card]]


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
    ) -> None:
        self.id = table_id
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
        self.recording: dealing.Recording | None = None  # the hand being played, for its record
        self.voided: list[dict[str, Any]] = []  # hands cancelled by the last restart
        self.channel = channels.table(table_id)
        self.seats: dict[int, SeatInfo] = {}
        self.by_user: dict[int, int] = {}
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
        self.version = 0
        self.epoch = secrets.token_hex(4)
        self.ring: deque[tuple[int, str, int | None]] = deque(maxlen=HISTORY)
        self.paused = False
        self.closing = False
        self.closed = False
        self.pending_settings: TableSettings | None = None
        # chip requests answered, by ledger key: (what was asked, the answer), oldest first
        self.answered: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self.hands_played = 0
        self.viewers: dict[int, int] = {}  # user -> open sockets (Join / Unwatch)
        self.observers = 0  # connected users not seated, as last announced
        self.mailbox: Inbox[tuple[m.Message, asyncio.Future[Any] | None]] = Inbox()
        self.task: asyncio.Task[None] | None = None
        self.outgoing: list[tuple[str, str]] = []
        self.turn_alarm = Alarm(self.clock)  # the action timer (R19)
        self.start_token = 0
        self.start_pending = False
        self.unwritten = 0  # finished hands the hand writer has not written yet
        self.held_for_writer = False  # the next hand waits for them (`dealing.MAX_UNWRITTEN`)

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

    def start(self) -> None:
        for void in self.voided:  # players who reconnect see the cancelled hand
            publishing.emit(self, {"type": "hand_voided", **void})
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")
        self.numbers.refill()  # the first block, while the first hand's pause runs
        dealing.schedule_hand(self)

    async def stop(self) -> None:
        """Stop the task (server shutdown): a hand in progress is left unsettled (void)."""
        self.turn_alarm.cancel()
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
            try:
                result = await self._handle(msg)
            except TableError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
            except asyncio.CancelledError:
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
            await self._flush()
        while not self.mailbox.empty():  # answer whoever is still waiting
            _, future = self.mailbox.get_nowait()
            if future is not None and not future.done():
                future.set_exception(TableError("table_closed", "this table is closed"))

    async def _flush(self) -> None:
        if not self.outgoing:
            return
        out, self.outgoing = self.outgoing, []
        try:
            await self.fanout.publish_many(out)
        except Exception:
            log.exception("table %s: could not publish %d events", self.id, len(out))

    # -- what others read ------------------------------------------------------------------

    def observer_count(self) -> int:
        """Connected users who are not seated here."""
        return sum(1 for user in self.viewers if user not in self.by_user)

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
            "saving": self.held_for_writer,  # the next hand waits for earlier ones' records
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

    # -- dispatch --------------------------------------------------------------------------

    async def _handle(self, msg: m.Message) -> Any:
        handler = _HANDLERS.get(type(msg))
        if handler is None:
            raise TableError("unknown_message", f"unknown message {type(msg).__name__}")
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


_HANDLERS: dict[type, Callable[[Table, Any], Any]] = {
    m.Admit: hosting.admit,
    m.Join: publishing.join,
    m.Unwatch: publishing.unwatch,
    m.Resync: publishing.resync,
    m.Sync: publishing.sync,
    m.Sit: seating.sit,
    m.TopUp: seating.top_up,
    m.Leave: seating.leave,
    m.SitOut: seating.sit_out,
    m.SitIn: seating.sit_in,
    m.AutoPost: seating.auto_post,
    m.PostAnte: seating.post_ante,
    m.Chat: publishing.chat,
    m.HostSettings: hosting.host_settings,
    m.HostPause: hosting.host_pause,
    m.HostRemove: hosting.host_remove,
    m.HostBots: hosting.host_bots,
    m.HostClose: hosting.host_close,
    m.StartHand: dealing.start_hand_msg,
    m.HandWritten: dealing.hand_written,
    m.NumbersReserved: dealing.numbers_reserved,
    m.Act: dealing.act,
    m.BotAct: dealing.bot_act,
    m.TimedOut: dealing.timed_out,
}
