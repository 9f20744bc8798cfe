"""R26 at the tables: a Stud Hi/Lo tournament and a rotation one played to a winner, every
hand dealt at its level's game (a rotation changes the game every level), every place
given once and the prize pool paid out."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.engine.tournament import payouts
from app.engine.tournament.structure import Structure
from app.store.hand_models import HandRecord, HandStatus
from tests.tournaments.harness import Server

PLAYERS = 3
GAMES = ("stud", "stud8", "razz")  # a rotation's order (R26)


@pytest.mark.parametrize("variant", ["stud8", "rotation"])
async def test_r26_a_tournament_plays_each_hand_at_its_levels_game_to_a_winner(
    server: Server, variant: str
) -> None:
    host = await server.person("host")
    tid = await server.create(
        host, variant=variant, seats_per_table=PLAYERS, max_players=PLAYERS, buy_in=1000,
        fee=100, starting_chips=500, structure={"preset": "hyper", "by_hands": 2},
        payouts="sng_65_35",
    )  # fmt: skip
    await server.bots(tid, PLAYERS)
    await server.start(tid)
    await server.run_until(tid, lambda: server.finished(tid), seconds=24 * 3600)

    t = await server.tournament(tid)
    structure = Structure.from_dict(t.structure)
    async with server.db.session() as s:
        hands = list(await s.scalars(select(HandRecord).where(
            HandRecord.tournament_id == tid, HandRecord.status == HandStatus.DONE,
        ).order_by(HandRecord.number)))  # fmt: skip
    levels = [int(h.level or 0) for h in hands]
    assert hands and min(levels) == 1
    for hand, level in zip(hands, levels, strict=True):
        game = structure.playing_level(level - 1).variant or t.variant
        assert hand.variant == game, (hand.number, level)
        if variant == "rotation":
            assert game == GAMES[(level - 1) % 3]  # Stud Hi, Stud Hi/Lo, Razz, and again
    played = {h.variant for h in hands}
    assert played == ({"stud8"} if variant == "stud8" else set(GAMES)), levels

    entries = await server.entries(tid)
    assert sorted(e.place or 0 for e in entries) == list(range(1, PLAYERS + 1))
    # the winner's prize is 1st's; busts of one hand may share theirs (R31)
    winner = next(e for e in entries if e.place == 1)
    assert int(winner.prize or 0) == payouts.prizes("sng_65_35", PLAYERS * 1000, PLAYERS)[0]
    assert sum(int(e.prize or 0) for e in entries) == PLAYERS * 1000
    assert await server.pool(tid) == 0  # all paid out
    await server.ledger_ok()
