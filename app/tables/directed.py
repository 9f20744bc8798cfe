"""A tournament table: an ordinary table whose seats, stakes and deals its tournament's
director decides (app/tournaments). It deals a hand only when the director says so, one
hand each time: after every hand it reports (its stacks and busts, once the hand is
written) and waits for the director's orders: who leaves for another table, who sits down,
the level's stakes, and whether to deal. Its chips are tournament chips: they move through
the tournament's entries, never through a player's balance (R26-R33, docs/rules.md).

Players cannot sit, top up, leave or sit out here (`REFUSED`): an absent player is dealt in
and plays by the clock (R28), their time bank first (R27).

Rules over the table's state: the report, the events and what follows are returned as
effects (`effects.py`); helpers add theirs to the list `out` they are handed.
"""

from __future__ import annotations

import json
import logging
from typing import Any, NoReturn

from app.tables import messages as m
from app.tables import publishing
from app.tables.effects import DealNext, Effects, Mail, Outcome, Said, StopClock, Told
from app.tables.errors import TableError
from app.tables.lifecycle import Lifecycle
from app.tables.seating import DRAIN_WAIT
from app.tables.state import Io, SeatInfo, TableState, in_hand, stacks_view
from app.tables.store import EntryChips
from app.wire import client as c
from app.wire import process
from app.wire.events import Left, PlayerFinished, PlayerMoved, TournamentInfo

log = logging.getLogger("app.tables")

# seconds chips behind wait for the hand's records when it ends (a chip move asked for
# between hands waits `DRAIN_WAIT` and may be asked again; these were promised already)
BEHIND_WAIT = 30.0
REPORT_AGAIN = 2.0  # seconds a report waits for the director's orders before it goes again

# what a player may not do at a tournament table: the director seats, the clock plays
REFUSED: frozenset[type] = frozenset(
    {
        c.SitMsg, c.TopUpMsg, c.LeaveMsg, c.SitOutMsg, c.AutoPostMsg, c.HostSettingsMsg,
        c.HostPauseMsg, c.HostRemoveMsg, c.HostBotsMsg, c.HostCloseMsg, m.Evict, m.Shut,
    }
)  # fmt: skip


def refuse(kind: type) -> NoReturn:
    raise TableError(
        "tournament_table",
        "at a tournament table the director seats the players and the clock plays for the absent",
    )


def hand_over(table: TableState, io: Io) -> Effects:
    """The hand is over: the busted leave their seats (their entries are out once the hand
    is written), and the table waits for the director; the report goes out once the hand is
    written (`report`), so the director never places a bust a crash could undo."""
    d = table.directed
    assert d is not None
    d.go = False
    d.ended_at = io.now()
    out: Effects = []
    for info_ in [i for i in table.seats.values() if i.stack <= 0]:
        if any(o.user_id == info_.user_id for o in d.behind):
            continue  # a rebuy behind: not out (R35)
        del table.seats[info_.seat]
        del table.by_user[info_.user_id]
        out.append(Said(Left(info_.seat, info_.user_id, 0, "busted")))
    out.append(publishing.seats_said(table))
    d.reported = table.hand_number
    return out


def report(table: TableState) -> Effects:
    """Tell the director how the table stands (after a written hand, at start, or again when
    orders are slow to come): on its channel, behind the table's events."""
    d = table.directed
    if d is None or table.hand is not None or table.unwritten:
        return []
    body = report_body(table)
    d.report_token += 1
    return [
        Told(d.channel, json.dumps(body, separators=(",", ":"))),
        Mail(m.ReportAgain(d.report_token), REPORT_AGAIN),
    ]


def report_body(table: TableState) -> dict[str, Any]:
    d = table.directed
    assert d is not None
    return {
        "table": table.id,
        "hand": d.reported,
        "epoch": d.epoch,
        "seats": stacks_view(table),
        "start": {str(u): table.start_stacks.get(s, 0) for s, u in table.hand_users.items()},
        "round": d.round,
    }


async def report_again(table: TableState, msg: m.ReportAgain, io: Io) -> Outcome:
    d = table.directed
    if d is not None and msg.token == d.report_token and not d.go and table.hand is None:
        return Outcome(None, report(table))
    return Outcome()


async def orders(table: TableState, msg: process.DirectorOrders, io: Io) -> Outcome:
    """The director's orders, carried out whole or refused whole (nothing changes)."""
    d = table.directed
    if d is None or msg.tournament_id != d.tournament_id:
        raise TableError("not_tournament", "this table plays no part in that tournament")
    if msg.epoch < d.epoch:
        raise TableError("stale_director", "a newer director runs this tournament")
    _check(table, msg)
    d.epoch = msg.epoch
    out: Effects = []
    moved = await _unseat(table, msg.unseat, io, out) if msg.unseat else {}
    arriving = [order for order in msg.seat if order.user_id not in table.by_user]
    if arriving:
        await _seat(table, arriving, io, out)
    if msg.stakes is not None:
        await _stakes(table, msg.stakes, io, out)
    for f in msg.finished:
        out.append(Said(PlayerFinished(f.user_id, f.name, f.place, f.of, f.prize)))
    added = [await _add(table, order, io, out) for order in msg.add]
    _banks(table, msg)
    if msg.close:
        return Outcome(await _close(table, moved, io, out), out)
    ended = _ended_clean(table) if msg.deal_if_ended and not msg.hold else None
    if ended is not None:  # the hand the director believes on has ended: deal at once
        msg = msg.model_copy(update={"deal": True, "round": None})
    if msg.hold:
        out += _take_back(table)
    else:
        out += _deal_or_wait(table, msg, io)
    out += say_info(table)
    return Outcome({**answer(table, moved), "added": added, "ended": ended}, out)


def _banks(table: TableState, msg: process.DirectorOrders) -> None:
    """Time banks added to (a player's) or refilled (everyone's, to the cap) (R27)."""
    for user, ms in msg.bank_add.items():
        seat = table.by_user.get(int(user))
        if seat is not None:
            table.seats[seat].time_bank_ms += ms
    if msg.refill_ms:
        for seat_info in table.seats.values():
            seat_info.time_bank_ms = min(msg.bank_cap_ms, seat_info.time_bank_ms + msg.refill_ms)


def _deal_or_wait(table: TableState, msg: process.DirectorOrders, io: Io) -> Effects:
    d = table.directed
    assert d is not None
    if msg.deal or (table.hand is None and not d.go):
        d.round = msg.round  # a hand let deal or being played keeps its round (R32)
    if msg.deal and not d.go:
        d.go = True
        d.reported = None
        pause = table.settings.hand_pause_ms / 1000
        return [DealNext(max(0.0, pause - (io.now() - d.ended_at)))]
    return []


def _ended_clean(table: TableState) -> dict[str, Any] | None:
    """The report of this table's last hand, if that hand is over, busted no one and was
    no hand-for-hand round, and no go came since: a table its director believes in a hand
    (it seats a moved player there) may deal them in at once on that report, which the
    director takes from the answer; a bust or a round waits for the director's decision on
    the report. The hand need not be written yet (no bust a crash could undo is placed on
    it; its report does not go out again), but the one before it must be: at most two
    unwritten when the next is dealt (`MAX_UNWRITTEN`)."""
    d = table.directed
    assert d is not None
    if d.go or table.hand is not None or table.unwritten > 1 or d.round is not None:
        return None
    if d.reported is None or d.reported != table.hand_number or table.closed:
        return None
    if any(user not in table.by_user for user in table.hand_users.values()):
        return None
    return report_body(table)


def _take_back(table: TableState) -> Effects:
    """R37: the tournament froze. If this table is waiting out the pause before a hand it
    was let deal, that hand is not dealt (its start finds no go): the table stands as after
    its last hand, reporting it again until it is told to deal. A hand on plays on."""
    d = table.directed
    assert d is not None
    if d.go and table.hand is None:
        d.go = False
        d.reported = table.hand_number
        return report(table)
    return []


def say_info(table: TableState) -> Effects:
    body = publishing.tournament_info(table)
    return [] if body is None else [Said(TournamentInfo(**body))]


async def _add(table: TableState, order: process.AddChips, io: Io, out: Effects) -> dict[str, Any]:
    """A rebuy or add-on: now between hands, else behind until the hand ends."""
    d = table.directed
    assert d is not None
    seat = table.by_user.get(order.user_id)
    if seat is None:
        raise TableError("not_seated", "that player has no seat at this table")
    if in_hand(table, seat):
        d.behind.append(order)
        return {"user_id": order.user_id, "behind": True}
    await _apply(table, order, io, out)
    return {"user_id": order.user_id, "behind": False, "stack": table.seats[seat].stack}


async def _apply(
    table: TableState, order: process.AddChips, io: Io, out: Effects, wait: float = DRAIN_WAIT
) -> None:
    """Posted with the stack it joins, after the hand records (a player who lost every chip
    in the hand the rebuy waited behind stays in: their entry is taken back from the bust)."""
    if not await io.caught_up(wait):
        raise TableError("try_again", "the table is still saving its last hand; try again")
    info_ = table.seats[table.by_user[order.user_id]]
    # the seats as the hand left them: those it busted (but this buyer) are gone already
    stacks = {s: v for s, v in stacks_view(table).items() if v[1] > 0 or s == str(info_.seat)}
    stacks[str(info_.seat)][1] += order.chips
    d = table.directed
    assert d is not None
    chips = EntryChips(d.tournament_id, order.kind, order.chips, order.price, order.fee, order.key)
    if await io.store.add_entry_chips(table.id, order.user_id, chips, stacks):
        info_.stack += order.chips
    out.append(publishing.seats_said(table))


async def apply_behind(table: TableState, io: Io) -> Effects:
    """Chips behind join their stacks when the hand ends (a refusal, say the balance fell
    meanwhile, is logged: nothing was posted)."""
    d = table.directed
    assert d is not None
    orders, d.behind = d.behind, []
    out: Effects = []
    for order in orders:
        if order.user_id not in table.by_user:
            continue
        try:
            # the player was told their chips are behind: the table waits for its records
            # (it reports to the director only once they are written anyway)
            await _apply(table, order, io, out, wait=BEHIND_WAIT)
        except TableError as exc:
            log.warning("table %s: a %s could not be taken: %s", table.id, order.kind, exc.message)
    return out


def answer(table: TableState, moved: dict[int, tuple[int, int]] | None = None) -> dict[str, Any]:
    d = table.directed
    assert d is not None
    return {
        "seats": stacks_view(table),
        "moved": {str(u): list(v) for u, v in (moved or {}).items()},
        "in_hand": table.hand is not None,
        "reported": d.reported,
        "closed": table.closed,
    }


def _check(table: TableState, msg: process.DirectorOrders) -> None:
    if msg.unseat and table.hand is not None:
        raise TableError("in_hand", "players move between hands: this table is playing one")
    for leaver in msg.unseat:
        if leaver.user_id not in table.by_user:
            raise TableError("not_seated", f"user {leaver.user_id} has no seat at this table")
    if len({o.user_id for o in msg.unseat}) != len(msg.unseat):
        raise TableError("not_seated", "a player is ordered off once")
    leaving = {table.by_user[o.user_id] for o in msg.unseat}
    seats = {o.seat for o in msg.seat if o.user_id not in table.by_user}
    for order in msg.seat:
        if order.user_id in table.by_user:
            continue  # a repeat: seated already
        if not 0 <= order.seat < table.settings.max_seats:
            raise TableError(
                "invalid_seat", f"seats are numbered 0 to {table.settings.max_seats - 1}"
            )
        if order.seat in table.seats and order.seat not in leaving:
            raise TableError("seat_taken", f"seat {order.seat} is taken")
    if len(seats) != len([o for o in msg.seat if o.user_id not in table.by_user]):
        raise TableError("seat_taken", "two players ordered into one seat")
    if msg.close and (len(table.seats) > len(msg.unseat) or msg.seat):
        raise TableError("not_empty", "a tournament table closes once its players have moved")


async def _unseat(
    table: TableState, orders: list[process.UnseatOrder], io: Io, out: Effects
) -> dict[int, tuple[int, int]]:
    """The players ordered off, stood up together (one write): each one's chips and time
    bank, by user."""
    leaving = [table.seats[table.by_user[order.user_id]] for order in orders]
    stacks = stacks_view(table)
    for info_ in leaving:
        del stacks[str(info_.seat)]
    chips = await io.store.unseat_entries(table.id, [o.entry_id for o in orders], stacks)
    moved: dict[int, tuple[int, int]] = {}
    for order, info_ in zip(orders, leaving, strict=True):
        del table.seats[info_.seat]
        del table.by_user[info_.user_id]
        moved[info_.user_id] = (chips[order.entry_id], info_.time_bank_ms)
        out.append(Said(Left(info_.seat, info_.user_id, 0, "moved")))
        if order.to_table is not None and order.seat is not None:  # their page follows them
            out.append(Said(PlayerMoved(info_.user_id, info_.name, order.to_table, order.seat)))
    out.append(publishing.seats_said(table))
    return moved


async def _seat(table: TableState, orders: list[process.SeatOrder], io: Io, out: Effects) -> None:
    """The players ordered in, seated together (one write)."""
    stacks = stacks_view(table)
    for order in orders:
        stacks[str(order.seat)] = [order.user_id, order.chips]
    await io.store.seat_entries(table.id, {o.entry_id: o.seat for o in orders}, stacks)
    for order in orders:
        info_ = SeatInfo(order.seat, order.user_id, order.name, order.chips, f"e{order.entry_id}")
        info_.bot = order.bot
        info_.time_bank_ms = order.time_bank_ms
        table.seats[info_.seat] = info_
        table.by_user[info_.user_id] = info_.seat
        table.members.add(info_.user_id)
    out.append(publishing.seats_said(table))


async def _stakes(table: TableState, stakes: process.Stakes, io: Io, out: Effects) -> None:
    d = table.directed
    assert d is not None
    d.level = stakes.level
    current = table.pending_settings or table.settings
    changes = {
        "ante": stakes.ante,
        "bring_in": stakes.bring_in,
        "small_bet": stakes.small_bet,
        "big_bet": stakes.big_bet,
        "variant": stakes.variant,
        "raise_cap": stakes.raise_cap,
        "open_pair": stakes.open_pair,
    }
    now = current.model_dump(mode="json")
    if all(now[k] == v for k, v in changes.items()):
        return
    new = type(current).directed({**current.model_dump(), **changes})
    if table.hand is not None:
        table.pending_settings = new  # R26: never mid-hand
    else:
        await io.store.save_settings(table.id, new)
        table.settings = new
        table.pending_settings = None
    out.append(publishing.table_said(table))


async def _close(
    table: TableState, moved: dict[int, tuple[int, int]], io: Io, out: Effects
) -> dict[str, Any]:
    if table.hand is not None:
        raise TableError("in_hand", "a tournament table closes between hands")
    table.life.move(Lifecycle.CLOSING)
    out.append(StopClock(drop=True))
    await io.store.close(table.id)
    table.life.move(Lifecycle.CLOSED)
    out.append(publishing.table_said(table))
    return answer(table, moved)
