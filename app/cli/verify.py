"""Verify a hand's deal: `python -m app verify NUMBER` (operators) opens the deal with the
stored master salt and deck (seeded-v2: the slot cards, the server seed and the seeds, the
permutation they draw; sha256-per-card-v1 for older hands), checks every dealt card against
its deck position, and replays the hand from them to its recorded events and result.
`--public` checks only what anyone may read (`GET /api/proof/{number}`) and says what that
proves.

`python -m app verify --tournament ID` checks a tournament: its revealed seed against the
commitment published when it was made, every draw its director made repeated from that
seed (R38), and every hand it dealt as above."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import get_settings
from app.engine import commitment, seeded
from app.store import hands, tournaments
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.history import public_proof, replay
from app.tournaments.audit import check_draws

EXIT_OK, EXIT_MISMATCH, EXIT_UNUSABLE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "number", type=int, nargs="?", help="the hand's number (as the table shows it)"
    )
    parser.add_argument("--tournament", type=int, help="a tournament: its draws and hands")
    parser.add_argument(
        "--public",
        action="store_true",
        help="check the hand from its public record only (what anyone may read)",
    )
    parser.add_argument("--database-url", help="default: DATABASE_URL, else SQLite in DATA_DIR")


def run(args: argparse.Namespace) -> int:
    url = args.database_url or get_settings().effective_database_url
    if (args.number is None) == (args.tournament is None):
        print("verify: give a hand's NUMBER or --tournament ID, one of them", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.tournament is not None:
        return asyncio.run(_verify_tournament(url, args.tournament))
    if args.public:
        return asyncio.run(_verify_public(url, args.number))
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


def check(row: HandRecord, before: HandRecord | None = None) -> list[str]:
    """What is wrong with the finished hand's deal (empty: it verifies); `before`: the
    table's hand before it, whose `next` must have announced it (seeded-v2)."""
    if row.deck is None or row.salt is None:
        return ["the deck and salt are not revealed"]
    problems = _check_seeded(row, before) if row.deal is not None else _check_v1(row)
    try:
        hand = replay(row)
    except (ValueError, KeyError) as exc:
        return [*problems, f"the hand does not replay from its deck: {exc}"]
    if [e.to_dict() for e in hand.events] != row.events:
        problems.append("replayed from the deck, the hand's events differ from the record")
    stacks = {str(seat): stack for seat, stack in hand.stacks.items()}
    if row.result is None or stacks != row.result.get("stacks"):
        problems.append("replayed from the deck, the final stacks differ from the record")
    return problems


def _check_seeded(row: HandRecord, before: HandRecord | None) -> list[str]:
    assert row.deal is not None and row.salt is not None and row.deck is not None
    try:
        dealt = seeded.RecordedDeal(row.deal, row.salt)
    except (ValueError, KeyError, TypeError) as exc:
        return [f"the stored deal is malformed: {exc}"]
    problems = []
    if dealt.sealing.sealed != row.commitment:
        problems.append("the slot cards and master salt do not seal to the commitment")
    if commitment.deck_text(dealt.deck()) != row.deck:
        problems.append(
            "the deck dealt is not the slot cards in the order the server seed and the seeds draw"
        )
    problems += seeded.check_deal_v2(
        row.events or [],
        dealt.announce(),
        dealt.reveal(range(seeded.DECK_SIZE)),
        previous_commits=_commits_before(row, before),
        committed=dealt.public,
    )
    return problems


def _commits_before(row: HandRecord, before: HandRecord | None) -> list[Any] | None:
    """The chain heads of the table's hand before, if it announced this hand."""
    if before is None or before.deal is None:
        return None
    if (before.deal.get("next") or {}).get("sealed") != row.commitment:
        return None
    commits: list[Any] = before.deal.get("commits") or []
    return commits


def _check_v1(row: HandRecord) -> list[str]:
    assert row.deck is not None and row.salt is not None
    problems = []
    try:
        opened = commitment.reveal(row.deck, bytes.fromhex(row.salt), range(commitment.DECK_SIZE))
    except ValueError as exc:
        return [f"the stored deck or master salt is malformed: {exc}"]
    if not commitment.verify_reveal(row.commitment, opened):
        problems.append("the deck and master salt do not match the commitment")
    problems.extend(f"dealt card {p}" for p in commitment.check_deal(row.events or [], opened))
    return problems


async def _before(s: AsyncSession, row: HandRecord) -> HandRecord | None:
    """The table's finished hand before `row`."""
    found = await s.scalars(
        select(HandRecord)
        .where(
            HandRecord.table_id == row.table_id,
            HandRecord.number < row.number,
            HandRecord.status == HandStatus.DONE,
        )
        .order_by(HandRecord.number.desc())
        .limit(1)
    )
    return found.first()


async def _read(url: str, number: int) -> tuple[HandRecord | None, HandRecord | None] | None:
    db = Database(url)
    try:
        async with db.session() as s:
            row = await hands.hand_by_number(s, number)
            before = await _before(s, row) if row is not None else None
    except (SQLAlchemyError, OSError) as exc:
        print(f"verify: cannot read the database: {exc}", file=sys.stderr)
        return None
    finally:
        await db.dispose()
    return row, before


PROVES = (
    "the sealed deck and the server seed were announced before any seed for the hand; the "
    "52 slots hash to the sealed deck; the seeds revealed are the ones announced (and, where "
    "the hand before was read, each is the seed its player's chain committed to); every card "
    "the table showed came from the slot that the server seed and the seeds put at its "
    "position. Not proved: any card nobody was shown, nor that the house drew its seed and "
    "slots at random (one honest player's seed makes the order unforeseeable to the house)"
)


def check_public(proof: dict[str, Any], before: dict[str, Any] | None = None) -> list[str]:
    """What is wrong with a hand's public record (`GET /api/proof/{number}`); `before`: the
    table's hand before's, for the seed chains."""
    if proof["scheme"] != seeded.SCHEME:
        reveal = proof["reveal"]
        problems = (
            []
            if commitment.verify_reveal(proof["deal_committed"]["commitment"], reveal)
            else ["the public reveal does not open the commitment"]
        )
        return problems + commitment.check_deal(proof["events"], reveal)
    previous = None
    if before is not None and before["scheme"] == seeded.SCHEME:
        dc = before["deal_committed"]
        if (dc.get("next") or {}).get("sealed") == proof["announce"]["sealed"]:
            previous = dc.get("commits") or []
    return seeded.check_deal_v2(
        proof["events"],
        proof["announce"],
        proof["reveal"],
        previous_commits=previous,
        committed=proof["deal_committed"],
    )


async def _verify_public(url: str, number: int) -> int:
    read = await _read(url, number)
    if read is None:
        return EXIT_UNUSABLE
    row, before = read
    if row is None or row.status != HandStatus.DONE:
        print(f"verify: no finished hand #{number}", file=sys.stderr)
        return EXIT_UNUSABLE
    proof = public_proof(row)
    previous = public_proof(before) if before is not None else None
    print(f"hand #{row.number}: its public record ({proof['scheme']})")
    problems = check_public(proof, previous)
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        return EXIT_MISMATCH
    if proof["scheme"] == seeded.SCHEME:
        print(f"OK: from the public record only: {PROVES}")
    else:
        print(
            "OK: from the public record only (sha256-per-card-v1): every card the table "
            "showed sat at its position in the deck committed to before the first card; "
            "not that the house did not choose that deck"
        )
    return EXIT_OK


async def _verify(url: str, number: int) -> int:
    read = await _read(url, number)
    if read is None:
        return EXIT_UNUSABLE
    row, before = read
    if row is None:
        print(f"verify: no hand #{number}", file=sys.stderr)
        return EXIT_UNUSABLE
    if row.status != HandStatus.DONE:
        print(f"verify: hand #{number} is {row.status}: its deck is never revealed")
        return EXIT_UNUSABLE
    print(f"hand #{row.number}, table {row.table_id} ({row.variant}), started {row.started_at}")
    scheme = seeded.SCHEME if row.deal is not None else commitment.SCHEME
    print(f"commitment {row.commitment}  ({scheme})")
    print(f"master     {row.salt}")
    if row.deal is not None:
        print(f"slots      {row.deal.get('slot_cards')}")
        print(f"server     {row.deal.get('server_seed')}")
        seeds = ", ".join(f"{e['seat']}:{e['seed']}" for e in row.deal.get("seed_values", []))
        print(f"seeds      {seeds or '(none)'}")
    print(f"deck       {row.deck}")
    problems = check(row, before)
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        return EXIT_MISMATCH
    if row.deal is not None:
        print(
            "OK: the sealed deck and server seed were announced before the seeds, the deck "
            "is their permutation of the slots, and the hand replays from it"
        )
    else:
        print("OK: the deal was fixed before the first card, and the hand replays from it")
    return EXIT_OK
