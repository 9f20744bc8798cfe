"""`python -m app tournaments simulate` as an operator runs it: a subprocess on the embedded
default (SQLite in its own data directory), its printout, its JSON file and its database."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

from app.engine.tournament import payouts
from tests.serverproc import ROOT, server_env

PLAYERS = 5
PLACE = re.compile(r"^\s*(\d+)\. (\S+)\s+(\d+\.\d\d)$")


async def simulate(
    data_dir: Path, variant: str, seed: str, *pace: str
) -> tuple[int, str, dict[str, Any]]:
    """Exit code, standard output and the JSON file of one run in its own data directory."""
    data_dir.mkdir()
    out_file = data_dir / "result.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app", "tournaments", "simulate", "--players", str(PLAYERS),
        "--variant", variant, "--seed", seed, "--speed", "hyper", "--seats", "3",
        "--json", str(out_file), *pace,
        cwd=ROOT, env=server_env(data_dir), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(300):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    assert proc.returncode == 0, (out.decode(), err.decode())
    return proc.returncode, out.decode(), json.loads(out_file.read_text())


def variants_played(data_dir: Path, tournament_id: int) -> list[tuple[int, str]]:
    """(level, variant) of every hand the run recorded, in order."""
    with sqlite3.connect(data_dir / "stud.sqlite3") as db:
        rows = db.execute(
            "SELECT level, variant FROM hands WHERE tournament_id = ? ORDER BY number",
            (tournament_id,),
        ).fetchall()
    return [(int(level), str(variant)) for level, variant in rows]


def check_run(out: str, result: dict[str, Any]) -> None:
    """The printout names the tournament, its entrants and pool, and every place once, as
    the JSON file does; the prizes are the sit & go's top15 of the pool."""
    tid = result["tournament_id"]
    assert f"tournament {tid}: finished" in out
    assert f"entrants {PLAYERS}, prize pool {PLAYERS * 1000 / 100:.2f}" in out
    assert "ledger check: ok" in out
    printed = [m.groups() for m in map(PLACE.match, out.splitlines()) if m]
    assert [int(place) for place, _, _ in printed] == list(range(1, PLAYERS + 1))
    assert result["finished"] is True and result["ledger_ok"] is True
    assert result["entrants"] == PLAYERS and result["prize_pool"] == PLAYERS * 1000
    assert [
        (str(p["place"]), p["player"], f"{p['prize'] / 100:.2f}") for p in result["places"]
    ] == (printed)
    assert len({p["player"] for p in result["places"]}) == PLAYERS  # each player placed once
    paid = payouts.prizes("top15", PLAYERS * 1000, PLAYERS)
    assert [p["prize"] for p in result["places"]] == paid + [0] * (PLAYERS - len(paid))


async def test_simulate_rotation_and_razz_to_a_winner_and_a_seed_repeats_what_it_fixes(
    tmp_path: Path,
) -> None:
    """Two rotation runs of one seed and a razz run, side by side. The seed fixes the
    director's draws, not the cards nor the order tables finish their hands (the module
    says so): the same seed gives the same field, pool and prizes by place, each place
    given once; who takes which place is the cards'."""
    runs = await asyncio.gather(
        simulate(tmp_path / "rotation", "rotation", "7"),
        simulate(tmp_path / "again", "rotation", "7"),
        simulate(tmp_path / "razz", "razz", "7", "--bot-delay-ms", "3", "--hand-pause-ms", "5"),
    )
    for _, out, result in runs:
        check_run(out, result)
    (_, _, first), (_, _, again), (_, _, razz) = runs
    assert [p["prize"] for p in first["places"]] == [p["prize"] for p in again["places"]]
    assert (first["entrants"], first["prize_pool"]) == (again["entrants"], again["prize_pool"])

    # the pace asked for is the tournament's own (its tables take it from there)
    with sqlite3.connect(tmp_path / "razz" / "stud.sqlite3") as db:
        paced = db.execute(
            "SELECT bot_delay_ms, hand_pause_ms FROM tournaments WHERE id = ?",
            (razz["tournament_id"],),
        ).fetchone()
        pauses = db.execute(
            "SELECT DISTINCT hand_pause_ms FROM poker_tables WHERE tournament_id = ?",
            (razz["tournament_id"],),
        ).fetchall()
    assert paced == (3, 5) and pauses == [(5,)]
    played = variants_played(tmp_path / "razz", razz["tournament_id"])
    assert played and {variant for _, variant in played} == {"razz"}
    assert razz["hands"] == len(played)
    rotation = variants_played(tmp_path / "rotation", first["tournament_id"])
    games = ("stud", "stud8", "razz")
    # levels are numbered from 1: Stud Hi, Stud Hi/Lo, Razz, and again (R26)
    assert rotation and all(variant == games[(level - 1) % 3] for level, variant in rotation)
    assert len({variant for _, variant in rotation}) >= 2  # it played more than one game


def test_simulate_refuses_a_field_it_cannot_make_with_exit_2(tmp_path: Path) -> None:
    """Bad flags are said in one line and exit 2 (the README's exit codes), before anything
    starts: no traceback, no database touched."""
    import subprocess

    for flags, said in (
        (["--seats", "1"], "--seats must be 2 to 8"),
        (["--seats", "0"], "--seats must be 2 to 8"),
        (["--payouts", "nonsense"], "payouts"),
        (["--players", "1000000"], "tournaments simulate: "),
        (["--bot-delay-ms", "-1"], "--bot-delay-ms must be 0 to 60000"),
        (["--hand-pause-ms", "60001"], "--hand-pause-ms must be 0 to 60000"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "app", "tournaments", "simulate", "--players", "10", *flags],
            # (a later --players wins: argparse keeps the last)
            cwd=ROOT, env=server_env(tmp_path / "data"), capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 2, (flags, done.stderr)
        assert said in done.stderr and "Traceback" not in done.stderr, (flags, done.stderr)
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.sqlite3"))
