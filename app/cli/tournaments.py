"""`python -m app tournaments freeze|resume|cancel ID`: an operator's commands
(`app.cli.tournament_ops`).

`python -m app tournaments simulate --players N --variant stud|stud8|razz|rotation --seed S
[--speed hyper] [--json FILE]`: a whole tournament of bots, played through the real server
parts (the server's own start-up: its database, fan-out and process registry as the
environment names them, the embedded default included; the director, the tables, the
ledger, the hand records), to a winner. Bots act at once and levels go by hands.

It prints the tournament's id, its entrants and prize pool, every place with its player and
prize, the hands dealt, the most tables at once, the moves and the tables broken. The seed
fixes the director's draws (the seats, the break order and every balancing choice);
the cards and the order in which tables finish their hands are the run's own.

Exit codes: 0 played to a winner and the ledger check passed; 1 it did not finish in
`--timeout` seconds or the ledger check failed; 2 the database or settings are unusable."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import sys
from typing import Any

from pydantic import ValidationError
from sqlalchemy import func, select

from app.cli.tournament_ops import add_operator_arguments, run_operator
from app.config import get_settings
from app.store import accounts
from app.store import tournaments as store
from app.store.audit import check_ledger
from app.store.hand_models import HandRecord
from app.tournaments import service
from app.tournaments.spec import Preset, TournamentSpec

CLOSE_WAIT = 60.0  # seconds the finished tournament's tables may take to close

EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    add_operator_arguments(actions)
    sim = actions.add_parser("simulate", help="play a whole tournament of bots to a winner")
    sim.add_argument("--players", type=int, required=True, help="entrants (2 or more)")
    sim.add_argument("--variant", choices=["stud", "stud8", "razz", "rotation"], default="stud")
    sim.add_argument("--seed", default="1", help="fixes every draw the director makes")
    sim.add_argument("--speed", choices=["normal", "turbo", "hyper"], default="hyper")
    sim.add_argument("--seats", type=int, default=8, help="seats per table (2-8)")
    sim.add_argument("--hands-per-level", type=int, default=None, help="default: by the field")
    sim.add_argument("--payouts", default="top15")
    sim.add_argument(
        "--bot-delay-ms", type=int, default=0, help="each bot's think time (default 0: at once)"
    )
    sim.add_argument(
        "--hand-pause-ms", type=int, default=0, help="the pause between hands (default 0)"
    )
    sim.add_argument("--json", dest="json_file", help="also write the result as JSON here")
    sim.add_argument("--timeout", type=float, default=1800.0, help="seconds before giving up")


def run(args: argparse.Namespace) -> int:
    if args.action != "simulate":
        return run_operator(args)
    if args.players < 2:
        print("tournaments simulate: --players must be 2 or more", file=sys.stderr)
        return EXIT_UNUSABLE
    if not 2 <= args.seats <= 8:
        print("tournaments simulate: --seats must be 2 to 8", file=sys.stderr)
        return EXIT_UNUSABLE
    for flag, value in (
        ("--bot-delay-ms", args.bot_delay_ms),
        ("--hand-pause-ms", args.hand_pause_ms),
    ):
        if not 0 <= value <= 60_000:
            print(f"tournaments simulate: {flag} must be 0 to 60000", file=sys.stderr)
            return EXIT_UNUSABLE
    try:
        spec_for(args)  # the host form's own checks, before anything starts
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "the tournament"
        print(f"tournaments simulate: {where}: {first['msg']}", file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        result = asyncio.run(simulate(args))
    except (OSError, RuntimeError) as exc:
        print(f"tournaments simulate: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    _print(result)
    if args.json_file:
        with open(args.json_file, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)
    return EXIT_OK if result["finished"] and result["ledger_ok"] else EXIT_FAILED


def spec_for(args: argparse.Namespace) -> TournamentSpec:
    """A sit & go of `--players` seats, levels by hands (a level for about three hands at
    every table), its pace the bots' own: by default no pause between hands and no think
    time (below the hosts' floors, which only a director's own tables may go)."""
    tables = math.ceil(args.players / args.seats)
    per_level = args.hands_per_level or max(4, 3 * tables)
    spec = TournamentSpec(
        name=f"Simulation {args.seed}",
        variant=args.variant,
        seats_per_table=args.seats,
        buy_in=1000,
        fee=100,
        starting_chips=1500,
        structure=Preset(preset=args.speed, by_hands=per_level),
        payouts=args.payouts,
        max_players=args.players,
    )
    pace = {"hand_pause_ms": args.hand_pause_ms, "bot_delay_ms": args.bot_delay_ms}
    return spec.model_copy(update=pace)


async def simulate(args: argparse.Namespace) -> dict[str, Any]:
    """Start the server's parts in this process, make the sit & go, fill it with bots (the
    last one starts it), and wait for the director to finish."""
    from app.main import create_app  # the web stack only for this command

    settings = get_settings()
    application = create_app(settings)
    seed = hashlib.sha256(f"tournaments simulate:{args.seed}".encode()).digest()
    async with application.router.lifespan_context(application):
        services = application.state.table_services
        db = services.db
        finished = asyncio.Event()

        mail = services.directors.on_finish

        async def done(tournament_id: int) -> None:
            await mail(tournament_id)
            finished.set()

        services.directors.on_finish = done
        made = await service.create(db, spec_for(args), host_user_id=None, seed=seed)
        tid = made["id"]
        await service.add_bots(db, tid, args.players - 1)
        async with db.session() as s:
            t = await store.get_tournament(s, tid)
        # the last seat is taken in the director's own claim: beside other server processes,
        # none of their heartbeats may take the sit & go as it fills (this process waits for
        # its own director to finish)
        await services.directors.start_now(
            tid, within=lambda s: service.enter_bot(s, t, args.players - 1)
        )
        try:
            await asyncio.wait_for(finished.wait(), args.timeout)
            ok = True
        except TimeoutError:
            ok = False
        director = services.directors.running.get(tid)
        if ok and director is not None:
            # the summaries go out before the tables close: the result is read once the
            # director has closed them (the winner stood up with every chip), if they answer
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(director.done.wait(), CLOSE_WAIT)
        return await _result(db, tid, ok, services.directors)


async def _result(db: Any, tid: int, finished: bool, directors: Any) -> dict[str, Any]:
    async with db.snapshot() as s:  # the ledger check's tables as of one moment
        t = await store.get_tournament(s, tid)
        entries = list(await store.entries(s, tid))
        names = await accounts.names_of(s, (e.user_id for e in entries))
        hands = await s.scalar(
            select(func.count()).select_from(HandRecord).where(HandRecord.tournament_id == tid)
        )
        report = await check_ledger(s)
    state = t.state or {}
    placed = sorted((e for e in entries if e.place is not None), key=lambda e: e.place or 0)
    return {
        "tournament_id": tid,
        "finished": finished and t.status == "finished",
        "entrants": sum(1 for e in entries if e.status != "unregistered"),
        "prize_pool": int(t.prize_pool or 0),
        "places": [
            {"place": e.place, "player": names.get(e.user_id, "?"), "prize": int(e.prize or 0)}
            for e in placed
        ],
        "hands": int(hands or 0),
        "most_tables": int(state.get("most_tables", 0)),
        "moves": int(state.get("moves", 0)),
        "tables_broken": len(state.get("breaks", [])),
        "ledger_ok": report.ok,
        "ledger_violations": report.violations[:10],
    }


def _print(r: dict[str, Any]) -> None:
    print(f"tournament {r['tournament_id']}: {'finished' if r['finished'] else 'NOT finished'}")
    print(f"entrants {r['entrants']}, prize pool {r['prize_pool'] / 100:.2f}")
    for p in r["places"]:
        print(f"{p['place']:>5}. {p['player']:<24} {p['prize'] / 100:>10.2f}")
    print(
        f"hands {r['hands']}, most tables at once {r['most_tables']}, moves {r['moves']}, "
        f"tables broken {r['tables_broken']}"
    )
    print("ledger check: " + ("ok" if r["ledger_ok"] else "; ".join(r["ledger_violations"])))


__all__ = ["add_arguments", "run"]
