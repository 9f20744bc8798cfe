"""The host's commands: settings, pause, removing a player, seating bots, closing."""

from __future__ import annotations

import secrets
from typing import Any

from app.tables import messages as m
from app.tables import publishing, seating
from app.tables.bot_names import BOT_NAMES
from app.tables.errors import TableError
from app.tables.seating import DRAIN_WAIT
from app.tables.settings import TableSettings
from app.tables.state import Lifecycle, SeatInfo, TableState
from app.wire import client as c
from app.wire.events import Closed


async def host_settings(table: TableState, ask: m.Ask[c.HostSettingsMsg]) -> dict[str, Any]:
    table.host_only(ask.user_id)
    new = table.settings.changed(ask.msg.changes)
    if new.max_seats < max(table.seats, default=-1) + 1:
        raise TableError("invalid_settings", "a seated player sits beyond that many seats")
    if table.hand is not None:
        table.pending_settings = new
        return {"applied": False, "at_hand_end": True}
    await apply_settings(table, new)
    return {"applied": True}


async def apply_settings(table: TableState, new: TableSettings) -> None:
    await table.store.save_settings(table.id, new)
    table.settings = new
    table.pending_settings = None
    publishing.say_table(table)


async def host_pause(table: TableState, ask: m.Ask[c.HostPauseMsg]) -> dict[str, Any]:
    table.host_only(ask.user_id)
    table.paused = ask.msg.paused
    publishing.say_table(table)
    if not ask.msg.paused:
        table.want_hand()
    return {"paused": table.paused}


async def admit(table: TableState, msg: m.Admit) -> dict[str, Any]:
    """A private table's new member (invite or password checked by the caller), kept with
    the table's state so a restart remembers them."""
    if msg.user_id not in table.members:
        table.members.add(msg.user_id)
        await seating.save_state(table)
    return {}


async def host_remove(table: TableState, ask: m.Ask[c.HostRemoveMsg]) -> dict[str, Any]:
    table.host_only(ask.user_id)
    info = table.seats.get(ask.msg.seat)
    if info is None:
        raise TableError("invalid_seat", f"nobody sits in seat {ask.msg.seat}")
    if table.in_hand(info.seat):
        info.leaving = True
        publishing.say_seats(table)
        return {"removed": False, "at_hand_end": True}
    await seating.remove(table, info, "removed")
    return {"removed": True}


async def host_bots(table: TableState, ask: m.Ask[c.HostBotsMsg]) -> dict[str, Any]:
    table.host_only(ask.user_id)
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
    for seat, first in zip(free[: ask.msg.count], firsts, strict=False):
        user_id, name = await table.store.make_bot(table.id, first, chips)
        key = f"t{table.id}:bot{user_id}:{secrets.token_hex(4)}"
        bot = SeatInfo(seat, user_id, name, chips, secrets.token_hex(8), bot=True)
        if await seating.buy_in(table, bot, key):
            seated.append(seat)
    await seating.save_state(table)
    return {"seats": seated}


async def host_close(table: TableState, ask: m.Ask[c.HostCloseMsg]) -> dict[str, Any]:
    table.host_only(ask.user_id)
    if table.hand is not None:
        table.become(Lifecycle.CLOSING)
        publishing.say_table(table)
        return {"closed": False, "at_hand_end": True}
    await close_now(table)
    return {"closed": True}


async def close_now(table: TableState) -> None:
    if table.lifecycle is not Lifecycle.CLOSING:
        table.become(Lifecycle.CLOSING)
    table.turn_alarm.cancel()
    for info in list(table.seats.values()):
        await seating.remove(table, info, "table_closed")
    if await table.caught_up(DRAIN_WAIT):
        await table.store.close(table.id)
    else:
        table.write_later("close", lambda: table.store.close(table.id))
    table.become(Lifecycle.CLOSED)
    publishing.say_table(table)
    table.say(Closed())
