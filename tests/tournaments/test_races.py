"""A scripted client racing its own requests (R35): two registrations at once, the same one
repeated, the last seat raced by several players, and registering against unregistering.
Whatever order the server takes them in, a player holds at most one live entry, pays for
each entry exactly once, and the prize pool and the ledger agree."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from app.store.types import utcnow
from app.tournaments.books import Books
from app.tournaments.directors import _DUE as DUE
from tests.tournaments.harness import (
    Person,
    Server,
    by_registration,
    play_call_down,
    play_fold,
)

PRICE, FEE, CHIPS = 1000, 100, 500
PURSE = 100_000
LEVELS = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 60}]}


async def _scheduled(server: Server, **spec: object) -> int:
    host = await server.person("host")
    starts = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    return await server.create(
        host, buy_in=PRICE, fee=FEE, starting_chips=CHIPS, start="scheduled", starts_at=starts,
        **spec,
    )  # fmt: skip


async def _at_once(
    server: Server, who: Person, calls: list[tuple[str, dict[str, Any]]]
) -> list[httpx.Response]:
    return list(await asyncio.gather(*(server.post(who, path, body) for path, body in calls)))


async def _books(server: Server, tid: int, people: list[Person]) -> int:
    """Each player's balance is the purse less what their live entries cost; the pool holds
    the live entries' prices. The number of live entries."""
    live = [e for e in await server.entries(tid) if e.status == "registered"]
    for who in people:
        mine = [e for e in live if e.user_id == who.id]
        assert len(mine) <= 1, f"{who.name} holds {len(mine)} live entries"
        assert await server.balance(who.id) == PURSE - (PRICE + FEE) * len(mine)
    assert await server.pool(tid) == PRICE * len(live)
    assert sum(int(e.chips) for e in live) == CHIPS * len(live)
    await server.ledger_ok()
    return len(live)


async def test_r35_two_registrations_at_once_enter_once(server: Server) -> None:
    tid = await _scheduled(server)
    ann = await server.person("ann")
    path = f"/api/tournaments/{tid}/register"
    answers = await _at_once(server, ann, [(path, {"request_id": f"r{n}"}) for n in range(6)])
    codes = sorted(r.status_code for r in answers)
    assert codes == [200, 400, 400, 400, 400, 400], [r.text for r in answers]
    refused = {r.json()["detail"]["code"] for r in answers if r.status_code == 400}
    assert refused == {"already_registered"}
    assert await _books(server, tid, [ann]) == 1


async def test_r35_one_registration_repeated_at_once_is_paid_once(server: Server) -> None:
    tid = await _scheduled(server)
    ann = await server.person("ann")
    path = f"/api/tournaments/{tid}/register"
    answers = await _at_once(server, ann, [(path, {"request_id": "same"})] * 4)
    assert any(r.status_code == 200 for r in answers), [r.text for r in answers]
    for r in answers:  # a repeat is the same entry, or refused as one already made
        assert r.status_code == 200 or r.json()["detail"]["code"] == "already_registered", r.text
    assert await _books(server, tid, [ann]) == 1


async def test_r35_the_last_seat_raced_by_five_goes_to_one(server: Server) -> None:
    tid = await _scheduled(server, max_players=3)
    first, second = await server.person("ann"), await server.person("bea")
    for who in (first, second):
        assert (await server.register(who, tid)).status_code == 200
    racers = [await server.person(f"racer{n}") for n in range(5)]
    answers = await asyncio.gather(*(server.register(who, tid) for who in racers))
    won = [who for who, r in zip(racers, answers, strict=True) if r.status_code == 200]
    assert len(won) == 1, [r.text for r in answers]
    for r in answers:
        if r.status_code != 200:
            assert r.json()["detail"]["code"] == "tournament_full", r.text
    assert await _books(server, tid, [first, second, *racers]) == 3


async def test_r35_registering_against_unregistering_keeps_the_books(server: Server) -> None:
    tid = await _scheduled(server)
    ann = await server.person("ann")
    assert (await server.register(ann, tid)).status_code == 200
    base = f"/api/tournaments/{tid}"
    for n in range(6):
        calls = [
            (f"{base}/unregister", {"request_id": f"out{n}"}),
            (f"{base}/register", {"request_id": f"in{n}"}),
        ]
        if n % 2:
            calls.reverse()
        answers = await _at_once(server, ann, calls)
        for r in answers:
            assert r.status_code == 200 or r.json()["detail"]["code"] in (
                "already_registered", "not_registered",
            ), r.text  # fmt: skip
        live = await _books(server, tid, [ann])
        if live == 0:  # whichever way it went, the next round starts registered
            assert (await server.register(ann, tid, request_id=f"again{n}")).status_code == 200


async def test_r35_rebuys_raced_between_hands_buy_one_stack(server: Server) -> None:
    """Bea folds the first hand and sits below the starting stack: four rebuys sent at once
    buy one starting stack, for one price; the others are refused, as her stack with the
    chips bought is above the starting stack."""
    host = await server.person("host")
    levels = {
        "levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 60}]
    }
    rebuys = {"levels": 1, "price": PRICE, "fee": FEE}
    tid = await server.create(
        host, seats_per_table=3, buy_in=PRICE, fee=FEE, starting_chips=100, structure=levels,
        max_players=3, rebuys=rebuys,
    )  # fmt: skip
    ann, bea, cy = people = [await server.person(n) for n in ("ann", "bea", "cy")]
    server.puppets.update({ann.id: play_call_down, bea.id: play_fold, cy.id: play_call_down})
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    await server.begun(tid)
    server.rig(tid, by_registration(server, [ann.id, cy.id, bea.id]))
    (table,) = server.tables(tid)
    await server.run_until(tid, lambda: table.state.hands_played == 1 and table.state.hand is None)
    stack = table.state.seats[table.state.by_user[bea.id]].stack
    assert stack < 100
    path = f"/api/tournaments/{tid}/rebuy"
    answers = await _at_once(server, bea, [(path, {"request_id": f"rb{n}"}) for n in range(4)])
    bought = [r for r in answers if r.status_code == 200]
    assert len(bought) == 1, [r.text for r in answers]
    for r in answers:
        if r.status_code != 200:
            assert r.json()["detail"]["code"] == "stack_too_big", r.text
    assert await server.balance(bea.id) == PURSE - 2 * (PRICE + FEE)
    assert await server.pool(tid) == PRICE * 4
    (entry,) = [e for e in await server.entries(tid) if e.user_id == bea.id]
    assert int(entry.chips) == stack + 100
    await server.ledger_ok()


async def test_r35_leaving_and_entering_while_the_start_draws_seats(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host starts the tournament; while its director draws the seats, one registered
    player unregisters and a new one registers (the requests land between the director's
    reading of the entries and its seating them). Each is either refused, or taken into
    account: nobody plays without having paid, nobody paid sits out unseated, and the
    tournament plays to its winner with every place given once."""
    host = await server.person("host")
    starts = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    tid = await server.create(
        host, buy_in=PRICE, fee=FEE, starting_chips=CHIPS, start="scheduled", starts_at=starts,
        seats_per_table=3, max_players=6, structure=LEVELS,
    )  # fmt: skip
    people = [await server.person(n) for n in ("ann", "bea", "cy", "dan")]
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    late = await server.person("late")
    server.puppets.update(dict.fromkeys([p.id for p in [*people, late]], play_call_down))
    answers: list[httpx.Response] = []
    real = Books.entrant_seeds

    async def racing(books: Books, entry_ids: list[int]) -> Any:
        if not answers:  # the first draw only
            base = f"/api/tournaments/{tid}"
            answers.append(await server.post(people[0], f"{base}/unregister", {"request_id": "o"}))
            answers.append(await server.register(late, tid))
        return await real(books, entry_ids)

    monkeypatch.setattr(Books, "entrant_seeds", racing)
    started = await server.post(host, f"/api/tournaments/{tid}/host", {"type": "start"})
    assert started.status_code == 200, started.text
    await server.begun(tid)
    left, entered = answers
    assert left.status_code == 200 or left.json()["detail"]["code"] == "already_started", left.text
    entries = await server.entries(tid)
    for who in [*people, late]:
        mine = [e for e in entries if e.user_id == who.id and e.status != "unregistered"]
        paid = PURSE - await server.balance(who.id)
        assert paid == (PRICE + FEE) * len(mine), f"{who.name} paid {paid} for {len(mine)}"
        for e in mine:  # whoever is in, is seated
            assert e.status == "playing" and e.table_id is not None, (who.name, e.status)
    if entered.status_code != 200:  # 503 tournament_starting: try again
        assert entered.json()["detail"]["code"] in ("tournament_starting", "registration_closed")
    await server.ledger_ok()
    await server.run_until(tid, lambda: server.finished(tid))
    places = sorted(int(e.place) for e in await server.entries(tid) if e.place is not None)
    players = [e for e in await server.entries(tid) if e.status != "unregistered"]
    assert places == list(range(1, len(players) + 1))
    await server.ledger_ok()


async def test_r35_the_last_seat_is_written_in_the_directors_claim(server: Server) -> None:
    """The registration that fills a sit & go starts it on the process that took it: the
    entry is written in the same transaction as that process's claim of the director's
    lease. Another process's heartbeat, looking for tournaments due at the moment the claim
    begins, finds none (the sit & go is not yet full in the database), so the director is
    not taken from under the registration (as it was when the entry was written first)."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=2, structure=LEVELS, max_players=2)
    ann, bea = await server.person("ann"), await server.person("bea")
    assert (await server.register(ann, tid)).status_code == 200
    directors = server.services.directors
    assert directors is not None
    claim = directors.start_now
    due_then: list[list[int]] = []

    async def start_now(tournament_id: int, within: Any = None) -> bool:
        async with server.db.session() as s:  # another process's heartbeat, just now
            due_then.append(list(await s.scalars(DUE, {"now": utcnow()})))
        return await claim(tournament_id, within) if within else await claim(tournament_id)

    directors.start_now = start_now  # type: ignore[method-assign]
    assert (await server.register(bea, tid)).status_code == 200
    assert due_then == [[]]
    assert tid in directors.epochs
    await server.begun(tid)
    assert {e.user_id for e in await server.entries(tid)} == {ann.id, bea.id}
    await server.ledger_ok()
