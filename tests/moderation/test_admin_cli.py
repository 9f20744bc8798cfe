"""`python -m app admin grant|revoke|log` on a real database (both backends): the role set
and logged, an unknown name refused with nothing written, the log printed newest first; on
PostgreSQL the database itself refuses to change or delete a line of the log."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import delete, update
from sqlalchemy.exc import DBAPIError

from app.__main__ import main
from app.store import moderation
from app.store.db import Database
from app.store.moderation_models import ModerationEntry
from tests.store.factories import make_user


async def test_grant_revoke_and_log(
    db: Database, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with db.transaction() as s:
        user = await make_user(s, "Olga")

    def run(*args: str) -> int:  # the command runs its own event loop
        return main(["admin", *args, "--database-url", db_url])

    assert await asyncio.to_thread(run, "grant", "olga") == 0  # any case
    assert "Olga is now an operator" in capsys.readouterr().out
    async with db.session() as s:
        assert await moderation.is_operator(s, user.id)
    assert await asyncio.to_thread(run, "grant", "nobody") == 1
    assert "there is no player named 'nobody'" in capsys.readouterr().err.lower()
    assert await asyncio.to_thread(run, "revoke", "Olga") == 0
    async with db.session() as s:
        assert not await moderation.is_operator(s, user.id)
    capsys.readouterr()
    assert await asyncio.to_thread(run, "log") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "command line: revoke Olga" in lines[0] and "command line: grant Olga" in lines[1]


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_the_database_refuses_to_rewrite_the_log(db: Database) -> None:
    async with db.transaction() as s:
        await make_user(s, "Olga")
        await moderation.set_role(s, "Olga", moderation.OPERATOR)
    for statement in (update(ModerationEntry).values(reason="nothing"), delete(ModerationEntry)):
        with pytest.raises(DBAPIError, match="append-only"):
            async with db.transaction() as s:
                await s.execute(statement)
    async with db.session() as s:
        assert [line["action"] for line in await moderation.read_log(s)] == ["grant"]
