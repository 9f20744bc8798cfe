"""Bad input gets a clear refusal and changes nothing: the HTTP status and `detail.code`,
and the balances, entries and tables as they were. (Cancelling once a player is out is
refused in test_host.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from app.tables import Table, TableError
from tests.tables.live import Client
from tests.tournaments.harness import (
    Person,
    Server,
    by_registration,
    listening,
    play_call_down,
    play_fold,
)

LEVELS = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 60}]}
START = 100_000


def refused(r: Any, status: int, code: str) -> None:
    assert (r.status_code, r.json()["detail"]["code"]) == (status, code), r.text


async def snapshot(server: Server, tid: int, people: list[Person]) -> Any:
    entries = [(e.id, e.user_id, e.status, int(e.chips)) for e in await server.entries(tid)]
    balances = [await server.balance(p.id) for p in people]
    return entries, balances, await server.pool(tid)


async def test_r35_registering_twice_poor_without_the_password_or_too_late_is_refused(
    server: Server,
) -> None:
    host = await server.person("host")
    tid = await server.create(host, max_players=3, buy_in=1000, fee=100)
    ann = await server.person("ann")
    poor = await server.person("poor", balance=500)
    assert (await server.register(ann, tid)).status_code == 200
    before = await snapshot(server, tid, [ann, poor])
    refused(await server.register(ann, tid, request_id="again"), 400, "already_registered")
    refused(await server.register(poor, tid), 400, "insufficient_funds")
    assert await snapshot(server, tid, [ann, poor]) == before

    secret = await server.create(host, max_players=3, private=True, password="s3cret word")
    refused(await server.register(ann, secret), 403, "bad_password")
    refused(await server.register(ann, secret, password="guess"), 403, "bad_password")
    assert await server.entries(secret) == [] and await server.balance(ann.id) == START - 1100
    assert (await server.register(ann, secret, password="s3cret word")).status_code == 200

    await server.bots(tid, 1)
    bea = await server.person("bea")
    assert (await server.register(bea, tid)).status_code == 200  # the last seat: it starts
    await server.begun(tid)
    before = await snapshot(server, tid, [ann, bea])
    r = await server.post(ann, f"/api/tournaments/{tid}/unregister", {"request_id": "out"})
    refused(r, 400, "already_started")
    late = await server.person("late")
    refused(await server.register(late, tid), 400, "registration_closed")
    assert await snapshot(server, tid, [ann, bea]) == before
    assert await server.balance(late.id) == START
    await server.ledger_ok()


async def test_r35_a_rebuy_above_the_starting_stack_is_refused_and_changes_nothing(
    server: Server,
) -> None:
    """Ann wins the first hand: her stack is above the starting stack, and her rebuy is
    refused; Bea, below it, may."""
    host = await server.person("host")
    rebuys = {"levels": 1, "price": 1000, "fee": 100}
    tid = await server.create(
        host, seats_per_table=3, starting_chips=100, structure=LEVELS, max_players=3,
        rebuys=rebuys,
    )  # fmt: skip
    ann, bea, cy = people = [await server.person(n) for n in ("ann", "bea", "cy")]
    server.puppets.update({ann.id: play_call_down, bea.id: play_fold, cy.id: play_call_down})
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    await server.begun(tid)
    server.rig(tid, by_registration(server, [ann.id, cy.id, bea.id]))
    (table,) = server.tables(tid)
    await server.run_until(tid, lambda: table.state.hands_played == 1 and table.state.hand is None)
    assert table.state.seats[table.state.by_user[ann.id]].stack > 100
    before = await snapshot(server, tid, people)
    r = await server.post(ann, f"/api/tournaments/{tid}/rebuy", {"request_id": "rb"})
    refused(r, 400, "stack_too_big")
    assert await snapshot(server, tid, people) == before
    r = await server.post(bea, f"/api/tournaments/{tid}/rebuy", {"request_id": "rb"})
    assert r.status_code == 200 and r.json()["chips"] == 100
    await server.ledger_ok()


async def seated(server: Server) -> tuple[int, list[Person], Table]:
    """A running tournament: three people at one table, everyone there."""
    host = await server.person("host")
    tid = await server.create(host, seats_per_table=4, structure=LEVELS, max_players=3)
    people = [await server.person() for _ in range(3)]
    server.puppets.update(dict.fromkeys((p.id for p in people), play_call_down))
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    await server.begun(tid)
    (table,) = server.tables(tid)
    return tid, people, table


async def test_a_client_cannot_send_a_directors_orders_nor_seat_itself_over_its_socket(
    server: Server,
) -> None:
    """A director's order is no message of the client catalog: `unknown_type`; a catalog
    message that would move a player (sit, leave) is the table's to refuse: a tournament
    table's director seats its players. Nothing changes."""
    tid, people, table = await seated(server)
    who = people[0]
    seats = {s: (i.user_id, i.stack) for s, i in table.state.seats.items()}
    before = await snapshot(server, tid, people)
    free = next(s for s in range(table.state.settings.max_seats) if s not in table.state.seats)
    async with listening(server) as live:
        client = await Client.open(live, table.id, who.token, who.id)
        order = {"type": "direct", "tournament_id": tid, "epoch": 9, "unseat": [
            {"user_id": people[1].id, "entry_id": 1}], "close": True}  # fmt: skip
        answers = [
            await client.call(order),
            await client.call({"type": "seat", "seat": free, "user_id": who.id}),
            await client.call({"type": "sit", "seat": free, "amount": 100, "request_id": "s"}),
            await client.call({"type": "leave"}),
            await client.call({"type": "sit", "seat": free}),
        ]
    codes = [(a["type"], a["code"]) for a in answers]
    assert codes == [
        ("error", "unknown_type"), ("error", "unknown_type"), ("error", "tournament_table"),
        ("error", "tournament_table"), ("error", "invalid_message"),
    ]  # fmt: skip
    assert {s: (i.user_id, i.stack) for s, i in table.state.seats.items()} == seats
    assert await snapshot(server, tid, people) == before


async def test_the_routed_table_op_refuses_malformed_orders_and_changes_nothing(
    server: Server,
) -> None:
    """`direct`, the table op the director's orders travel by (from any process): a body
    that is no `DirectorOrders` is `invalid_message`; orders for another tournament, a seat
    that is taken or does not exist, two players in one seat, someone not seated (or named
    twice), one of several leaving with a wrong entry, closing a table with players: each
    refused whole."""
    tid, people, table = await seated(server)
    epoch = table.state.directed.epoch if table.state.directed else 0
    router = server.services.router
    seats = {s: (i.user_id, i.stack) for s, i in table.state.seats.items()}
    before = await snapshot(server, tid, people)
    taken = next(iter(table.state.seats))
    free = next(s for s in range(table.state.settings.max_seats) if s not in table.state.seats)
    newcomer = await server.person("newcomer")
    sit = {"entry_id": 99, "user_id": newcomer.id, "name": "newcomer", "chips": 100}
    base = {"tournament_id": tid, "epoch": epoch}
    first, second = [
        {"user_id": e.user_id, "entry_id": e.id} for e in await server.entries(tid)
        if e.user_id in table.state.by_user
    ][:2]  # fmt: skip
    bad: list[tuple[dict[str, Any], str]] = [
        ({"tournament_id": tid}, "invalid_message"),
        ({**base, "epoch": 0}, "invalid_message"),
        ({**base, "seat": [{"user_id": 1}]}, "invalid_message"),
        ({**base, "deal": "yes please"}, "invalid_message"),
        ({**base, "tournament_id": tid + 1}, "not_tournament"),
        ({**base, "seat": [{**sit, "seat": taken}]}, "seat_taken"),
        ({**base, "seat": [{**sit, "seat": 40}]}, "invalid_seat"),
        ({**base, "seat": [{**sit, "seat": free}, {**sit, "user_id": 1, "seat": free}]},
         "seat_taken"),
        ({**base, "unseat": [{"user_id": newcomer.id, "entry_id": 99}]}, "not_seated"),
        ({**base, "unseat": [first, first]}, "not_seated"),
        # the players stand up together: the second's entry is not one of this table's
        ({**base, "unseat": [first, {**second, "entry_id": 10**6}]}, "not_registered"),
        ({**base, "close": True}, "not_empty"),
    ]  # fmt: skip
    for body, code in bad:
        with pytest.raises(TableError) as refusal:
            await router.ask(table.id, "direct", body)
        assert refusal.value.code == code, body
    assert {s: (i.user_id, i.stack) for s, i in table.state.seats.items()} == seats
    assert await snapshot(server, tid, people) == before
    assert newcomer.id not in table.state.by_user
    await server.ledger_ok()
