"""Verify a hand's deal: `python -m app verify NUMBER` (operators) opens the per-card
commitment with the stored master salt and deck, checks every dealt card against its deck
position, and replays the hand from them to its recorded events and result.

`python -m app verify --tournament ID` checks a tournament: its revealed seed against the
commitment published when it was made, every draw its director made repeated from that
seed (R38), and every hand it dealt as above."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sqlalchemy.exc import SQLAlchemyError

from app.config import get_settings
from app.engine import commitment
from app.store import hands, tournaments
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.history import replay
from app.tournaments.audit import check_draws

EXIT_OK, EXIT_MISMATCH, EXIT_UNUSABLE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "number", type=int, nargs="?", help="the hand's number (as the table shows it)"
    )
    parser.add_argument("--tournament", type=int, help="a tournament: its draws and hands")
    parser.add_argument("--database-url", help="default: DATABASE_URL, else SQLite in DATA_DIR")


def run(args: argparse.Namespace) -> int:
    url = args.database_url or get_settings().effective_database_url
    if (args.number is None) == (args.tournament is None):
        print("verify: give a hand's NUMBER or --tournament ID, one of them", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.tournament is not None:
        return asyncio.run(_verify_tournament(url, args.tournament))
    return asyncio.run(_verify(url, args.number))


async def _verify_tournament(url: str, tournament_id: int) -> int:
    db = Database(url)
    try:
        async with db.session() as s:
            rows = await tournaments.draws(s, tournament_id)
            dealt = await hands.of_tournament(s, tournament_id)
    except (SQLAlchemyError, OSError) as exc:
        print(f"verify: cannot read the database: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    finally:
        await db.dispose()
    if not rows:
        print(f"verify: no tournament #{tournament_id}", file=sys.stderr)
        return EXIT_UNUSABLE
    problems, checked = check_draws(rows)
    for row in dealt:
        problems += [f"hand #{row.number}: {p}" for p in check(row)]
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        return EXIT_MISMATCH
    print(
        f"OK: tournament #{tournament_id}: the seed is the one committed to, its {checked} "
        f"draws repeat from it, and its {len(dealt)} hands replay from their deals"
    )
    return EXIT_OK


def check(row: HandRecord) -> list[str]:
    """What is wrong with the finished hand's deal (empty: it verifies)."""
    if row.deck is None or row.salt is None:
        return ["the deck and salt are not revealed"]
    problems = []
    try:
        opened = commitment.reveal(row.deck, bytes.fromhex(row.salt), range(commitment.DECK_SIZE))
    except ValueError as exc:
        return [f"the stored deck or master salt is malformed: {exc}"]
    if not commitment.verify_reveal(row.commitment, opened):
        problems.append("the deck and master salt do not match the commitment")
    problems.extend(f"dealt card {p}" for p in commitment.check_deal(row.events or [], opened))
    try:
        hand = replay(row)
    except ValueError as exc:
        return [*problems, f"the hand does not replay from its deck: {exc}"]
    if [e.to_dict() for e in hand.events] != row.events:
        problems.append("replayed from the deck, the hand's events differ from the record")
    stacks = {str(seat): stack for seat, stack in hand.stacks.items()}
    if row.result is None or stacks != row.result.get("stacks"):
        problems.append("replayed from the deck, the final stacks differ from the record")
    return problems


async def _verify(url: str, number: int) -> int:
    db = Database(url)
    try:
        async with db.session() as s:
            row = await hands.hand_by_number(s, number)
    except (SQLAlchemyError, OSError) as exc:
        print(f"verify: cannot read the database: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    finally:
        await db.dispose()
    if row is None:
        print(f"verify: no hand #{number}", file=sys.stderr)
        return EXIT_UNUSABLE
    if row.status != HandStatus.DONE:
        print(f"verify: hand #{number} is {row.status}: its deck is never revealed")
        return EXIT_UNUSABLE
    print(f"hand #{row.number}, table {row.table_id} ({row.variant}), started {row.started_at}")
    print(f"commitment {row.commitment}  ({commitment.SCHEME})")
    print(f"master     {row.salt}")
    print(f"deck       {row.deck}")
    problems = check(row)
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        return EXIT_MISMATCH
    print("OK: the deal was fixed before the first card, and the hand replays from it")
    return EXIT_OK
