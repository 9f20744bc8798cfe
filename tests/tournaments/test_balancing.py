"""R33 at the tables: balancing after every hand, the short table's wait, the last seat
opened, and a broken table's players seated by the recorded draw."""

from __future__ import annotations

from app.store import tournaments as store
from app.tables import Table
from tests.tournaments.harness import (
    Deal,
    Person,
    Server,
    by_registration,
    play_call_down,
    play_fold,
    play_raise,
)

CALM = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 600}]}


class Balance:
    """What the test watches at every settled moment."""

    def __init__(self, server: Server, tid: int) -> None:
        self.server, self.tid = server, tid
        self.director = server.director(tid)
        self.moves = 0
        self.draws = 0
        self.waited: list[dict[int, int]] = []
        self.last_opened = 0  # balancing moves checked to take the last seat opened
        self.drawn_seats = 0  # players of broken tables checked at their drawn seats

    async def __call__(self) -> None:
        tables = self.server.tables(self.tid)
        counts = {t.id: len(t.state.seats) for t in tables}
        if len(tables) > 1:
            high, low = max(counts.values()), min(counts.values())
            fullest_busy = all(t.state.hand is not None for t in tables if counts[t.id] == high)
            assert high - low <= 1 or fullest_busy, counts  # else the fullest gives one now
        if self.director.waiting:
            self.waited.append(counts)
        if self.director.moves_made != self.moves:
            self.moves = self.director.moves_made
            await self._check_moves()

    async def _check_moves(self) -> None:
        async with self.server.db.session() as s:
            rows = [d for d in await store.draws(s, self.tid) if d.purpose.startswith("balance")]
        entries = {e.id: e for e in await self.server.entries(self.tid)}
        where: dict[int, tuple[int, int]] = {}
        for row in rows[self.draws :]:
            result = row.result or {}
            views = {v[0]: v for v in result["views"]}
            # the seats opened at each target and still free, the last opened last: one
            # plan may move several players into one table (two tables ended their hands
            # before one decision), each into the last seat opened that is still free
            free = {
                t: [s for s in opened if str(s) not in sitting]
                for t, _, sitting, opened, _ in views.values()
            }
            for entry, source, target, seat in result["moves"]:
                where[entry] = (target, seat)
                broken = source in self.director.breaks or source == target
                if broken and seat in free[target]:
                    free[target].remove(seat)  # drawn for a broken table's player
                if broken or not free[target]:
                    continue
                assert seat == free[target].pop(), (row.purpose, result)  # the last opened
                self.last_opened += 1
            self.drawn_seats += sum(
                1 for _, source, _, _ in result["moves"] if source in self.director.breaks
            )
        self.draws = len(rows)
        for entry, seat in where.items():  # seated at once where the draw said
            assert (entries[entry].table_id, entries[entry].seat) == seat


async def test_r33_balanced_after_every_hand_the_short_table_waits_and_breaks_seat_by_draw(
    server: Server,
) -> None:
    """Fifteen players at three tables of five. At the first table everyone is there and
    quick: three of them put all their chips in (the cards make them lose) and bust at
    once, one folds, one wins; at the other two tables one player is away, so their first
    hand waits out the clock. The first table, three short of the others, waits until one
    of them ends its hand and gives it a player, into the seat opened last; then play goes
    on (everyone there, the earliest registration winning each hand) until a table breaks
    and the tournament ends. At every settled moment no two tables differ by more than one
    player unless the fullest is in a hand; every move seats its player at once where the
    recorded draw put them."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=5, starting_chips=100, structure=CALM, max_players=15,
    )  # fmt: skip
    people: list[Person] = [await server.person() for _ in range(15)]
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    director = await server.begun(tid)
    order = [p.id for p in people]
    first, *others = sorted(director.slots)
    at_first = sorted(director.slots[first].seats.values(), key=order.index)
    assert sorted(len(director.slots[t].seats) for t in director.slots) == [5, 5, 5]
    winner, folder, *maniacs = at_first
    for table in others:
        present = sorted(director.slots[table].seats.values(), key=order.index)[:-1]
        server.puppets.update(dict.fromkeys(present, play_call_down))
    server.puppets.update({winner: play_call_down, folder: play_fold})
    server.puppets.update(dict.fromkeys(maniacs, play_raise))
    calm = by_registration(server, order)

    def policy(table: Table) -> Deal:
        if table.id == first and table.state.hands_played == 0:
            return Deal([winner, *maniacs, folder], bring_in=maniacs[0], folds=frozenset({folder}))
        return calm(table)

    server.rig(tid, policy)
    watch = Balance(server, tid)

    await server.run_until(tid, lambda: len(director.slots[first].seats) == 4, watch=watch)
    by_user = {e.user_id: e for e in await server.entries(tid)}
    assert all(by_user[u].status == "busted" for u in maniacs)
    assert watch.waited and all(min(c.values()) <= max(c.values()) - 3 for c in watch.waited)
    assert first in {t for c in watch.waited for t, n in c.items() if n == 2}
    assert watch.last_opened >= 2  # one from each of the other tables, when each was done

    server.puppets.update(dict.fromkeys(order, play_call_down))  # everyone there from now
    await server.run_until(tid, lambda: server.finished(tid), watch=watch)
    assert director.breaks and watch.drawn_seats >= 1
    for deal in server.seen:  # a table three or more short of the fullest dealt nothing
        assert deal.seats[deal.table_id] >= max(deal.seats.values()) - 2, deal
    await server.ledger_ok()
