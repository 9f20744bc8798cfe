"""Running a hand: starting it, turns and their timers, bots, timeouts, and at its end the
settlement and the hand's record (written off the hot path by the table's `HandWriter`)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine import Action, ActionKind, Hand, IllegalAction, Phase, SeatSpec, commitment
from app.engine.cards import Card
from app.store.hands import HandFinish, HandStart
from app.tables import hosting, publishing, seating
from app.tables import messages as m
from app.tables.bots import bot_action
from app.tables.errors import TableError
from app.tables.seating import SeatInfo

if TYPE_CHECKING:
    from app.tables.table import Table

log = logging.getLogger("app.tables")

# finished hands a table may have unwritten before it deals again: what a crash can undo
MAX_UNWRITTEN = 2


def schedule_hand(table: Table, delay: float | None = None) -> None:
    if table.start_pending or table.hand is not None or table.closed or table.closing:
        return
    table.start_pending = True
    table.start_token += 1
    token = table.start_token
    wait = table.settings.hand_pause_ms / 1000 if delay is None else delay
    table.clock.call_later(wait, lambda: table.post(m.StartHand(token)))


async def numbers_reserved(table: Table, msg: m.NumbersReserved) -> None:
    if table.numbers.add(msg.block):  # a hand waited for a number: its pause is over
        table.start_token += 1  # a start already scheduled is void: this one deals now
        table.start_pending = False
        await start_hand(table)


async def start_hand_msg(table: Table, msg: m.StartHand) -> None:
    if msg.token != table.start_token:
        return
    table.start_pending = False
    await start_hand(table)


def dealt_in(table: Table, info: SeatInfo) -> bool:
    return (
        not info.sitting_out
        and not info.leaving
        and info.stack > 0
        and (info.auto_post or info.posted)
    )


async def start_hand(table: Table) -> None:
    if table.hand is not None or table.paused or table.closing or table.closed:
        return
    if table.pending_settings is not None:
        await hosting.apply_settings(table, table.pending_settings)
    players = [info for _, info in sorted(table.seats.items()) if dealt_in(table, info)]
    if len(players) < 2 or all(info.bot for info in players):
        return  # bots alone do not play on; a sit, sit-in or post schedules the next try
    if table.unwritten > MAX_UNWRITTEN:
        table.held_for_writer = True  # `hand_written` deals on once the writer catches up
        publishing.emit_table(table)
        return
    number = table.numbers.take()
    if number is None:
        log.warning("table %s: no hand number in reserve; the hand waits for one", table.id)
        return  # `numbers_reserved` schedules it
    limit = table.settings.sit_out_limit
    for info in list(table.seats.values()):
        if info in players:
            info.sat_out_hands = 0
            continue
        info.sat_out_hands += 1
        if limit and info.sat_out_hands > limit and not info.bot:
            try:
                await seating.remove(table, info, "sat_out")
            except TableError as exc:
                log.warning("table %s: could not remove seat %s: %s", table.id, info.seat, exc)
    seats = [info.seat for info in players]
    table.button = next((s for s in seats if s > table.button), seats[0])
    table.hand_id = secrets.token_hex(8)
    table.hand_number = number
    table.hand_users = {info.seat: info.user_id for info in players}
    table.start_stacks = {info.seat: info.stack for info in players}
    deck = list(table.deck_source())
    master = secrets.token_bytes(commitment.SALT_BYTES)  # in memory until the hand ends
    rules = table.settings.rules()
    hand = Hand.start(
        rules,
        [SeatSpec(info.seat, info.stack) for info in players],
        table.button,
        deck,
        commitment.reshuffle_seed(master),
    )
    table.hand = hand
    start = hand_start(table, players, commitment.commit(deck, master))
    table.recording = Recording(start, deck, master)
    # only what is not secret is written while the hand is live
    table.writer.submit(table.id, f"hand #{number} start", record_start(table, start), item=start)
    for info in players:
        info.posted = False
    publishing.emit(
        table,
        {
            "type": "deal_committed",
            "hand_id": table.hand_id,
            "commitment": start.commitment,
            "scheme": commitment.SCHEME,
        },
    )
    publishing.engine_events(table, hand.events)
    await after_change(table)


def hand_start(table: Table, players: Sequence[SeatInfo], digest: str) -> HandStart:
    s = table.settings
    number = table.hand_number
    assert table.hand_id is not None and number is not None
    rules = {
        name: getattr(s, name)
        for name in (
            "ante", "bring_in", "small_bet", "big_bet", "rake_bps", "rake_cap",
            "rake_third_street", "timeout_action", "showdown_first_when_checked",
        )
    }  # fmt: skip
    return HandStart(
        hand_id=table.hand_id,
        number=number,
        table_id=table.id,
        table_name=s.name,
        max_seats=s.max_seats,
        variant=s.variant,
        rules=rules,
        button=table.button,
        seats=[
            {"seat": i.seat, "user_id": i.user_id, "name": i.name, "stack": i.stack}
            for i in players
        ],
        commitment=digest,
    )


def record_start(table: Table, start: HandStart) -> Callable[[], Any]:
    return lambda: table.store.record_start(start)


async def after_change(table: Table) -> None:
    hand = table.hand
    assert hand is not None
    table.turn_alarm.clear()
    if hand.is_over:
        await finish_hand(table)
        return
    seat = hand.to_act
    assert seat is not None
    table.turn_id += 1
    turn = table.turn_id
    table.turn_alarm.set(
        table.settings.action_timer_ms / 1000, lambda: table.post(m.TimedOut(seat, turn))
    )
    publishing.emit(
        table,
        {
            "type": "turn",
            "hand_id": table.hand_id,
            "turn_id": turn,
            "seat": seat,
            "phase": hand.phase.value,
            "timer_ms": table.settings.action_timer_ms,
            "legal": hand.legal_actions().to_dict(),
        },
    )
    info = table.seats[seat]
    if info.leaving:
        table.post(m.TimedOut(seat, turn))
    elif info.bot:
        hand_id = table.hand_id
        assert hand_id is not None
        table.clock.call_later(
            table.settings.bot_delay_ms / 1000,
            lambda: table.post(m.BotAct(seat, hand_id, turn)),
        )


async def act(table: Table, msg: m.Act) -> dict[str, Any]:
    hand = table.hand
    if hand is None or msg.hand_id != table.hand_id:
        raise TableError("stale_hand", "that hand is not being played at this table")
    info = table.seat_of(msg.user_id)
    if msg.turn_id != table.turn_id:
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
    if table.recording is not None:
        table.recording.inputs.append(["act", info.seat, kind.value, msg.amount])
    publishing.engine_events(table, events)
    await after_change(table)
    return {"accepted": True}


async def bot_act(table: Table, msg: m.BotAct) -> None:
    hand = table.hand
    if hand is None or msg.hand_id != table.hand_id or msg.turn_id != table.turn_id:
        return
    info = table.seats.get(msg.seat)
    if info is None or not info.bot or hand.to_act != msg.seat:
        return
    action = bot_action(hand.legal_actions())
    await act(
        table, m.Act(info.user_id, msg.hand_id, msg.turn_id, action.kind.value, action.amount)
    )


async def timed_out(table: Table, msg: m.TimedOut) -> None:
    hand = table.hand
    if hand is None or msg.turn_id != table.turn_id or hand.to_act != msg.seat:
        return  # a stale timer: that turn is over
    info = table.seats[msg.seat]
    protect = (
        table.settings.timeout_action == "all_in"
        and hand.phase is Phase.BETTING
        and not info.leaving
        and await protection_left(table, info.user_id)
    )
    events = hand.time_out(msg.seat, all_in_protection=protect)
    if table.recording is not None:
        table.recording.inputs.append(["timeout", msg.seat, protect])
    publishing.engine_events(table, events)
    await after_change(table)


async def protection_left(table: Table, user_id: int) -> bool:
    """R19: claim one of the player's all-in protections (per player, in the database, so
    every table and a restart count the same ones). If the database cannot say, none."""
    assert table.hand_id is not None
    try:
        return await table.store.claim_protection(user_id, table.hand_id, table.clock.time())
    except Exception:
        log.exception("table %s: could not claim an all-in protection", table.id)
        return False


async def finish_hand(table: Table) -> None:
    hand = table.hand
    assert hand is not None and hand.result is not None and table.hand_id is not None
    result = hand.result
    deltas = {
        table.hand_users[seat]: result.stacks[seat] - table.start_stacks[seat]
        for seat in hand.seats
    }
    recording = table.recording
    assert recording is not None
    after = seating.table_stacks(table)
    for seat, stack in result.stacks.items():
        after[str(seat)][1] = stack
    finish = HandFinish.from_hand(
        recording.start,
        hand,
        deck=recording.deck,
        salt=recording.salt,
        inputs=recording.inputs,
        deltas=deltas,
        table_stacks=after,
    )
    # the record and its settlement commit together, off the hot path: deal on
    written = table.writer.submit(
        table.id, f"hand #{table.hand_number}", record_hand(table, finish), item=finish
    )
    table.unwritten += 1
    written.add_done_callback(lambda _: table.post(m.HandWritten()))
    reveal_deal(table, recording, finish.events)
    table.recording = None
    for seat, stack in result.stacks.items():
        table.seats[seat].stack = stack
    table.hand = None
    table.turn_id += 1  # every timer and action of the hand is stale now
    table.hands_played += 1
    await between_hands(table)


def reveal_deal(table: Table, recording: Recording, events: list[dict[str, Any]]) -> None:
    """Open the deal's commitment to each audience, as far as it has seen the cards: the
    table (observers too) gets the up cards and the hands shown; each player dealt in also
    gets their own down cards (R24: no burn, no stub, no unshown hand; docs/fairness.md)."""
    shown = commitment.shown_seats(events)
    deck = recording.deck
    opening = commitment.Opening(deck, recording.salt)
    public = commitment.seen_positions(deck, events, shown)
    body = {"type": "deal_revealed", "hand_id": table.hand_id}
    publishing.emit(table, {**body, "reveal": opening.reveal(public)})
    for seat in table.hand_users:
        if seat not in shown:  # a shown hand is open in the table's reveal already
            own = commitment.seen_positions(deck, events, shown | {seat})
            publishing.emit(table, {**body, "reveal": opening.reveal(own)}, seat)


async def hand_written(table: Table, msg: m.HandWritten) -> None:
    table.unwritten -= 1
    if table.held_for_writer and table.unwritten <= MAX_UNWRITTEN:
        table.held_for_writer = False
        publishing.emit_table(table)
        schedule_hand(table, 0)


def record_hand(table: Table, finish: HandFinish) -> Callable[[], Any]:
    return lambda: table.store.record_hand(finish)


async def between_hands(table: Table) -> None:
    for info in list(table.seats.values()):
        try:
            if info.leaving:
                await seating.remove(table, info, "left")
                continue
            for amount, key in info.top_ups:
                await seating.apply_top_up(table, info, amount, key)
        except TableError as exc:
            log.warning("table %s seat %s: %s", table.id, info.seat, exc.message)
        finally:
            info.top_ups.clear()
        if info.stack <= 0:
            info.sitting_out = True
    if table.closing:
        await hosting.close_now(table)
        return
    if table.pending_settings is not None:
        await hosting.apply_settings(table, table.pending_settings)
    for info in table.seats.values():
        if not info.auto_post and not info.sitting_out:
            publishing.emit(table, {"type": "post_ante_due", "seat": info.seat})
    publishing.emit_seats(table)
    schedule_hand(table)


@dataclass(slots=True)
class Recording:
    """The hand being played, for its record: the deck and the master salt stay in memory
    until the end."""

    start: HandStart
    deck: list[Card]
    salt: bytes
    inputs: list[list[Any]] = field(default_factory=list)
