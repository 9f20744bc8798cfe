"""One hand, one number: the number a hand is dealt under at the table is the one the hand
list and the history API find it by, the one its email names in the subject, the body and the
attachment's file name, the PHH `hand` field and the PokerStars header. Numbers grow, and the
unguessable internal id is shown nowhere beside them. Real server, real SMTP on loopback."""

from __future__ import annotations

import re
import tomllib
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import update

from app.fanout import create_fanout
from app.mail.history import StoredHistory
from app.mail.requests import MailLimits, request_hands
from app.mail.transport import SmtpTransport
from app.mail.worker import MailWorker
from app.store import hands
from app.store.db import Database
from app.store.models import User
from app.tables import FakeClock as TableClock
from app.tables import messages as m
from tests import asks
from tests.mail.support import FakeClock, SmtpSink
from tests.store.hands_play import play_hands
from tests.tables.live import Client, Live, live_server


@pytest.fixture
async def live(db: Database) -> AsyncIterator[Live]:
    fanout = create_fanout("memory://")
    try:
        async with live_server(db, fanout, TableClock()) as server:
            yield server
    finally:
        await fanout.close()


async def test_one_hand_has_one_number_at_the_table_in_the_api_the_email_and_both_texts(
    live: Live, db: Database, smtp: SmtpSink, clock: FakeClock
) -> None:
    (ann, ann_token), (bob, _) = await live.user("ann"), await live.user("bob")
    async with db.transaction() as s:
        await s.execute(update(User).where(User.id == ann).values(email_verified=True))
    created = await live.create_table(
        ann_token, name="Numbers", small_bet=100, ante=15, hand_pause_ms=500
    )
    table_id = created["table"]["id"]
    watcher = await Client.open(live, table_id, ann_token, ann)
    table = live.table(table_id)
    for seat, user in enumerate((ann, bob)):
        await table.request(asks.sit(user, f"u{user}", seat, 2000, f"k{seat}"))
    await play_hands(table, live.clock, 3, fold_seat=1)
    await table.request(m.Sync())  # the hand writer has recorded them
    await watcher.wait(
        lambda f: f.get("type") == "deal_revealed" and f["hand_id"] == table.state.hand_id
    )

    started = [f for f in watcher.events() if f.get("type") == "hand_started"]
    numbers = [f["number"] for f in started]
    assert len(numbers) == 3 and all(n.isdigit() for n in numbers)
    assert [int(n) for n in numbers] == sorted(int(n) for n in numbers)  # it grows
    assert len(set(numbers)) == 3
    number = numbers[1]
    internal = started[1]["hand_id"]
    async with db.session() as s:
        row = await hands.hand_by_number(s, int(number))
    assert row is not None and row.id == internal

    async with live.http(ann_token) as http:
        listed = (await http.get("/api/hands")).json()["hands"]
        assert [h["number"] for h in listed] == numbers[::-1]  # newest first
        body = (await http.get(f"/api/hands/{number}")).json()
        text = (await http.get(f"/api/hands/{number}", params={"format": "pokerstars"})).text
        phh = (await http.get(f"/api/hands/{number}", params={"format": "phh"})).text
    assert body["number"] == number
    assert text.startswith(f"PokerStars Hand #{number}: 7 Card Stud Limit ($1/$2 USD) - ")
    assert ": posts the ante $0.15" in text  # amounts as the table shows them
    assert re.search(r"^Seat 1: u\d+ \(\$\d+(\.\d\d)? in chips\)$", text, re.MULTILINE)
    assert tomllib.loads(phh)["hand"] == int(number)
    for shown in (str(listed), str(body), text, phh):
        assert internal not in shown  # the internal id is never shown beside the number

    await request_hands(
        db, StoredHistory(), user_id=ann, now=clock(), limits=MailLimits(),
        numbers=[int(number)],
    )  # fmt: skip
    worker = MailWorker(db, SmtpTransport.from_url(smtp.url), StoredHistory(), clock=clock)
    assert await worker.run_once() == 1
    [mail] = await smtp.wait_for(1)
    message = mail.message
    assert message["Subject"] == f"Stud: hand #{number}"
    content = message.get_body(("plain",))
    assert content is not None
    assert f"PokerStars Hand #{number}: " in content.get_content()
    assert ": posts the ante $0.15" in content.get_content()
    [attachment] = list(message.iter_attachments())
    assert attachment.get_filename() == f"hand-{number}.phh"
    assert tomllib.loads(attachment.get_content())["hand"] == int(number)
    assert internal not in message.as_string()
