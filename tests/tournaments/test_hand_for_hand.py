"""R32 at the tables: hand for hand on the bubble and at a big pay jump in the money, and a
round's busts at two tables placed as busts of one hand (R31)."""

from __future__ import annotations

from app.engine.tournament import payouts
from app.fanout import channels
from app.tables import Table
from app.tournaments import service
from app.tournaments.spec import TournamentSpec
from tests.tournaments.harness import Deal, Seen, Server, by_registration

LEVELS = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "hands": 4},
    {"ante": 90, "bring_in": 95, "small_bet": 100, "big_bet": 200, "hands": 100},
]}  # fmt: skip
JUMPS = {"levels": [{"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "hands": 500}]}


async def test_r32_on_the_bubble_tables_deal_together_and_a_rounds_busts_share_places(
    server: Server,
) -> None:
    """Four players, three paid, tables of three: the seat draw makes two tables of two, and
    the very first hand is on the bubble. At each table the earlier registration wins every
    hand (the decks are prearranged); the person, registered last, is away, so at their
    table every action waits out the clock and the time bank (R27, R28) while the bots'
    table has long finished. Two rounds at the first level leave each table's loser 40
    chips; the second level's ante puts both all-in in round 3, and both bust: one bust of
    one hand (R31), they share 3rd's and 4th's prizes."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, buy_in=999, fee=100, starting_chips=100, structure=LEVELS,
        payouts="sng_50_30_20", max_players=4, action_timer_ms=2000, time_bank_ms=3000,
    )  # fmt: skip
    bots = await server.bots(tid, 3)
    away = await server.person("away")
    assert (await server.register(away, tid)).status_code == 200  # the last seat: it starts
    director = await server.begun(tid)
    order = [*bots, away.id]
    away_at: set[int] = set()

    def policy(table: Table) -> Deal:
        if away.id in table.state.by_user:
            away_at.add(table.id)
        return Deal(sorted(table.state.hand_users.values(), key=order.index))

    server.rig(tid, policy)
    assert director.round is not None  # 4 left, 3 paid, two tables: the bubble from the start
    await server.run_until(tid, lambda: server.finished(tid))

    rounds = {(s.table_id, s.number): s.round for s in server.seen}
    round_of = {number: r for (_, number), r in rounds.items()}
    bubble = [s for s in server.seen if s.round is not None]
    assert sorted({s.round or 0 for s in bubble}) == [1, 2, 3]
    assert len(bubble) == 6  # three rounds at two tables
    for deal in bubble:
        # a table deals round r only once every other table's hand of round r - 1 is over:
        # whatever else is in play is of round r too
        others = [n for t, n in deal.playing.items() if t != deal.table_id and n is not None]
        assert all(round_of[n] == deal.round for n in others), deal
    first = [s for s in bubble if s.round == 1]
    assert len({s.table_id for s in first}) == 2
    after = server.seen[len(bubble) :]
    assert after and all(s.round is None for s in after)  # the bubble burst: no more rounds
    # the bots' table finished each of its round's hands first, and was told to wait
    between = (bubble[0].heard, bubble[-1].heard)
    waits = [
        t for t in {s.table_id for s in first}
        if any(e["waiting"] for e in server.events(channels.table(t), "tournament", *between))
    ]  # fmt: skip
    assert len(waits) == 1 and waits[0] not in away_at

    prizes = payouts.prizes("sng_50_30_20", 4 * 999, 4)
    by_user = {e.user_id: e for e in await server.entries(tid)}
    losers = sorted((u for u in order if by_user[u].place in (3, 4)), key=order.index)
    assert away.id in losers and len(losers) == 2
    # both started round 3 with 40 chips: 3rd and 4th, sharing 3rd's 799 and 4th's nothing,
    # the odd chip to the earlier registration (R31)
    assert [(by_user[u].place, by_user[u].prize) for u in losers] == [(3, 400), (4, 399)]
    assert prizes[2] == 799
    assert sorted(int(by_user[u].prize or 0) for u in order) == [399, 400, 1198, 1999]
    await server.ledger_ok()


async def test_r32_orders_to_a_table_in_a_hand_for_hand_hand_leave_its_round(
    server: Server,
) -> None:
    """Orders can reach a table in the middle of a hand (a player seated there, time given
    from a player's allowance): the hand keeps its hand-for-hand round, and so does the
    report of it the director places the round's busts by."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, starting_chips=1000, structure=LEVELS,
        payouts="sng_50_30_20", max_players=4,
    )  # fmt: skip
    await server.bots(tid, 4)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, []))
    await server.run_until(tid, lambda: any(t.state.hand is not None for t in server.tables(tid)))
    table = next(t for t in server.tables(tid) if t.state.hand is not None)
    assert table.state.directed is not None and table.state.directed.round == 1
    user = next(iter(table.state.by_user))
    orders = {"tournament_id": tid, "epoch": director.books.epoch, "bank_add": {str(user): 5000}}
    answer = await server.services.router.ask(table.id, "direct", orders)
    assert answer["in_hand"] is True and table.state.directed.round == 1
    await server.run_until(tid, lambda: director.round == 2)
    reports = [r for r in server.events(channels.director(tid), "report") if r["hand"]]
    assert [r["round"] for r in reports if r["table"] == table.id][:1] == [1]
    assert sorted(r["round"] for r in reports[:2]) == [1, 1]


async def test_r32_a_big_pay_jump_in_the_money_is_played_hand_for_hand_until_it_is_passed(
    server: Server,
) -> None:
    """Sixteen bots, tables of three, top20 pays four (6234, 4156, 3117, 2493: 3rd pays 1.25
    times 4th, a big jump). The biggest stack wins every hand (the decks are prearranged), so
    the short stacks bleed out one after another. With five left the bubble is played hand
    for hand, and with four left, in the money on two tables, hand for hand goes on: 4th's
    bust is a big jump too. No table deals a round's hand while another plays the round
    before; once three are left (one table) nothing is dealt hand for hand any more."""
    spec = TournamentSpec.model_validate({
        "name": "Jumps", "seats_per_table": 3, "buy_in": 1000, "fee": 0, "starting_chips": 100,
        "structure": JUMPS, "payouts": "top20", "max_players": 16,
    })  # fmt: skip
    # a fixed seed: the same seat draw and moves every run, so the same busts
    tid = (await service.create(server.db, spec, host_user_id=None, seed=bytes(range(32))))["id"]
    order = await server.bots(tid, 16)
    director = await server.start(tid)
    assert payouts.prizes("top20", 16_000, 16) == [6234, 4156, 3117, 2493]

    def policy(table: Table) -> Deal:
        stack = {info.user_id: info.stack for info in table.state.seats.values()}
        dealt = sorted(table.state.hand_users.values(), key=lambda u: (-stack[u], order.index(u)))
        return Deal(dealt)

    server.rig(tid, policy)
    await server.run_until(tid, lambda: server.finished(tid))

    def left(deal: Seen) -> int:
        return sum(deal.seats.values())

    round_of = {s.number: s.round for s in server.seen}
    in_money = [s for s in server.seen if left(s) == 4]
    assert len({s.table_id for s in in_money}) == 2  # four left: still two tables
    assert in_money and all(s.round is not None for s in in_money)
    assert [s for s in server.seen if left(s) == 5 and s.round is None] == []  # the bubble
    for deal in (s for s in server.seen if s.round is not None):
        others = [n for t, n in deal.playing.items() if t != deal.table_id and n is not None]
        assert all(round_of[n] == deal.round for n in others), deal
    past = [s for s in server.seen if left(s) <= 3]
    assert past and all(s.round is None for s in past)
    assert director.round is None
    by_place = sorted((e.place, e.prize) for e in await server.entries(tid) if e.place)
    assert [p for p, _ in by_place] == list(range(1, 17))
    await server.ledger_ok()
