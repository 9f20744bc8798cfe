"""The outbox worker against a real SMTP server on loopback (aiosmtpd), on both backends, with
the real history source (`StoredHistory`: a hand stored as the table server stores it, rendered
for each recipient): delivery once with the right hand (R24), retry after the server was down,
safe claiming by two workers, a crashed worker's lease, permanent and final failures, the
Maildir default."""

from __future__ import annotations

import asyncio
import mailbox
from dataclasses import dataclass
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
    FakeClock,
    SmtpSink,
    make_player,
    store_showdown_hand,
    stored_deal,
)
from tests.store.cards_seen import cards_in

LIMITS = MailLimits(hands_per_hour=100, verifications_per_hour=100)
NO_WAIT = timedelta(0)
HISTORY = StoredHistory()


def worker(
    db: Database,
    clock: FakeClock,
    url: str,
    *,
    worker_id: str = "w1",
    max_attempts: int = 5,
) -> MailWorker:
    return MailWorker(
        db,
        SmtpTransport.from_url(url, timeout=5),
        HISTORY,
        config=WorkerConfig(
            site_name="Stud Club", sender="hands@stud.test", max_attempts=max_attempts
        ),
        clock=clock,
        backoff=lambda attempt: timedelta(seconds=60 * 2 ** (attempt - 1)),
        worker_id=worker_id,
    )


@dataclass(frozen=True)
class Played:
    number: int  # the stored hand's number
    ids: dict[str, int]  # name -> user id


async def ask(db: Database, clock: FakeClock, played: Played, name: str) -> MailRequest:
    """Queue an email of the stored hand for `name`."""
    return await request_hands(
        db,
        HISTORY,
        user_id=played.ids[name],
        now=clock(),
        limits=LIMITS,
        numbers=[played.number],
    )


async def _table(db: Database) -> Played:
    """Three players dealt into one real stored hand (ann, seat 0, folds on fifth street;
    bob, seat 1, calls down and mucks; cy, seat 2, wins)."""
    users = {s: await make_player(db, name) for s, name in enumerate(["ann", "bob", "cy"])}
    number = await store_showdown_hand(db, {s: u.id for s, u in users.items()})
    return Played(number, {u.name: u.id for u in users.values()})


async def _rows(db: Database) -> tuple[list[MailRequest], list[MailAttempt]]:
    async with db.session() as session:
        requests = list(await session.scalars(select(MailRequest).order_by(MailRequest.id)))
        attempts = list(await session.scalars(select(MailAttempt).order_by(MailAttempt.id)))
    return requests, attempts


async def test_r24_the_hand_arrives_once_with_body_and_phh_attached(
    db: Database, clock: FakeClock, smtp: SmtpSink
) -> None:
    played = await _table(db)
    number = played.number
    for name in ("bob", "ann"):  # bob called and mucked; ann folded on fifth street
        await ask(db, clock, played, name)
    assert await worker(db, clock, smtp.url).run_once() == 2
    received = await smtp.wait_for(2)
    assert await worker(db, clock, smtp.url).run_once() == 0  # nothing sent twice
    assert len(smtp.received) == 2

    deal = await stored_deal(db, number)
    for got, (name, seat) in zip(received, (("bob", 1), ("ann", 0)), strict=True):
        assert got.rcpt_tos == [f"{name}@example.com"]
        assert got.mail_from == "hands@stud.test"
        message = got.message
        assert message["Subject"] == f"Stud Club: hand #{number}"
        assert message["From"].addresses[0].display_name == "Stud Club"
        assert message["To"].addresses[0].addr_spec == f"{name}@example.com"
        body = message.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        assert f"PokerStars Hand #{number}: 7 Card Stud Limit" in text
        [attachment] = list(message.iter_attachments())
        assert attachment.get_filename() == f"hand-{number}.phh"
        phh = attachment.get_content()
        assert f"hand = {number}\r\n" in phh and 'variant = "F7S"' in phh
        # R24, in the whole of both: the up cards, the recipient's own down cards and the
        # showdown's (bob's mucked hand too); ann's down cards to ann alone
        for content in (text, phh):
            seen = set(cards_in(content))
            assert seen == deal.visible(seat), (name, seen ^ deal.visible(seat))
            assert set(MUCKED) <= seen
            assert set(FOLDED_DOWN) & seen == (set(FOLDED_DOWN) if name == "ann" else set())

    requests, attempts = await _rows(db)
    assert [r.status for r in requests] == ["sent", "sent"]
    assert [(a.attempt_no, a.outcome) for a in attempts] == [(1, "sent"), (1, "sent")]
    assert all(r.lease_owner is None and r.sent_at == clock() for r in requests)


async def test_smtp_down_then_up_arrives_once_after_a_retry(db: Database, clock: FakeClock) -> None:
    played = await _table(db)
    sink = SmtpSink()  # not started: its port refuses connections
    await ask(db, clock, played, "cy")
    mail = worker(db, clock, sink.url)
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
    db_url: str, clock: FakeClock, smtp: SmtpSink
) -> None:
    first, second = Database(db_url), Database(db_url)  # as two server processes
    try:
        played = await _table(first)
        for _ in range(6):
            for name in played.ids:
                await ask(first, clock, played, name)
        a = worker(first, clock, smtp.url, worker_id="a")
        b = worker(second, clock, smtp.url, worker_id="b")
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
    db: Database, clock: FakeClock, smtp: SmtpSink
) -> None:
    played = await _table(db)
    row = await ask(db, clock, played, "bob")
    crashed = worker(db, clock, smtp.url, worker_id="crashed")
    assert await crashed._claim(row.id) is not None  # claimed, then the process died
    survivor = worker(db, clock, smtp.url, worker_id="survivor")
    assert await survivor.run_once() == 0  # the lease is still live
    clock.advance(WorkerConfig().lease.total_seconds() + 1)
    assert await survivor.run_once() == 1
    await smtp.wait_for(1)
    [request], [attempt] = await _rows(db)
    assert (request.status, request.attempts, attempt.worker) == ("sent", 2, "survivor")


async def test_a_refused_address_fails_at_once_with_the_reason(
    db: Database, clock: FakeClock, smtp: SmtpSink
) -> None:
    played = await _table(db)
    smtp.refuse = "550 5.1.1 no such mailbox"
    await ask(db, clock, played, "ann")
    assert await worker(db, clock, smtp.url).run_once() == 1
    [request], [attempt] = await _rows(db)
    assert request.status == "failed" and attempt.outcome == "failed"
    assert "refused the address: 550 5.1.1 no such mailbox" in (request.last_error or "")


async def test_after_the_last_attempt_the_request_fails_with_the_reason(
    db: Database, clock: FakeClock
) -> None:
    played = await _table(db)
    await ask(db, clock, played, "ann")
    down = SmtpSink()  # never started
    mail = worker(db, clock, down.url, max_attempts=3)
    for _ in range(3):
        assert await mail.run_once() == 1
        clock.advance(3600)
    assert await mail.run_once() == 0
    [request], attempts = await _rows(db)
    assert [a.outcome for a in attempts] == ["retry", "retry", "failed"]
    assert request.status == "failed"
    assert (request.last_error or "").startswith("gave up after 3 attempts: could not reach")


async def test_without_smtp_messages_go_to_the_maildir(
    db: Database, clock: FakeClock, tmp_path: Path
) -> None:
    played = await _table(db)
    await ask(db, clock, played, "bob")
    maildir = tmp_path / "maildir"
    mail = MailWorker(db, MaildirTransport(maildir), HISTORY, clock=clock)
    assert await mail.run_once() == 1
    [message] = list(mailbox.Maildir(maildir, create=False))
    assert message["Subject"] == f"Stud: hand #{played.number}"
    [request], [attempt] = await _rows(db)
    assert request.status == "sent" and str(maildir) in attempt.detail


async def test_the_verification_link_leaves_the_outbox_once_sent(
    db: Database, clock: FakeClock, smtp: SmtpSink
) -> None:
    user = await make_player(db, "dee", verified=False)
    await request_verification(
        db, user_id=user.id, base_url="https://stud.test", now=clock(), limits=LIMITS
    )
    [request], _ = await _rows(db)
    assert request.payload["url"].startswith("https://stud.test/api/mail/verify?token=")
    assert await worker(db, clock, smtp.url).run_once() == 1
    [got] = await smtp.wait_for(1)
    assert request.payload["url"] in got.message.get_content()
    [request], _ = await _rows(db)
    assert request.status == "sent" and request.payload == {}


async def test_r24_a_stored_hand_is_mailed_with_the_mucked_cards_not_the_folded_ones(
    db: Database, clock: FakeClock, smtp: SmtpSink
) -> None:
    """Asked for as "my last hands": each recipient's email holds the hand as they may see
    it; a player not dealt into it may not ask for it."""
    played = await _table(db)
    number = played.number
    assert await HISTORY.recent_hands(db, played.ids["bob"], 100) == [number]
    for name in ("bob", "cy"):  # bob called and mucked; cy won; ann folded on fifth street
        await request_hands(
            db, HISTORY, user_id=played.ids[name], now=clock(), limits=LIMITS, last=5
        )
    mail = MailWorker(db, SmtpTransport.from_url(smtp.url), HISTORY, clock=clock)
    assert await mail.run_once() == 2
    received = await smtp.wait_for(2)
    deal = await stored_deal(db, number)
    for got, seat in zip(received, (1, 2), strict=True):
        message = got.message
        assert message["Subject"].endswith(f"hand #{number}")
        body = message.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        [attachment] = list(message.iter_attachments())
        assert attachment.get_filename() == f"hand-{number}.phh"
        phh = attachment.get_content()
        for content in (text, phh):
            seen = set(cards_in(content))
            assert seen == deal.visible(seat), seen ^ deal.visible(seat)
            assert set(MUCKED) <= seen  # bob's mucked hand
            assert not set(FOLDED_DOWN) & seen  # ann's down cards
        assert "ann" in text and "bob" in text
    # dee was not dealt into it: she may not ask for it
    other = await make_player(db, "dee")
    assert await HISTORY.recent_hands(db, other.id, 100) == []
    with pytest.raises(NotDealtIn):
        await request_hands(
            db, HISTORY, user_id=other.id, now=clock(), limits=LIMITS, numbers=[number]
        )
