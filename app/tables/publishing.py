"""What a table's watchers see: the events' wire text, the engine's events as the table tells
them, the snapshot and the catch-up of a reconnecting client (`Resync`), joining, watching
and chat. The `Table` numbers and publishes what is said here (`Table.say`, `Table._number`):
each event gets the table's next version `v` and its text starts with ``{"v":<n>,``; a public
event goes on `channels.table(id)`, a seat-private one (a face-down card) on the private
channel of the *user* the table holds in that seat, with the bare ``{"v":<n>}`` on the table
channel in its place (docs/design.md: why the user and not the seat).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from app.engine import CardDealt, Event, observer_view, view_for
from app.engine.events import HandStarted
from app.engine.views import POT_EVENTS, pots_now
from app.jsontext import from_json
from app.tables import messages as m
from app.tables.errors import TableError
from app.tables.state import TableState
from app.wire import client as c
from app.wire.envelope import placeholder
from app.wire.events import (
    Chat,
    DownCards,
    Observers,
    Seats,
    Snapshot,
    TableChanged,
    engine_body,
)
from app.wire.limits import CHAT_MAX

HISTORY = 512  # events kept for reconnecting clients (~3 hands; ~0.15 MB a table)
SYNC_WAIT = 30.0


def engine_events(table: TableState, events: Sequence[Event]) -> None:
    dealt_down = False
    pots: list[dict[str, Any]] | None = None
    hand_id = table.hand_id
    for event in events:
        if isinstance(event, HandStarted):
            body, audience = engine_body(event, hand_id, number=str(table.hand_number))
        elif event.type in POT_EVENTS and table.hand is not None:
            # no wager comes between two such events of one step: the pots after it hold
            pots = pots if pots is not None else pots_now(table.hand)
            body, audience = engine_body(event, hand_id, pots=pots)
        else:
            body, audience = engine_body(event, hand_id)
        table.say(body, audience)
        if isinstance(event, CardDealt) and not event.face_up:
            dealt_down = True
    if dealt_down and table.hand is not None and hand_id is not None:
        counts = {str(p.seat): len(p.down) for p in table.hand.players if not p.folded}
        table.say(DownCards(hand_id, counts))


def say_seats(table: TableState) -> None:
    table.say(Seats(table.seat_list()))


def say_table(table: TableState) -> None:
    table.say(TableChanged(table.info()))


def note_observers(table: TableState) -> None:
    count = table.observer_count()
    if count != table.observers:
        table.observers = count
        table.say(Observers(count))


def hand_log(table: TableState, user_id: int | None) -> tuple[list[dict[str, Any]], bool]:
    """The latest hand's events from the ring, as `user_id` may see them: the public ones and
    their own face-down cards (never another seat's; an observer gets none). The flag is
    False when the hand's start has already left the ring (only its later events are kept)."""
    ring = table.ring
    start = None
    for i in range(len(ring) - 1, -1, -1):
        if ring[i].type == "hand_started" and ring[i].user is None:
            start = i
            break
    if start is None and table.hand is None:
        return [], True
    # a hand whose start left the ring began before everything the ring holds
    events = [
        from_json(kept.text)
        for kept in itertools.islice(ring, start or 0, None)
        if kept.user is None or (user_id is not None and kept.user == user_id)
    ]
    return events, start is not None


def snapshot(table: TableState, user_id: int | None) -> dict[str, Any]:
    seat = table.by_user.get(user_id) if user_id is not None else None
    hand_view: dict[str, Any] | None = None
    hand = table.hand
    if hand is not None:
        hand_view = view_for(hand, seat) if seat in hand.by_seat else observer_view(hand)
        hand_view["hand_id"] = table.hand_id
        hand_view["number"] = str(table.hand_number)
        hand_view["turn_id"] = table.turn_id
        hand_view["remaining_ms"] = (
            None
            if table.turn_alarm.at is None
            else max(0, round((table.turn_alarm.at - table.clock.monotonic()) * 1000))
        )
        if hand.to_act is not None and hand_view["legal"] is None:
            hand_view["turn_legal"] = hand.legal_actions().to_dict()
        if table.recording is not None:
            hand_view["commitment"] = table.recording.start.commitment
            if table.recording.seeds is not None:  # this hand's deal_committed (R39)
                hand_view["deal"] = table.recording.seeds.committed()
    you = table.seats[seat].public() if seat is not None else None
    log, log_complete = hand_log(table, user_id)
    return Snapshot(
        v=table.version,
        epoch=table.epoch,
        table=table.info(),
        seats=table.seat_list(),
        hand=hand_view,
        you={"user_id": user_id, "seat": seat, "info": you},
        voided=table.voided,
        observers=table.observer_count(),
        log=log,
        log_complete=log_complete,
        next_deal=table.fair.next.public(),
    ).body()


async def join(table: TableState, msg: m.Join) -> dict[str, Any]:
    watcher = (msg.user_id, msg.via)
    table.viewers[watcher] = table.viewers.get(watcher, 0) + 1
    return {
        "seat": table.by_user.get(msg.user_id),
        "host": msg.user_id == table.host_user_id,
        "epoch": table.epoch,
    }


async def unwatch(table: TableState, msg: m.Unwatch) -> None:
    watcher = (msg.user_id, msg.via)
    left = table.viewers.get(watcher, 0) - 1
    if left > 0:
        table.viewers[watcher] = left
    else:
        table.viewers.pop(watcher, None)


async def viewers_gone(table: TableState, msg: m.ViewersGone) -> None:
    gone = set(msg.via)
    for watcher in [w for w in table.viewers if w[1] in gone]:
        del table.viewers[watcher]


async def resync(table: TableState, msg: m.Resync) -> dict[str, Any]:
    """Only what the table surely published (the table answers no read while anything it said
    waits: `Table._gate`), so a client is never told what no other watcher will be."""
    last = msg.last_v
    assert table.published == table.version, "a read answered with events unpublished"
    first_kept = table.ring[0][0] if table.ring else table.version + 1
    if (
        msg.epoch == table.epoch
        and last is not None
        and 0 <= last <= table.version
        and last + 1 >= first_kept
    ):
        user = msg.user_id
        texts = [
            kept.text if kept.user is None or kept.user == user else placeholder(kept.v)
            for kept in table.ring
            if kept.v > last
        ]
        return {"v": table.version, "epoch": table.epoch, "events": texts, "snapshot": None}
    snap = snapshot(table, msg.user_id)
    return {"v": table.version, "epoch": table.epoch, "events": [], "snapshot": snap}


async def wake(table: TableState, msg: m.Wake) -> None:
    """Deal if a hand may start; what waits is published before and after every message
    anyway, and a frozen table that reaches its players again resumes (`Table._gate`)."""
    table.want_hand()


async def sync(table: TableState, msg: m.Sync) -> int:
    """A barrier: every message before it is handled and the table's records written."""
    await table.caught_up(SYNC_WAIT)
    return table.version


async def chat(table: TableState, ask: m.Ask[c.ChatMsg]) -> dict[str, Any]:
    text = ask.msg.text.strip()
    if not text:
        raise TableError("invalid_chat", "say something")
    if len(text) > CHAT_MAX:
        raise TableError("chat_too_long", f"chat lines are at most {CHAT_MAX} characters")
    table.say(Chat(ask.user_id, ask.name, table.by_user.get(ask.user_id), text))
    return {}
