"""R35 on a schedule: registration opens at `opens_at`, the tournament starts by itself at
`starts_at` (the directors' heartbeat claims it), late registration lasts its set number of
levels, and a tournament too few players came to is cancelled with everyone refunded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.tournaments import directors, service
from tests.tournaments.harness import Server, by_registration

LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 2},
    {"ante": 20, "bring_in": 30, "small_bet": 100, "big_bet": 200, "minutes": 60},
]}  # fmt: skip
START = 100_000  # each person's balance
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


class Wall:
    """The wall clock the registration desk and the directors' heartbeat read."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> Wall:
    clock = Wall()
    monkeypatch.setattr(service, "utcnow", clock)
    monkeypatch.setattr(directors, "utcnow", clock)
    return clock


def code(r: Any) -> str:
    assert r.status_code == 400, r.text
    return str(r.json()["detail"]["code"])


async def test_r35_registration_opens_at_its_time_starts_itself_and_late_registration_closes(
    server: Server, wall: Wall
) -> None:
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=6, buy_in=1000, fee=100, structure=LEVELS, start="scheduled",
        opens_at=(T0 + timedelta(hours=1)).isoformat(),
        starts_at=(T0 + timedelta(hours=2)).isoformat(), max_players=10, late_levels=1,
    )  # fmt: skip
    ann, bea, cy, dan = [await server.person(n) for n in ("ann", "bea", "cy", "dan")]
    assert code(await server.register(ann, tid)) == "registration_not_open"
    assert await server.balance(ann.id) == START and await server.entries(tid) == []

    wall.now = T0 + timedelta(hours=1)  # it opens
    for who in (ann, bea):
        assert (await server.register(who, tid)).status_code == 200
    assert server.services.directors is not None
    wall.now = T0 + timedelta(hours=2) - timedelta(seconds=1)
    assert await server.services.directors.claim_due() == []  # not yet
    wall.now = T0 + timedelta(hours=2)
    assert await server.services.directors.claim_due() == [tid]  # the heartbeat starts it
    director = await server.begun(tid)
    server.rig(tid, by_registration(server, []))
    assert (await server.tournament(tid)).status == "running"

    r = await server.register(cy, tid)  # level 1 of late registration's one
    assert r.status_code == 200 and r.json() == {"registered": True, "entry": "entry"}
    await server.settle(tid)
    (table,) = server.tables(tid)
    assert set(table.state.by_user) == {ann.id, bea.id, cy.id}  # seated at once
    assert await server.pool(tid) == 3000

    await server.run_until(tid, lambda: director.clock_.level == 1)
    before = [(e.id, e.status, int(e.chips)) for e in await server.entries(tid)]
    assert code(await server.register(dan, tid)) == "registration_closed"
    assert [(e.id, e.status, int(e.chips)) for e in await server.entries(tid)] == before
    assert await server.balance(dan.id) == START and await server.pool(tid) == 3000
    assert dan.id not in table.state.by_user
    await server.ledger_ok()


async def test_r36_a_tournament_too_few_came_to_is_cancelled_at_its_start_and_refunds_all(
    server: Server, wall: Wall
) -> None:
    host = await server.person("host")
    tid = await server.create(
        host, buy_in=1000, fee=100, structure=LEVELS, start="scheduled", min_players=3,
        starts_at=(T0 + timedelta(hours=1)).isoformat(), max_players=10,
    )  # fmt: skip
    ann, bea = [await server.person(n) for n in ("ann", "bea")]
    for who in (ann, bea):
        assert (await server.register(who, tid)).status_code == 200
        assert await server.balance(who.id) == START - 1100
    assert await server.pool(tid) == 2000
    wall.now = T0 + timedelta(hours=1)
    assert server.services.directors is not None
    assert await server.services.directors.claim_due() == [tid]
    await server.settle(tid)
    assert (await server.tournament(tid)).status == "cancelled"
    assert [await server.balance(who.id) for who in (ann, bea)] == [START, START]
    assert await server.pool(tid) == 0
    assert all(e.refunded for e in await server.entries(tid))
    assert server.tables(tid) == []  # none was made
    await server.ledger_ok()
