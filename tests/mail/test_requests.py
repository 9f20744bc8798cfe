"""Accepting requests, on both backends: the per-player limit holds under concurrent requests
and slides with the clock; verification tokens are kept hashed, expire, and are bound to the
address they were sent to."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select, update

from app.mail.errors import InvalidToken, RateLimited, TokenExpired
from app.mail.history import StoredHistory
from app.mail.requests import (
    MailLimits,
    request_hands,
    request_verification,
    token_hash,
    verify,
)
from app.store.db import Database
from app.store.models import User
from app.store.outbox import EmailVerification, MailRequest
from tests.mail.support import FakeClock, make_player, store_showdown_hand

LIMITS = MailLimits(hands_per_hour=3, verifications_per_hour=2, verify_hours=1)


async def test_the_limit_holds_for_concurrent_requests_and_slides_with_the_clock(
    db_url: str, clock: FakeClock
) -> None:
    dbs = [Database(db_url) for _ in range(3)]  # as several server processes
    history = StoredHistory()
    try:
        players = [await make_player(dbs[0], name) for name in ("ann", "bob", "cy")]
        ann = players[0]
        number = await store_showdown_hand(dbs[0], {s: p.id for s, p in enumerate(players)})

        async def ask(db: Database) -> str:
            try:
                await request_hands(
                    db, history, user_id=ann.id, now=clock(), limits=LIMITS, numbers=[number]
                )
            except RateLimited as exc:
                return f"retry in {exc.retry_after}"
            return "accepted"

        outcomes = await asyncio.gather(*(ask(dbs[i % 3]) for i in range(8)))
        assert sorted(outcomes) == ["accepted"] * 3 + ["retry in 3600"] * 5
        clock.advance(3599)
        assert await ask(dbs[0]) == "retry in 1"
        clock.advance(1)  # an hour after the first: the window has room again
        assert await ask(dbs[1]) == "accepted"
        async with dbs[0].session() as session:
            assert len(list(await session.scalars(select(MailRequest)))) == 4
    finally:
        for db in dbs:
            await db.dispose()


async def _token(db: Database, clock: FakeClock, user: User) -> str:
    request = await request_verification(
        db, user_id=user.id, base_url="https://stud.test", now=clock(), limits=LIMITS
    )
    url: str = request.payload["url"]
    return parse_qs(urlsplit(url).query)["token"][0]


async def test_verification_tokens_are_hashed_expire_and_follow_the_address(
    db: Database, clock: FakeClock
) -> None:
    ann = await make_player(db, "ann", verified=False)
    token = await _token(db, clock, ann)
    async with db.session() as session:
        [row] = list(await session.scalars(select(EmailVerification)))
    assert row.token_hash == token_hash(token) and token not in row.token_hash

    with pytest.raises(InvalidToken):
        await verify(db, token[:-1] + ("A" if token[-1] != "A" else "B"), now=clock())
    clock.advance(3601)
    with pytest.raises(TokenExpired):
        await verify(db, token, now=clock())

    fresh = await _token(db, clock, ann)
    async with db.transaction() as session:  # the address changed after the link was sent
        await session.execute(
            update(User).where(User.id == ann.id).values(email="ann@elsewhere.test")
        )
    with pytest.raises(InvalidToken, match="no longer your account's"):
        await verify(db, fresh, now=clock())

    await _token(db, clock, ann)  # the second in this hour
    with pytest.raises(RateLimited, match="2 verification emails an hour"):
        await _token(db, clock, ann)
    clock.advance(3600)
    newest = await _token(db, clock, ann)
    assert await verify(db, newest, now=clock()) == "ann@elsewhere.test"
    assert await verify(db, newest, now=clock()) == "ann@elsewhere.test"  # a second click
    async with db.session() as session:
        user = (await session.execute(select(User).where(User.id == ann.id))).scalar_one()
    assert user.email_verified
