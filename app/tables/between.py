"""Between two hands: what a hand's end brings (leavers freed, top-ups posted, the busted
out, settings changed, a closing table closed) and what the start of the next one clears
first (seats sat out too long). Rules over the table's state, returning their effects
(`effects.py`); when the next hand is dealt is the `Table`'s to decide (`DealNext`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from app.tables import directed, hosting, publishing, rotation, seating
from app.tables.effects import DealNext, Effects, Said
from app.tables.errors import TableError
from app.tables.lifecycle import Lifecycle
from app.tables.state import Io, SeatInfo, TableState
from app.wire.events import PostAnteDue

log = logging.getLogger("app.tables")


async def hand_ended(table: TableState, io: Io) -> Effects:
    """The hand is over (IN_HAND, or CLOSING): what follows it, back to OPEN (or CLOSED)."""
    if table.directed is not None and table.life.stage is Lifecycle.IN_HAND:
        return await _directed(table, io)
    out: Effects = []
    for info in list(table.seats.values()):
        try:
            if info.leaving:
                await seating.remove(table, info, "left", io, out)
                continue
            for amount, key in info.top_ups:
                await seating.apply_top_up(table, info, amount, key, io)
        except TableError as exc:
            log.warning("table %s seat %s: %s", table.id, info.seat, exc.message)
        finally:
            info.top_ups.clear()
        if info.stack <= 0:
            info.sitting_out = True
    if table.life.stage is Lifecycle.CLOSING:
        return out + await hosting.close_now(table, io)
    table.life.move(Lifecycle.OPEN)
    next_game = rotation.hand_over(table)  # R45: a step's last hand moves the game on
    if next_game is not None:
        out += await hosting.apply_settings(table, next_game, io)
    if table.pending_settings is not None:
        out += await hosting.apply_settings(table, table.pending_settings, io)
    elif rotation.rotates(table) and next_game is None:
        out.append(publishing.table_said(table))  # the step's count moved on
    for info in table.seats.values():
        if not info.auto_post and not info.sitting_out:
            out.append(Said(PostAnteDue(info.seat)))
    return [*out, publishing.seats_said(table), DealNext()]


async def _directed(table: TableState, io: Io) -> Effects:
    """A tournament table: new stakes, chips behind, the busted out; it reports once the
    hand is written and deals on the director's word."""
    out: Effects = []
    if table.pending_settings is not None:
        out += await hosting.apply_settings(table, table.pending_settings, io)
    out += await directed.apply_behind(table, io)
    out += directed.hand_over(table, io)
    table.life.move(Lifecycle.OPEN)
    return out


async def free_sat_out(table: TableState, players: Sequence[SeatInfo], io: Io) -> Effects:
    """A hand is dealt to `players`: whoever else has sat out more hands than the table
    allows leaves their seat (bots never)."""
    limit = table.settings.sit_out_limit
    out: Effects = []
    for info in list(table.seats.values()):
        if info in players:
            info.sat_out_hands = 0
            continue
        info.sat_out_hands += 1
        if limit and info.sat_out_hands > limit and not info.bot:
            try:
                await seating.remove(table, info, "sat_out", io, out)
            except TableError as exc:
                log.warning("table %s: could not remove seat %s: %s", table.id, info.seat, exc)
    return out
