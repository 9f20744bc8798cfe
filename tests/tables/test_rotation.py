"""R45: a rotation table plays Stud Hi, Stud Hi/Lo and Razz in order, every N hands or every
orbit, across a real restart on the same database; each hand's record, export and replay
(GET /api/hands/{number}) name its game."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.engine.variants import ROTATION, Variant
from app.fanout import BaseFanout, create_fanout
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.tables import FakeClock, TableSettings
from app.tables import rotation as r
from app.tables.state import SeatInfo, TableState
from tests.tables.live import Client, Live, live_server
from tests.tables.test_extras import play_hand
from tests.tables.test_ws_play import calldown, seat_players
from tests.tables.test_ws_rules import reopen_token


async def games(live: Live, table_id: int) -> list[tuple[str, dict[str, Any]]]:
    async with live.db.session() as s:
        rows = await s.scalars(
            select(HandRecord)
            .where(HandRecord.table_id == table_id, HandRecord.status == HandStatus.DONE)
            .order_by(HandRecord.number)
        )
        return [(row.variant, row.rules["rotation"]) for row in rows]


async def test_r45_a_table_plays_its_games_in_order_across_a_restart(
    sqlite_db: Database, memory_fanout: BaseFanout, clock: FakeClock
) -> None:
    async with live_server(sqlite_db, memory_fanout, clock) as live:
        table_id, clients, users = await seat_players(live, 2, rotation="hands", rotation_hands=2)
        for _ in range(3):
            await play_hand(live, table_id, clients, calldown)
        starts = [f for f in clients[0].frames if f.get("type") == "hand_started"]
        assert [f["variant"] for f in starts] == ["stud", "stud", "stud8"]
        # the table says where it stands: Stud Hi/Lo, its second hand of two, Razz next
        table = live.table(table_id).snapshot(users[0])["table"]
        assert table["rotation_step"] == {
            "mode": "hands", "game": "stud8", "hand": 2, "of": 2, "next": "razz"
        }  # fmt: skip
        await live.settle(table_id)
        for c in clients.values():
            await c.close()
    fanout = create_fanout("memory://")
    try:
        async with live_server(sqlite_db, fanout, FakeClock()) as again:
            assert again.table(table_id).state.settings.variant is Variant.STUD8
            back = {}
            for seat in (0, 1):
                _, token = await reopen_token(again, users[seat])
                back[seat] = await Client.open(again, table_id, token, users[seat])
            for _ in range(3):
                await play_hand(again, table_id, back, calldown)
            played = await games(again, table_id)
            assert [game for game, _ in played] == [
                "stud", "stud", "stud8", "stud8", "razz", "razz"
            ]  # fmt: skip
            assert [(p["hand"], p["of"]) for _, p in played] == [(1, 2), (2, 2)] * 3
            # each hand's export and replay name its game
            _, token = await reopen_token(again, users[0])
            async with again.http(token) as http:
                async with again.db.session() as s:
                    numbers = list(
                        await s.scalars(
                            select(HandRecord.number)
                            .where(HandRecord.table_id == table_id)
                            .order_by(HandRecord.number)
                        )
                    )
                for number, (game, _) in zip(numbers, played, strict=True):
                    body = (await http.get(f"/api/hands/{number}")).json()
                    assert body["variant"] == game and body["rules"]["rotation"]["mode"] == "hands"
                    text = (
                        await http.get(f"/api/hands/{number}", params={"format": "pokerstars"})
                    ).text
                    name = {"stud": "7 Card Stud", "stud8": "7 Card Stud Hi/Lo", "razz": "Razz"}
                    assert f"Triple Stud ({name[game]} Limit, $1/$2 USD)" in text.splitlines()[0]
    finally:
        await fanout.close()


def seats(n: int) -> list[SeatInfo]:
    return [SeatInfo(i, 100 + i, f"p{i}", 1000, f"k{i}") for i in range(n)]


def test_r45_an_orbit_is_as_many_hands_as_players_dealt_in_at_the_steps_first_hand() -> None:
    settings = TableSettings.parse({"name": "Orbit", "small_bet": 100, "rotation": "orbit"})
    table = TableState(1, settings)
    assert r.view(table) == {
        "mode": "orbit",
        "game": "stud",
        "hand": 1,
        "of": None,
        "next": "stud8",
    }
    assert r.dealt(table, seats(3)) == {"mode": "orbit", "hand": 1, "of": 3}
    assert r.hand_over(table) is None
    # a fourth player sits: the step's orbit stays the three it began with
    assert r.dealt(table, seats(4)) == {"mode": "orbit", "hand": 2, "of": 3}
    assert r.hand_over(table) is None
    r.dealt(table, seats(4))
    nxt = r.hand_over(table)
    assert nxt is not None and nxt.variant is ROTATION[1]
    assert nxt.model_dump(exclude={"variant"}) == settings.model_dump(exclude={"variant"})


def test_r45_a_restored_table_goes_on_from_its_last_recorded_hand() -> None:
    settings = TableSettings.parse(
        {"name": "Hands", "small_bet": 100, "rotation": "hands", "rotation_hands": 3}
    )
    mid = TableState(1, settings)
    r.resume(mid, {"variant": "razz", "rotation": {"mode": "hands", "hand": 2, "of": 3}})
    assert mid.settings.variant is Variant.RAZZ and mid.step.played == 2
    end = TableState(1, settings)
    r.resume(end, {"variant": "razz", "rotation": {"mode": "hands", "hand": 3, "of": 3}})
    assert end.settings.variant is Variant.STUD and end.step.played == 0  # round again
    off = TableState(1, settings)
    r.resume(off, {"variant": "razz", "rotation": None})  # played before rotation was on
    assert off.settings.variant is Variant.STUD and off.step.played == 0
