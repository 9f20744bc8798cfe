"""R26 at the tables: a new level applies to the next hand dealt at every table, never to a
hand being played."""

from __future__ import annotations

from sqlalchemy import select

from app.engine.tournament.structure import Structure
from app.fanout import channels
from app.store.hand_models import HandRecord
from tests.tournaments.harness import Server, by_registration, play_call_down

LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 1},
    {"ante": 20, "bring_in": 30, "small_bet": 100, "big_bet": 200, "minutes": 60},
]}  # fmt: skip


async def test_r26_a_new_level_reaches_every_table_with_its_next_hand_never_mid_hand(
    server: Server,
) -> None:
    """Two tables of three, one-minute first level. One player is away, so their table's
    hands wait out the clock: when the minute is up that table is in a hand, which plays on
    at the first level's stakes; every table's next hand plays the second level's."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, starting_chips=1000, structure=LEVELS, max_players=6,
    )  # fmt: skip
    bots = await server.bots(tid, 5)
    away = await server.person("away")
    assert (await server.register(away, tid)).status_code == 200
    director = await server.begun(tid)
    server.rig(tid, by_registration(server, [*bots, away.id]))
    levelled: dict[int, int | None] = {}  # table -> the hand it was playing at the new level

    async def watch() -> None:
        if director.clock_.level == 1 and not levelled:
            levelled.update({t.id: t.state.hand_number for t in server.tables(tid)})
            for table in server.tables(tid):
                if table.state.hand is not None:  # mid-hand: its hand keeps the level it began at
                    assert table.state.hand.rules.ante == 10 and table.state.settings.ante == 10

    def both_dealt_at_level_2() -> bool:
        return {s.table_id for s in server.seen if s.level == 2} == set(levelled or [0])

    await server.run_until(tid, both_dealt_at_level_2, watch=watch, seconds=600)
    assert any(number is not None for number in levelled.values())  # one was mid-hand
    (level_up,) = [
        i for i, (name, body, _) in enumerate(server.heard)
        if name == channels.tournament(tid) and body["type"] == "level"
    ]  # fmt: skip
    for deal in server.seen:  # dealt before the new level: the first; after it: the second
        assert deal.level == (1 if deal.heard <= level_up else 2), deal
    structure = Structure.from_dict((await server.tournament(tid)).structure)
    async with server.db.session() as s:
        rows = list(await s.scalars(select(HandRecord).where(HandRecord.tournament_id == tid)))
    played = {row.number: row for row in rows}
    for number in levelled.values():
        if number is not None:  # the hand being played when the level changed: the first's
            assert played[number].level == 1 and played[number].rules["ante"] == 10
    for row in rows:  # every hand plays exactly its level's stakes
        assert row.level is not None
        level = structure.playing_level(row.level - 1)
        stakes = (level.ante, level.bring_in, level.small_bet, level.big_bet)
        rules = row.rules
        assert (rules["ante"], rules["bring_in"], rules["small_bet"], rules["big_bet"]) == stakes
        if row.events is not None:  # finished: the antes it took are the level's
            posted = [e["amount"] for e in row.events if e["type"] == "ante_posted"]
            assert posted and all(a == level.ante for a in posted)


async def test_r26_a_table_let_deal_before_a_new_level_deals_its_next_hand_at_it(
    server: Server,
) -> None:
    """The director lets a table deal as soon as its hand is over, and the table deals after
    its pause (here 30 s). The one-minute level ends during the pause after the first hand:
    the hand dealt then is dealt after the new level began, so it plays the new level."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, starting_chips=1000, structure=LEVELS, max_players=3,
        hand_pause_ms=30_000,
    )  # fmt: skip
    bots = await server.bots(tid, 2)
    last = await server.person("last")
    server.puppets[last.id] = play_call_down
    assert (await server.register(last, tid)).status_code == 200
    await server.begun(tid)
    server.rig(tid, by_registration(server, [*bots, last.id]))
    await server.run_until(tid, lambda: len(server.seen) == 2, seconds=600)
    first, second = server.seen
    assert first.at < 60 < second.at  # the level ended between the two deals
    assert server.events(channels.tournament(tid), "level", 0, second.heard)  # before it
    assert (first.level, second.level) == (1, 2)
    table = server.tables(tid)[0]
    assert table.state.hand is not None and table.state.hand.rules.ante == 20
