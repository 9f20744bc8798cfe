"""`python -m app verify NUMBER`: the operators' full check of a finished hand's deal
(seeded-v2: the slot cards sealed by the master salt, dealt in the order the server seed and
the seeds draw; sha256-per-card-v1 for older hands: the per-card commitment), every dealt
card at its position, and the replay; a changed deck, master salt, server seed or seed fails
it. `--public` checks the public record only (R39)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from app.cli.verify import (
    EXIT_MISMATCH,
    EXIT_OK,
    EXIT_UNUSABLE,
    _verify,
    _verify_public,
    check,
    check_public,
)
from app.engine.cards import shuffled_deck
from app.store import hands
from app.store.db import Database
from app.store.hand_models import HandRecord
from app.store.history import public_proof
from app.tables import messages as m
from tests.store.hands_play import play_hands, seated_table


async def _played(db: Database, scheme: str) -> tuple[HandRecord, str]:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    if scheme == "sha256-per-card-v1":  # a deck chosen by the caller deals as before
        table.deck_source = lambda: shuffled_deck()
    try:
        await play_hands(table, clock, 2, fold_seat=1)
        await table.request(m.Sync())
    finally:
        await manager.stop()
    async with db.session() as s:
        rows, _ = await hands.list_hands(s, users[0])
    return rows[0], db.url.render_as_string(hide_password=False)


async def _change(db: Database, row: HandRecord, column: str, value: Any) -> None:
    async with db.transaction() as s:
        await s.execute(update(HandRecord).where(HandRecord.id == row.id).values({column: value}))


@pytest.mark.parametrize("scheme", ["seeded-v2", "sha256-per-card-v1"])
async def test_r39_verify_a_real_hand_and_fail_a_changed_one(
    db: Database, capsys: pytest.CaptureFixture[str], scheme: str
) -> None:
    row, url = await _played(db, scheme)
    assert row.deck is not None and row.salt is not None
    assert (row.deal is not None) == (scheme == "seeded-v2")
    assert check(row) == []
    assert await _verify(url, row.number) == EXIT_OK
    out = capsys.readouterr().out
    assert scheme in out and "OK:" in out
    assert await _verify(url, 10**15) == EXIT_UNUSABLE
    assert await _verify_public(url, row.number) == EXIT_OK
    assert "OK: from the public record only" in capsys.readouterr().out

    swapped = row.deck[2:4] + row.deck[:2] + row.deck[4:]  # two positions swapped
    other_master = ("00" if row.salt[:2] != "00" else "11") + row.salt[2:]
    changes: list[tuple[str, Any]] = [("deck", swapped), ("salt", other_master)]
    if row.deal is not None:
        deal = row.deal
        changes += [
            ("deal", {**deal, "server_seed": "ab" * 32}),  # a server seed chosen afterwards
            ("deal", {**deal, "seed_values": [{"seat": 1, "seed": "cd" * 32}]}),  # a seed added
            (
                "deal",
                {
                    **deal,
                    "slot_cards": deal["slot_cards"][2:4]
                    + deal["slot_cards"][:2]
                    + deal["slot_cards"][4:],
                },
            ),
        ]
    for column, value in changes:
        original = getattr(row, column)
        await _change(db, row, column, value)
        assert await _verify(url, row.number) == EXIT_MISMATCH, column
        assert "FAIL:" in capsys.readouterr().out
        await _change(db, row, column, original)
    assert await _verify(url, row.number) == EXIT_OK


async def test_r39_the_public_check_names_a_changed_public_record(db: Database) -> None:
    row, _ = await _played(db, "seeded-v2")
    proof = public_proof(row)
    assert check_public(proof) == []
    assert row.salt is not None and "master" not in str(proof) and row.salt not in str(proof)
    assert row.deal is not None and row.deal["slot_cards"] not in str(proof)
    bad = {**proof, "announce": {**proof["announce"], "server_seed_hash": "00" * 32}}
    assert any(p.startswith("step 1:") for p in check_public(bad))
