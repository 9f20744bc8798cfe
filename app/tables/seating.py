"""Seating and chips: buy-in, top-up, leave, sitting out and in, removal. Chips move
through the table's `TableStore` (the ledger), after the table's hand records are written.
Rules over the table's state: what follows (events, a write, the next hand) is returned as
effects (`effects.py`); helpers add theirs to the list `out` they are handed."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from app.engine import money
from app.tables import approval, publishing, waiting
from app.tables import messages as m
from app.tables.effects import DealNext, Effects, Mail, Outcome, Said, WriteLater
from app.tables.errors import TableError
from app.tables.state import Io, SeatInfo, TableState, in_hand, seat_of, stacks_view
from app.wire import client as c
from app.wire.events import Left, LeftReason

log = logging.getLogger("app.tables")

DRAIN_WAIT = 1.0  # seconds a chip move waits for the table's hand records to be written


ANSWERS_KEPT = 1024  # request ids a table remembers (older repeats still move no chip)


def ledger_key(table: TableState, user_id: int, request_id: str) -> str:
    """The ledger's idempotency key of a player's chip request at this table."""
    return f"t{table.id}:u{user_id}:{request_id}"


def answered(table: TableState, key: str, content: tuple[Any, ...]) -> dict[str, Any] | None:
    """The first answer to a repeated request, or None for a new one. A request id is bound
    to what it asked: the same id asking something else is refused."""
    seen = table.answered.get(key)
    if seen is None:
        return None
    if seen[0] != content:
        raise TableError(
            "request_id_reused", "that request id was used for another request; send a new one"
        )
    return seen[1]


def remember(table: TableState, key: str, content: tuple[Any, ...], answer: dict[str, Any]) -> None:
    table.answered[key] = (content, answer)
    if len(table.answered) > ANSWERS_KEPT:
        del table.answered[next(iter(table.answered))]


async def sit(table: TableState, ask: m.Ask[c.SitMsg], io: Io) -> Outcome:
    key = ledger_key(table, ask.user_id, ask.msg.request_id)
    content = ("sit", ask.msg.seat, ask.msg.amount)
    earlier = answered(table, key, content)
    if earlier is not None:
        return Outcome(earlier)
    s = table.settings
    if table.closing or table.closed:
        raise TableError("table_closed", "this table is closing")
    if ask.user_id in table.by_user:
        raise TableError("already_seated", "you are already seated at this table")
    if not 0 <= ask.msg.seat < s.max_seats:
        raise TableError("invalid_seat", f"seats are numbered 0 to {s.max_seats - 1}")
    if ask.msg.seat in table.seats:
        raise TableError("seat_taken", f"seat {ask.msg.seat} is taken")
    waiting.check_sit(table, ask.user_id, ask.msg.seat)  # R44: a seat held for an offer
    low, high = approval.limits_for(table, ask.user_id)
    whose = " (the host's limit for you)" if approval.set_by_host(table, ask.user_id) else ""
    if ask.msg.amount < low:
        raise TableError(
            "buy_in_too_small",
            f"the minimum buy-in here is {money.chips(low)}{whose or ' (ten small bets)'}",
        )
    if high is not None and ask.msg.amount > high:
        raise TableError(
            "buy_in_too_large", f"the maximum buy-in here is {money.chips(high)}{whose}"
        )
    if approval.needs_approval(table, ask.user_id):  # R43: nothing moves before the host's yes
        await affordable(io, ask.user_id, ask.msg.amount, queued=False)
        pending = approval.wait_for_host(table, ask, key, content)
        remember(table, key, content, pending.answer)
        return pending
    info = SeatInfo(ask.msg.seat, ask.user_id, ask.name, ask.msg.amount, secrets.token_hex(8))
    info.time_bank_ms = s.time_bank * 1000  # R42: a cash table's bank, full at the start
    out: Effects = []
    if await buy_in(table, info, key, io, out):
        out += waiting.seated(table, ask.user_id, io)  # R44: the offer taken
    answer = {"seat": ask.msg.seat, "stack": ask.msg.amount}
    remember(table, key, content, answer)
    return Outcome(answer, out)


async def buy_in(table: TableState, info: SeatInfo, key: str, io: Io, out: Effects) -> bool:
    """Post the buy-in and seat `info` (a player or a bot). False, and nobody is seated, if
    the ledger had posted `key` before (a repeat the table no longer remembers)."""
    await caught_up(io)
    stacks = stacks_view(table)
    stacks[str(info.seat)] = [info.user_id, info.stack]
    if not await io.store.buy_in(table.id, info.user_id, info.seat, info.stack, key, stacks):
        return False
    table.seats[info.seat] = info
    table.by_user[info.user_id] = info.seat
    table.members.add(info.user_id)
    out += [publishing.seats_said(table), DealNext()]
    out += approval.overtaken(table, info.seat, info.user_id)  # R43: requests it overtook
    return True


async def top_up(table: TableState, ask: m.Ask[c.TopUpMsg], io: Io) -> Outcome:
    key = ledger_key(table, ask.user_id, ask.msg.request_id)
    content = ("top_up", ask.msg.amount)
    earlier = answered(table, key, content)
    if earlier is not None:
        return Outcome(earlier)
    info = seat_of(table, ask.user_id)
    if ask.msg.amount <= 0:
        raise TableError("invalid_amount", "a top-up is a positive number of chips")
    _, cap = approval.limits_for(table, ask.user_id)  # the table's, or the host's for them
    pending = sum(a for a, _ in info.top_ups)
    if cap is not None and info.stack + pending + ask.msg.amount > cap:
        raise TableError("buy_in_too_large", f"a stack may hold at most {money.chips(cap)} here")
    out: Effects = []
    if in_hand(table, info.seat):
        # refused now, as it would be between hands: at the hand's end it could only be dropped
        await affordable(io, ask.user_id, pending + ask.msg.amount, queued=bool(info.top_ups))
        info.top_ups.append((ask.msg.amount, key))
        answer = {"queued": True, "stack": info.stack}
    else:
        await apply_top_up(table, info, ask.msg.amount, key, io)
        out.append(publishing.seats_said(table))
        answer = {"queued": False, "stack": info.stack}
    remember(table, key, content, answer)
    return Outcome(answer, out)


async def affordable(io: Io, user_id: int, needed: int, *, queued: bool) -> None:
    """Refuse a top-up the player's balance cannot pay (with those already `queued`) in the
    ledger's words. The balance may still fall before the hand ends (a buy-in at another
    table): the ledger has the last word then."""
    balance = await io.store.balance(user_id)
    if needed > balance:
        also = " with the top-ups already queued" if queued else ""
        raise TableError(
            "insufficient_funds",
            f"not enough chips: your balance holds {money.chips(balance)}, "
            f"{money.chips(needed)} needed{also}",
        )


async def apply_top_up(table: TableState, info: SeatInfo, amount: int, key: str, io: Io) -> None:
    await caught_up(io)
    stacks = stacks_view(table)
    stacks[str(info.seat)][1] += amount
    if await io.store.top_up(table.id, info.user_id, amount, key, stacks):
        info.stack += amount


async def leave(table: TableState, ask: m.Ask[c.LeaveMsg], io: Io) -> Outcome:
    info = seat_of(table, ask.user_id)
    out: Effects = []
    if in_hand(table, info.seat):
        info.leaving = True
        out.append(publishing.seats_said(table))
        out += leaver_turn(table, info)
        return Outcome({"left": False, "at_hand_end": True}, out)
    amount = await remove(table, info, "left", io, out)
    return Outcome({"left": True, "amount": amount}, out)


def leaver_turn(table: TableState, info: SeatInfo) -> Effects:
    """A leaver whose turn it is plays by the clock at once."""
    hand = table.hand
    if hand is not None and hand.to_act == info.seat:
        return [Mail(m.TurnAlarm(info.seat, table.turn_id))]
    return []


async def remove(
    table: TableState, info: SeatInfo, reason: LeftReason, io: Io, out: Effects
) -> int:
    """Free the seat and return its stack to the player's balance (between hands). If the
    table's hand records are not written yet (a slow database) the cash-out is queued
    behind them and the stack the table holds is what goes back."""
    key = f"leave:{table.id}:{info.key}"
    stacks = stacks_view(table)
    del stacks[str(info.seat)]
    if await io.caught_up(DRAIN_WAIT):
        amount = await io.store.cash_out(table.id, info.user_id, key, stacks)
    else:
        amount = info.stack
        user_id, store, table_id = info.user_id, io.store, table.id
        out.append(
            WriteLater(f"cash-out {key}", lambda: store.cash_out(table_id, user_id, key, stacks))
        )
    del table.seats[info.seat]
    del table.by_user[info.user_id]
    out += [Said(Left(info.seat, info.user_id, amount, reason)), publishing.seats_said(table)]
    out += waiting.offer_seats(table, io)  # R44: the first in line is offered the seat
    return amount


async def sit_out(table: TableState, ask: m.Ask[c.SitOutMsg], io: Io) -> Outcome:
    info = seat_of(table, ask.user_id)
    info.sitting_out = True
    said = publishing.seats_said(table)
    await save_state(table, io)
    return Outcome({"sitting_out": True}, [said])


async def sit_in(table: TableState, ask: m.Ask[c.SitInMsg], io: Io) -> Outcome:
    info = seat_of(table, ask.user_id)
    if info.stack <= 0 and not info.top_ups:
        raise TableError("no_chips", "top up before sitting back in")
    info.sitting_out = False
    info.sat_out_hands = 0
    info.timeouts = 0  # "I'm back" (R40)
    said = publishing.seats_said(table)
    await save_state(table, io)
    return Outcome({"sitting_out": False}, [said, DealNext()])


async def auto_post(table: TableState, ask: m.Ask[c.AutoPostMsg], io: Io) -> Outcome:
    info = seat_of(table, ask.user_id)
    info.auto_post = ask.msg.on
    return Outcome({"auto_post": ask.msg.on}, [publishing.seats_said(table)])


async def post_ante(table: TableState, ask: m.Ask[c.PostAnteMsg], io: Io) -> Outcome:
    info = seat_of(table, ask.user_id)
    info.posted = True
    info.sitting_out = False
    return Outcome({"posted": True}, [DealNext()])


async def save_state(table: TableState, io: Io) -> None:
    try:
        await io.store.save_state(
            table.id,
            members=table.members,
            bots={i.user_id for i in table.seats.values() if i.bot},
            sitting_out={i.user_id: i.sitting_out for i in table.seats.values()},
            limits=table.limits,
            muted=table.muted,
        )
    except Exception:
        log.exception("table %s: could not save its state", table.id)


async def caught_up(io: Io) -> None:
    """Wait (briefly) until this table's hand records are in the database, so a chip
    move reads stacks that are up to date; refuse it if the database is behind."""
    if not await io.caught_up(DRAIN_WAIT):
        raise TableError(
            "try_again", "the table is still saving its last hand; try again in a moment"
        )
