"""Export every finished hand of a period: `python -m app export --since 2026-11-01
[--until …] --format phh|pokerstars [--output FILE]`, or of one tournament: `python -m app
export --tournament ID --format phh|pokerstars` (PokerStars' tournament header, its level
and bare chips; PHH's `event`, `level` and `_tournament`).

PokerStars text: one hand after another, a blank line between. PHH: one `.phhs` file, each
hand a numbered table (``[1]``, ``[2]`` …). Cards follow R24 (the showdown's, never a folded
seat's) unless `--all-cards` with `--format phh` (the house's audit copy, which replays in
pokerkit as dealt; PokerStars text has no place for a folded seat's down cards).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime

from sqlalchemy.exc import SQLAlchemyError

from app.config import get_settings
from app.store import hands
from app.store.db import Database
from app.store.history import history_view, tournament_of

EXIT_OK, EXIT_UNUSABLE = 0, 2


def _when(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO date or time (2026-11-01, 2026-11-01T18:30+01:00)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--since", type=_when, help="ISO date or time (UTC)")
    parser.add_argument("--tournament", type=int, help="every hand of this tournament")
    parser.add_argument("--until", type=_when, default=None, help="ISO date or time (UTC)")
    parser.add_argument("--format", choices=["phh", "pokerstars"], default="pokerstars")
    parser.add_argument("--output", "-o", help="a file (default: standard output)")
    parser.add_argument(
        "--all-cards", action="store_true", help="every card, folded too (PHH only)"
    )
    parser.add_argument("--database-url", help="default: DATABASE_URL, else SQLite in DATA_DIR")


def run(args: argparse.Namespace) -> int:
    if args.all_cards and args.format != "phh":
        # PokerStars text has no line for a folded hand's down cards: it would not be "all"
        print("export: --all-cards needs --format phh", file=sys.stderr)
        return EXIT_UNUSABLE
    if (args.since is None) == (args.tournament is None):
        print("export: give --since (a period) or --tournament ID, one of them", file=sys.stderr)
        return EXIT_UNUSABLE
    url = args.database_url or get_settings().effective_database_url
    try:
        text, count = asyncio.run(
            export(
                url, args.since, args.until, fmt=args.format, all_cards=args.all_cards,
                tournament=args.tournament,
            )
        )  # fmt: skip
    except (SQLAlchemyError, OSError) as exc:
        print(f"export: cannot read the database: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            print(f"export: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_UNUSABLE
    else:
        sys.stdout.write(text)
    print(f"export: {count} hands", file=sys.stderr)
    return EXIT_OK


async def export(
    url: str,
    since: datetime | None,
    until: datetime | None,
    *,
    fmt: str,
    all_cards: bool = False,
    tournament: int | None = None,
) -> tuple[str, int]:
    db = Database(url)
    try:
        async with db.session() as s:
            if tournament is not None:
                rows = await hands.of_tournament(s, tournament)
            else:
                assert since is not None
                rows = await hands.finished_between(s, since, until)
            of = [await tournament_of(s, row) for row in rows]
    finally:
        await db.dispose()
    parts = []
    for n, (row, t) in enumerate(zip(rows, of, strict=True), 1):
        view = history_view(row, None, full=all_cards, tournament=t)
        if fmt == "phh":
            parts.append(f"[{n}]\n# hand #{row.number}\n{view.phh}")
        else:
            parts.append(view.pokerstars_text)
    return "\n".join(parts), len(rows)
