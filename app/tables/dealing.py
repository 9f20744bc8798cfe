"""Running a hand: dealing it, turns and their timers, bots, timeouts, and at its end the
settlement and the hand's record. Rules over the table's state: what they say, the timers
they want and the records to write are effects (`effects.py`) the `Table` applies. When to
deal and what follows a hand (`between`) is not decided here."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from typing import Any

from app import metrics
from app.engine import Action, ActionKind, Hand, IllegalAction, Phase, SeatSpec, commitment
from app.store.hands import HandFinish, HandStart
from app.tables import fair, publishing, rotation, seating
from app.tables import messages as m
from app.tables.bots import bot_action
from app.tables.effects import (
    Effects,
    Freeze,
    Mail,
    Outcome,
    Record,
    Said,
    StopClock,
    TurnClock,
    WriteLater,
)
from app.tables.errors import TableError
from app.tables.state import (
    Io,
    Recording,
    SeatInfo,
    ShowOffer,
    TableState,
    seat_of,
    stacks_view,
    user_in,
)
from app.wire import client as c
from app.wire.events import (
    DealRevealed,
    SeatDealRevealed,
    ShowOffered,
    TimeBank,
    Turn,
    engine_body,
)

log = logging.getLogger("app.tables")


def dealt_in(info: SeatInfo) -> bool:
    return (
        not info.sitting_out
        and not info.leaving
        and info.stack > 0
        and (info.auto_post or info.posted)
    )


def deal(table: TableState, players: Sequence[SeatInfo], number: int, io: Io) -> Effects:
    """Start hand `number` for `players` (at least two, dealt in): the button moves on (R5),
    the deal is committed to before the first card, and only what is not secret is written
    while the hand is live."""
    seats = [info.seat for info in players]
    table.button = next((s for s in seats if s > table.button), seats[0])
    hand_id = table.hand_id = secrets.token_hex(8)
    table.hand_number = number
    table.hand_count = table.hands_before + table.hands_played + 1
    table.hand_users = {info.seat: info.user_id for info in players}
    table.start_stacks = {info.seat: info.stack for info in players}
    place = rotation.dealt(table, players)  # R45: the hand's place in its game's step
    ready = fair.prepare(table, players, io.deck)  # seeded-v2 (R39); in memory until it ends
    deck = ready.deck
    rules = table.settings.rules()
    hand = Hand.start(
        rules,
        [SeatSpec(info.seat, info.stack) for info in players],
        table.button,
        deck,
        ready.reshuffle_seed,
    )
    table.hand = hand
    metrics.HANDS_DEALT.inc()
    start = hand_start(table, players, ready.commitment, place)
    table.recording = Recording(start, deck, ready.master, seeds=ready.seeds)
    for info in players:
        info.posted = False
        refill_bank(table, info)
    # only what is not secret is written while the hand is live
    out: Effects = [Record(start), Said(fair.committed(hand_id, ready))]
    out += publishing.engine_events(table, hand.events)
    return out + after_change(table, io)


def hand_start(
    table: TableState,
    players: Sequence[SeatInfo],
    digest: str,
    place: dict[str, Any] | None = None,
) -> HandStart:
    """The hand's row at its start; `place`: a rotation table's hand's place in its step
    (R45), kept in its rules (`rotation`)."""
    s = table.settings
    number = table.hand_number
    assert table.hand_id is not None and number is not None
    rules = {
        name: getattr(s, name)
        for name in (
            "ante", "bring_in", "small_bet", "big_bet", "rake_bps", "rake_cap",
            "rake_third_street", "timeout_action", "showdown_first_when_checked",
            "raise_cap", "open_pair",
        )
    }  # fmt: skip
    if place is not None:
        rules["rotation"] = place
    d = table.directed
    return HandStart(
        tournament_id=d.tournament_id if d is not None else None,
        level=d.level if d is not None else None,
        round=d.round if d is not None else None,
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


def after_change(table: TableState, io: Io) -> Effects:
    hand = table.hand
    assert hand is not None
    if hand.phase is Phase.UNCONTESTED:
        return [StopClock(), *award_uncontested(table, io)]
    if hand.is_over:
        return [StopClock(), *finish_hand(table)]
    return [StopClock(), *start_turn(table)]


SHOW_AFTER_MS = 5_000  # how long an uncalled winner may still show (R41)


def award_uncontested(table: TableState, io: Io) -> Effects:
    """R41: the last opponent folded: the pot goes to the winner at once (no "show?" prompt
    holds it, nor the next hand); they may show for `SHOW_AFTER_MS` after (`show`)."""
    hand = table.hand
    assert hand is not None and table.hand_id is not None and hand.to_act is not None
    seat = hand.to_act
    awarded = publishing.engine_events(table, hand.award_uncontested())
    if table.recording is not None:
        table.recording.inputs.append(["award", seat])
    table.show_offer = ShowOffer(
        hand, table.hand_id, seat, user_in(table, seat), io.now() + SHOW_AFTER_MS / 1000
    )
    offered = Said(ShowOffered(table.hand_id, seat, SHOW_AFTER_MS))
    return [*awarded, *finish_hand(table), offered]


async def show(table: TableState, ask: m.Ask[c.ShowMsg], io: Io) -> Outcome:
    """R41: the uncalled winner shows after the award: to everyone, and into the record."""
    offer = table.show_offer
    if offer is None or offer.hand_id != ask.msg.hand_id:
        raise TableError("show_over", "That hand can no longer be shown")
    if ask.user_id != offer.user_id:
        raise TableError("not_your_hand", "Only the player who won that hand may show it")
    if io.now() > offer.until:
        table.show_offer = None
        raise TableError("show_over", "That hand can no longer be shown")
    table.show_offer = None
    (shown,) = offer.hand.show_after_award(offer.seat)
    body, _ = engine_body(shown, offer.hand_id)
    record, store, table_id, hand_id = shown.to_dict(), io.store, table.id, offer.hand_id
    return Outcome(
        {"shown": True},
        [
            Said(body),
            WriteLater(
                f"hand {hand_id} shown", lambda: store.record_shown(table_id, hand_id, record)
            ),
        ],
    )


def start_turn(table: TableState) -> Effects:
    """The player to act gets the whole clock (R19's timer) under a new turn id."""
    hand = table.hand
    assert hand is not None
    seat, hand_id = hand.to_act, table.hand_id
    assert seat is not None and hand_id is not None
    table.turn_id += 1
    turn = table.turn_id
    table.seats[seat].bank_from = None
    alarm = m.TurnAlarm(seat, turn)
    turn_said = Said(
        Turn(
            hand_id,
            turn,
            seat,
            hand.phase.value,
            table.settings.action_timer_ms,
            hand.legal_actions().to_dict(),
        )
    )
    out: Effects = [TurnClock(table.settings.action_timer_ms / 1000, alarm), turn_said]
    info = table.seats[seat]
    if info.leaving:
        out.append(Mail(alarm))
    elif info.bot:
        out.append(Mail(m.BotAct(seat, hand_id, turn), table.settings.bot_delay_ms / 1000))
    return out


async def act(table: TableState, ask: m.Ask[c.ActMsg], io: Io) -> Outcome:
    hand = table.hand
    if hand is None or ask.msg.hand_id != table.hand_id:
        raise TableError("stale_hand", "that hand is not being played at this table")
    info = seat_of(table, ask.user_id)
    if ask.msg.turn_id != table.turn_id:
        raise TableError("stale_turn", "that turn is over")
    if hand.to_act != info.seat:
        raise TableError("not_your_turn", "it is not your turn")
    spend_bank(info, io)
    try:
        kind = ActionKind(ask.msg.action)
    except ValueError:
        raise TableError("illegal_action", f"unknown action {ask.msg.action!r}") from None
    try:
        events = hand.act(info.seat, Action(kind, ask.msg.amount))
    except IllegalAction as exc:
        raise TableError("illegal_action", str(exc)) from None
    if table.recording is not None:
        table.recording.inputs.append(["act", info.seat, kind.value, ask.msg.amount])
    info.timeouts = 0  # acted in time: R40 counts timeouts in a row
    metrics.acting()
    return Outcome(
        {"accepted": True}, publishing.engine_events(table, events) + after_change(table, io)
    )


async def bot_act(table: TableState, msg: m.BotAct, io: Io) -> Outcome:
    hand = table.hand
    if hand is None or msg.hand_id != table.hand_id or msg.turn_id != table.turn_id:
        return Outcome()
    info = table.seats.get(msg.seat)
    if info is None or not info.bot or hand.to_act != msg.seat:
        return Outcome()
    action = bot_action(hand.legal_actions())
    move = c.ActMsg(
        type="act",
        hand_id=msg.hand_id,
        turn_id=msg.turn_id,
        action=action.kind.value,
        amount=action.amount,
    )
    done = await act(table, m.Ask(info.user_id, info.name, "", move), io)
    return Outcome(None, done.effects)


async def turn_alarm(table: TableState, msg: m.TurnAlarm, io: Io) -> Outcome:
    """The action timer rang (R19): the time bank runs (R27), else the clock plays."""
    hand = table.hand
    if hand is None or msg.turn_id != table.turn_id or hand.to_act != msg.seat:
        return Outcome()  # a stale timer: that turn is over
    info = table.seats[msg.seat]
    if (banked := draw_on_bank(table, info, msg.turn_id, io)) is not None:
        return Outcome(None, banked)
    if table.directed is not None and hand.phase is Phase.BETTING:
        bring_in = hand.legal_actions().bring_in
        if bring_in is not None:  # R28: an absent player posts the bring-in, never folds it
            spend_bank(info, io)
            events = hand.act(msg.seat, Action(ActionKind.BRING_IN, bring_in))
            if table.recording is not None:
                table.recording.inputs.append(["act", msg.seat, "bring_in", bring_in])
            return Outcome(None, publishing.engine_events(table, events) + after_change(table, io))
    return await time_out(table, info, io)


async def time_out(table: TableState, info: SeatInfo, io: Io) -> Outcome:
    """The clock plays for `info` (R19), with an all-in protection if the table grants it."""
    hand = table.hand
    assert hand is not None
    protect = False
    if (
        table.settings.timeout_action == "all_in"
        and hand.phase is Phase.BETTING
        and not info.leaving
    ):
        left = await protection_left(table, info.user_id, io)
        if left is None:
            # the database could not say: fold nobody for it, nor spend what it may not
            # have counted; the clock stops and the turn starts again in full
            return Outcome(None, [Freeze("database")])
        protect = left
    spend_bank(info, io)
    events = hand.time_out(info.seat, all_in_protection=protect)
    metrics.timed_out(protect)
    if table.recording is not None:
        table.recording.inputs.append(["timeout", info.seat, protect])
    out = publishing.engine_events(table, events) + await sit_out_absent(table, info, io)
    return Outcome(None, out + after_change(table, io))


ABSENT_TIMEOUTS = 2  # timeouts in a row that sit a connected player out (R40)


async def sit_out_absent(table: TableState, info: SeatInfo, io: Io) -> Effects:
    """R40: a player who timed out while away (no socket open), or twice in a row, is sat
    out from the next hand; the hand being played goes on as R19 says, and the seat frees
    after `sit_out_limit` hands as any sat-out seat's. Tournaments keep their absent
    players dealt in (R28); a leaver goes anyway."""
    if table.directed is not None or info.bot or info.leaving:
        return []
    info.timeouts += 1
    if info.sitting_out or (not info.away and info.timeouts < ABSENT_TIMEOUTS):
        return []
    info.sitting_out = True
    await seating.save_state(table, io)
    return [publishing.seats_said(table)]


def draw_on_bank(table: TableState, info: SeatInfo, turn_id: int, io: Io) -> Effects | None:
    """A player out of the action clock plays on from their time bank, if any is left (once
    a turn): a tournament player's (R27) always, a cash table's (R42) only while chips
    beyond the ante and the bring-in are at stake. Its effects if it started running, else
    None (the clock plays: R19)."""
    hand = table.hand
    if info.bank_from is not None or info.time_bank_ms <= 0:
        return None
    if hand is None or hand.phase is not Phase.BETTING:
        return None
    if table.directed is None and (table.settings.time_bank == 0 or not hand.beyond_forced()):
        return None
    info.bank_from = io.now()
    return [
        TurnClock(info.time_bank_ms / 1000, m.TurnAlarm(info.seat, turn_id)),
        Said(TimeBank(info.seat, turn_id, info.time_bank_ms)),
    ]


def refill_bank(table: TableState, info: SeatInfo) -> None:
    """R42: a cash table's time bank grows by `time_bank_refill` seconds every
    `time_bank_every` hands the player is dealt in, never above `time_bank_cap` (a
    tournament's refills by level: R27)."""
    s = table.settings
    if table.directed is not None or s.time_bank == 0:
        return
    info.bank_hands += 1
    if s.time_bank_every and info.bank_hands % s.time_bank_every == 0:
        cap = max(s.time_bank_cap, s.time_bank) * 1000
        info.time_bank_ms = min(cap, info.time_bank_ms + s.time_bank_refill * 1000)


def spend_bank(info: SeatInfo, io: Io) -> None:
    """What of the time bank the turn used is gone (R27)."""
    if info.bank_from is not None:
        used = round((io.now() - info.bank_from) * 1000)
        info.time_bank_ms = max(0, info.time_bank_ms - used)
        info.bank_from = None


async def protection_left(table: TableState, user_id: int, io: Io) -> bool | None:
    """R19: claim one of the player's all-in protections (per player, in the database, so
    every table and a restart count the same ones). None if the database cannot say."""
    assert table.hand_id is not None
    try:
        return await io.store.claim_protection(table.id, user_id, table.hand_id, io.wall())
    except Exception as exc:
        log.warning("table %s: could not claim an all-in protection (%s)", table.id, exc)
        return None


def finish_hand(table: TableState) -> Effects:
    hand = table.hand
    assert hand is not None and hand.result is not None and table.hand_id is not None
    result = hand.result
    deltas = {
        table.hand_users[seat]: result.stacks[seat] - table.start_stacks[seat]
        for seat in hand.seats
    }
    recording = table.recording
    assert recording is not None
    after = stacks_view(table)
    for seat, stack in result.stacks.items():
        after[str(seat)][1] = stack
    if table.directed is not None:  # a tournament's bust leaves its seat with the hand
        after = {seat: held for seat, held in after.items() if held[1] > 0}
    finish = HandFinish.from_hand(
        recording.start,
        hand,
        deck=recording.deck,
        salt=recording.salt,
        inputs=recording.inputs,
        deltas=deltas,
        table_stacks=after,
        deal=recording.seeds.record() if recording.seeds is not None else None,
    )
    # the record and its settlement commit together, off the hot path: deal on
    out: Effects = [Record(finish), *reveal_deal(table, recording, finish.events)]
    table.recording = None
    for seat, stack in result.stacks.items():
        table.seats[seat].stack = stack
    table.hand = None  # the `Table` sees the hand over and runs what follows it
    table.turn_id += 1  # every timer and action of the hand is stale now
    table.hands_played += 1
    return out


def reveal_deal(table: TableState, recording: Recording, events: list[dict[str, Any]]) -> Effects:
    """Open the deal's commitment to each audience, as far as it has seen the cards: the
    table (its watchers too) gets the up cards and the hands shown; each player dealt in also
    gets their own down cards (R24: no burn, no stub, no unshown hand; docs/fairness.md)."""
    seeded = fair.reveal(table, recording, events)
    if seeded is not None:
        return seeded
    shown = commitment.shown_seats(events)
    deck = recording.deck
    opening = commitment.Opening(deck, recording.salt)
    dealt = commitment.Dealt(deck, events)
    public = dealt.seen_by(shown)
    hand_id = recording.start.hand_id
    out: Effects = [Said(DealRevealed(hand_id, opening.reveal(public)))]
    for seat in table.hand_users:
        if seat not in shown:  # a shown hand is open in the table's reveal already
            own = dealt.seen_by(shown | {seat})
            revealed = SeatDealRevealed(hand_id, opening.reveal(own), seat=seat)
            out.append(Said(revealed, user_in(table, seat)))
    return out
