"""Mail over HTTP, on the real app (its lifespan runs the worker) against a real SMTP server on
loopback: verify the address by the emailed link, ask for a hand, see the requests; refusals
(someone else's hand, an unverified address, a flood); pending requests survive a restart."""

from __future__ import annotations

import re
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
from tests.mail.support import MUCKED, EngineHistory, SmtpSink, showdown_hand

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
async def running(settings: Settings, history: EngineHistory) -> AsyncIterator[Client]:
    """The app with its lifespan (database, tables, mail worker) and a client for it."""
    application = create_app(settings)
    application.state.mail_history = history
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
    db: Database = client.app_state.db  # type: ignore[attr-defined]
    async with db.transaction() as session:
        await session.execute(update(User).where(User.id == user_id).values(email_verified=True))


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
    settings: Settings, history: EngineHistory, smtp: SmtpSink
) -> None:
    async with running(settings, history) as client:
        ann_id, ann = await player(client, "ann")
        bob_id, _ = await player(client, "bob")
        cy_id, _ = await player(client, "cy")
        history.add(
            101, showdown_hand(), {0: (cy_id, "cy"), 1: (ann_id, "ann"), 2: (bob_id, "bob")}
        )

        reply = await client.post("/api/mail/hands", json={"hand_id": 101}, headers=ann)
        status, code, message = refusal(reply)
        assert (status, code) == (403, "email_not_verified")
        assert "verify your email address ann@example.com first" in message

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

        reply = await client.post("/api/mail/hands", json={"hand_id": 101}, headers=ann)
        assert reply.status_code == 202
        assert reply.json()["request"] | {"id": 0, "created_at": ""} == {
            "id": 0,
            "kind": "hands",
            "hand_ids": [101],
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
        assert hand_mail.message["Subject"] == "Stud Club: hand #101"
        body = hand_mail.message.get_body(("plain",))
        assert body is not None and all(card in body.get_content() for card in MUCKED)
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


async def test_refusals_are_clear(
    settings: Settings, history: EngineHistory, smtp: SmtpSink
) -> None:
    async with running(settings, history) as client:
        ann_id, ann = await player(client, "ann")
        bob_id, bob = await player(client, "bob")
        history.add(101, showdown_hand(), {0: (ann_id, "ann")})
        history.add(102, showdown_hand(), {1: (bob_id, "bob")})
        await verify_directly(client, ann_id)
        await verify_directly(client, bob_id)

        # someone else's hand (and a hand that does not exist)
        for hand in (102, 999):
            status, code, message = refusal(
                await client.post("/api/mail/hands", json={"hand_id": hand}, headers=ann)
            )
            assert (status, code) == (403, "not_dealt_in")
            assert f"you were not dealt into hand #{hand}" in message
        status, code, _ = refusal(
            await client.post("/api/mail/hands", json={"hand_ids": [101, 102]}, headers=ann)
        )
        assert (status, code) == (403, "not_dealt_in")

        # malformed requests
        for body in ({}, {"hand_id": 101, "last": 3}, {"last": 101}, {"hand_id": "a\r\nb"}):
            reply = await client.post("/api/mail/hands", json=body, headers=ann)
            assert reply.status_code == 422, body
        assert (await client.post("/api/mail/hands", json={"last": 5})).status_code == 401
        status, code, _ = refusal(await client.post("/api/mail/verification", headers=ann))
        assert (status, code) == (409, "email_already_verified")

        # a flood: 3 an hour (this test's setting), then a clear refusal with Retry-After
        bodies: list[dict[str, Any]] = [{"hand_id": 101}, {"last": 100}, {"hand_ids": [101]}]
        for accepted in bodies:
            reply = await client.post("/api/mail/hands", json=accepted, headers=ann)
            assert reply.status_code == 202, reply.text
        reply = await client.post("/api/mail/hands", json={"hand_id": 101}, headers=ann)
        status, code, message = refusal(reply)
        assert (status, code) == (429, "rate_limited")
        assert "you may ask for 3 hand-history emails an hour; try again in" in message
        assert 3000 < int(reply.headers["Retry-After"]) <= 3600
        # bob's own limit is untouched, and only his hands are his
        reply = await client.post("/api/mail/hands", json={"last": 10}, headers=bob)
        assert reply.status_code == 202 and reply.json()["request"]["hand_ids"] == [102]
        await smtp.wait_for(4)
        requests = await wait_until(client, ann, lambda rs: {r["status"] for r in rs} == {"sent"})
        assert len(requests) == 3
    subjects = sorted(m.message["Subject"] for m in smtp.received)
    assert subjects == ["Stud Club: hand #101"] * 3 + ["Stud Club: hand #102"]


async def test_pending_requests_are_delivered_after_a_restart(
    settings: Settings, history: EngineHistory, smtp: SmtpSink
) -> None:
    # the first server process accepts requests but stops before its worker sends them
    async with running(
        settings.model_copy(update={"mail_worker_enabled": False}), history
    ) as client:
        ann_id, ann = await player(client, "ann")
        history.add(101, showdown_hand(), {0: (ann_id, "ann")})
        history.add(102, showdown_hand(), {0: (ann_id, "ann")})
        await verify_directly(client, ann_id)
        for hand in (101, 102):
            assert (
                await client.post("/api/mail/hands", json={"hand_id": hand}, headers=ann)
            ).status_code == 202
        requests = (await client.get("/api/mail/requests", headers=ann)).json()["requests"]
        assert [r["status"] for r in requests] == ["queued", "queued"]
    assert smtp.received == []

    async with running(settings, history) as client:  # the restarted server
        _, ann = await player_login(client, "ann")
        received = await smtp.wait_for(2)
        await wait_until(client, ann, lambda rs: [r["status"] for r in rs] == ["sent", "sent"])
    assert sorted(m.message["Subject"] for m in received) == [
        "Stud Club: hand #101",
        "Stud Club: hand #102",
    ]


async def player_login(client: Client, name: str) -> tuple[None, dict[str, str]]:
    token = (await client.post("/api/login", json={"name": name, "password": PASSWORD})).json()
    client.cookies.clear()
    return None, {"Authorization": f"Bearer {token['token']}"}
