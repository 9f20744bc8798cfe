"""The chip ledger: `python -m app ledger check` verifies every invariant and prints the totals."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from sqlalchemy.exc import SQLAlchemyError

from app.config import get_settings
from app.store.audit import LedgerReport, check_ledger
from app.store.db import Database
from app.store.migrate import schema_state

EXIT_OK, EXIT_VIOLATIONS, EXIT_UNUSABLE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    check = actions.add_parser(
        "check",
        help="verify every ledger invariant and print the totals (exit 1 on any violation)",
        description=(
            "Checks that every transaction's entries sum to zero, each account's balance "
            "equals the sum of its entries, no balance but the bank's and no stack is "
            "negative, each table's escrow equals the chips seated there, and each "
            "tournament's prize pool, chips, prizes and players add up."
        ),
    )
    check.add_argument("--database-url", help="default: DATABASE_URL, else SQLite in DATA_DIR")
    check.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    url = args.database_url or get_settings().effective_database_url
    return asyncio.run(_check(url, as_json=args.json))


async def _check(url: str, *, as_json: bool) -> int:
    db = Database(url)
    try:
        state = await schema_state(db)
        if not state.current:
            print(f"ledger check: {db.url.render_as_string()} has no schema yet", file=sys.stderr)
            return EXIT_UNUSABLE
        async with db.snapshot() as session:
            report = await check_ledger(session)
    except (SQLAlchemyError, OSError) as exc:
        print(f"ledger check: cannot read the database: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    finally:
        await db.dispose()
    _print(report, as_json=as_json)
    return EXIT_OK if report.ok else EXIT_VIOLATIONS


def _print(report: LedgerReport, *, as_json: bool) -> None:
    if as_json:
        payload = {
            "ok": report.ok,
            "transactions": report.transactions,
            "entries": report.entries,
            "entries_total": report.entries_total,
            "balances": report.totals,
            "seated": report.seated,
            "tournaments": report.tournaments,
            "adjustments": {"count": report.adjustments, "net": report.adjusted},
            "violations": report.violations,
        }
        print(json.dumps(payload, indent=2, sort_keys=True))
    else:
        print("\n".join(report.lines()))
