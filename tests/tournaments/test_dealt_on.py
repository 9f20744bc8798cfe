"""R33: a moved player is dealt in at once, also at a table still in its hand when the move
is ordered. The seat order says `deal_if_ended`; the table keeps that word (`deal_on`) to
the end of its hand and, if the hand busts no one, deals on at once, its report saying so
(`dealt_on`), with no round trip through the director. A hold (a freeze, or a decision
that would no longer let the table deal) takes the word back, before or after it is used.

Ten players at two tables of five, 100 chips each. At the first table two maniacs bust
in its first hand, leaving three there, two short of the other table: the first table may
deal on (three short would wait) and plays its second hand. The second table's players
wait until the first table is in that hand, then play theirs out: its end brings a move
from the second table to the first, which is in its hand."""

from __future__ import annotations

from dataclasses import dataclass

from app.engine import Action, LegalActions
from app.fanout import channels
from app.tables import Table
from app.tournaments.director import Director
from tests.tournaments.harness import (
    Deal,
    Person,
    Server,
    by_registration,
    play_call_down,
    play_fold,
    play_raise,
)

CALM = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "minutes": 600}]}


@dataclass
class Moved:
    tid: int
    director: Director
    first: Table  # in its second hand when the move comes
    second: Table
    hand: int  # the first table's hand in play at the move
    mover: int
    gates: dict[int, bool]  # table id -> whether its players act (else they wait)
    host: Person
    dealt: dict[tuple[int, int], frozenset[int]]  # (table, hand) -> the users dealt in

    def next_hand(self) -> frozenset[int] | None:
        """Who was dealt in at the first table's hand after the one the move found."""
        later = [n for t, n in self.dealt if t == self.first.id and n > self.hand]
        return self.dealt[(self.first.id, min(later))] if later else None


async def moved_in_hand(server: Server) -> Moved:
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=5, starting_chips=100, structure=CALM, max_players=10
    )
    people = [await server.person() for _ in range(10)]
    for who in people:
        assert (await server.register(who, tid)).status_code == 200
    director = await server.begun(tid)
    first_id, second_id = sorted(director.slots)
    order = [p.id for p in people]
    at_first = sorted(director.slots[first_id].seats.values(), key=order.index)
    winner, folder, folder2, *maniacs = at_first
    first, second = server.tables(tid)
    assert (first.id, second.id) == (first_id, second_id)
    played = first.state.hands_played
    # table id -> whether its players act (else they wait); the first table's act in its
    # first hand whatever this says, and its second waits until told
    gates = {first_id: False, second_id: False}

    def gated(table: Table, strategy: object) -> object:
        def play(legal: LegalActions) -> Action | None:
            go = gates[table.id] or (table is first and first.state.hands_played == played)
            return strategy(legal) if go else None  # type: ignore[operator]

        return play

    for user in director.slots[second_id].seats.values():
        server.puppets[user] = gated(second, play_call_down)  # type: ignore[assignment]
    server.puppets[winner] = gated(first, play_call_down)  # type: ignore[assignment]
    for user in (folder, folder2):
        server.puppets[user] = gated(first, play_fold)  # type: ignore[assignment]
    server.puppets.update(dict.fromkeys(maniacs, play_raise))
    calm = by_registration(server, order)

    dealt: dict[tuple[int, int], frozenset[int]] = {}

    def policy(table: Table) -> Deal:
        assert table.state.hand_number is not None
        dealt[(table.id, table.state.hand_number)] = frozenset(table.state.hand_users.values())
        if table.id == first_id and table.state.hands_played == 0:
            return Deal([winner, *maniacs, folder, folder2], bring_in=maniacs[0],
                        folds=frozenset({folder, folder2}))  # fmt: skip
        return calm(table)

    server.rig(tid, policy)

    def in_second_hand() -> bool:
        return first.state.hand is not None and first.state.hands_played == played + 1

    await server.run_until(tid, in_second_hand)
    assert len(first.state.seats) == 3 and len(second.state.seats) == 5
    hand = first.state.hand_number
    assert hand is not None
    gates[second_id] = True
    await server.run_until(tid, lambda: director.moves_made == 1)
    (mover,) = [u for u in first.state.by_user if u not in at_first]
    assert first.state.hand is not None and first.state.hand_number == hand  # still in it
    return Moved(tid, director, first, second, hand, mover, gates, host, dealt)


def reports(server: Server, moved: Moved) -> list[dict[str, object]]:
    """The first table's reports of the hand the move found it in."""
    return [
        r for r in server.events(channels.director(moved.tid), "report")
        if r["table"] == moved.first.id and r["hand"] == moved.hand
    ]  # fmt: skip


async def test_r33_a_table_seated_into_in_its_hand_deals_on_at_once_when_it_ends_clean(
    server: Server,
) -> None:
    moved = await moved_in_hand(server)
    first, director = moved.first, moved.director
    d = first.state.directed
    assert d is not None and d.deal_on and director.slots[first.id].deal_on
    assert moved.mover not in first.state.hand_users.values()  # seated, not dealt in

    moved.gates[first.id] = True
    await server.run_until(moved.tid, lambda: moved.next_hand() is not None)
    assert moved.mover in (moved.next_hand() or ())  # dealt in at the next hand
    (said,) = reports(server, moved)  # the one report of that hand says it
    assert said["dealt_on"] is True and said["seats"]
    slot = director.slots[first.id]
    assert slot.in_hand and slot.dealt_on == moved.hand and not slot.deal_on
    assert not d.deal_on
    await server.settle(moved.tid)
    await server.ledger_ok()


async def test_r33_a_freeze_takes_back_the_word_to_deal_on(server: Server) -> None:
    moved = await moved_in_hand(server)
    first, director = moved.first, moved.director
    r = await server.post(moved.host, f"/api/tournaments/{moved.tid}/host", {"type": "freeze"})
    assert r.status_code == 200
    d = first.state.directed
    assert d is not None and not d.deal_on and not director.slots[first.id].deal_on

    moved.gates[first.id] = True
    await server.run_until(moved.tid, lambda: first.state.hand is None)
    await server.settle(moved.tid)
    (said,) = reports(server, moved)
    assert "dealt_on" not in said  # it reported as every table does, and waits: frozen
    assert not d.go and first.state.hand is None and not director.slots[first.id].in_hand


async def test_r33_a_word_to_deal_on_used_then_taken_back_leaves_the_table_waiting(
    server: Server,
) -> None:
    """The hand ends clean and the table deals on, but a freeze comes while it waits out
    the pause before that deal: the go is taken back, its report goes again, and the
    director takes it as a table between hands (it neither ignores it nor believes the
    table in a hand); resumed, the table deals."""
    moved = await moved_in_hand(server)
    first, director = moved.first, moved.director
    moved.gates[first.id] = True
    await server.settle(moved.tid)
    d = first.state.directed
    assert d is not None and first.state.hand is None and d.go  # dealt on: in the pause
    host = moved.host
    r = await server.post(host, f"/api/tournaments/{moved.tid}/host", {"type": "freeze"})
    assert r.status_code == 200
    await server.settle(moved.tid)
    said = reports(server, moved)
    assert [s.get("dealt_on") for s in said] == [True, None]  # used, then taken back
    assert not d.go and first.state.hand is None
    slot = director.slots[first.id]
    assert not slot.in_hand and slot.reported == moved.hand

    r = await server.post(host, f"/api/tournaments/{moved.tid}/host", {"type": "resume"})
    assert r.status_code == 200

    await server.run_until(moved.tid, lambda: moved.next_hand() is not None)
    assert moved.mover in (moved.next_hand() or ())


async def test_r33_a_decision_that_stops_a_table_dealing_takes_back_its_word_to_deal_on(
    server: Server,
) -> None:
    """The director holds a table it would no longer let deal (here: named to wait, as a
    table to be broken is), so its hand's end brings a plain report."""
    moved = await moved_in_hand(server)
    first, director = moved.first, moved.director
    director.waiting = frozenset({first.id})
    director._take_back_deal_on()
    assert not director.slots[first.id].deal_on
    await server.settle(moved.tid)
    d = first.state.directed
    assert d is not None and not d.deal_on
    moved.gates[first.id] = True
    await server.run_until(moved.tid, lambda: first.state.hand is None)
    await server.settle(moved.tid)
    said = reports(server, moved)
    assert said and all("dealt_on" not in s for s in said)
