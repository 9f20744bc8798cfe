"""`python -m app ledger check`: the totals, exit 0 on a sound ledger, 1 on any violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from app.__main__ import main
from app.cli import ledger as ledger_cli
from app.store import ledger
from app.store.db import Database
from tests.conftest import run_in_thread
from tests.store.factories import make_table, make_user


async def _seed(db: Database) -> None:
    async with db.transaction() as s:
        alice, bob = await make_user(s, "alice"), await make_user(s, "bob")
        table = await make_table(s, small_bet=10)
        await ledger.buy_in(s, user_id=alice.id, table_id=table.id, amount=500, key="a", seat_no=0)
        await ledger.buy_in(s, user_id=bob.id, table_id=table.id, amount=500, key="b", seat_no=1)
        await ledger.settle_hand(
            s, table_id=table.id, key="h1", deltas={alice.id: 90, bob.id: -100}, rake=10
        )
        # the table's own view of its seats, as the table server stores it
        table.stacks = {"0": [alice.id, 590], "1": [bob.id, 400]}


async def _check(
    capsys: pytest.CaptureFixture[str], db_url: str, *, as_json: bool = False
) -> tuple[int, str]:
    code = await ledger_cli._check(db_url, as_json=as_json)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


async def test_a_sound_ledger_passes_with_its_totals(
    db: Database, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db)
    code, out = await _check(capsys, db_url)
    assert code == 0, out
    assert "ledger OK" in out
    for line in ["bank balances: -20000", "player balances: 19000", "escrow balances: 990",
                 "house balances: 10", "all accounts: 0", "chips seated: 990"]:  # fmt: skip
        assert line in out, out
    code, out = await _check(capsys, db_url, as_json=True)
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["balances"]["house"] == 10


@pytest.mark.parametrize(
    ("tamper", "complaint"),
    [
        ("UPDATE seats SET stack = stack + 5 WHERE seat_no = 0", "chips are seated there"),
        ("UPDATE ledger_accounts SET balance = balance + 7 WHERE code = 'house'", "entries sum"),
        ("UPDATE ledger_entries SET amount = amount + 1 WHERE id = 1", "sums to 1"),
        # the table holds chips the ledger never moved: a seat's stack, or a whole seat
        (
            'UPDATE poker_tables SET stacks = \'{"0": [1, 790], "1": [2, 400]}\'',
            "table 1 seat 0: the table holds user 1 with 790, the ledger user 1 with 590",
        ),
        (
            'UPDATE poker_tables SET stacks = \'{"0": [1, 590], "1": [2, 400], "3": [2, 500]}\'',
            "table 1 seat 3: the table holds user 2 with 500, the ledger nobody",
        ),
    ],
)
async def test_each_violation_fails_the_check(
    db: Database, db_url: str, tamper: str, complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db)
    async with db.transaction() as s:
        await s.execute(text(tamper))
    code, out = await _check(capsys, db_url)
    assert code == 1, out
    assert "VIOLATION" in out and complaint in out and "ledger BROKEN" in out


def test_the_command_line(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def seed() -> None:
        db = Database(db_url)
        try:
            await _seed(db)
        finally:
            await db.dispose()

    run_in_thread(seed)
    assert main(["ledger", "check", "--database-url", db_url]) == 0
    assert "ledger OK" in capsys.readouterr().out
    empty = f"sqlite+aiosqlite:///{tmp_path}/empty.sqlite3"
    assert main(["ledger", "check", "--database-url", empty]) == 2
    assert "no schema" in capsys.readouterr().err
