"""One table: a task that owns all of its state and handles its mailbox one message at a time.

Everything outside (WebSocket handlers, timers, bots) only sends messages (`messages.py`);
the table runs hands with the engine, moves chips through its `TableStore` (the ledger), and
publishes every outgoing event, numbered, through the fan-out:

- each event gets the table's next version `v`; its JSON text starts with ``{"v":<n>,``;
- a public event goes on `channels.table(id)`; a seat-private one (a face-down card) on
  `channels.seat(id, seat)`, and the table channel gets the bare ``{"v":<n>}`` in its place;
- a short ring of recent events answers a reconnecting client (`Resync`), else a snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine import (
    Action,
    ActionKind,
    CardDealt,
    Event,
    Hand,
    IllegalAction,
    Phase,
    SeatSpec,
    commitment,
    observer_view,
    view_for,
)
from app.engine.cards import Card, shuffled_deck
from app.engine.pokerstars import hand_number
from app.engine.views import POT_EVENTS, pots_now
from app.fanout import BaseFanout, channels
from app.store.hands import HandFinish, HandStart
from app.tables import messages as m
from app.tables.bots import bot_action
from app.tables.clock import Clock, TimerHandle
from app.tables.errors import TableError
from app.tables.settings import TableSettings
from app.tables.store import StoredTable, TableStore
from app.tables.writer import HandWriter

log = logging.getLogger("app.tables")

HISTORY = 512  # events kept for reconnecting clients (~3 hands; ~0.15 MB a table)
CHAT_MAX = 200
PROTECTIONS = 2  # R19: all-in protections per player per 24 hours
DAY = 24 * 3600.0
SYNC_WAIT = 30.0
DRAIN_WAIT = 1.0  # seconds a chip move waits for the table's hand records to be written

DeckSource = Callable[[], Sequence[Card]]


_to_json = json.JSONEncoder(separators=(",", ":")).encode  # made once, not per event


def encode(v: int, body: dict[str, Any]) -> str:
    """The wire text of event `v`: ``{"v":n,…}`` so a reader finds `v` without parsing."""
    return f'{{"v":{v},' + _to_json(body)[1:]


def version_of(text: str) -> int:
    end = 5
    while text[end].isdigit():
        end += 1
    return int(text[5:end])


@dataclass(slots=True)
class SeatInfo:
    seat: int
    user_id: int
    name: str
    stack: int
    key: str  # this sitting's id: the cash-out's idempotency key
    bot: bool = False
    sitting_out: bool = False
    auto_post: bool = True
    posted: bool = False  # auto_post off: said "I'm in" for the next hand
    sat_out_hands: int = 0
    leaving: bool = False
    top_ups: list[tuple[int, str]] = field(default_factory=list)

    def public(self, stack: int | None = None) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "user_id": self.user_id,
            "name": self.name,
            "stack": self.stack if stack is None else stack,
            "sitting_out": self.sitting_out,
            "auto_post": self.auto_post,
            "bot": self.bot,
            "leaving": self.leaving,
        }


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
        self.recording: _Recording | None = None  # the hand being played, for its record
        self.voided: list[dict[str, Any]] = []  # hands cancelled by the last restart
        self.channel = channels.table(table_id)
        self.seats: dict[int, SeatInfo] = {}
        self.by_user: dict[int, int] = {}
        self.hand: Hand | None = None
        self.hand_id: str | None = None
        self.hand_users: dict[int, int] = {}  # seat -> user for the hand being played
        self.start_stacks: dict[int, int] = {}
        self.turn_id = 0
        self.deadline: float | None = None
        self.button = -1
        self.version = 0
        self.epoch = secrets.token_hex(4)
        self.ring: deque[tuple[int, str, int | None]] = deque(maxlen=HISTORY)
        self.paused = False
        self.closing = False
        self.closed = False
        self.pending_settings: TableSettings | None = None
        self.protections: dict[int, list[float]] = {}
        self.hands_played = 0
        self.viewers: dict[int, int] = {}  # user -> open sockets (Join / Unwatch)
        self.observers = 0  # connected users not seated, as last announced
        self.mailbox: asyncio.Queue[tuple[m.Message, asyncio.Future[Any] | None]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self._out: list[tuple[str, str]] = []
        self._timer: TimerHandle | None = None
        self._start_token = 0
        self._start_pending = False

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
            self._emit({"type": "hand_voided", **void})
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")
        self._schedule_hand()

    async def stop(self) -> None:
        """Stop the task (server shutdown): a hand in progress is left unsettled (void)."""
        self._cancel_timer()
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
            self._note_observers()
            await self._flush()
        while not self.mailbox.empty():  # answer whoever is still waiting
            _, future = self.mailbox.get_nowait()
            if future is not None and not future.done():
                future.set_exception(TableError("table_closed", "this table is closed"))

    async def _flush(self) -> None:
        if not self._out:
            return
        out, self._out = self._out, []
        try:
            await self.fanout.publish_many(out)
        except Exception:
            log.exception("table %s: could not publish %d events", self.id, len(out))

    # -- events ----------------------------------------------------------------------------

    def _emit(self, body: dict[str, Any], audience: int | None = None) -> None:
        """Number and queue one event; `audience` is the one seat that may see it."""
        self.version += 1
        v = self.version
        text = encode(v, body)
        if audience is None:
            self.ring.append((v, text, None))
            self._out.append((self.channel, text))
        else:
            user = self.hand_users.get(audience)
            if user is None:
                user = self.seats[audience].user_id
            self.ring.append((v, text, user))
            self._out.append((channels.seat(self.id, audience), text))
            self._out.append((self.channel, f'{{"v":{v}}}'))

    def _engine_events(self, events: Sequence[Event]) -> None:
        dealt_down = False
        pots: list[dict[str, Any]] | None = None
        for event in events:
            body = event.to_dict()
            audience = body.pop("audience")
            body["hand_id"] = self.hand_id
            if body["type"] == "hand_started":
                body["number"] = str(hand_number(self.hand_id or ""))
            elif body["type"] in POT_EVENTS and self.hand is not None:
                # no wager comes between two such events of one step: the pots after it hold
                pots = pots if pots is not None else pots_now(self.hand)
                body["pots"] = pots
            self._emit(body, audience)
            if isinstance(event, CardDealt) and not event.face_up:
                dealt_down = True
        if dealt_down and self.hand is not None:
            counts = {str(p.seat): len(p.down) for p in self.hand.players if not p.folded}
            self._emit({"type": "down_cards", "hand_id": self.hand_id, "counts": counts})

    def _emit_seats(self) -> None:
        self._emit({"type": "seats", "seats": self.seat_list()})

    def _emit_table(self) -> None:
        self._emit({"type": "table", "table": self.info()})

    def observer_count(self) -> int:
        """Connected users who are not seated here."""
        return sum(1 for user in self.viewers if user not in self.by_user)

    def _note_observers(self) -> None:
        count = self.observer_count()
        if count != self.observers:
            self.observers = count
            self._emit({"type": "observers", "count": count})

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

    def snapshot(self, user_id: int | None) -> dict[str, Any]:
        seat = self.by_user.get(user_id) if user_id is not None else None
        hand_view: dict[str, Any] | None = None
        hand = self.hand
        if hand is not None:
            hand_view = view_for(hand, seat) if seat in hand.by_seat else observer_view(hand)
            hand_view["hand_id"] = self.hand_id
            hand_view["number"] = str(hand_number(self.hand_id or ""))
            hand_view["turn_id"] = self.turn_id
            hand_view["remaining_ms"] = (
                None
                if self.deadline is None
                else max(0, round((self.deadline - self.clock.monotonic()) * 1000))
            )
            if hand.to_act is not None and hand_view["legal"] is None:
                hand_view["turn_legal"] = hand.legal_actions().to_dict()
            if self.recording is not None:
                hand_view["commitment"] = self.recording.start.commitment
        you = self.seats[seat].public() if seat is not None else None
        return {
            "type": "snapshot",
            "v": self.version,
            "epoch": self.epoch,
            "table": self.info(),
            "seats": self.seat_list(),
            "hand": hand_view,
            "you": {"user_id": user_id, "seat": seat, "info": you},
            "voided": self.voided,
            "observers": self.observer_count(),
        }

    # -- dispatch --------------------------------------------------------------------------

    async def _handle(self, msg: m.Message) -> Any:
        handler = _HANDLERS.get(type(msg))
        if handler is None:
            raise TableError("unknown_message", f"unknown message {type(msg).__name__}")
        return await handler(self, msg)

    def _seat_of(self, user_id: int) -> SeatInfo:
        seat = self.by_user.get(user_id)
        if seat is None:
            raise TableError("not_seated", "you are not seated at this table")
        return self.seats[seat]

    def _host_only(self, user_id: int) -> None:
        if self.host_user_id is None or user_id != self.host_user_id:
            raise TableError("not_host", "only the table's host may do that")

    def _in_hand(self, seat: int) -> bool:
        return self.hand is not None and seat in self.hand.by_seat

    async def _join(self, msg: m.Join) -> dict[str, Any]:
        self.viewers[msg.user_id] = self.viewers.get(msg.user_id, 0) + 1
        return {
            "seat": self.by_user.get(msg.user_id),
            "host": msg.user_id == self.host_user_id,
            "epoch": self.epoch,
        }

    async def _unwatch(self, msg: m.Unwatch) -> None:
        left = self.viewers.get(msg.user_id, 0) - 1
        if left > 0:
            self.viewers[msg.user_id] = left
        else:
            self.viewers.pop(msg.user_id, None)

    async def _resync(self, msg: m.Resync) -> dict[str, Any]:
        last = msg.last_v
        first_kept = self.ring[0][0] if self.ring else self.version + 1
        if (
            msg.epoch == self.epoch
            and last is not None
            and 0 <= last <= self.version
            and last + 1 >= first_kept
        ):
            user = msg.user_id
            texts = [
                text if audience is None or audience == user else f'{{"v":{v}}}'
                for v, text, audience in self.ring
                if v > last
            ]
            return {"v": self.version, "events": texts, "snapshot": None}
        return {"v": self.version, "events": [], "snapshot": self.snapshot(msg.user_id)}

    async def _sync(self, msg: m.Sync) -> int:
        """A barrier: every message before it is handled and the table's records written."""
        await self.writer.drain(self.id, SYNC_WAIT)
        return self.version

    # -- seating and chips -----------------------------------------------------------------

    async def _sit(self, msg: m.Sit) -> dict[str, Any]:
        s = self.settings
        if self.closing or self.closed:
            raise TableError("table_closed", "this table is closing")
        if msg.user_id in self.by_user:
            raise TableError("already_seated", "you are already seated at this table")
        if not 0 <= msg.seat < s.max_seats:
            raise TableError("invalid_seat", f"seats are numbered 0 to {s.max_seats - 1}")
        if msg.seat in self.seats:
            raise TableError("seat_taken", f"seat {msg.seat} is taken")
        if msg.amount < s.min_buy_in:
            raise TableError(
                "buy_in_too_small", f"the minimum buy-in here is {s.min_buy_in} (ten small bets)"
            )
        if s.max_buy_in is not None and msg.amount > s.max_buy_in:
            raise TableError("buy_in_too_large", f"the maximum buy-in here is {s.max_buy_in}")
        key = f"t{self.id}:u{msg.user_id}:{msg.key}"
        await self._caught_up()
        await self.store.buy_in(self.id, msg.user_id, msg.seat, msg.amount, key)
        info = SeatInfo(msg.seat, msg.user_id, msg.name, msg.amount, secrets.token_hex(8))
        self._seat(info)
        return {"seat": msg.seat, "stack": msg.amount}

    def _seat(self, info: SeatInfo) -> None:
        self.seats[info.seat] = info
        self.by_user[info.user_id] = info.seat
        self.members.add(info.user_id)
        self._emit_seats()
        self._schedule_hand()

    async def _top_up(self, msg: m.TopUp) -> dict[str, Any]:
        info = self._seat_of(msg.user_id)
        if msg.amount <= 0:
            raise TableError("invalid_amount", "a top-up is a positive number of chips")
        cap = self.settings.max_buy_in
        pending = sum(a for a, _ in info.top_ups)
        if cap is not None and info.stack + pending + msg.amount > cap:
            raise TableError("buy_in_too_large", f"a stack may hold at most {cap} here")
        key = f"t{self.id}:u{msg.user_id}:{msg.key}"
        if self._in_hand(info.seat):
            info.top_ups.append((msg.amount, key))
            return {"queued": True, "stack": info.stack}
        await self._apply_top_up(info, msg.amount, key)
        self._emit_seats()
        return {"queued": False, "stack": info.stack}

    async def _apply_top_up(self, info: SeatInfo, amount: int, key: str) -> None:
        await self._caught_up()
        await self.store.top_up(self.id, info.user_id, amount, key)
        info.stack += amount

    async def _leave(self, msg: m.Leave) -> dict[str, Any]:
        info = self._seat_of(msg.user_id)
        if self._in_hand(info.seat):
            info.leaving = True
            self._emit_seats()
            self._check_leaver_turn(info)
            return {"left": False, "at_hand_end": True}
        amount = await self._remove(info, "left")
        return {"left": True, "amount": amount}

    def _check_leaver_turn(self, info: SeatInfo) -> None:
        hand = self.hand
        if hand is not None and hand.to_act == info.seat:
            self.post(m.TimedOut(info.seat, self.turn_id))

    async def _remove(self, info: SeatInfo, reason: str) -> int:
        """Free the seat and return its stack to the player's balance (between hands). If the
        table's hand records are not written yet (a slow database) the cash-out is queued
        behind them and the stack the table holds is what goes back."""
        key = f"leave:{self.id}:{info.key}"
        if await self.writer.drain(self.id, DRAIN_WAIT):
            amount = await self.store.cash_out(self.id, info.user_id, key)
        else:
            amount = info.stack
            user_id = info.user_id
            self.writer.submit(
                self.id, f"cash-out {key}", lambda: self.store.cash_out(self.id, user_id, key)
            )
        del self.seats[info.seat]
        del self.by_user[info.user_id]
        self._emit(
            {
                "type": "left",
                "seat": info.seat,
                "user_id": info.user_id,
                "amount": amount,
                "reason": reason,
            }
        )
        self._emit_seats()
        return amount

    async def _sit_out(self, msg: m.SitOut) -> dict[str, Any]:
        info = self._seat_of(msg.user_id)
        info.sitting_out = True
        self._emit_seats()
        await self._save_state()
        return {"sitting_out": True}

    async def _sit_in(self, msg: m.SitIn) -> dict[str, Any]:
        info = self._seat_of(msg.user_id)
        if info.stack <= 0 and not info.top_ups:
            raise TableError("no_chips", "top up before sitting back in")
        info.sitting_out = False
        info.sat_out_hands = 0
        self._emit_seats()
        await self._save_state()
        self._schedule_hand()
        return {"sitting_out": False}

    async def _auto_post(self, msg: m.AutoPost) -> dict[str, Any]:
        info = self._seat_of(msg.user_id)
        info.auto_post = msg.on
        self._emit_seats()
        return {"auto_post": msg.on}

    async def _post_ante(self, msg: m.PostAnte) -> dict[str, Any]:
        info = self._seat_of(msg.user_id)
        info.posted = True
        info.sitting_out = False
        self._schedule_hand()
        return {"posted": True}

    async def _save_state(self) -> None:
        try:
            await self.store.save_state(
                self.id,
                members=self.members,
                bots={i.user_id for i in self.seats.values() if i.bot},
                sitting_out={i.user_id: i.sitting_out for i in self.seats.values()},
            )
        except Exception:
            log.exception("table %s: could not save its state", self.id)

    async def _chat(self, msg: m.Chat) -> dict[str, Any]:
        text = msg.text.strip()
        if not text:
            raise TableError("invalid_chat", "say something")
        if len(text) > CHAT_MAX:
            raise TableError("chat_too_long", f"chat lines are at most {CHAT_MAX} characters")
        self._emit(
            {
                "type": "chat",
                "user_id": msg.user_id,
                "name": msg.name,
                "seat": self.by_user.get(msg.user_id),
                "text": text,
            }
        )
        return {}

    # -- host commands ---------------------------------------------------------------------

    async def _host_settings(self, msg: m.HostSettings) -> dict[str, Any]:
        self._host_only(msg.user_id)
        new = self.settings.changed(msg.changes)
        if new.max_seats < max(self.seats, default=-1) + 1:
            raise TableError("invalid_settings", "a seated player sits beyond that many seats")
        if self.hand is not None:
            self.pending_settings = new
            return {"applied": False, "at_hand_end": True}
        await self._apply_settings(new)
        return {"applied": True}

    async def _apply_settings(self, new: TableSettings) -> None:
        await self.store.save_settings(self.id, new)
        self.settings = new
        self.pending_settings = None
        self._emit_table()

    async def _host_pause(self, msg: m.HostPause) -> dict[str, Any]:
        self._host_only(msg.user_id)
        self.paused = msg.paused
        self._emit_table()
        if not msg.paused:
            self._schedule_hand()
        return {"paused": self.paused}

    async def _host_remove(self, msg: m.HostRemove) -> dict[str, Any]:
        self._host_only(msg.user_id)
        info = self.seats.get(msg.seat)
        if info is None:
            raise TableError("invalid_seat", f"nobody sits in seat {msg.seat}")
        if self._in_hand(info.seat):
            info.leaving = True
            self._emit_seats()
            return {"removed": False, "at_hand_end": True}
        await self._remove(info, "removed")
        return {"removed": True}

    async def _host_bots(self, msg: m.HostBots) -> dict[str, Any]:
        self._host_only(msg.user_id)
        if self.closing or self.closed:
            raise TableError("table_closed", "this table is closing")
        free = [s for s in range(self.settings.max_seats) if s not in self.seats]
        if not 1 <= msg.count <= len(free):
            raise TableError("invalid_count", f"there are {len(free)} free seats")
        s = self.settings
        chips = min(s.max_buy_in or 20 * s.small_bet, 20 * s.small_bet)
        seated = []
        for n, seat in enumerate(free[: msg.count]):
            user_id, name = await self.store.make_bot(self.id, seat + n, chips)
            key = f"t{self.id}:bot{user_id}:{secrets.token_hex(4)}"
            await self.store.buy_in(self.id, user_id, seat, chips, key)
            self._seat(SeatInfo(seat, user_id, name, chips, secrets.token_hex(8), bot=True))
            seated.append(seat)
        await self._save_state()
        return {"seats": seated}

    async def _host_close(self, msg: m.HostClose) -> dict[str, Any]:
        self._host_only(msg.user_id)
        if self.hand is not None:
            self.closing = True
            self._emit_table()
            return {"closed": False, "at_hand_end": True}
        await self._close_now()
        return {"closed": True}

    async def _close_now(self) -> None:
        self.closing = True
        self._cancel_timer()
        for info in list(self.seats.values()):
            await self._remove(info, "table_closed")
        if await self.writer.drain(self.id, DRAIN_WAIT):
            await self.store.close(self.id)
        else:
            self.writer.submit(self.id, "close", lambda: self.store.close(self.id))
        self.closed = True
        self._emit_table()
        self._emit({"type": "closed"})

    # -- the hand --------------------------------------------------------------------------

    def _schedule_hand(self, delay: float | None = None) -> None:
        if self._start_pending or self.hand is not None or self.closed or self.closing:
            return
        self._start_pending = True
        self._start_token += 1
        token = self._start_token
        wait = self.settings.hand_pause_ms / 1000 if delay is None else delay
        self.clock.call_later(wait, lambda: self.post(m.StartHand(token)))

    async def _start_hand_msg(self, msg: m.StartHand) -> None:
        if msg.token != self._start_token:
            return
        self._start_pending = False
        await self._start_hand()

    def _dealt_in(self, info: SeatInfo) -> bool:
        return (
            not info.sitting_out
            and not info.leaving
            and info.stack > 0
            and (info.auto_post or info.posted)
        )

    async def _start_hand(self) -> None:
        if self.hand is not None or self.paused or self.closing or self.closed:
            return
        if self.pending_settings is not None:
            await self._apply_settings(self.pending_settings)
        players = [info for _, info in sorted(self.seats.items()) if self._dealt_in(info)]
        if len(players) < 2:
            return  # a sit, sit-in or post schedules the next try
        limit = self.settings.sit_out_limit
        for info in list(self.seats.values()):
            if info in players:
                info.sat_out_hands = 0
                continue
            info.sat_out_hands += 1
            if limit and info.sat_out_hands > limit and not info.bot:
                try:
                    await self._remove(info, "sat_out")
                except TableError as exc:
                    log.warning("table %s: could not remove seat %s: %s", self.id, info.seat, exc)
        seats = [info.seat for info in players]
        self.button = next((s for s in seats if s > self.button), seats[0])
        self.hand_id = secrets.token_hex(8)
        self.hand_users = {info.seat: info.user_id for info in players}
        self.start_stacks = {info.seat: info.stack for info in players}
        deck = list(self.deck_source())
        master = secrets.token_bytes(commitment.SALT_BYTES)  # in memory until the hand ends
        rules = self.settings.rules()
        hand = Hand.start(
            rules,
            [SeatSpec(info.seat, info.stack) for info in players],
            self.button,
            deck,
            commitment.reshuffle_seed(master),
        )
        self.hand = hand
        start = self._hand_start(players, commitment.commit(deck, master))
        self.recording = _Recording(start, deck, master)
        # only what is not secret is written while the hand is live
        self.writer.submit(self.id, f"hand {self.hand_id} start", self._record_start(start))
        for info in players:
            info.posted = False
        self._emit(
            {
                "type": "deal_committed",
                "hand_id": self.hand_id,
                "commitment": start.commitment,
                "scheme": commitment.SCHEME,
            }
        )
        self._engine_events(hand.events)
        await self._after_change()

    def _hand_start(self, players: Sequence[SeatInfo], digest: str) -> HandStart:
        s = self.settings
        assert self.hand_id is not None
        rules = {
            name: getattr(s, name)
            for name in (
                "ante", "bring_in", "small_bet", "big_bet", "rake_bps", "rake_cap",
                "rake_third_street", "timeout_action", "showdown_first_when_checked",
            )
        }  # fmt: skip
        return HandStart(
            hand_id=self.hand_id,
            table_id=self.id,
            table_name=s.name,
            max_seats=s.max_seats,
            variant=s.variant,
            rules=rules,
            button=self.button,
            seats=[
                {"seat": i.seat, "user_id": i.user_id, "name": i.name, "stack": i.stack}
                for i in players
            ],
            commitment=digest,
        )

    def _record_start(self, start: HandStart) -> Callable[[], Any]:
        return lambda: self.store.record_start(start)

    async def _caught_up(self) -> None:
        """Wait (briefly) until this table's hand records are in the database, so a chip
        move reads stacks that are up to date; refuse it if the database is behind."""
        if not await self.writer.drain(self.id, DRAIN_WAIT):
            raise TableError(
                "try_again", "the table is still saving its last hand; try again in a moment"
            )

    async def _after_change(self) -> None:
        hand = self.hand
        assert hand is not None
        self._cancel_timer()
        if hand.is_over:
            await self._finish_hand()
            return
        seat = hand.to_act
        assert seat is not None
        self.turn_id += 1
        turn = self.turn_id
        timer = self.settings.action_timer_ms / 1000
        self.deadline = self.clock.monotonic() + timer
        self._timer = self.clock.call_later(timer, lambda: self.post(m.TimedOut(seat, turn)))
        self._emit(
            {
                "type": "turn",
                "hand_id": self.hand_id,
                "turn_id": turn,
                "seat": seat,
                "phase": hand.phase.value,
                "timer_ms": self.settings.action_timer_ms,
                "legal": hand.legal_actions().to_dict(),
            }
        )
        info = self.seats[seat]
        if info.leaving:
            self.post(m.TimedOut(seat, turn))
        elif info.bot:
            hand_id = self.hand_id
            assert hand_id is not None
            self.clock.call_later(
                self.settings.bot_delay_ms / 1000,
                lambda: self.post(m.BotAct(seat, hand_id, turn)),
            )

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.deadline = None

    async def _act(self, msg: m.Act) -> dict[str, Any]:
        hand = self.hand
        if hand is None or msg.hand_id != self.hand_id:
            raise TableError("stale_hand", "that hand is not being played at this table")
        info = self._seat_of(msg.user_id)
        if msg.turn_id != self.turn_id:
            raise TableError("stale_turn", "that turn is over")
        if hand.to_act != info.seat:
            raise TableError("not_your_turn", "it is not your turn")
        try:
            kind = ActionKind(msg.action)
        except ValueError:
            raise TableError("illegal_action", f"unknown action {msg.action!r}") from None
        try:
            events = hand.act(info.seat, Action(kind, msg.amount))
        except IllegalAction as exc:
            raise TableError("illegal_action", str(exc)) from None
        if self.recording is not None:
            self.recording.inputs.append(["act", info.seat, kind.value, msg.amount])
        self._engine_events(events)
        await self._after_change()
        return {"accepted": True}

    async def _bot_act(self, msg: m.BotAct) -> None:
        hand = self.hand
        if hand is None or msg.hand_id != self.hand_id or msg.turn_id != self.turn_id:
            return
        info = self.seats.get(msg.seat)
        if info is None or not info.bot or hand.to_act != msg.seat:
            return
        action = bot_action(hand.legal_actions())
        await self._act(
            m.Act(info.user_id, msg.hand_id, msg.turn_id, action.kind.value, action.amount)
        )

    def _protection_left(self, user_id: int) -> bool:
        now = self.clock.time()
        used = [t for t in self.protections.get(user_id, []) if now - t < DAY]
        self.protections[user_id] = used
        return len(used) < PROTECTIONS

    async def _timed_out(self, msg: m.TimedOut) -> None:
        hand = self.hand
        if hand is None or msg.turn_id != self.turn_id or hand.to_act != msg.seat:
            return  # a stale timer: that turn is over
        info = self.seats[msg.seat]
        protect = (
            self.settings.timeout_action == "all_in"
            and hand.phase is Phase.BETTING
            and not info.leaving
            and self._protection_left(info.user_id)
        )
        events = hand.time_out(msg.seat, all_in_protection=protect)
        if self.recording is not None:
            self.recording.inputs.append(["timeout", msg.seat, protect])
        if protect and any(e.to_dict().get("outcome") == "all_in" for e in events):
            self.protections[info.user_id].append(self.clock.time())
        self._engine_events(events)
        await self._after_change()

    async def _finish_hand(self) -> None:
        hand = self.hand
        assert hand is not None and hand.result is not None and self.hand_id is not None
        result = hand.result
        deltas = {
            self.hand_users[seat]: result.stacks[seat] - self.start_stacks[seat]
            for seat in hand.seats
        }
        recording = self.recording
        assert recording is not None
        finish = HandFinish(
            start=recording.start,
            salt=recording.salt.hex(),
            deck=commitment.deck_text(recording.deck),
            events=[event.to_dict() for event in hand.events],
            inputs=recording.inputs,
            result={
                "pots": [{"amount": p.amount, "eligible": list(p.eligible)} for p in result.pots],
                "awards": [award.to_dict() for award in result.awards],
                "stacks": {str(seat): stack for seat, stack in result.stacks.items()},
                "deltas": {str(user): delta for user, delta in deltas.items()},
                "rake": result.rake,
                "showdown": result.showdown,
                "showdown_seats": sorted(hand.showdown_hands()),
                "street": result.street,
            },
            rake=result.rake,
            deltas=deltas,
        )
        # the record and its settlement commit together, off the hot path: deal on
        self.writer.submit(self.id, f"hand {self.hand_id}", self._record_hand(finish))
        # everyone may check the deal now; the cards of hands not shown stay hidden (R24)
        hidden = commitment.down_card_positions(
            recording.deck, finish.events, commitment.table_hidden_seats(finish.events)
        )
        self._emit(
            {
                "type": "deal_revealed",
                "hand_id": self.hand_id,
                "reveal": commitment.reveal(recording.deck, recording.salt, hidden),
            }
        )
        self.recording = None
        for seat, stack in result.stacks.items():
            self.seats[seat].stack = stack
        self.hand = None
        self.turn_id += 1  # every timer and action of the hand is stale now
        self.hands_played += 1
        await self._between_hands()

    def _record_hand(self, finish: HandFinish) -> Callable[[], Any]:
        return lambda: self.store.record_hand(finish)

    async def _between_hands(self) -> None:
        for info in list(self.seats.values()):
            try:
                if info.leaving:
                    await self._remove(info, "left")
                    continue
                for amount, key in info.top_ups:
                    await self._apply_top_up(info, amount, key)
            except TableError as exc:
                log.warning("table %s seat %s: %s", self.id, info.seat, exc.message)
            finally:
                info.top_ups.clear()
            if info.stack <= 0:
                info.sitting_out = True
        if self.closing:
            await self._close_now()
            return
        if self.pending_settings is not None:
            await self._apply_settings(self.pending_settings)
        for info in self.seats.values():
            if not info.auto_post and not info.sitting_out:
                self._emit({"type": "post_ante_due", "seat": info.seat})
        self._emit_seats()
        self._schedule_hand()


@dataclass(slots=True)
class _Recording:
    """The hand being played, for its record: the deck and the master salt stay in memory
    until the end."""

    start: HandStart
    deck: list[Card]
    salt: bytes
    inputs: list[list[Any]] = field(default_factory=list)


_HANDLERS: dict[type, Callable[[Table, Any], Any]] = {
    m.Join: Table._join,
    m.Unwatch: Table._unwatch,
    m.Resync: Table._resync,
    m.Sync: Table._sync,
    m.Sit: Table._sit,
    m.TopUp: Table._top_up,
    m.Leave: Table._leave,
    m.SitOut: Table._sit_out,
    m.SitIn: Table._sit_in,
    m.AutoPost: Table._auto_post,
    m.PostAnte: Table._post_ante,
    m.Chat: Table._chat,
    m.HostSettings: Table._host_settings,
    m.HostPause: Table._host_pause,
    m.HostRemove: Table._host_remove,
    m.HostBots: Table._host_bots,
    m.HostClose: Table._host_close,
    m.StartHand: Table._start_hand_msg,
    m.Act: Table._act,
    m.BotAct: Table._bot_act,
    m.TimedOut: Table._timed_out,
}
