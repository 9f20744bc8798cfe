"""Hand records on SQLite and PostgreSQL: a record and its ledger postings commit together or
not at all; real hands are recorded, verify, replay strictly in pokerkit, and render by R24;
a live hand's down cards are nowhere in the database or the logs until it ends."""

from __future__ import annotations

import dataclasses
import json
import logging
import tomllib
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.cli.verify import check
from app.engine import commitment
from app.engine.cards import seeded_rng, shuffled_deck
from app.store import hands, ledger
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.errors import StoreError
from app.store.hand_models import HandRecord, HandStatus
from app.store.history import HandHistoryView, history_view, load_hand_history
from app.store.models import Base, LedgerTransaction
from app.tables import messages as m
from tests.engine.pokerkit_oracle import replay_strict
from tests.store.cards_seen import Deal, cards_in
from tests.store.factories import make_user
from tests.store.hands_play import act_once, play_hands, seated_table, start_hand


class Boom(Exception):
    pass


async def _finished(db: Database) -> hands.HandFinish:
    """A real finished hand's record (played, then taken off the writer's queue)."""
    manager, table, clock, _ = await seated_table(db, 2)
    captured: list[hands.HandFinish] = []
    real = table.store.record_hand

    async def capture(finish: hands.HandFinish) -> None:
        captured.append(finish)

    table.store.record_hand = capture  # type: ignore[method-assign]
    manager.writer.write_many = None  # each write on its own, through record_hand
    try:
        await play_hands(table, clock, 1)
        await manager.writer.drain()
    finally:
        table.store.record_hand = real  # type: ignore[method-assign]
        await manager.stop()
    return captured[0]


async def _counts(db: Database, hand_id: str) -> tuple[int, int]:
    async with db.session() as s:
        done = await s.scalar(
            select(func.count())
            .select_from(HandRecord)
            .where(HandRecord.id == hand_id, HandRecord.status == HandStatus.DONE)
        )
        posted = await s.scalar(
            select(func.count())
            .select_from(LedgerTransaction)
            .where(LedgerTransaction.idempotency_key == f"hand_settlement:{hand_id}")
        )
    return int(done or 0), int(posted or 0)


async def test_record_and_postings_commit_together_or_not_at_all(db: Database) -> None:
    finish = await _finished(db)
    hand_id = finish.start.hand_id
    assert await _counts(db, hand_id) == (0, 0)

    with pytest.raises(Boom):  # fails after both are written: both roll back
        async with db.transaction() as s:
            assert await hands.record_finished(s, finish)
            raise Boom
    assert await _counts(db, hand_id) == (0, 0)

    bad = dataclasses.replace(finish, deltas={**finish.deltas, 999_999: 0})
    with pytest.raises(StoreError):  # the ledger refuses: no record either
        async with db.transaction() as s:
            await hands.record_finished(s, bad)
    assert await _counts(db, hand_id) == (0, 0)

    async with db.transaction() as s:
        assert await hands.record_finished(s, finish)
    async with db.transaction() as s:  # idempotent by hand id
        assert not await hands.record_finished(s, finish)
    assert await _counts(db, hand_id) == (1, 1)
    async with db.session() as s:
        assert (await check_ledger(s)).ok
        assert await ledger.balance(s, ledger.HOUSE) == finish.rake


async def test_real_hands_are_recorded_verify_and_replay_in_pokerkit(db: Database) -> None:
    for variant in ("stud", "stud8", "razz"):
        # pokerkit knows no rake: these tables take none, so the results must agree exactly
        manager, table, clock, users = await seated_table(db, 3, variant, rake_bps=0)
        try:
            await play_hands(table, clock, 2, fold_seat=1)
            await table.request(m.Sync())
        finally:
            await manager.stop()
        async with db.session() as s:
            rows, total = await hands.list_hands(s, users[0], variant=variant)
            assert total == 2 and len(rows) == 2
            assert (await check_ledger(s)).ok
        for row in rows:
            assert row.status == HandStatus.DONE and row.events and row.deck and row.salt
            assert check(row) == []  # the commitment opens and the hand replays
            changed = row.deck[2:4] + row.deck[:2] + row.deck[4:]
            assert commitment.commit(changed, bytes.fromhex(row.salt)) != row.commitment
            row.deck = changed
            assert check(row) != []
            async with db.session() as s:
                row = await hands.get_hand(s, row.id)  # type: ignore[assignment]
            for full in (True, False):
                phh = history_view(row, None, full=full).phh
                assert row.result is not None and row.events is not None
                stacks = [row.result["stacks"][str(seat)] for seat in row.events[0]["seats"]]
                assert replay_strict(phh).finishing_stacks == stacks, phh
            assert tomllib.loads(phh)["finishing_stacks"] == stacks


async def test_r24_history_shows_showdown_cards_never_folded_ones(db: Database) -> None:
    """The whole of each text, for every viewer: a card in it is an up card, the viewer's
    own, or a showdown seat's (mucked too); a hand the viewer was not dealt into is not
    theirs to see; the observer's view (the operators' export) shows no down card but the
    showdown's."""
    manager, table, clock, users = await seated_table(db, 3, "stud")
    rng = seeded_rng("r24")  # decks from a seed: a fold and a muck in these hands, every run
    table.deck_source = lambda: shuffled_deck(rng)
    try:
        await play_hands(table, clock, 8, fold_seat=1)  # seat 1 folds only facing a bet
        await table.request(m.Sync())
    finally:
        await manager.stop()
    async with db.transaction() as s:
        stranger = (await make_user(s, "stranger")).id  # registered, dealt into no hand
    async with db.session() as s:
        rows, _ = await hands.list_hands(s, users[1])
    assert len(rows) == 8
    folded_somewhere = mucked_somewhere = False
    for row in rows:
        deal = Deal.of(row)
        assert await load_hand_history(db, row.number, stranger) is None
        views: list[tuple[int | None, HandHistoryView]] = [(None, history_view(row, None))]
        for seat, user in enumerate(users):
            view = await load_hand_history(db, row.number, user)
            assert view is not None and view.viewer_seat == seat
            views.append((seat, view))
        for viewer, view in views:
            visible = deal.visible(viewer)
            events = {k: v for k, v in view.json.items() if k != "fairness"}
            for text in (view.pokerstars_text, view.phh, json.dumps(events)):
                assert set(cards_in(text)) <= visible, (viewer, set(cards_in(text)) - visible)
            # ... and they do show what the viewer may see: the scan is not blind
            assert set(cards_in(view.pokerstars_text)) == visible
            assert set(cards_in(view.phh)) == visible
            for seat in deal.folded - deal.revealed(viewer):
                folded_somewhere = True
                assert all(
                    e["card"] is None
                    for e in view.json["events"]
                    if e["type"] == "card_dealt" and e["seat"] == seat and not e["face_up"]
                )
            fairness = view.json["fairness"]
            assert fairness["commitment"] == row.commitment
            reveal = fairness["reveal"]  # every viewer checks every hand ...
            assert commitment.verify_reveal(row.commitment, reveal)
            assert commitment.check_deal(view.json["events"], reveal) == []
            assert "withheld" not in fairness and str(row.salt) not in json.dumps(view.json)
            shown = {p["card"] for p in reveal["positions"] if "card" in p}
            for seat, cards in deal.down.items():  # ... and sees no card R24 hides from them
                seen = seat in deal.revealed(viewer)
                assert all((c in shown) == seen for c in cards), (seat, viewer)
        mucked_somewhere |= any(e["type"] == "hand_mucked" for e in row.events or [])
    assert folded_somewhere and mucked_somewhere
    assert await load_hand_history(db, 10**15, users[0]) is None


async def _dump(db: Database) -> str:
    """Every row of every table, as text; and the SQLite files' bytes."""
    parts = []
    async with db.session() as s:
        for table in Base.metadata.sorted_tables:
            for row in await s.execute(select(table)):
                parts.append(repr(tuple(row)))
    if db.is_sqlite and db.url.database:
        for suffix in ("", "-wal"):
            path = Path(db.url.database + suffix)
            if path.exists():
                parts.append(path.read_bytes().decode("latin-1"))
    return "\n".join(parts)


async def test_live_down_cards_are_nowhere_in_the_database_or_logs(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    manager, table, clock, _ = await seated_table(db, 3)
    try:
        await start_hand(table, clock)
        hand = table.state.hand
        assert hand is not None and table.state.recording is not None
        await act_once(table)
        await manager.writer.drain()
        secrets = [
            table.state.recording.salt.hex(),
            commitment.deck_text(table.state.recording.deck),
        ]
        downs = [str(c) for p in hand.players for c in p.down]
        live = await _dump(db) + "\n" + caplog.text
        assert (
            table.state.hand_id is not None and table.state.hand_id in live
        )  # the live row is there ...
        for secret in secrets:  # ... without its deck or salt
            assert secret not in live
        for card in downs:
            assert f'"{card}"' not in live and f"'{card}'" not in live
        assert "card_dealt" not in live
        await play_hands(table, clock, 1)
        await table.request(m.Sync())
        ended = await _dump(db)
        assert all(secret in ended for secret in secrets)  # the scan finds them once revealed
        assert all(f"'{card}'" in ended or f'"{card}"' in ended for card in downs)
    finally:
        await manager.stop()
