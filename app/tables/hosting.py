"""The host's commands: settings, pause, removing a player, seating bots, closing. Rules over
the table's state; what follows is returned as effects (`effects.py`)."""

from __future__ import annotations

import secrets

from app.tables import messages as m
from app.tables import publishing, seating
from app.tables.bot_names import BOT_NAMES
from app.tables.effects import DealNext, Effects, Outcome, Said, StopClock, WriteLater
from app.tables.errors import TableError
from app.tables.lifecycle import Hold, Lifecycle
from app.tables.seating import DRAIN_WAIT
from app.tables.settings import TableSettings
from app.tables.state import Io, SeatInfo, TableState, host_only, in_hand
from app.wire import client as c
from app.wire.events import Closed


async def host_settings(table: TableState, ask: m.Ask[c.HostSettingsMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    new = table.settings.changed(ask.msg.changes)
    if new.max_seats < max(table.seats, default=-1) + 1:
        raise TableError("invalid_settings", "a seated player sits beyond that many seats")
    if table.hand is not None:
        table.pending_settings = new
        return Outcome({"applied": False, "at_hand_end": True})
    return Outcome({"applied": True}, await apply_settings(table, new, io))


async def apply_settings(table: TableState, new: TableSettings, io: Io) -> Effects:
    await io.store.save_settings(table.id, new)
    if table.directed is None and new.time_bank != table.settings.time_bank:
        for info in table.seats.values():  # R42: a new bank size starts every bank afresh
            info.time_bank_ms = new.time_bank * 1000
    table.settings = new
    table.pending_settings = None
    return [publishing.table_said(table)]


async def host_pause(table: TableState, ask: m.Ask[c.HostPauseMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    table.life.held(Hold.PAUSED, ask.msg.paused)
    out: Effects = [publishing.table_said(table)]
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
    if in_hand(table, info.seat):
        info.leaving = True
        return Outcome({"removed": False, "at_hand_end": True}, [publishing.seats_said(table)])
    out: Effects = []
    await seating.remove(table, info, "removed", io, out)
    return Outcome({"removed": True}, out)


async def host_bots(table: TableState, ask: m.Ask[c.HostBotsMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    if table.closing or table.closed:
        raise TableError("table_closed", "this table is closing")
    free = [s for s in range(table.settings.max_seats) if s not in table.seats]
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
    return Outcome({"seats": seated}, out)


async def host_close(table: TableState, ask: m.Ask[c.HostCloseMsg], io: Io) -> Outcome:
    host_only(table, ask.user_id)
    if table.hand is not None:
        table.life.move(Lifecycle.CLOSING)
        return Outcome({"closed": False, "at_hand_end": True}, [publishing.table_said(table)])
    return Outcome({"closed": True}, await close_now(table, io))


async def close_now(table: TableState, io: Io) -> Effects:
    """Close between hands: every seat cashed out, the table's row closed behind its
    records, its clock stopped for good."""
    if table.life.stage is not Lifecycle.CLOSING:
        table.life.move(Lifecycle.CLOSING)
    out: Effects = [StopClock(drop=True)]
    for info in list(table.seats.values()):
        await seating.remove(table, info, "table_closed", io, out)
    if await io.caught_up(DRAIN_WAIT):
        await io.store.close(table.id)
    else:
        store, table_id = io.store, table.id
        out.append(WriteLater("close", lambda: store.close(table_id)))
    table.life.move(Lifecycle.CLOSED)
    return [*out, publishing.table_said(table), Said(Closed())]
