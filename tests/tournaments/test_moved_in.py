"""R33: a moved player is dealt in at once. The director seats a player at a table it
believes in a hand with `deal_if_ended`: a table whose hand has ended, busted no one and
was let deal no hand since deals at once, answering with that hand's report (the director
takes it from the answer); any other table waits for the director's word on its report, as
before."""

from __future__ import annotations

from typing import Any

from app.engine import Action, LegalActions
from app.tables import Table
from tests.tournaments.harness import (
    Person,
    Server,
    by_registration,
    play_call_down,
    play_raise,
)

LEVELS = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 60}]}


async def ended_frozen(server: Server, starting: int) -> tuple[int, list[Person], Table]:
    """Four people at one table, the first dealt in wins; frozen while its first hand is
    played (R37), so the table ends it, reports it and is let deal nothing more. They are
    away (the clock plays) until the freeze, then the winner raises, two call and the
    last stays away (folds)."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=4, structure=LEVELS, max_players=4, starting_chips=starting
    )
    people = [await server.person() for _ in range(4)]
    frozen = False

    def play(legal: LegalActions) -> Action | None:
        return play_call_down(legal) if frozen else None

    def bet(legal: LegalActions) -> Action | None:
        return play_raise(legal) if frozen else None

    server.puppets.update({people[0].id: bet, people[1].id: play, people[2].id: play})
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    await server.begun(tid)
    server.rig(tid, by_registration(server, [p.id for p in people]))
    (table,) = server.tables(tid)
    await server.run_until(tid, lambda: table.state.hand is not None)
    r = await server.post(host, f"/api/tournaments/{tid}/host", {"type": "freeze"})
    assert r.status_code == 200
    frozen = True
    await server.run_until(tid, lambda: table.state.hand is None)
    d = table.state.directed
    assert d is not None and not d.go and d.reported == table.state.hand_number
    return tid, people, table


async def direct(server: Server, tid: int, table: Table, **orders: Any) -> dict[str, Any]:
    director = server.director(tid)
    body = {"tournament_id": tid, "epoch": director.books.epoch, **orders}
    return dict(await server.services.router.ask(table.id, "direct", body))


async def test_r33_a_table_whose_hand_ended_with_no_bust_deals_at_once_on_its_report(
    server: Server,
) -> None:
    tid, people, table = await ended_frozen(server, starting=100_000)
    hand = table.state.hand_number
    seats = {s: [i.user_id, i.stack] for s, i in table.state.seats.items()}
    d = table.state.directed
    assert d is not None

    plain = await direct(server, tid, table)
    assert plain["ended"] is None and not d.go  # not asked: it waits for the director

    answer = await direct(server, tid, table, deal_if_ended=True)
    assert answer["ended"]["hand"] == hand and answer["ended"]["table"] == table.id
    assert {int(s): v for s, v in answer["ended"]["seats"].items()} == seats
    assert set(answer["ended"]["start"]) == {str(p.id) for p in people}
    assert d.go and d.round is None  # let deal: the moved player is dealt in next

    again = await direct(server, tid, table, deal_if_ended=True)
    assert again["ended"] is None  # one go: that hand's report answered once


async def test_r33_a_table_whose_hand_busted_a_player_waits_for_the_directors_word(
    server: Server,
) -> None:
    """With 100 chips each, the winner raising and two calling, those two lose every chip:
    the director places them before anything is dealt there (R31)."""
    tid, _, table = await ended_frozen(server, starting=100)
    assert len(table.state.seats) == 2
    d = table.state.directed
    assert d is not None
    answer = await direct(server, tid, table, deal_if_ended=True)
    assert answer["ended"] is None and not d.go
