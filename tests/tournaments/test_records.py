"""R38 and the records of a finished tournament, as operators run them: `python -m app
verify --tournament ID` repeats every draw from the revealed seed (and fails, naming the
draw, once a draw's record is changed), and `python -m app export --tournament ID` writes
every hand, PokerStars' tournament header or PHH's `event` and `level`."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from sqlalchemy import select, update

from app.store.hand_models import HandRecord, HandStatus
from app.store.tournament_models import TournamentDraw, TournamentEntry
from tests.cli.test_export import phh_hands, pokerstars_hands
from tests.tournaments.harness import Server

ROOT = Path(__file__).resolve().parents[2]
LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "hands": 6},
    {"ante": 20, "bring_in": 30, "small_bet": 100, "big_bet": 200, "hands": 100},
]}  # fmt: skip


async def app_command(*args: str) -> tuple[int, str, str]:
    """`python -m app ARGS`: exit code, standard output and error."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app", *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(120):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def finished(server: Server) -> int:
    """A sit & go of six bots at tables of three, $10+$1, played to its end: seats drawn,
    players moved and a table broken by the draws of its seed."""
    host = await server.person("host")
    tid = await server.create(
        host, name="Records", seats_per_table=3, buy_in=1000, fee=100, starting_chips=100,
        structure=LEVELS, payouts="sng_50_30_20", max_players=6,
    )  # fmt: skip
    await server.bots(tid, 6)
    await server.start(tid)
    await server.run_until(tid, lambda: server.finished(tid))
    return tid


async def test_r38_verify_repeats_every_draw_and_fails_naming_a_changed_one(
    server: Server, db_url: str
) -> None:
    tid = await finished(server)
    async with server.db.session() as s:
        draws = list(await s.scalars(select(TournamentDraw).where(
            TournamentDraw.tournament_id == tid).order_by(TournamentDraw.seq)))  # fmt: skip
    purposes = [d.purpose.split(":")[0] for d in draws]
    assert purposes[:3] == ["master", "seats", "break_order"] and "balance" in purposes
    assert draws[0].seed  # revealed at the end
    url = db_url
    code, out, err = await app_command("verify", "--tournament", str(tid), "--database-url", url)
    assert code == 0, out + err
    assert re.search(rf"OK: tournament #{tid}: .* its {len(draws) - 1} draws repeat", out)

    seats = draws[1]
    drawn = dict(seats.result["drawn"])
    first, second = list(drawn)[:2]
    drawn[first], drawn[second] = drawn[second], drawn[first]  # two players' seats swapped
    async with server.db.transaction() as s:
        await s.execute(
            update(TournamentDraw)
            .where(TournamentDraw.id == seats.id)
            .values(result={**seats.result, "drawn": drawn})
        )
    code, out, err = await app_command("verify", "--tournament", str(tid), "--database-url", url)
    assert code == 1, out + err
    assert f"FAIL: draw {seats.seq} (seats): the seats drawn differ from the seed's draw" in out


async def test_r38_entrants_seeds_are_mixed_into_every_draw_and_verify_repeats_them(
    server: Server, db_url: str
) -> None:
    host = await server.person("host")
    tid = await server.create(
        host, name="Seeded", seats_per_table=3, buy_in=1000, fee=100, starting_chips=100,
        structure=LEVELS, payouts="sng_50_30_20", max_players=6,
    )  # fmt: skip
    await server.bots(tid, 6)
    entries = await server.entries(tid)
    given = {entries[0].id: "a1" * 32, entries[3].id: "b2" * 32}
    async with server.db.transaction() as s:  # as registering with `seed` stores them
        for entry_id, seed in given.items():
            await s.execute(
                update(TournamentEntry).where(TournamentEntry.id == entry_id).values(seed=seed)
            )
    await server.start(tid)
    await server.run_until(tid, lambda: server.finished(tid))
    async with server.db.session() as s:
        draws = list(await s.scalars(select(TournamentDraw).where(
            TournamentDraw.tournament_id == tid).order_by(TournamentDraw.seq)))  # fmt: skip
    seats = draws[1]
    assert seats.purpose == "seats"
    assert seats.result["entrant_seeds"] == [{"entry": e, "seed": given[e]} for e in sorted(given)]
    async with server.http(host) as http:
        shown = (await http.get(f"/api/tournaments/{tid}")).json()
    assert shown["entrant_seeds"] == seats.result["entrant_seeds"]
    code, out, err = await app_command("verify", "--tournament", str(tid), "--database-url", db_url)
    assert code == 0, out + err
    # an entrant's seed changed after the draw: the seats no longer follow
    changed = [{**g, "seed": "c3" * 32} if i == 0 else g
               for i, g in enumerate(seats.result["entrant_seeds"])]  # fmt: skip
    async with server.db.transaction() as s:
        await s.execute(
            update(TournamentDraw)
            .where(TournamentDraw.id == seats.id)
            .values(result={**seats.result, "entrant_seeds": changed})
        )
    code, out, err = await app_command("verify", "--tournament", str(tid), "--database-url", db_url)
    assert code == 1, out + err
    assert f"FAIL: draw {seats.seq} (seats): the seats drawn differ from the seed's draw" in out


async def test_r38_a_player_registers_with_a_seed_and_a_malformed_one_is_refused(
    server: Server,
) -> None:
    host, ann, bob = [await server.person(n) for n in ("host", "ann", "bob")]
    tid = await server.create(
        host, name="Seeds", seats_per_table=3, buy_in=1000, fee=100, starting_chips=100,
        structure=LEVELS, payouts="sng_50_30_20", max_players=6,
    )  # fmt: skip
    assert (await server.register(ann, tid, seed="d4" * 32)).status_code == 200
    assert (await server.register(bob, tid, seed="not hex")).status_code == 422
    assert (await server.register(bob, tid)).status_code == 200
    seeds = {e.user_id: e.seed for e in await server.entries(tid)}
    assert seeds == {ann.id: "d4" * 32, bob.id: None}


async def test_r26_export_writes_every_hand_with_its_tournament_header_and_level(
    server: Server, db_url: str
) -> None:
    tid = await finished(server)
    async with server.db.session() as s:
        rows = list(await s.scalars(select(HandRecord).where(
            HandRecord.tournament_id == tid, HandRecord.status == HandStatus.DONE)))  # fmt: skip
    levels = {row.number: row.level for row in rows}
    assert len(rows) >= 6 and set(levels.values()) == {1, 2}
    code, out, err = await app_command(
        "export", "--tournament", str(tid), "--format", "pokerstars", "--database-url", db_url
    )
    assert code == 0, err
    assert f"export: {len(rows)} hands" in err
    found = pokerstars_hands(out)
    assert sorted(found) == sorted(levels)
    for number, text in found.items():
        roman = {1: "I (50/100)", 2: "II (100/200)"}[levels[number] or 0]
        head = f"PokerStars Hand #{number}: Tournament #{tid}, $10+$1 USD 7 Card Stud Limit"
        assert text.startswith(f"{head} - Level {roman} - "), text.splitlines()[0]

    code, out, err = await app_command(
        "export", "--tournament", str(tid), "--format", "phh", "--database-url", db_url
    )
    assert code == 0, err
    tables = phh_hands(out)
    assert sorted(t["hand"] for t in tables) == sorted(levels)
    for t in tables:
        assert t["event"] == "Records" and t["level"] == levels[t["hand"]]
        assert t["_tournament"] == tid
