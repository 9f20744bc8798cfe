"""The operators: `python -m app admin grant NAME` makes a player an operator (the admin
page `/admin` opens for them), `revoke NAME` takes it back (at their next request, open
sessions included), `log` prints the moderation log, newest first. No web page makes the
first operator: this command, run where the server's database is reachable, is the only way.
Every grant and revoke is a line of the log (by "command line")."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from app.config import get_settings
from app.store import moderation
from app.store.db import Database
from app.store.errors import UserNotFound

EXIT_OK, EXIT_REFUSED = 0, 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    grant = actions.add_parser("grant", help="make a player an operator")
    grant.add_argument("name")
    revoke = actions.add_parser("revoke", help="make an operator a player again")
    revoke.add_argument("name")
    log = actions.add_parser("log", help="the moderation log, newest first")
    log.add_argument("--limit", type=int, default=100)
    log.add_argument("--json", action="store_true", help="one JSON object a line")
    for sub in (grant, revoke, log):
        sub.add_argument("--database-url", help="default: DATABASE_URL, else SQLite in DATA_DIR")


def run(args: argparse.Namespace) -> int:
    url = args.database_url or get_settings().effective_database_url
    return asyncio.run(_run(args, url))


async def _run(args: argparse.Namespace, url: str) -> int:
    db = Database(url)
    try:
        if args.action == "log":
            async with db.session() as s:
                lines = await moderation.read_log(s, limit=args.limit)
            for line in lines:
                print(json.dumps(line) if args.json else _text(line))
            return EXIT_OK
        role = moderation.OPERATOR if args.action == "grant" else moderation.PLAYER
        try:
            async with db.transaction() as s:
                user = await moderation.set_role(s, args.name, role)
        except UserNotFound as exc:
            print(f"admin {args.action}: {exc.message}", file=sys.stderr)
            return EXIT_REFUSED
        print(f"{user.name} is now {'an operator' if role == moderation.OPERATOR else 'a player'}")
        return EXIT_OK
    finally:
        await db.dispose()


def _text(line: dict[str, object]) -> str:
    whom = f" {line['target']}" if line["target"] else ""
    table = f" table {line['table']}" if line["table"] is not None else ""
    why = f" because: {line['reason']}" if line["reason"] else ""
    detail = f" {json.dumps(line['detail'])}" if line["detail"] else ""
    return f"{line['at']}  {line['actor']}: {line['action']}{whom}{table}{detail}{why}"
