"""What a table's watchers see, shaped from its state: the engine's events as the table tells
them, the seat list, the table's description, the watcher count, the snapshot and the
catch-up of a reconnecting client. Pure functions: they return what is said (`effects.Said`)
or the object to answer; the `Table` numbers and publishes every event (`Table._number`):
each gets the table's next version `v` and its text starts with ``{"v":<n>,``; a public
event goes on `channels.table(id)`, a seat-private one (a face-down card) on the private
channel of the *user* the table holds in that seat, with the bare ``{"v":<n>}`` on the table
channel in its place (docs/design.md: why the user and not the seat).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from app.engine import CardDealt, Event, observer_view, view_for
from app.engine.events import HandStarted
from app.engine.views import POT_EVENTS, pots_now
from app.jsontext import from_json
from app.tables import approval, rotation, waiting
from app.tables.effects import Said
from app.tables.lifecycle import Lifecycle
from app.tables.state import Kept, TableState, kept_v, unkept, user_in
from app.wire.envelope import placeholder
from app.wire.events import (
    DownCards,
    Observers,
    Seats,
    Snapshot,
    Started,
    TableChanged,
    engine_body,
)

HISTORY = 512  # at most, events kept for reconnecting clients (the ring keeps two hands)


def engine_events(table: TableState, events: Sequence[Event]) -> list[Said]:
    """The engine's events of one step as the table tells them (a face-down card to its
    player alone), and after a deal down the count of each live player's down cards."""
    out: list[Said] = []
    dealt_down = False
    pots: list[dict[str, Any]] | None = None
    hand_id = table.hand_id
    for event in events:
        if isinstance(event, HandStarted):
            number = str(table.hand_number)
            body, audience = engine_body(event, hand_id, number, started=started(table))
        elif event.type in POT_EVENTS and table.hand is not None:
            # no wager comes between two such events of one step: the pots after it hold
            pots = pots if pots is not None else pots_now(table.hand)
            body, audience = engine_body(event, hand_id, pots=pots)
        else:
            body, audience = engine_body(event, hand_id)
        out.append(Said(body, None if audience is None else user_in(table, audience)))
        if isinstance(event, CardDealt) and not event.face_up:
            dealt_down = True
    if dealt_down and table.hand is not None and hand_id is not None:
        counts = {str(p.seat): len(p.down) for p in table.hand.players if not p.folded}
        out.append(Said(DownCards(hand_id, counts)))
    return out


def started(table: TableState) -> Started:
    """The hand's count at this table and its players' names, as its start says them."""
    assert table.hand_count is not None and table.recording is not None
    names = {str(seat["seat"]): seat["name"] for seat in table.recording.start.seats}
    return Started(table.hand_count, names)


def seats_said(table: TableState) -> Said:
    return Said(Seats(seat_list(table)))


def table_said(table: TableState) -> Said:
    return Said(TableChanged(info(table)))


def watchers_said(table: TableState) -> list[Said]:
    """The count of watchers not seated, if it changed since it was last said."""
    count = unseated_watchers(table)
    if count == table.watchers_told:
        return []
    table.watchers_told = count
    return [Said(Observers(count))]


def unseated_watchers(table: TableState) -> int:
    """Connected users who are not seated here (the wire calls them observers)."""
    return len({user for user, _ in table.watchers if user not in table.by_user})


def seat_list(table: TableState) -> list[dict[str, Any]]:
    stacks = table.hand.stacks if table.hand is not None else {}
    return [info.public(stacks.get(s)) for s, info in sorted(table.seats.items())]


def info(table: TableState) -> dict[str, Any]:
    return {
        "id": table.id,
        **table.settings.to_dict(),
        "host_user_id": table.host_user_id,
        "paused": table.life.paused,
        "closing": table.closing,
        "closed": table.closed,
        "hands_played": table.hands_played,
        "saving": table.life.stage is Lifecycle.SAVING,  # waits for earlier hands' records
        "tournament": tournament_info(table),
        "rotation_step": rotation.view(table),  # R45: the game now, its step, the next
    }


def tournament_info(table: TableState) -> dict[str, Any] | None:
    """The tournament part of the table's description (snapshot and `table` events)."""
    d = table.directed
    if d is None:
        return None
    s = table.pending_settings or table.settings
    return {
        "tournament_id": d.tournament_id,
        "level": d.level,
        "stakes": {
            "ante": s.ante,
            "bring_in": s.bring_in,
            "small_bet": s.small_bet,
            "big_bet": s.big_bet,
            "variant": s.variant.value,
        },
        "waiting": not d.go and table.hand is None,
        "round": d.round,
    }


def summary(table: TableState) -> dict[str, Any]:
    """A lobby line."""
    s = table.settings
    return {
        "id": table.id,
        "name": s.name,
        "variant": s.variant,
        "small_bet": s.small_bet,
        "big_bet": s.big_bet,
        "ante": s.ante,
        "bring_in": s.bring_in,
        "min_buy_in": s.min_buy_in,
        "max_buy_in": s.max_buy_in,
        "max_seats": s.max_seats,
        "seats_taken": len(table.seats),
        "waiting": len(table.waiting.line),  # the waiting list (R44), as on PokerStars
        "observers": unseated_watchers(table),
        "rotation": s.rotation,
        "private": s.private,
        "paused": table.life.paused,
    }


def hand_log(
    table: TableState, ring: Sequence[Kept], user_id: int | None, dealt: int
) -> tuple[list[dict[str, Any]], bool]:
    """The latest hand's events from the ring (the latest hand was dealt at version `dealt`),
    as `user_id` may see them: the public ones and their own face-down cards (never another
    seat's; a watcher not seated gets none). The flag is False when the hand's start has
    already left the ring (only its later events are kept)."""
    # the ring's numbers run on without a gap: the hand's start is found by its number
    at = dealt - kept_v(ring[0]) if ring and dealt else -1
    start = at if 0 <= at < len(ring) else None
    if start is None and table.hand is None:
        return [], True
    # a hand whose start left the ring began before everything the ring holds
    events = []
    for entry in itertools.islice(ring, start or 0, None):
        text, user = unkept(entry)
        if user is None or (user_id is not None and user == user_id):
            events.append(from_json(text))
    return events, start is not None


def snapshot(
    table: TableState,
    user_id: int | None,
    *,
    v: int,
    epoch: str,
    ring: Sequence[Kept],
    dealt: int,
    remaining_ms: int | None,
    now: float = 0.0,
) -> dict[str, Any]:
    """The whole table as `user_id` may see it at version `v` (the turn's time left,
    `remaining_ms`, is the actor's clock's)."""
    seat = table.by_user.get(user_id) if user_id is not None else None
    hand_view: dict[str, Any] | None = None
    hand = table.hand
    if hand is not None:
        hand_view = view_for(hand, seat) if seat in hand.by_seat else observer_view(hand)
        hand_view["hand_id"] = table.hand_id
        hand_view["number"] = str(table.hand_number)
        if table.recording is not None:  # (a hand is recorded from its deal on)
            said = started(table)
            hand_view["count"], hand_view["names"] = said.count, said.names
        hand_view["turn_id"] = table.turn_id
        hand_view["remaining_ms"] = remaining_ms
        if hand.to_act is not None and hand_view["legal"] is None:
            hand_view["turn_legal"] = hand.legal_actions().to_dict()
        if table.recording is not None:
            hand_view["commitment"] = table.recording.start.commitment
            if table.recording.seeds is not None:  # this hand's deal_committed (R39)
                hand_view["deal"] = table.recording.seeds.committed()
    you = table.seats[seat].public() if seat is not None else None
    line = waiting.yours(table, user_id, now) if user_id is not None else {}
    log, log_complete = hand_log(table, ring, user_id, dealt)
    return Snapshot(
        v=v,
        epoch=epoch,
        table=info(table),
        seats=seat_list(table),
        hand=hand_view,
        you={"user_id": user_id, "seat": seat, "info": you, **line},
        voided=table.voided,
        observers=unseated_watchers(table),
        log=log,
        log_complete=log_complete,
        next_deal=table.fair.next.public(),
        seat_requests=approval.listed(table, user_id) if user_id is not None else [],
        waiting=waiting.public(table),
    ).body()


def missed(ring: Iterable[Kept], last: int, user: int) -> list[str]:
    """What a client missed after version `last`, as `user` may see it."""
    out: list[str] = []
    for entry in ring:
        v = kept_v(entry)
        if v > last:
            text, seen_by = unkept(entry)
            out.append(text if seen_by is None or seen_by == user else placeholder(v))
    return out
