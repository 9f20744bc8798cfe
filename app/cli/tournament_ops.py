"""The operator's tournament commands: `python -m app tournaments freeze|resume|cancel ID`.
The running tournament's director does them, on whichever server process holds its lease
(asked through the fan-out, as `tables move` asks a table's owner; it needs REDIS_URL);
before the start a cancellation is written here, everyone refunded (R36).

Exit codes: 0 done; 1 refused and nothing changed (no such tournament, it is over, not
started, or no server process directs it now, or the director said no)."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from typing import Any

from app.cli.tables import NoTables
from app.config import get_settings
from app.fanout import create_fanout
from app.store.db import Database
from app.store.directory import Directory
from app.store.errors import TournamentNotFound
from app.tables.errors import TableError
from app.tables.rpc import TableRouter
from app.tournaments import reach
from app.tournaments.operator import ACTIONS, operate
from app.tournaments.service import Tell

EXIT_OK, EXIT_REFUSED = 0, 1
HELP = {
    "freeze": "freeze a running tournament: every table stops after its hand, the clock stops",
    "resume": "resume a frozen tournament: the level and its time left as they were",
    "cancel": "cancel a tournament: before anyone is out everyone is refunded, after it the "
    "prizes decided stay paid and the rest is chopped by chips (R36)",
}


class Unreachable(Exception):
    """No server process can be asked for the tournament's director."""


def add_operator_arguments(actions: Any) -> None:
    for action in ACTIONS:
        parser = actions.add_parser(action, help=HELP[action], description=__doc__)
        parser.add_argument("tournament", type=int)
        parser.add_argument(
            "--seconds", type=float, default=10.0, help="how long to wait for the director"
        )


def run_operator(args: argparse.Namespace) -> int:
    return asyncio.run(_operate(args.action, args.tournament, args.seconds))


async def _operate(action: str, tournament_id: int, seconds: float) -> int:
    settings = get_settings()
    db = Database(settings.effective_database_url)
    if settings.fanout_url.startswith("memory://"):  # no other process can be asked
        try:
            return await operate_and_say(db, _no_fanout, tournament_id, action)
        finally:
            await db.dispose()
    fanout = create_fanout(settings.fanout_url, namespace=settings.redis_namespace)
    directory = Directory(db, lease_seconds=settings.lease_seconds)
    router = TableRouter(
        NoTables(), fanout, me=secrets.token_hex(16), directory=directory, timeout=seconds
    )
    try:
        await router.start()
        return await operate_and_say(db, through(db, router), tournament_id, action)
    finally:
        await router.stop()
        await fanout.close()
        await db.dispose()


async def _no_fanout(tournament_id: int, name: str, args: dict[str, Any]) -> Any:
    raise Unreachable("reaching a running tournament's director needs REDIS_URL")


def through(db: Database, router: TableRouter) -> Tell:
    """The director asked on the process that holds its lease."""

    async def tell(tournament_id: int, name: str, args: dict[str, Any]) -> Any:
        if await reach.director_process(db, tournament_id) is None:
            raise Unreachable(f"no server process directs tournament {tournament_id} now")
        return await reach.tell(db, router, None, tournament_id, name, args)

    return tell


async def operate_and_say(db: Database, tell: Tell, tournament_id: int, action: str) -> int:
    """Do it, and say what came of it (stdout) or why not (stderr)."""
    try:
        answer = await operate(db, tell, tournament_id, action)
    except TournamentNotFound:
        print(f"tournament {tournament_id}: no such tournament", file=sys.stderr)
        return EXIT_REFUSED
    except TableError as exc:
        print(f"tournament {tournament_id}: {exc.message} ({exc.code})", file=sys.stderr)
        return EXIT_REFUSED
    except Unreachable as exc:
        print(f"tournament {tournament_id}: {exc}; nothing changed", file=sys.stderr)
        return EXIT_REFUSED
    print(f"tournament {tournament_id}: {said(action, answer)}")
    return EXIT_OK


def said(action: str, answer: dict[str, Any]) -> str:
    if action != "cancel":
        return "frozen" if answer.get("frozen") else "resumed"
    if answer.get("chopped"):
        return "cancelled; the prizes decided stay paid, the rest chopped by chips (R36)"
    return "cancelled; everything paid in refunded (R36)"
