"""The outbox worker against a real SMTP server on loopback (aiosmtpd), on both backends:
delivery once with the right hand (R24), retry after the server was down, safe claiming by
two workers, a crashed worker's lease, permanent and final failures, the Maildir default."""

from __future__ import annotations

import asyncio
import mailbox
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from app.mail.errors import NotDealtIn
from app.mail.history import StoredHistory
from app.mail.requests import MailLimits, request_hands, request_verification
from app.mail.transport import MaildirTransport, SmtpTransport
from app.mail.worker import MailWorker, WorkerConfig
from app.store.db import Database
from app.store.outbox import MailAttempt, MailRequest
from tests.mail.support import (
    FOLDED_DOWN,
    MUCKED,
    EngineHistory,
    FakeClock,
    SmtpSink,
    make_player,
    showdown_hand,
    store_showdown_hand,
)

LIMITS = MailLimits(hands_per_hour=100, verifications_per_hour=100)
NO_WAIT = timedelta(0)


def worker(
    db: Database,
    history: EngineHistory,
    clock: FakeClock,
    url: str,
    *,
    worker_id: str = "w1",
    max_attempts: int = 5,
) -> MailWorker:
    return MailWorker(
        db,
        SmtpTransport.from_url(url, timeout=5),
        history,
        config=WorkerConfig(
            site_name="Stud Club", sender="hands@stud.test", max_attempts=max_attempts
        ),
        clock=clock,
        backoff=lambda attempt: timedelta(seconds=60 * 2 ** (attempt - 1)),
        worker_id=worker_id,
    )


async def ask(db: Database, history: EngineHistory, clock: FakeClock, user_id: int) -> MailRequest:
    """Queue an email of hand h1 for `user_id`."""
    return await request_hands(
        db, history, user_id=user_id, now=clock(), limits=LIMITS, hand_ids=[101]
    )


async def _table(db: Database, history: EngineHistory) -> dict[str, int]:
    """Three players dealt into one real hand `h1` (seat 0 folds on fifth, seat 1 mucks)."""
    users = {s: await make_player(db, name) for s, name in enumerate(["ann", "bob", "cy"])}
    history.add(101, showdown_hand(), {s: (u.id, u.name) for s, u in users.items()})
    return {u.name: u.id for u in users.values()}


async def _rows(db: Database) -> tuple[list[MailRequest], list[MailAttempt]]:
    async with db.session() as session:
        requests = list(await session.scalars(select(MailRequest).order_by(MailRequest.id)))
        attempts = list(await session.scalars(select(MailAttempt).order_by(MailAttempt.id)))
    return requests, attempts


async def test_r24_the_hand_arrives_once_with_body_and_phh_attached(
    db: Database, history: EngineHistory, clock: FakeClock, smtp: SmtpSink
) -> None:
    ids = await _table(db, history)
    for name in ("bob", "ann"):  # bob called and mucked; ann folded on fifth street
        await request_hands(
            db, history, user_id=ids[name], now=clock(), limits=LIMITS, hand_ids=[101]
        )
    assert await worker(db, history, clock, smtp.url).run_once() == 2
    received = await smtp.wait_for(2)
    assert await worker(db, history, clock, smtp.url).run_once() == 0  # nothing sent twice
    assert len(smtp.received) == 2

    for got, name in zip(received, ("bob", "ann"), strict=True):
        assert got.rcpt_tos == [f"{name}@example.com"]
        assert got.mail_from == "hands@stud.test"
        message = got.message
        assert message["Subject"] == "Stud Club: hand #101"
        assert message["From"].addresses[0].display_name == "Stud Club"
        assert message["To"].addresses[0].addr_spec == f"{name}@example.com"
        body = message.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        assert "Stud Hand #101" in text
        [attachment] = list(message.iter_attachments())
        assert attachment.get_filename() == "hand-101.phh"
        phh = attachment.get_content()
        assert "hand = 101\r\n" in phh and 'variant = "F7S"' in phh
        # R24: the mucked caller's cards are in it; the fifth-street folder's down cards never
        for card in MUCKED:
            assert card in text and card in phh
        for card in FOLDED_DOWN:
            assert card not in text and card not in phh

    requests, attempts = await _rows(db)
    assert [r.status for r in requests] == ["sent", "sent"]
    assert [(a.attempt_no, a.outcome) for a in attempts] == [(1, "sent"), (1, "sent")]
    assert all(r.lease_owner is None and r.sent_at == clock() for r in requests)


async def test_smtp_down_then_up_arrives_once_after_a_retry(
    db: Database, history: EngineHistory, clock: FakeClock
) -> None:
    ids = await _table(db, history)
    sink = SmtpSink()  # not started: its port refuses connections
    await ask(db, history, clock, ids["cy"])
    mail = worker(db, history, clock, sink.url)
    mail.start()
    try:
        # the first attempt fails and schedules a retry in 60 s (the injected back-off)
        async with asyncio.timeout(10):
            while not (await _rows(db))[1]:
                await asyncio.sleep(0.01)
        [request], [first] = await _rows(db)
        assert (request.status, request.attempts, first.outcome) == ("queued", 1, "retry")
        assert "could not reach the mail server" in (request.last_error or "")
        assert request.next_attempt_at == clock() + timedelta(seconds=60)

        await sink.start()
        mail.notify()  # not due yet: nothing is sent
        clock.advance(59)
        mail.notify()
        clock.advance(1)
        mail.notify()
        await sink.wait_for(1)
    finally:
        await mail.stop()
        await sink.stop()
    assert len(sink.received) == 1
    [request], attempts = await _rows(db)
    assert (request.status, request.attempts, request.last_error) == ("sent", 2, None)
    assert [a.outcome for a in attempts] == ["retry", "sent"]


async def test_two_workers_never_send_one_request_twice(
    db_url: str, history: EngineHistory, clock: FakeClock, smtp: SmtpSink
) -> None:
    first, second = Database(db_url), Database(db_url)  # as two server processes
    try:
        ids = await _table(first, history)
        for _ in range(6):
            for uid in ids.values():
                await request_hands(
                    first, history, user_id=uid, now=clock(), limits=LIMITS, hand_ids=[101]
                )
        a = worker(first, history, clock, smtp.url, worker_id="a")
        b = worker(second, history, clock, smtp.url, worker_id="b")
        counts = await asyncio.gather(a.run_once(), b.run_once(), a.run_once(), b.run_once())
        assert sum(counts) == 18
        await smtp.wait_for(18)
        requests, attempts = await _rows(first)
    finally:
        await first.dispose()
        await second.dispose()
    assert len(smtp.received) == 18
    assert len({m.message["Message-ID"] for m in smtp.received}) == 18
    assert all(r.status == "sent" and r.attempts == 1 for r in requests)
    assert len(attempts) == 18


async def test_a_crashed_workers_request_is_sent_when_its_lease_runs_out(
    db: Database, history: EngineHistory, clock: FakeClock, smtp: SmtpSink
) -> None:
    ids = await _table(db, history)
    row = await ask(db, history, clock, ids["bob"])
    crashed = worker(db, history, clock, smtp.url, worker_id="crashed")
    assert await crashed._claim(row.id) is not None  # claimed, then the process died
    survivor = worker(db, history, clock, smtp.url, worker_id="survivor")
    assert await survivor.run_once() == 0  # the lease is still live
    clock.advance(WorkerConfig().lease.total_seconds() + 1)
    assert await survivor.run_once() == 1
    await smtp.wait_for(1)
    [request], [attempt] = await _rows(db)
    assert (request.status, request.attempts, attempt.worker) == ("sent", 2, "survivor")


async def test_a_refused_address_fails_at_once_with_the_reason(
    db: Database, history: EngineHistory, clock: FakeClock, smtp: SmtpSink
) -> None:
    ids = await _table(db, history)
    smtp.refuse = "550 5.1.1 no such mailbox"
    await ask(db, history, clock, ids["ann"])
    assert await worker(db, history, clock, smtp.url).run_once() == 1
    [request], [attempt] = await _rows(db)
    assert request.status == "failed" and attempt.outcome == "failed"
    assert "refused the address: 550 5.1.1 no such mailbox" in (request.last_error or "")


async def test_after_the_last_attempt_the_request_fails_with_the_reason(
    db: Database, history: EngineHistory, clock: FakeClock
) -> None:
    ids = await _table(db, history)
    await ask(db, history, clock, ids["ann"])
    down = SmtpSink()  # never started
    mail = worker(db, history, clock, down.url, max_attempts=3)
    for _ in range(3):
        assert await mail.run_once() == 1
        clock.advance(3600)
    assert await mail.run_once() == 0
    [request], attempts = await _rows(db)
    assert [a.outcome for a in attempts] == ["retry", "retry", "failed"]
    assert request.status == "failed"
    assert (request.last_error or "").startswith("gave up after 3 attempts: could not reach")


async def test_without_smtp_messages_go_to_the_maildir(
    db: Database, history: EngineHistory, clock: FakeClock, tmp_path: Path
) -> None:
    ids = await _table(db, history)
    await ask(db, history, clock, ids["bob"])
    maildir = tmp_path / "maildir"
    mail = MailWorker(db, MaildirTransport(maildir), history, clock=clock)
    assert await mail.run_once() == 1
    [message] = list(mailbox.Maildir(maildir, create=False))
    assert message["Subject"] == "Stud: hand #101"
    [request], [attempt] = await _rows(db)
    assert request.status == "sent" and str(maildir) in attempt.detail


async def test_the_verification_link_leaves_the_outbox_once_sent(
    db: Database, history: EngineHistory, clock: FakeClock, smtp: SmtpSink
) -> None:
    user = await make_player(db, "dee", verified=False)
    await request_verification(
        db, user_id=user.id, base_url="https://stud.test", now=clock(), limits=LIMITS
    )
    [request], _ = await _rows(db)
    assert request.payload["url"].startswith("https://stud.test/api/mail/verify?token=")
    assert await worker(db, history, clock, smtp.url).run_once() == 1
    [got] = await smtp.wait_for(1)
    assert request.payload["url"] in got.message.get_content()
    [request], _ = await _rows(db)
    assert request.status == "sent" and request.payload == {}


async def test_r24_a_stored_hand_is_mailed_with_the_mucked_cards_not_the_folded_ones(
    db: Database, clock: FakeClock, smtp: SmtpSink
) -> None:
    """The real source: a hand stored as the table server stores it, rendered for each
    recipient by `app.store.history`."""
    users = {s: await make_player(db, name) for s, name in enumerate(["ann", "bob", "cy"])}
    await store_showdown_hand(db, users, 5001)
    source = StoredHistory()
    assert await source.recent_hands(db, users[1].id, 100) == [5001]
    for seat in (1, 2):  # bob called and mucked; cy won; ann folded on fifth street
        await request_hands(db, source, user_id=users[seat].id, now=clock(), limits=LIMITS, last=5)
    mail = MailWorker(db, SmtpTransport.from_url(smtp.url), source, clock=clock)
    assert await mail.run_once() == 2
    received = await smtp.wait_for(2)
    for got in received:
        message = got.message
        assert message["Subject"].endswith("hand #5001")
        body = message.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        [attachment] = list(message.iter_attachments())
        assert attachment.get_filename() == "hand-5001.phh"
        phh = attachment.get_content()
        for card in MUCKED:  # bob's mucked hand, in the text and in the PHH
            assert card in text and card in phh, card
        for card in FOLDED_DOWN:  # ann's down cards: never
            assert card not in text and card not in phh, card
        assert "ann" in text and "bob" in text
    # ann may not ask for a hand she was not dealt into
    other = await make_player(db, "dee")
    with pytest.raises(NotDealtIn):
        await request_hands(
            db, source, user_id=other.id, now=clock(), limits=LIMITS, hand_ids=[5001]
        )
