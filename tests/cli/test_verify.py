"""`python -m app verify NUMBER`: the operators' full check of a finished hand's deal (the
per-card commitment opened with the stored master salt, every dealt card at its position,
and the replay); a changed deck or master salt fails it."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from app.cli.verify import EXIT_MISMATCH, EXIT_OK, EXIT_UNUSABLE, _verify, check
from app.store import hands
from app.store.db import Database
from app.store.hand_models import HandRecord
from app.tables import messages as m
from tests.store.hands_play import play_hands, seated_table


async def test_verify_a_real_hand_and_fail_a_changed_one(
    db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    try:
        await play_hands(table, clock, 1, fold_seat=1)
        await table.request(m.Sync())
    finally:
        await manager.stop()
    async with db.session() as s:
        rows, _ = await hands.list_hands(s, users[0])
    row = rows[0]
    assert row.deck is not None and row.salt is not None
    assert check(row) == []
    url = db.url.render_as_string(hide_password=False)
    assert await _verify(url, row.number) == EXIT_OK
    out = capsys.readouterr().out
    assert "sha256-per-card-v1" in out and "OK:" in out
    assert await _verify(url, 10**15) == EXIT_UNUSABLE

    swapped = row.deck[2:4] + row.deck[:2] + row.deck[4:]  # two positions swapped
    other_master = ("00" if row.salt[:2] != "00" else "11") + row.salt[2:]
    for column, value in (("deck", swapped), ("salt", other_master)):
        original = getattr(row, column)
        async with db.transaction() as s:
            await s.execute(
                update(HandRecord).where(HandRecord.id == row.id).values({column: value})
            )
        assert await _verify(url, row.number) == EXIT_MISMATCH
        assert "FAIL:" in capsys.readouterr().out
        async with db.transaction() as s:
            await s.execute(
                update(HandRecord).where(HandRecord.id == row.id).values({column: original})
            )
    assert await _verify(url, row.number) == EXIT_OK
