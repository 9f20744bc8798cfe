"""A full public table's waiting list (docs/rules.md R44), as PokerStars keeps one: players
join it from the lobby or the table; when a seat frees, the first in line who has no offer
is offered it for `OFFER_SECONDS`, to them alone (`seat_offered`), and the seat is held for
them: anyone else's `sit` there is refused (`seat_offered`). They take it with the ordinary
`sit` (the buy-in as ever); not taken in time (`OfferRunsOut`, a timer on the table's clock)
or declined (`wait_leave`), the offer ends, that player leaves the list, and the seat goes to
the next in line.

The list is the table's state, kept with the table's row (`poker_tables.extra`, written
behind the table's other writes at each change), so a table rebuilt elsewhere (a restart, a
move, a failover) has its list back; an offer running then is made again, in full, to the
same first in line (`offer_seats` when the table starts). Rules over the table's state,
returning their effects.
"""

from __future__ import annotations

from typing import Any

from app.tables import messages as m
from app.tables.effects import Effects, Mail, Outcome, Said, WriteLater
from app.tables.errors import TableError
from app.tables.state import Io, Offer, TableState
from app.wire import client as c
from app.wire.events import SeatOffered, SeatOfferEnded, WaitingListChanged

OFFER_SECONDS = 30.0
MAX_LINE = 50  # players one table's list holds


def keeps_list(table: TableState) -> bool:
    """A public cash table has a waiting list; a private one (its host's guests) and a
    tournament's (its director seats it) have none."""
    return not table.settings.private and table.directed is None


def free_seats(table: TableState) -> list[int]:
    """The seats anyone may take: not taken, and not held for an offer."""
    held = table.waiting.held()
    return [s for s in range(table.settings.max_seats) if s not in table.seats and s not in held]


def public(table: TableState) -> dict[str, Any]:
    w = table.waiting
    return {
        "line": [{"user_id": user, "name": name} for user, name in w.line],
        "offered": sorted(w.held()),
    }


def yours(table: TableState, user_id: int, now: float) -> dict[str, Any]:
    """What a snapshot tells this user of the list: their place, and their offer if any."""
    offer = table.waiting.offers.get(user_id)
    return {
        "waiting": table.waiting.position(user_id),
        "offer": None
        if offer is None
        else {"seat": offer.seat, "ms": max(0, round((offer.at - now) * 1000))},
    }


def changed(table: TableState, io: Io) -> Effects:
    """The list changed: said to all, and kept with the table's row (behind its writes)."""
    w = table.waiting
    line = [[user, name] for user, name in w.line]
    store, table_id = io.store, table.id
    return [
        Said(WaitingListChanged(**public(table))),
        WriteLater(f"waiting list of table {table_id}", lambda: store.save_waiting(table_id, line)),
    ]


async def join(table: TableState, ask: m.Ask[c.WaitJoinMsg], io: Io) -> Outcome:
    w = table.waiting
    if not keeps_list(table):
        raise TableError("no_waiting_list", "this table has no waiting list")
    if table.closing or table.closed:
        raise TableError("table_closed", "this table is closing")
    if ask.user_id in table.by_user:
        raise TableError("already_seated", "you are already seated at this table")
    place = w.position(ask.user_id)
    if place is not None:
        raise TableError(
            "already_waiting", f"you are already number {place} on this table's waiting list"
        )
    if free_seats(table):
        raise TableError("seat_free", "a seat is free at this table: sit down instead")
    if len(w.line) >= MAX_LINE:
        raise TableError("waiting_list_full", f"this table's waiting list is full ({MAX_LINE})")
    w.line.append((ask.user_id, ask.name))
    return Outcome({"waiting": len(w.line), "count": len(w.line)}, changed(table, io))


async def leave(table: TableState, ask: m.Ask[c.WaitLeaveMsg], io: Io) -> Outcome:
    w = table.waiting
    if w.position(ask.user_id) is None:
        raise TableError("not_waiting", "you are not on this table's waiting list")
    offer = drop(table, ask.user_id)
    out: Effects = []
    if offer is not None:
        out.append(Said(SeatOfferEnded(offer.seat, "declined"), ask.user_id))
    out += offer_seats(table, io) or changed(table, io)
    return Outcome({"waiting": False, "declined": offer.seat if offer else None}, out)


async def runs_out(table: TableState, msg: m.OfferRunsOut, io: Io) -> Outcome:
    """The offer was not taken in time: the player leaves the list, the seat goes on."""
    offer = table.waiting.offers.get(msg.user_id)
    if offer is None or offer.token != msg.token:
        return Outcome()  # taken, declined, or made again since: a stale timer
    drop(table, msg.user_id)
    out: Effects = [Said(SeatOfferEnded(offer.seat, "expired"), msg.user_id)]
    return Outcome(None, out + (offer_seats(table, io) or changed(table, io)))


def drop(table: TableState, user_id: int) -> Offer | None:
    """Take the user off the list; their offer, if they had one (its seat is free again)."""
    w = table.waiting
    w.line = [(user, name) for user, name in w.line if user != user_id]
    return w.offers.pop(user_id, None)


def offer_seats(table: TableState, io: Io) -> Effects:
    """Offer each free seat to the first in line without an offer, each to them alone, for
    `OFFER_SECONDS`; nothing if nobody waits or no seat is free."""
    w = table.waiting
    if not w.line or not keeps_list(table) or table.closing or table.closed:
        return []
    free = free_seats(table)
    out: Effects = []
    for user, _ in w.line:
        if not free:
            break
        if user in w.offers or user in table.by_user:
            continue
        out += _offer(table, user, free.pop(0), io)
    return out + changed(table, io) if out else []


def _offer(table: TableState, user: int, seat: int, io: Io) -> Effects:
    w = table.waiting
    w.tokens += 1
    w.offers[user] = Offer(seat, w.tokens, io.now() + OFFER_SECONDS)
    return [
        Said(SeatOffered(seat, round(OFFER_SECONDS * 1000)), user),
        Mail(m.OfferRunsOut(user, w.tokens), OFFER_SECONDS),
    ]


def renew(table: TableState, io: Io) -> Effects:
    """The table's clocks stopped (it could not reach its players) and run again: each offer
    is made again in full, as a turn gets its whole clock (its timer was dropped)."""
    out: Effects = []
    for user, offer in list(table.waiting.offers.items()):
        out += _offer(table, user, offer.seat, io)
    return out


def check_sit(table: TableState, user_id: int, seat: int) -> None:
    """A `sit` in a seat held for another player's offer is refused (the race for a freed
    seat: the one offered it wins)."""
    for user, offer in table.waiting.offers.items():
        if offer.seat == seat and user != user_id:
            raise TableError(
                "seat_offered",
                f"seat {seat} is offered to the first player on the waiting list",
            )


def seated(table: TableState, user_id: int, io: Io) -> Effects:
    """The user sat down: off the list; a seat held for them elsewhere goes on."""
    if table.waiting.position(user_id) is None:
        return []
    drop(table, user_id)
    return offer_seats(table, io) or changed(table, io)
