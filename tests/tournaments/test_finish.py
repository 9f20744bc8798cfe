"""A finished tournament's summaries are queued at the finish, whatever its tables do after."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, update

from app.store.models import User
from app.store.outbox import MailKind, MailRequest
from app.tournaments import director as director_module
from tests.tournaments.harness import Server, play_call_down

LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "hands": 2},
    {"ante": 90, "bring_in": 95, "small_bet": 100, "big_bet": 200, "hands": 100},
]}  # fmt: skip


async def test_the_summaries_are_queued_before_the_tables_are_asked_to_close(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people and two bots play to a winner. When the director closes the tables (each
    answers when its hand is over, and one on a process that hangs never does), each
    person's summary mail is in the outbox already: the summaries owe nothing to them."""
    queued_at_close: list[list[int]] = []
    close_table = director_module.Director.close_table

    async def noted(self: director_module.Director, slot: Any) -> None:
        async with server.db.session() as s:
            mailed = await s.scalars(
                select(MailRequest.user_id).where(MailRequest.kind == MailKind.TOURNAMENT)
            )
            queued_at_close.append(sorted(mailed))
        await close_table(self, slot)

    monkeypatch.setattr(director_module.Director, "close_table", noted)
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=6, buy_in=999, fee=100, starting_chips=100, structure=LEVELS,
        payouts="sng_50_30_20", max_players=4,
    )  # fmt: skip
    ann, bob = [await server.person(n) for n in ("ann", "bob")]
    async with server.db.transaction() as s:
        ids = [ann.id, bob.id]
        await s.execute(update(User).where(User.id.in_(ids)).values(email_verified=True))
    for who in (ann, bob):
        assert (await server.register(who, tid)).status_code == 200
    server.puppets.update({ann.id: play_call_down, bob.id: play_call_down})
    await server.bots(tid, 2)
    await server.start(tid)
    await server.run_until(tid, lambda: server.finished(tid))
    await server.settle(tid)
    assert queued_at_close, "no table was closed"
    assert queued_at_close[0] == sorted([ann.id, bob.id])
