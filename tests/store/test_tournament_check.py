"""`ledger check` on tournaments, on SQLite and PostgreSQL: a consistent tournament (entries,
seats, a hand with a bust, a prize paid) passes, with its cash neighbours; each tournament
invariant broken by a tampered row is reported in words that say which."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from sqlalchemy import func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.cli import ledger as ledger_cli
from app.store import hands, ledger, tournaments
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.models import LedgerAccount, LedgerEntry, LedgerTransaction, Seat
from tests.store.factories import make_table
from tests.store.tournament_play import CHIPS, PRICE, entries_of, finished, seated, start_hand

PRIZE = 500


@dataclass(frozen=True)
class Played:
    tournament: int
    users: list[int]  # ann, bob (busted, third), cat
    entries: list[int]
    tables: list[int]


async def _played(db: Database) -> Played:
    """Three entries at one table; bob busts to ann in a hand and takes third place and a
    prize; a cash table beside it with a player."""
    t, users, entries, tables = await seated(db)
    ann, bob, cat = users
    start = await start_hand(db, t, tables[0], users, [CHIPS] * 3)
    view = {"0": [ann, 2 * CHIPS], "1": [bob, 0], "2": [cat, CHIPS]}
    async with db.transaction() as s:
        await hands.record_finished(s, finished(start, {ann: CHIPS, bob: -CHIPS, cat: 0}, view))
        await tournaments.pay_prizes(s, t, [(entries[1], 3, PRIZE)])
        cash = await make_table(s, name="Cash")
        await ledger.buy_in(s, user_id=cat, table_id=cash.id, amount=500, key="cash", seat_no=0)
    return Played(t, users, entries, tables)


async def _violations(db: Database) -> list[str]:
    async with db.session() as s:
        return (await check_ledger(s)).violations


async def test_a_consistent_tournament_passes_the_check(
    db: Database, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    played = await _played(db)
    async with db.session() as s:
        report = await check_ledger(s)
    assert report.ok, report.violations
    assert report.tournaments == 1 and report.seated == 500  # cash seats only
    assert report.totals["prize_pool"] == 3 * PRICE - PRIZE
    assert "tournaments checked: 1" in report.lines()
    assert await ledger_cli._check(db_url, as_json=True) == ledger_cli.EXIT_OK
    assert json.loads(capsys.readouterr().out)["tournaments"] == 1
    assert [e.status for e in await entries_of(db, played.tournament)] == [
        "playing", "busted", "playing",
    ]  # fmt: skip


Tamper = Callable[[AsyncSession, Played], Awaitable[object]]


def _sql(statement: str) -> Tamper:
    async def run(s: AsyncSession, p: Played) -> None:
        ann, bob, cat = p.users
        await s.execute(
            text(statement.format(ann=ann, bob=bob, cat=cat, t1=p.tables[0], t2=p.tables[1]))
        )

    return run


async def _post_raw(s: AsyncSession, kind: str, key: str, legs: dict[str, int]) -> None:
    """A posting made behind the ledger's back: balanced, its balances kept, so only the
    tournament's own invariants can see it."""
    tx = await s.scalar(
        insert(LedgerTransaction)
        .values(kind=kind, idempotency_key=key, memo="")
        .returning(LedgerTransaction.id)
    )
    for code, amount in legs.items():
        account = await ledger.account_id(s, code)
        await s.execute(
            insert(LedgerEntry).values(transaction_id=tx, account_id=account, amount=amount)
        )
        await s.execute(
            update(LedgerAccount)
            .where(LedgerAccount.id == account)
            .values(balance=LedgerAccount.balance + amount)
        )


def _transfer_in(s: AsyncSession, p: Played) -> Awaitable[None]:
    pool = ledger.prize_pool_code(p.tournament)
    return _post_raw(s, "transfer", "transfer:sneak", {"bank": -5, pool: 5})


def _paid_twice(s: AsyncSession, p: Played) -> Awaitable[None]:
    pool = ledger.prize_pool_code(p.tournament)
    legs = {pool: -PRIZE, ledger.player_code(p.users[1]): PRIZE}
    return _post_raw(s, "tournament_prize", "tournament_prize:again", legs)


async def _second_live_entry(s: AsyncSession, p: Played) -> None:
    await s.execute(text("DROP INDEX uq_tournament_entries_live"))
    await _sql(
        "INSERT INTO tournament_entries (tournament_id, user_id, number, status, chips,"
        " time_bank_ms, pause_left_ms, paid, fees, moves, rebuys, addon, refunded,"
        " registered_at) VALUES (1, {ann}, 2, 'registered', 0, 0, 0, 0, 0, 0, 0, false, false,"
        " CURRENT_TIMESTAMP)"
    )(s, p)


# each invariant's breakage (by its number) and what the check must say of it
BROKEN: dict[str, tuple[Tamper, list[str]]] = {
    "1-entry-rows": (
        _sql("UPDATE tournament_entries SET paid = paid + 1 WHERE user_id = {ann}"),
        ["prize_pool:1: its entries say 3001 paid in, the ledger 3000"],
    ),
    "1-pool-moved-otherwise": (_transfer_in, [
        "prize_pool:1 was moved by transfer transactions (5)",
        "prize_pool:1 holds 2505, but its entries paid in 3000, 0 went back and 500",
    ]),
    "2-chips-made": (
        _sql("UPDATE tournament_entries SET chips = chips + 10 WHERE user_id = {ann}"),
        ["its entries hold 4510 chips, it issued 4500", "with 3010, and the table has seat 0"],
    ),
    "2-seat-changed": (
        _sql("UPDATE seats SET stack = stack + 10 WHERE user_id = {ann} AND table_id = {t1}"),
        ["plays at table {t1} seat 0 with 3000, and the table has seat 0 with 3010",
         "table {t1} seat 0: the table holds user {ann} with 3000, its seats user {ann} with 3010"],
    ),
    "2-busted-chips": (
        _sql("UPDATE tournament_entries SET chips = 5 WHERE user_id = {bob}"),
        ["is busted and holds 5", "its entries hold 4505 chips"],
    ),
    "3-paid-twice": (_paid_twice, [
        "('tournament_prize:again') names none of its entries (an entry paid twice?)",
        "its entries say 500 paid in prizes, the ledger 1000",
    ]),
    "3-prize-differs": (
        _sql("UPDATE tournament_entries SET prize = 400 WHERE user_id = {bob}"),
        ["entry 2 was paid 500 by transaction", "its prize is 400"],
    ),
    "3-never-paid": (
        _sql("UPDATE tournament_entries SET place = 2, prize = 100 WHERE user_id = {cat}"),
        ["entry 3 won 100 and was never paid"],
    ),
    "4-two-entries": (_second_live_entry, ["user {ann} has 2 live entries"]),
    "4-two-tables": (
        _sql(
            "INSERT INTO seats (table_id, seat_no, user_id, stack, sitting_out, created_at)"
            " VALUES ({t2}, 0, {ann}, 0, false, CURRENT_TIMESTAMP)"
        ),
        ["user {ann} sits at tables [{t1}, {t2}]",
         "table {t2} seat 0 holds user {ann} with 0, who has no entry playing there"],
    ),
}  # fmt: skip


@pytest.mark.parametrize(("tamper", "complaints"), list(BROKEN.values()), ids=list(BROKEN))
async def test_each_tournament_invariant_broken_is_reported(
    db: Database, tamper: Tamper, complaints: list[str]
) -> None:
    played = await _played(db)
    assert await _violations(db) == []
    async with db.transaction() as s:
        await tamper(s, played)
    found = await _violations(db)
    ann, bob, cat = played.users
    names = {"ann": ann, "bob": bob, "cat": cat, "t1": played.tables[0], "t2": played.tables[1]}
    for complaint in complaints:
        wanted = complaint.format(**names)
        assert any(wanted in v for v in found), (wanted, found)


async def test_the_check_reads_one_moment_while_a_move_commits_between_its_reads(
    db: Database, backend: str
) -> None:
    """`ledger check` runs beside live servers: a move (the entry off its seat, in transit)
    committed between its read of the entries and its read of the seats must not read as an
    entry at a table with no seat for it, as once in a 1,000-bot run of `benchmarks/
    tournament.py`. Its session (`Database.snapshot`, as `ledger check` and `tournaments
    simulate` use) sees every table as of its first read."""
    _, users, entries, (first, _) = await seated(db)
    seats_at_first = select(func.count()).select_from(Seat).where(Seat.table_id == first)

    async def move_off() -> None:
        async with db.transaction() as w:
            left = {"0": [users[0], CHIPS], "1": [users[1], CHIPS]}
            await tournaments.unseat_entries(w, first, [entries[2]], stacks=left)

    async with db.snapshot() as s:
        assert await s.scalar(seats_at_first) == 3
        await move_off()
        assert await s.scalar(seats_at_first) == 3  # the moment of its first read
        report = await check_ledger(s)
        assert report.ok, report.violations
    async with db.session() as s:
        assert await s.scalar(seats_at_first) == 2  # the move is there for a new read
        assert (await check_ledger(s)).ok
    if backend == "postgresql":  # what the snapshot is for: a plain session reads each commit
        async with db.transaction() as w:
            await tournaments.seat_entries(w, first, {entries[2]: 2}, stacks={})
        async with db.session() as s:
            assert await s.scalar(seats_at_first) == 3
            await move_off()
            assert await s.scalar(seats_at_first) == 2
