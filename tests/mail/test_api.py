"""Mail over HTTP, on the real app (its lifespan runs the worker, its hand histories are the
stored hands) against a real SMTP server on loopback: verify the address by the emailed link,
ask for a hand, see the requests; refusals (someone else's hand, an unverified address, a
flood); pending requests survive a restart."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from app.config import Settings
from app.main import create_app
from app.store.db import Database
from app.store.models import User
from tests.api.conftest import make_settings
from tests.mail.support import (
    FOLDED_DOWN,
    MUCKED,
    SmtpSink,
    make_player,
    store_showdown_hand,
)
from tests.store.cards_seen import cards_in

PASSWORD = "correct horse battery staple"
Client = httpx.AsyncClient


@pytest.fixture
def settings(db_url: str, tmp_path: Path, smtp: SmtpSink) -> Settings:
    return make_settings(db_url, tmp_path).model_copy(
        update={
            "smtp_url": smtp.url,
            "site_name": "Stud Club",
            "mail_from": "hands@stud.test",
            "public_base_url": "https://stud.test",
            "mail_hands_per_hour": 3,
        }
    )


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Client]:
    """The app with its lifespan (database, tables, mail worker) and a client for it."""
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            http.app_state = application.state  # type: ignore[attr-defined]
            yield http


async def player(client: Client, name: str) -> tuple[int, dict[str, str]]:
    """Register and log in `name`; returns the user id and the bearer header."""
    reply = await client.post(
        "/api/register", json={"name": name, "password": PASSWORD, "email": f"{name}@example.com"}
    )
    assert reply.status_code == 201, reply.text
    token = (await client.post("/api/login", json={"name": name, "password": PASSWORD})).json()
    client.cookies.clear()
    return reply.json()["id"], {"Authorization": f"Bearer {token['token']}"}


async def verify_directly(client: Client, user_id: int) -> None:
    async with database(client).transaction() as session:
        await session.execute(update(User).where(User.id == user_id).values(email_verified=True))


def database(client: Client) -> Database:
    db: Database = client.app_state.db  # type: ignore[attr-defined]
    return db


async def stored_hand(client: Client, *players: int) -> int:
    """A real hand stored in the app's database with `players` in seats 0, 1, 2 (seat 0
    folds on fifth street, seat 1 mucks, seat 2 wins); others fill the seats left. Its
    number."""
    db = database(client)
    seats = list(players)
    while len(seats) < 3:
        seats.append((await make_player(db, f"filler{secrets.token_hex(3)}")).id)
    return await store_showdown_hand(db, dict(enumerate(seats)))


def refusal(reply: httpx.Response) -> tuple[int, str, str]:
    detail = reply.json()["detail"]
    return reply.status_code, detail["code"], detail["message"]


async def wait_until(client: Client, auth: dict[str, str], done: Callable[[Any], bool]) -> Any:
    """Poll GET /api/mail/requests until `done(requests)` (fails after 10 s)."""
    import asyncio

    async with asyncio.timeout(10):
        while True:
            requests = (await client.get("/api/mail/requests", headers=auth)).json()["requests"]
            if done(requests):
                return requests
            await asyncio.sleep(0.02)


async def test_verify_by_the_emailed_link_then_the_hand_arrives(
    settings: Settings, smtp: SmtpSink
) -> None:
    async with running(settings) as client:
        ann_id, ann = await player(client, "ann")
        bob_id, _ = await player(client, "bob")
        cy_id, _ = await player(client, "cy")
        hand = await stored_hand(client, cy_id, ann_id, bob_id)  # ann calls down and mucks

        reply = await client.post("/api/mail/hands", json={"hand_number": hand}, headers=ann)
        status, code, message = refusal(reply)
        assert (status, code) == (403, "email_not_verified")
        assert "Verify your email address ann@example.com first" in message

        reply = await client.post("/api/mail/verification", headers=ann)
        assert reply.status_code == 202 and reply.json()["request"]["kind"] == "verify"
        [link_mail] = await smtp.wait_for(1)
        assert link_mail.message["Subject"] == "Stud Club: confirm your email address"
        found = re.search(
            r"https://stud\.test(/api/mail/verify\?token=\S+)", link_mail.message.get_content()
        )
        assert found is not None
        reply = await client.get(found[1])
        assert reply.json() == {"verified": True, "email": "ann@example.com"}
        assert (await client.get("/api/me", headers=ann)).json()["email_verified"] is True

        reply = await client.post("/api/mail/hands", json={"hand_number": hand}, headers=ann)
        assert reply.status_code == 202
        assert reply.json()["request"] | {"id": 0, "created_at": ""} == {
            "id": 0,
            "kind": "hands",
            "hand_numbers": [hand],
            "hand_ids": [hand],  # the name before, still said
            "to": "ann@example.com",
            "status": "queued",
            "attempts": 0,
            "reason": None,
            "last_error": None,
            "created_at": "",
            "next_attempt_at": reply.json()["request"]["next_attempt_at"],
            "sent_at": None,
        }
        _, hand_mail = await smtp.wait_for(2)
        assert hand_mail.message["Subject"] == f"Stud Club: hand #{hand}"
        body = hand_mail.message.get_body(("plain",))
        [attachment] = list(hand_mail.message.iter_attachments())
        assert body is not None
        for content in (body.get_content(), attachment.get_content()):
            seen = set(cards_in(content))
            assert set(MUCKED) <= seen and not set(FOLDED_DOWN) & seen  # R24: cy folded
        requests = await wait_until(
            client, ann, lambda rs: [r["status"] for r in rs] == ["sent", "sent"]
        )
        assert [r["kind"] for r in requests] == ["hands", "verify"]
        assert requests[0]["sent_at"] and requests[0]["attempts"] == 1

        # the link was used: again is fine, a made-up one is refused
        assert (await client.get(found[1])).status_code == 200
        assert refusal(await client.get("/api/mail/verify?token=made-up"))[:2] == (
            400,
            "invalid_token",
        )
        page = await client.get("/api/mail/verify?token=made-up", headers={"Accept": "text/html"})
        assert page.status_code == 400 and "not valid" in page.text
    assert len(smtp.received) == 2


async def test_refusals_are_clear(settings: Settings, smtp: SmtpSink) -> None:
    async with running(settings) as client:
        ann_id, ann = await player(client, "ann")
        bob_id, bob = await player(client, "bob")
        anns = await stored_hand(client, ann_id)
        bobs = await stored_hand(client, bob_id)  # ann was not dealt into it
        missing = bobs + 1000
        await verify_directly(client, ann_id)
        await verify_directly(client, bob_id)

        # someone else's hand (and a hand that does not exist)
        for hand in (bobs, missing):
            status, code, message = refusal(
                await client.post("/api/mail/hands", json={"hand_number": hand}, headers=ann)
            )
            assert (status, code) == (403, "not_dealt_in")
            assert f"You were not dealt into hand #{hand}" in message
        status, code, _ = refusal(
            await client.post("/api/mail/hands", json={"hand_numbers": [anns, bobs]}, headers=ann)
        )
        assert (status, code) == (403, "not_dealt_in")

        # malformed requests
        for body in (
            {},
            {"hand_number": anns, "last": 3},
            {"last": 101},
            {"hand_number": "a\r\nb"},
        ):
            reply = await client.post("/api/mail/hands", json=body, headers=ann)
            assert reply.status_code == 422, body
        assert (await client.post("/api/mail/hands", json={"last": 5})).status_code == 401
        status, code, _ = refusal(await client.post("/api/mail/verification", headers=ann))
        assert (status, code) == (409, "email_already_verified")

        # a flood: 3 an hour (this test's setting), then a clear refusal with Retry-After
        # (the names before, "hand_id" and "hand_ids", are still read)
        bodies: list[dict[str, Any]] = [{"hand_id": anns}, {"last": 100}, {"hand_ids": [anns]}]
        for accepted in bodies:
            reply = await client.post("/api/mail/hands", json=accepted, headers=ann)
            assert reply.status_code == 202, reply.text
        reply = await client.post("/api/mail/hands", json={"hand_number": anns}, headers=ann)
        status, code, message = refusal(reply)
        assert (status, code) == (429, "rate_limited")
        assert "You may ask for 3 hand-history emails an hour; try again in" in message
        assert 3000 < int(reply.headers["Retry-After"]) <= 3600
        # bob's own limit is untouched, and only his hands are his
        reply = await client.post("/api/mail/hands", json={"last": 10}, headers=bob)
        assert reply.status_code == 202 and reply.json()["request"]["hand_numbers"] == [bobs]
        await smtp.wait_for(4)
        requests = await wait_until(client, ann, lambda rs: {r["status"] for r in rs} == {"sent"})
        assert len(requests) == 3
    subjects = sorted(m.message["Subject"] for m in smtp.received)
    assert subjects == sorted([f"Stud Club: hand #{anns}"] * 3 + [f"Stud Club: hand #{bobs}"])
    for got in smtp.received:  # each went to the one player dealt in of the two
        number = int(got.message["Subject"].rsplit("#", 1)[1])
        assert got.rcpt_tos == ["ann@example.com" if number == anns else "bob@example.com"]


async def test_pending_requests_are_delivered_after_a_restart(
    settings: Settings, smtp: SmtpSink
) -> None:
    # the first server process accepts requests but stops before its worker sends them
    async with running(settings.model_copy(update={"mail_worker_enabled": False})) as client:
        ann_id, ann = await player(client, "ann")
        numbers = [await stored_hand(client, ann_id) for _ in range(2)]
        await verify_directly(client, ann_id)
        for hand in numbers:
            assert (
                await client.post("/api/mail/hands", json={"hand_number": hand}, headers=ann)
            ).status_code == 202
        requests = (await client.get("/api/mail/requests", headers=ann)).json()["requests"]
        assert [r["status"] for r in requests] == ["queued", "queued"]
    assert smtp.received == []

    async with running(settings) as client:  # the restarted server
        _, ann = await player_login(client, "ann")
        received = await smtp.wait_for(2)
        await wait_until(client, ann, lambda rs: [r["status"] for r in rs] == ["sent", "sent"])
    assert sorted(m.message["Subject"] for m in received) == sorted(
        f"Stud Club: hand #{n}" for n in numbers
    )


async def player_login(client: Client, name: str) -> tuple[None, dict[str, str]]:
    token = (await client.post("/api/login", json={"name": name, "password": PASSWORD})).json()
    client.cookies.clear()
    return None, {"Authorization": f"Bearer {token['token']}"}
