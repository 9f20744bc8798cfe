"""Seating players as the field shrinks: breaking tables, balancing, the final table (R33).

The TDA rules read for stud, which has no blinds, so no position to keep (Rule 10 breaking
tables, Rule 11 balancing, RP-9 the final table):

- Balancing (Rule 11): tables differ by at most one player. A player is moved only from a
  table not in a hand, from the fullest table (the lowest-numbered of equally full ones), the
  one moved least so far (ties drawn), to the shortest table (the lowest-numbered of equally
  short ones), into the last seat opened there (Rule 11-A for stud); with no seat opened
  there, into an empty seat drawn at random. A table 3 or more players short of the fullest
  does not deal until it is balanced (Rule 11-D): `Plan.waiting`.
- Breaking (Rule 10): when the players fit at one table fewer, the next table of the break
  order (drawn at random when the tables were made) breaks, as soon as it is not in a hand;
  several do if several can. Each of its players, lowest seat first, gets a seat by a two-step
  draw: first a table, equally likely among the tables with an empty seat, then a seat,
  equally likely among that table's empty seats. Balancing follows; a broken table's player
  it picks goes straight to the short table, so nobody moves twice in one plan. A table due to
  break while it plays a hand breaks after it (`Plan.break_after_hand`); meanwhile the others
  balance among themselves. A table with nobody left closes at once.
- The final table (RP-9): the final table seats a full table of the event
  (`final_table_seats`, at most a table's seats), so while the players do not fit it the last
  two tables play on, balanced, instead of breaking into one. Reading: once they fit, and no
  table is in a hand, every player left draws a new seat at random at one table (the table
  that would break last); these moves are made together (everyone stands, then sits), so a
  seat drawn may be one a player moving in the same plan leaves. While a hand is still being
  played somewhere, the other tables wait.

Everything random reads one `Rng` (draws.py), so a plan is the same for the same inputs and
seed, and anyone can check it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.engine.tournament.draws import Rng


@dataclass(frozen=True, slots=True)
class TableView:
    """A table as the plan sees it: seats 0..max_seats-1, `opened` the seats vacated there,
    oldest first, `in_hand` while a hand is being played (its players cannot move now)."""

    table_id: int
    max_seats: int
    seats: Mapping[int, int]  # seat -> entry_id
    opened: Sequence[int] = ()
    in_hand: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    entry_id: int
    from_table: int
    to_table: int
    to_seat: int


@dataclass(frozen=True, slots=True)
class Plan:
    moves: tuple[Move, ...]
    breaking: tuple[int, ...]  # tables that close now (their players are moved by `moves`)
    waiting: frozenset[int]  # tables that must not deal until balanced
    break_after_hand: tuple[int, ...] = ()  # tables to break once their hand ends


@dataclass(slots=True)
class _Table:
    id: int
    max_seats: int
    in_hand: bool
    seats: dict[int, int]
    opened: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, view: TableView) -> _Table:
        seats = dict(view.seats)
        opened = [s for s in view.opened if s not in seats]
        return cls(view.table_id, view.max_seats, view.in_hand, seats, opened)

    @property
    def count(self) -> int:
        return len(self.seats)

    def empty(self) -> list[int]:
        return [s for s in range(self.max_seats) if s not in self.seats]

    def last_opened(self) -> int | None:
        for seat in reversed(self.opened):
            if seat not in self.seats:
                return seat
        return None


def _check(tables: Sequence[TableView], final_table_seats: int | None) -> None:
    if len({t.table_id for t in tables}) != len(tables):
        raise ValueError("each table is given once")
    entries: list[int] = []
    for t in tables:
        if type(t.max_seats) is not int or t.max_seats < 2:
            raise ValueError(f"table {t.table_id}: a table has at least two seats")
        if any(type(s) is not int or not 0 <= s < t.max_seats for s in t.seats):
            raise ValueError(f"table {t.table_id}: seats are 0..{t.max_seats - 1}")
        entries.extend(t.seats.values())
    if len(set(entries)) != len(entries):
        raise ValueError("a player sits at one seat")
    if final_table_seats is not None and (
        type(final_table_seats) is not int
        or final_table_seats < 2
        or any(final_table_seats > t.max_seats for t in tables)
    ):
        raise ValueError("the final table seats 2 players or more, at most a table's seats")


def _order(live: dict[int, _Table], break_order: Sequence[int]) -> list[int]:
    """The order tables break in: `break_order` (tables gone skipped), then any other by
    number."""
    out = list(dict.fromkeys(t for t in break_order if t in live))
    return out + sorted(t for t in live if t not in out)


def plan(
    tables: Sequence[TableView],
    *,
    moved: Mapping[int, int],
    rng: Rng,
    final_table_seats: int | None = None,
    break_order: Sequence[int] = (),
) -> Plan:
    """What to do now with the tables as they are (see the module docstring)."""
    _check(tables, final_table_seats)
    live = {t.table_id: _Table.of(t) for t in tables}
    closing = [t for t in live if not live[t].seats]
    for t in closing:
        del live[t]
    if not live:
        return Plan((), tuple(closing), frozenset())
    order = _order(live, break_order)
    players = sum(t.count for t in live.values())
    if final_table_seats is not None and len(live) > 1 and players <= final_table_seats:
        return _final_table(live, order, rng, closing)
    fewest_tables = 1 if final_table_seats is None else 2
    to_break: list[int] = []
    for t in order:
        rest = [x for x in live.values() if x.id != t and x.id not in to_break]
        if len(rest) < fewest_tables or players > sum(x.max_seats for x in rest):
            break
        to_break.append(t)
    targets = [live[t] for t in sorted(live) if t not in to_break]
    now = [t for t in to_break if not live[t].in_hand]
    moves: list[Move] = []
    for t in now:
        _break(live[t], targets, rng, moves)
    _balance(targets, moved, rng, moves)
    fullest = max(t.count for t in targets)
    waiting = frozenset(t.id for t in targets if t.count <= fullest - 3)
    later = tuple(t for t in to_break if t not in now)
    return Plan(tuple(moves), (*closing, *now), waiting, later)


def settled(
    counts: Mapping[int, int],
    max_seats: Mapping[int, int],
    *,
    final_table_seats: int | None = None,
    break_order: Sequence[int] = (),
) -> bool:
    """Whether `plan` would do nothing (no move, no table closing, breaking or waiting), read
    from the players at each table alone: none empty, none more than one from another, no
    final table to draw and none to break (the players do not fit the tables but the first
    to break). Cheaper than the plan, whose inputs are every seat."""
    if not counts:
        return True
    if min(counts.values()) == 0:
        return False  # an empty table closes
    if len(counts) == 1:
        return True
    if max(counts.values()) - min(counts.values()) > 1:
        return False
    players = sum(counts.values())
    if final_table_seats is not None and players <= final_table_seats:
        return False
    first = next((t for t in break_order if t in counts), min(counts))
    rest = [n for t, n in max_seats.items() if t != first and t in counts]
    return len(rest) < (1 if final_table_seats is None else 2) or players > sum(rest)


def _break(table: _Table, targets: list[_Table], rng: Rng, moves: list[Move]) -> None:
    """Seat a breaking table's players by the two-step draw (TDA Rule 10)."""
    for seat in sorted(table.seats):
        entry = table.seats.pop(seat)
        open_tables = [t for t in targets if t.count < t.max_seats]
        to = rng.choice(open_tables)
        to_seat = rng.choice(to.empty())
        to.seats[to_seat] = entry
        moves.append(Move(entry, table.id, to.id, to_seat))


def _balance(targets: list[_Table], moved: Mapping[int, int], rng: Rng, moves: list[Move]) -> None:
    """Move players from the fullest table to the shortest until they differ by at most one
    (TDA Rule 11). A player seated from a broken table in this plan counts one move more; if
    they are the one balanced, they go straight on to the short table: one move, not two."""
    seated = {m.entry_id: i for i, m in enumerate(moves)}  # not yet dealt a hand there
    while True:
        low = min(t.count for t in targets)
        high = max(t.count for t in targets)
        if high - low <= 1:
            return
        source = next((t for t in targets if t.count == high and not t.in_hand), None)
        if source is None:
            return  # the fullest table is in a hand: after it
        to = next(t for t in targets if t.count == low)
        times = {e: moved.get(e, 0) + (e in seated) for e in source.seats.values()}
        least = min(times.values())
        entry = rng.choice(sorted(e for e, n in times.items() if n == least))
        seat = next(s for s, e in source.seats.items() if e == entry)
        del source.seats[seat]
        source.opened.append(seat)
        to_seat = to.last_opened()
        if to_seat is None:
            to_seat = rng.choice(to.empty())
        to.seats[to_seat] = entry
        if entry in seated:
            i = seated.pop(entry)
            moves[i] = Move(entry, moves[i].from_table, to.id, to_seat)
        else:
            moves.append(Move(entry, source.id, to.id, to_seat))


def _final_table(live: dict[int, _Table], order: list[int], rng: Rng, closing: list[int]) -> Plan:
    """The players fit at the final table: a new seat draw for all of them (TDA RP-9)."""
    if any(t.in_hand for t in live.values()):
        waiting = frozenset(t.id for t in live.values() if not t.in_hand)
        return Plan((), tuple(closing), waiting)
    host = live[order[-1]]
    seats = list(range(host.max_seats))
    rng.shuffle(seats)
    sitting = sorted((e, t.id) for t in live.values() for e in t.seats.values())
    moves = tuple(
        Move(entry, table, host.id, seat)
        for (entry, table), seat in zip(sitting, seats, strict=False)
    )
    others = tuple(t for t in order if t != host.id)
    return Plan(moves, (*closing, *others), frozenset())
