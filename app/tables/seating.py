"""Seating and chips: buy-in, top-up, leave, sitting out and in, removal. Chips move
through the table's `TableStore` (the ledger), after the table's hand records are written."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from app.engine import money
from app.tables import messages as m
from app.tables import publishing
from app.tables.errors import TableError
from app.tables.state import SeatInfo, TableState, stacks_view
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


async def sit(table: TableState, ask: m.Ask[c.SitMsg]) -> dict[str, Any]:
    key = ledger_key(table, ask.user_id, ask.msg.request_id)
    content = ("sit", ask.msg.seat, ask.msg.amount)
    earlier = answered(table, key, content)
    if earlier is not None:
        return earlier
    s = table.settings
    if table.closing or table.closed:
        raise TableError("table_closed", "this table is closing")
    if ask.user_id in table.by_user:
        raise TableError("already_seated", "you are already seated at this table")
    if not 0 <= ask.msg.seat < s.max_seats:
        raise TableError("invalid_seat", f"seats are numbered 0 to {s.max_seats - 1}")
    if ask.msg.seat in table.seats:
        raise TableError("seat_taken", f"seat {ask.msg.seat} is taken")
    if ask.msg.amount < s.min_buy_in:
        raise TableError(
            "buy_in_too_small",
            f"the minimum buy-in here is {money.chips(s.min_buy_in)} (ten small bets)",
        )
    if s.max_buy_in is not None and ask.msg.amount > s.max_buy_in:
        raise TableError(
            "buy_in_too_large", f"the maximum buy-in here is {money.chips(s.max_buy_in)}"
        )
    info = SeatInfo(ask.msg.seat, ask.user_id, ask.name, ask.msg.amount, secrets.token_hex(8))
    await buy_in(table, info, key)
    answer = {"seat": ask.msg.seat, "stack": ask.msg.amount}
    remember(table, key, content, answer)
    return answer


async def buy_in(table: TableState, info: SeatInfo, key: str) -> bool:
    """Post the buy-in and seat `info` (a player or a bot). False, and nobody is seated, if
    the ledger had posted `key` before (a repeat the table no longer remembers)."""
    await caught_up(table)
    stacks = stacks_view(table)
    stacks[str(info.seat)] = [info.user_id, info.stack]
    if not await table.store.buy_in(table.id, info.user_id, info.seat, info.stack, key, stacks):
        return False
    seat(table, info)
    return True


def seat(table: TableState, info: SeatInfo) -> None:
    table.seats[info.seat] = info
    table.by_user[info.user_id] = info.seat
    table.members.add(info.user_id)
    publishing.say_seats(table)
    table.want_hand()


async def top_up(table: TableState, ask: m.Ask[c.TopUpMsg]) -> dict[str, Any]:
    key = ledger_key(table, ask.user_id, ask.msg.request_id)
    content = ("top_up", ask.msg.amount)
    earlier = answered(table, key, content)
    if earlier is not None:
        return earlier
    info = table.seat_of(ask.user_id)
    if ask.msg.amount <= 0:
        raise TableError("invalid_amount", "a top-up is a positive number of chips")
    cap = table.settings.max_buy_in
    pending = sum(a for a, _ in info.top_ups)
    if cap is not None and info.stack + pending + ask.msg.amount > cap:
        raise TableError("buy_in_too_large", f"a stack may hold at most {money.chips(cap)} here")
    if table.in_hand(info.seat):
        # refused now, as it would be between hands: at the hand's end it could only be dropped
        await affordable(table, ask.user_id, pending + ask.msg.amount, queued=bool(info.top_ups))
        info.top_ups.append((ask.msg.amount, key))
        answer = {"queued": True, "stack": info.stack}
    else:
        await apply_top_up(table, info, ask.msg.amount, key)
        publishing.say_seats(table)
        answer = {"queued": False, "stack": info.stack}
    remember(table, key, content, answer)
    return answer


async def affordable(table: TableState, user_id: int, needed: int, *, queued: bool) -> None:
    """Refuse a top-up the player's balance cannot pay (with those already `queued`) in the
    ledger's words. The balance may still fall before the hand ends (a buy-in at another
    table): the ledger has the last word then."""
    balance = await table.store.balance(user_id)
    if needed > balance:
        also = " with the top-ups already queued" if queued else ""
        raise TableError(
            "insufficient_funds",
            f"not enough chips: your balance holds {money.chips(balance)}, "
            f"{money.chips(needed)} needed{also}",
        )


async def apply_top_up(table: TableState, info: SeatInfo, amount: int, key: str) -> None:
    await caught_up(table)
    stacks = stacks_view(table)
    stacks[str(info.seat)][1] += amount
    if await table.store.top_up(table.id, info.user_id, amount, key, stacks):
        info.stack += amount


async def leave(table: TableState, ask: m.Ask[c.LeaveMsg]) -> dict[str, Any]:
    info = table.seat_of(ask.user_id)
    if table.in_hand(info.seat):
        info.leaving = True
        publishing.say_seats(table)
        check_leaver_turn(table, info)
        return {"left": False, "at_hand_end": True}
    amount = await remove(table, info, "left")
    return {"left": True, "amount": amount}


def check_leaver_turn(table: TableState, info: SeatInfo) -> None:
    hand = table.hand
    if hand is not None and hand.to_act == info.seat:
        table.post(m.TimedOut(info.seat, table.turn_id))


async def remove(table: TableState, info: SeatInfo, reason: LeftReason) -> int:
    """Free the seat and return its stack to the player's balance (between hands). If the
    table's hand records are not written yet (a slow database) the cash-out is queued
    behind them and the stack the table holds is what goes back."""
    key = f"leave:{table.id}:{info.key}"
    stacks = stacks_view(table)
    del stacks[str(info.seat)]
    if await table.caught_up(DRAIN_WAIT):
        amount = await table.store.cash_out(table.id, info.user_id, key, stacks)
    else:
        amount = info.stack
        user_id = info.user_id
        table.write_later(
            f"cash-out {key}", lambda: table.store.cash_out(table.id, user_id, key, stacks)
        )
    del table.seats[info.seat]
    del table.by_user[info.user_id]
    table.say(Left(info.seat, info.user_id, amount, reason))
    publishing.say_seats(table)
    return amount


async def sit_out(table: TableState, ask: m.Ask[c.SitOutMsg]) -> dict[str, Any]:
    info = table.seat_of(ask.user_id)
    info.sitting_out = True
    publishing.say_seats(table)
    await save_state(table)
    return {"sitting_out": True}


async def sit_in(table: TableState, ask: m.Ask[c.SitInMsg]) -> dict[str, Any]:
    info = table.seat_of(ask.user_id)
    if info.stack <= 0 and not info.top_ups:
        raise TableError("no_chips", "top up before sitting back in")
    info.sitting_out = False
    info.sat_out_hands = 0
    publishing.say_seats(table)
    await save_state(table)
    table.want_hand()
    return {"sitting_out": False}


async def auto_post(table: TableState, ask: m.Ask[c.AutoPostMsg]) -> dict[str, Any]:
    info = table.seat_of(ask.user_id)
    info.auto_post = ask.msg.on
    publishing.say_seats(table)
    return {"auto_post": ask.msg.on}


async def post_ante(table: TableState, ask: m.Ask[c.PostAnteMsg]) -> dict[str, Any]:
    info = table.seat_of(ask.user_id)
    info.posted = True
    info.sitting_out = False
    table.want_hand()
    return {"posted": True}


async def save_state(table: TableState) -> None:
    try:
        await table.store.save_state(
            table.id,
            members=table.members,
            bots={i.user_id for i in table.seats.values() if i.bot},
            sitting_out={i.user_id: i.sitting_out for i in table.seats.values()},
        )
    except Exception:
        log.exception("table %s: could not save its state", table.id)


async def caught_up(table: TableState) -> None:
    """Wait (briefly) until this table's hand records are in the database, so a chip
    move reads stacks that are up to date; refuse it if the database is behind."""
    if not await table.caught_up(DRAIN_WAIT):
        raise TableError(
            "try_again", "the table is still saving its last hand; try again in a moment"
        )
