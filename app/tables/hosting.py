"""The host's commands: settings, pause, removing a player, seating bots, muting, closing;
and an operator's: a banned player's seat (`evict`) and closing (`shut`). Rules over the
table's state; what follows is returned as effects (`effects.py`). Every host command the
table takes goes into the moderation log, behind the table's earlier writes (`logged`)."""

from __future__ import annotations

import secrets
from typing import Any

from app.engine import money
from app.tables import approval, publishing, rotation, seating, waiting
from app.tables import messages as m
from app.tables.bot_names import BOT_NAMES
from app.tables.effects import DealNext, Effects, Outcome, Said, StopClock, WriteLater
from app.tables.errors import TableError
from app.tables.lifecycle import Hold, Lifecycle
from app.tables.seating import DRAIN_WAIT
from app.tables.settings import TableSettings
from app.tables.state import Io, SeatInfo, SeatRequest, Step, TableState, host_only, in_hand
from app.wire import client as c
from app.wire.events import Closed


def logged(
    table: TableState,
    ask: m.Ask[Any],
    io: Io,
    target: int | None = None,
    **detail: Any,
) -> WriteLater:
    """The host's command, as a line of the moderation log (who, what, whom, when)."""
    action = str(ask.msg.type)
    store, table_id, host = io.store, table.id, (ask.user_id, ask.name)
    return WriteLater(
        f"moderation log: {action}",
        lambda: store.log_host(table_id, host, action, target, detail),
    )


async def host_settings(table: TableState, ask: m.Ask[c.HostSettingsMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    new = table.settings.changed(ask.msg.changes)
    if new.max_seats < max(table.seats, default=-1) + 1:
        raise TableError("invalid_settings", "a seated player sits beyond that many seats")
    if new.max_seats < max(table.waiting.held(), default=-1) + 1:
        raise TableError(
            "invalid_settings", "a seat offered from the waiting list is beyond that many seats"
        )
    log = logged(table, ask, io, changes=dict(ask.msg.changes))
    if table.hand is not None:
        table.pending_settings = new
        return Outcome({"applied": False, "at_hand_end": True}, [log])
    return Outcome({"applied": True}, [*await apply_settings(table, new, io), log])


async def apply_settings(table: TableState, new: TableSettings, io: Io) -> Effects:
    """New settings, between hands: the host's, a tournament level's, a rotation's next game
    (R45: another game or rotation starts a new step)."""
    await io.store.save_settings(table.id, new)
    if table.directed is None and new.time_bank != table.settings.time_bank:
        for info in table.seats.values():  # R42: a new bank size starts every bank afresh
            info.time_bank_ms = new.time_bank * 1000
    if rotation.changes_step(table.settings, new):
        table.step = Step()
    table.settings = new
    table.pending_settings = None
    return [publishing.table_said(table)]


async def host_pause(table: TableState, ask: m.Ask[c.HostPauseMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    table.life.held(Hold.PAUSED, ask.msg.paused)
    out: Effects = [publishing.table_said(table), logged(table, ask, io, paused=ask.msg.paused)]
    if not ask.msg.paused:
        out.append(DealNext())
    return Outcome({"paused": table.life.paused}, out)


async def admit(table: TableState, msg: m.Admit, io: Io) -> Outcome:
    """A private table's new member (invite or password checked by the caller), kept with
    the table's state so a restart remembers them."""
    if msg.user_id not in table.members:
        table.members.add(msg.user_id)
        await seating.save_state(table, io)
    return Outcome({})


async def host_remove(table: TableState, ask: m.Ask[c.HostRemoveMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    info = table.seats.get(ask.msg.seat)
    if info is None:
        raise TableError("invalid_seat", f"nobody sits in seat {ask.msg.seat}")
    log = logged(table, ask, io, info.user_id, seat=info.seat)
    out: Effects = []
    if in_hand(table, info.seat):
        info.leaving = True
        return Outcome({"removed": False, "at_hand_end": True}, [publishing.seats_said(table), log])
    await seating.remove(table, info, "removed", io, out)
    return Outcome({"removed": True}, [*out, log])


async def host_mute(table: TableState, ask: m.Ask[c.HostMuteMsg], io: Io) -> Outcome:
    """The host mutes (or lets speak again) a player at this table only: their chat here is
    refused until the host lifts it (saved with the table's state: it outlives a restart or
    a move of the table; an operator's mute is the one for every table)."""
    host_only(table, ask.user_id)
    user = ask.msg.user_id
    if user == ask.user_id:
        raise TableError("invalid_player", "you cannot mute yourself")
    known = user in table.by_user or any(w[0] == user for w in table.watchers)
    if not known and all(line.user_id != user for line in table.chat):
        raise TableError("invalid_player", "that player is not at this table")
    if ask.msg.muted:
        table.muted.add(user)
    else:
        table.muted.discard(user)
    await seating.save_state(table, io)
    return Outcome({"muted": ask.msg.muted}, [logged(table, ask, io, user, muted=ask.msg.muted)])


async def host_bots(table: TableState, ask: m.Ask[c.HostBotsMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    if table.closing or table.closed:
        raise TableError("table_closed", "this table is closing")
    free = waiting.free_seats(table)  # not a seat held for the waiting list (R44)
    if not 1 <= ask.msg.count <= len(free):
        raise TableError("invalid_count", f"there are {len(free)} free seats")
    s = table.settings
    chips = min(s.max_buy_in or 20 * s.small_bet, 20 * s.small_bet)
    seated = []
    taken = {info.name for info in table.seats.values()}
    firsts = [first for first in BOT_NAMES if f"Bot {first}" not in taken]
    out: Effects = []
    for seat, first in zip(free[: ask.msg.count], firsts, strict=False):
        user_id, name = await io.store.make_bot(table.id, first, chips)
        key = f"t{table.id}:bot{user_id}:{secrets.token_hex(4)}"
        bot = SeatInfo(seat, user_id, name, chips, secrets.token_hex(8), bot=True)
        if await seating.buy_in(table, bot, key, io, out):
            seated.append(seat)
    await seating.save_state(table, io)
    return Outcome({"seats": seated}, [*out, logged(table, ask, io, count=ask.msg.count)])


async def host_close(table: TableState, ask: m.Ask[c.HostCloseMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    outcome = await closing(table, io)
    return Outcome(outcome.answer, [*outcome.effects, logged(table, ask, io)])


async def shut(table: TableState, msg: m.Shut, io: Io) -> Outcome:
    """An operator closes the table: as its host's close (the admin route logs it)."""
    return await closing(table, io)


async def closing(table: TableState, io: Io) -> Outcome:
    """Close now between hands, else at the end of the hand being played."""
    if table.closed:
        raise TableError("table_closed", "this table is closed")
    if table.hand is not None:
        if not table.closing:
            table.life.move(Lifecycle.CLOSING)
        return Outcome({"closed": False, "at_hand_end": True}, [publishing.table_said(table)])
    return Outcome({"closed": True}, await close_now(table, io))


async def evict(table: TableState, msg: m.Evict, io: Io) -> Outcome:
    """A banned player's seat: cashed out now between hands, else at the end of the hand
    they play in (the hand plays on: their turns time out, nothing of theirs is lost). They
    lose their membership of a private table too."""
    table.members.discard(msg.user_id)
    table.muted.add(msg.user_id)
    seat = table.by_user.get(msg.user_id)
    if seat is None:
        return Outcome({"seated": False})
    info = table.seats[seat]
    if in_hand(table, seat):
        info.leaving = True
        return Outcome({"seated": True, "at_hand_end": True}, [publishing.seats_said(table)])
    out: Effects = []
    await seating.remove(table, info, "removed", io, out)
    return Outcome({"seated": True, "at_hand_end": False}, out)


async def close_now(table: TableState, io: Io) -> Effects:
    """Close between hands: every seat cashed out, the table's row closed behind its
    records, its clock stopped for good."""
    if table.life.stage is not Lifecycle.CLOSING:
        table.life.move(Lifecycle.CLOSING)
    out: Effects = [StopClock(drop=True), *approval.closing(table)]
    for info in list(table.seats.values()):
        await seating.remove(table, info, "table_closed", io, out)
    if await io.caught_up(DRAIN_WAIT):
        await io.store.close(table.id)
    else:
        store, table_id = io.store, table.id
        out.append(WriteLater("close", lambda: store.close(table_id)))
    table.life.move(Lifecycle.CLOSED)
    return [*out, publishing.table_said(table), Said(Closed())]


async def host_seat_answer(table: TableState, ask: m.Ask[c.HostSeatAnswerMsg], io: Io) -> Outcome:
    """R43: the host's yes or no to a waiting seat request. Yes posts the buy-in as the
    player's own `sit` would have (its ledger key), and seats them; a refusal the ledger
    gives (their balance fell meanwhile) ends the request, and both are told why."""
    host_only(table, ask.user_id)
    req = approval.waiting(table, ask.msg.request)
    outcome = await _seat_answer(table, ask, io, req)
    log = logged(table, ask, io, req.user_id, seat=req.seat, approve=ask.msg.approve)
    return Outcome(outcome.answer, [*outcome.effects, log])


async def _seat_answer(
    table: TableState, ask: m.Ask[c.HostSeatAnswerMsg], io: Io, req: SeatRequest
) -> Outcome:
    if not ask.msg.approve:
        return Outcome({"approved": False}, approval.gone(table, req, "declined"))
    if table.closing or table.closed:
        raise TableError("table_closed", "this table is closing")
    low, high = approval.limits_for(table, req.user_id)
    if req.amount < low or (high is not None and req.amount > high):
        limits = f"{money.chips(low)} to {money.chips(high)}" if high else f"{money.chips(low)} up"
        raise TableError(
            "buy_in_out_of_range",
            f"that buy-in ({money.chips(req.amount)}) is outside the player's limits now, "
            f"{limits}: decline it",
        )
    info = SeatInfo(req.seat, req.user_id, req.name, req.amount, secrets.token_hex(8))
    out: Effects = []
    waiting = dict(table.seat_requests)
    del table.seat_requests[req.request]  # seating it must not end it as overtaken
    try:
        seated = await seating.buy_in(table, info, req.key, io, out)
    except TableError as exc:
        table.seat_requests = waiting  # as it was: the ledger moved nothing
        if exc.code in ("try_again", "lease_lost"):
            raise  # nothing was decided: the request still waits
        out += approval.gone(table, req, exc.code)
        return Outcome({"approved": False, "reason": exc.code, "message": exc.message}, out)
    table.seat_requests[req.request] = req
    out += approval.gone(table, req, "approved")
    answer = {"seat": req.seat, "stack": req.amount}
    if seated:
        seating.remember(table, req.key, req.asked, answer)
    return Outcome({"approved": seated, **answer}, out)


async def host_limits(table: TableState, ask: m.Ask[c.HostLimitsMsg], io: Io) -> Outcome:
    """R43: one player's buy-in limits at this table (both null: the table's own again)."""
    host_only(table, ask.user_id)
    user = ask.msg.user_id
    known = user in table.members or any(r.user_id == user for r in table.seat_requests.values())
    if not known or user == table.host_user_id:
        raise TableError("no_such_player", "that player has not joined this table")
    low, high = approval.checked_limits(table, ask.msg)
    if low is None and high is None:
        table.limits.pop(user, None)
    else:
        table.limits[user] = (low, high)
    await seating.save_state(table, io)
    low_now, high_now = approval.limits_for(table, user)
    answer = {"user_id": user, "min_buy_in": low_now, "max_buy_in": high_now}
    log = logged(table, ask, io, user, min_buy_in=low, max_buy_in=high)
    return Outcome(answer, [*approval.requests_said(table), log])
