"""`python -m app export` on the real database, both backends (a subprocess, as operators run
it; the period cases through the CLI's own `main`): every finished hand of a period in
PokerStars text or one PHH `.phhs` file; the period's bounds; R24 (no card of a seat that did
not reach the showdown but its up cards; `??` for each of its down cards in PHH) against
`--all-cards`, the house's audit copy (PHH only); the PHH replays strictly in pokerkit to the
recorded stacks; bad input is refused clearly."""

from __future__ import annotations

import asyncio
import re
import sys
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pokerkit.notation import HandHistory
from sqlalchemy import select, update

from app.__main__ import main
from app.engine.cards import seeded_rng, shuffled_deck
from app.store import hands
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.tables import messages as m
from tests.engine.pokerkit_oracle import replay_strict
from tests.store.cards_seen import Deal, cards_in
from tests.store.hands_play import play_hands, seated_table, start_hand

ROOT = Path(__file__).resolve().parents[2]
# when the four finished hands ended: on both bounds of the periods below, and inside them
ENDED = [
    datetime(2026, 11, 1, tzinfo=UTC),
    datetime(2026, 11, 2, tzinfo=UTC),
    datetime(2026, 11, 3, 10, 30, tzinfo=UTC),
    datetime(2026, 11, 5, 23, 59, 59, 999_000, tzinfo=UTC),
]


@dataclass(frozen=True)
class Played:
    url: str
    rows: list[HandRecord]  # the finished hands, oldest first, ended at ENDED
    void_number: int  # a hand the server died in, voided, "ended" on 2 November too


@pytest.fixture
async def played(db: Database, db_url: str) -> Played:
    # pokerkit knows no rake: this table takes none, so the stacks must agree exactly
    manager, table, clock, _ = await seated_table(db, 3, "stud", rake_bps=0)
    rng = seeded_rng("export")  # decks from a seed: hands where a seat folds, every run
    table.deck_source = lambda: shuffled_deck(rng)
    try:
        await play_hands(table, clock, 4, fold_seat=1)  # seat 1 folds facing a bet
        await table.request(m.Sync())
        await start_hand(table, clock)
        void_id = table.state.hand_id
        await manager.writer.drain()
    finally:
        await manager.stop()
    async with db.transaction() as s:
        voided = await hands.void_live_hands(s)
        assert [row.id for row in voided] == [void_id]
        await s.execute(
            update(HandRecord)
            .where(HandRecord.id == void_id)
            .values(ended_at=ENDED[1] + timedelta(hours=1))
        )
        done = list(
            await s.scalars(
                select(HandRecord)
                .where(HandRecord.status == HandStatus.DONE)
                .order_by(HandRecord.started_at)
            )
        )
        assert len(done) == 4
        for row, ended in zip(done, ENDED, strict=True):
            row.started_at, row.ended_at = ended - timedelta(minutes=3), ended
    async with db.session() as s:
        rows = [await hands.get_hand(s, row.id) for row in done]
        void = await hands.get_hand(s, void_id or "")
    assert void is not None and void.status == HandStatus.VOID
    return Played(db_url, [row for row in rows if row is not None], void.number)


async def export(url: str, *args: str) -> tuple[int, str, str]:
    """`python -m app export ARGS --database-url URL`: exit code, standard output and error."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app", "export", *args, "--database-url", url,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(120):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def pokerstars_hands(text: str) -> dict[int, str]:
    """Each hand of a PokerStars export, by its number."""
    parts = re.split(r"(?m)^(?=PokerStars Hand #)", text)
    assert parts[0] == ""
    found = {int(re.match(r"PokerStars Hand #(\d+): ", p)[1]): p for p in parts[1:]}  # type: ignore[index]
    assert len(found) == len(parts) - 1
    return found


def phh_hands(text: str) -> list[dict[str, Any]]:
    """The tables of a `.phhs` file, in order; they are numbered [1], [2] …"""
    doc = tomllib.loads(text)
    assert list(doc) == [str(i) for i in range(1, len(doc) + 1)]
    return [doc[str(i)] for i in range(1, len(doc) + 1)]


def phh_sections(text: str) -> list[str]:
    """The raw text of each table of a `.phhs` file, in order (its comments too)."""
    parts = re.split(r"(?m)^\[\d+\]\n", text)
    assert parts[0] == ""
    return parts[1:]


def seat_of(table: dict[str, Any]) -> dict[str, int]:
    """PHH player label ("p1" …) -> the seat it sat in (`seats` is 1-based)."""
    return {f"p{i + 1}": seat - 1 for i, seat in enumerate(table["seats"])}


def dealt(table: dict[str, Any]) -> dict[str, list[str]]:
    """Per player label, the cards its deal lines give it, in order ("??" for unknown)."""
    out: dict[str, list[str]] = {}
    for action in table["actions"]:
        words = action.split()
        if words[:2] == ["d", "dh"]:
            cards = words[3]
            out.setdefault(words[2], []).extend(cards[i : i + 2] for i in range(0, len(cards), 2))
    return out


async def test_r24_pokerstars_export_shows_no_card_but_up_and_showdown_ones(
    played: Played,
) -> None:
    code, out, err = await export(played.url, "--since", "2026-11-01")
    assert code == 0, err
    assert err == "export: 4 hands\n"
    texts = pokerstars_hands(out)
    assert list(texts) == [row.number for row in played.rows]  # oldest first
    hidden_somewhere = False
    for row in played.rows:
        deal = Deal.of(row)
        seen = set(cards_in(texts[row.number]))
        # the whole text, street lines too: up cards and the showdown's (mucked or not)
        assert seen == deal.visible(None), seen ^ deal.visible(None)
        hidden_somewhere |= bool(deal.hidden(None))
        for seat in deal.folded:
            name = next(s["name"] for s in row.seats if s["seat"] == seat)
            assert re.search(rf"^Seat {seat + 1}: {name} folded on the ", texts[row.number], re.M)
    assert hidden_somewhere  # some seat folded with down cards this export must not show

    code, everything, err = await export(played.url, "--since", "2026-11-01", "--all-cards")
    assert code == 2 and everything == ""
    assert "--all-cards" in err and "--format phh" in err


async def test_r24_phh_export_masks_folded_down_cards_and_all_cards_shows_them(
    played: Played, tmp_path: Path
) -> None:
    masked_file, full_file = tmp_path / "period.phhs", tmp_path / "audit.phhs"
    for path, extra in ((masked_file, ()), (full_file, ("--all-cards",))):
        code, out, err = await export(
            played.url, "--since", "2026-11-01", "--format", "phh", "--output", str(path), *extra
        )
        assert (code, out, err) == (0, "", "export: 4 hands\n")
    masked, full = masked_file.read_text(), full_file.read_text()

    hidden_somewhere = False
    hands_in = zip(
        played.rows, phh_hands(masked), phh_hands(full), phh_sections(masked), strict=True
    )
    for row, table, audit, section in hands_in:
        assert table["hand"] == audit["hand"] == row.number
        deal = Deal.of(row)
        labels = seat_of(table)
        assert set(cards_in(section)) == deal.visible(None)  # the hand's whole text
        for label, cards in dealt(table).items():
            seat = labels[label]
            # R24: a seat not at the showdown keeps its up cards; each down card is ??
            expected = [
                c if seat in deal.showdown or c in deal.up else "??" for c in dealt(audit)[label]
            ]
            assert cards == expected, (label, cards)
            hidden_somewhere |= "??" in cards
        # the audit copy: every card as dealt, to every seat
        assert "??" not in "\n".join(audit["actions"])
        assert {c for cs in dealt(audit).values() for c in cs} == deal.every_card
        for label, cards in dealt(audit).items():
            assert [c for c in cards if c not in deal.up] == deal.down[labels[label]]
    assert hidden_somewhere
    assert "????" in masked  # a folded seat's two first down cards, as the deal line has them

    # pokerkit reads both files and, strictly, replays every hand to the recorded stacks
    for text in (masked, full):
        histories = list(HandHistory.loads_all(text))
        assert [h.hand for h in histories] == [row.number for row in played.rows]
        for row, history in zip(played.rows, histories, strict=True):
            assert row.result is not None and row.events is not None
            stacks = [row.result["stacks"][str(seat)] for seat in row.events[0]["seats"]]
            *_, final = history  # pokerkit's own replay of the hand as loaded
            assert list(final.stacks) == stacks
            assert replay_strict(history.dumps()).finishing_stacks == stacks  # line by line
            assert list(history.finishing_stacks or []) == stacks


PERIODS: list[tuple[str, str | None, list[int]]] = [
    ("2026-11-01", None, [0, 1, 2, 3]),  # a date is its midnight UTC, and it is included
    ("2026-11-01T00:00:00.001", None, [1, 2, 3]),
    ("2026-11-01", "2026-11-02", [0]),  # until is excluded
    ("2026-11-01", "2026-11-02T00:00:00.001", [0, 1]),
    ("2026-11-02T01:00+01:00", "2026-11-05T23:59:59.999", [1, 2]),  # an offset is kept
    ("2026-11-03T10:30Z", "2026-11-06", [2, 3]),
    ("2026-11-06", None, []),
    ("2026-10-01", "2026-11-01", []),
]


async def test_the_period_takes_the_hands_that_ended_in_it(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for n, (since, until, expected) in enumerate(PERIODS):
        # the CLI's own entry point, in a thread (it runs its own event loop): many periods
        # at the cost of one start
        path = tmp_path / f"{n}.phhs"
        bounds = ["--since", since] + (["--until", until] if until else [])
        argv = ["export", *bounds, "--format", "phh", "-o", str(path), "--database-url", played.url]
        assert await asyncio.to_thread(main, argv) == 0
        assert capsys.readouterr().err == f"export: {len(expected)} hands\n", (since, until)
        text = path.read_text()
        numbers = [t["hand"] for t in phh_hands(text)] if text else []
        assert numbers == [played.rows[i].number for i in expected], (since, until)
        assert played.void_number not in numbers  # a voided hand is never exported


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "2026-13-01"], "'2026-13-01' is not an ISO date or time"),
        (["--since", "yesterday"], "'yesterday' is not an ISO date or time"),
        (["--since", "2026-11-01", "--until", "1 Nov"], "'1 Nov' is not an ISO date or time"),
        ([], "give --since (a period) or --tournament ID, one of them"),
        (["--since", "2026-11-01", "--tournament", "1"], "one of them"),
        (["--since", "2026-11-01", "--format", "csv"], "invalid choice: 'csv'"),
    ],
)
async def test_bad_arguments_are_refused_clearly(
    tmp_path: Path, args: list[str], message: str
) -> None:
    database = tmp_path / "never.sqlite3"
    code, out, err = await export(f"sqlite+aiosqlite:///{database}", *args)
    assert code == 2 and out == ""
    assert message in err, err
    assert "Traceback" not in err
    assert not database.exists()  # refused before anything was opened


async def test_an_unusable_database_or_output_file_is_a_clear_error(
    db_url: str, tmp_path: Path
) -> None:
    nowhere = tmp_path / "no-such-folder" / "out.phhs"
    code, out, err = await export(db_url, "--since", "2026-11-01", "--output", str(nowhere))
    assert (code, out) == (2, "") and "Traceback" not in err
    assert f"export: cannot write {nowhere}: No such file or directory" in err

    unmigrated = f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"  # no schema
    code, out, err = await export(unmigrated, "--since", "2026-11-01")
    assert (code, out) == (2, "") and "Traceback" not in err
    assert err.startswith("export: cannot read the database: ")
