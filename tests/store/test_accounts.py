"""Users and sessions in the store: unique names whatever the case, tokens hashed at rest,
revoked and expired sessions refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.store import accounts, ledger
from app.store.db import Database
from app.store.errors import NameTaken
from app.store.models import AuthSession
from app.store.passwords import Passwords
from app.store.types import utcnow
from tests.store.factories import make_user


async def test_names_are_unique_whatever_the_case(db: Database) -> None:
    async with db.transaction() as s:
        await make_user(s, "Zoe")
    with pytest.raises(NameTaken):
        async with db.transaction() as s:
            await make_user(s, "zOE")
    async with db.session() as s:
        found = await accounts.find_user(s, " ZOE ")
        assert found is not None and found.name == "Zoe"
        assert await ledger.player_balance(s, found.id) == 10_000


async def test_sessions_store_only_a_hash_and_end_when_revoked_or_expired(db: Database) -> None:
    async with db.transaction() as s:
        user = await make_user(s, "ann")
        new = await accounts.open_session(s, user.id, lifetime=timedelta(days=1))
    async with db.session() as s:
        stored = (await s.scalars(select(AuthSession.token_hash))).all()
        assert stored == [accounts.hash_token(new.token)] and new.token not in stored
        found = await accounts.session_user(s, new.token)
        assert found is not None and found[0].name == "ann"
        assert await accounts.session_user(s, new.token, now=utcnow() + timedelta(days=2)) is None
        assert await accounts.session_user(s, new.token + "x") is None
        assert await accounts.session_user(s, "") is None
    async with db.transaction() as s:
        await accounts.revoke_session(s, new.session_id)
    async with db.session() as s:
        assert await accounts.session_user(s, new.token) is None


async def test_password_hashes_verify_and_refuse() -> None:
    passwords = Passwords(time_cost=1, memory_kib=1024, parallelism=1)
    hashed = await passwords.hash("correct horse")
    assert hashed.startswith("$argon2id$")
    assert await passwords.verify(hashed, "correct horse")
    assert not await passwords.verify(hashed, "wrong horse")
    assert not await passwords.verify(None, "correct horse")  # unknown user: same work
    assert not await passwords.verify("!bot", "anything")  # an unusable hash
    assert Passwords(time_cost=2, memory_kib=1024, parallelism=1).needs_rehash(hashed)
