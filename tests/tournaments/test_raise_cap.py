"""R29 at the tables: the cap of a bet and three raises holds until two players remain in
the tournament; then the table's stakes lift it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.store.hand_models import HandRecord
from app.tables import Table
from tests.tournaments.harness import Deal, Server, play_raise

LEVELS = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "hands": 100}]}
WAGERS = {"completed", "bet", "raised"}


def most_wagers(events: list[dict[str, Any]]) -> int:
    """The most bets and raises made on one street of a hand."""
    streets: list[int] = [0]
    for e in events:
        if e["type"] == "street_started":
            streets.append(0)
        elif e["type"] in WAGERS:
            streets[-1] += 1
    return max(streets)


async def test_r29_the_cap_holds_three_handed_and_lifts_when_two_players_remain(
    server: Server,
) -> None:
    """Two players who raise whenever they may and a bot that calls, 5,000 chips each: while
    the three are in, no street sees more than a bet and three raises; the cards bust the
    bot in the fourth hand, and heads-up the two raise on past the cap."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, starting_chips=5000, structure=LEVELS, max_players=3,
    )  # fmt: skip
    (bot,) = await server.bots(tid, 1)
    one, two = await server.person("one"), await server.person("two")
    server.puppets.update({one.id: play_raise, two.id: play_raise})
    for who in (one, two):
        assert (await server.register(who, tid)).status_code == 200
    director = await server.begun(tid)
    winners = [one.id, two.id, one.id]

    def policy(table: Table) -> Deal:
        first = winners[min(table.state.hands_played, len(winners) - 1)]
        return Deal(
            [
                first,
                *(
                    u
                    for u in (one.id, two.id, bot)
                    if u != first and u in table.state.hand_users.values()
                ),
            ]
        )

    server.rig(tid, policy)
    (table,) = server.tables(tid)
    assert table.state.settings.raise_cap is True
    await server.run_until(tid, lambda: server.finished(tid))
    async with server.db.session() as s:
        rows = sorted(
            await s.scalars(select(HandRecord).where(HandRecord.tournament_id == tid)),
            key=lambda row: row.number,
        )
    three = [row for row in rows if len(row.seats) == 3]
    heads_up = [row for row in rows if len(row.seats) == 2]
    assert len(three) == 4 and heads_up
    for row in three:
        assert row.rules["raise_cap"] is True and most_wagers(row.events or []) == 4
    for row in heads_up:
        assert row.rules["raise_cap"] is False
    assert max(most_wagers(row.events or []) for row in heads_up) > 4
    assert director.status == "finished"
