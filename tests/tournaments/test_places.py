"""R31 through the director: places and prizes of players who bust in one hand."""

from __future__ import annotations

from sqlalchemy import select

from app.engine.tournament import payouts
from app.store import ledger
from app.store.models import LedgerTransaction, TxKind
from app.tables import Table
from tests.tournaments.harness import Deal, Server, by_registration

ANTES = {"levels": [
    {"ante": 10, "bring_in": 20, "small_bet": 50, "big_bet": 100, "hands": 2},
    {"ante": 90, "bring_in": 95, "small_bet": 100, "big_bet": 200, "hands": 100},
]}  # fmt: skip


async def test_r31_busts_of_one_hand_place_by_start_stack_and_equal_stacks_share(
    server: Server,
) -> None:
    """Real tables, a real director and its books: four bots (they bring in, check and
    call) at one table, the cards prearranged so that W wins the first hand, X the second
    and W the third. The first level's two hands leave W and X with 160 and Y and Z with
    40; the second level's ante puts Y and Z all-in, and W's 160 covers X's: X, Y and Z
    bust in that one hand. Driving real tables is the honest way: the director places what
    the tables' written hands say, not what a test tells it."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=6, buy_in=999, fee=100, starting_chips=100, structure=ANTES,
        payouts="sng_50_30_20", max_players=4,
    )  # fmt: skip
    w, x, y, z = await server.bots(tid, 4)
    winners = [w, x, w]

    def policy(table: Table) -> Deal:
        first = winners[min(table.state.hands_played, 2)]
        return Deal([first, *(u for u in (w, x, y, z) if u != first and u in table.state.by_user)])

    await server.start(tid)
    server.rig(tid, policy)
    await server.run_until(tid, lambda: server.finished(tid))

    pool = 4 * 999
    prizes = payouts.prizes("sng_50_30_20", pool, 4)
    assert prizes == [1999, 1198, 799]  # 50/30/20 of 3,996, the odd chip to 1st (R34)
    by_user = {e.user_id: e for e in await server.entries(tid)}
    placed = {u: (by_user[u].place, by_user[u].prize) for u in (w, x, y, z)}
    # X started the hand with 160, Y and Z with 40: X takes 2nd; Y and Z take 3rd and 4th
    # (the earlier registration the better number) and share 3rd's 799 and 4th's 0: 400
    # and 399, the odd chip to Y, registered first
    assert placed == {w: (1, 1999), x: (2, 1198), y: (3, 400), z: (4, 399)}
    async with server.db.session() as s:
        for user, (_, prize) in placed.items():
            posted = await ledger.posted(
                s, TxKind.TOURNAMENT_PRIZE, f"prize:{tid}:{by_user[user].id}"
            )
            assert posted is not None
            account = await ledger.account_id(s, ledger.player_code(user))
            assert posted.amount_for(account) == prize
            assert await ledger.player_balance(s, user) == prize  # each bot had its price
        assert await ledger.balance(s, ledger.prize_pool_code(tid)) == 0
    await server.ledger_ok()


async def test_r34_each_place_is_paid_once_the_moment_it_is_decided(server: Server) -> None:
    """Six bots at two tables, three paid: at every settled moment each placed entry's prize
    is in its player's account already (paid when the place was decided, while the others
    play on), under one posting per entry; in the end every place was given once and the
    prizes are the whole pool."""
    host = await server.person("host")
    tid = await server.create(
        host, seats_per_table=3, buy_in=1000, fee=100, starting_chips=100, structure=ANTES,
        payouts="sng_50_30_20", max_players=6,
    )  # fmt: skip
    bots = await server.bots(tid, 6)
    director = await server.start(tid)
    server.rig(tid, by_registration(server, bots))
    paid_while_running: set[int] = set()

    async def watch() -> None:
        # the director's live entries, kept as they bust, are what a scan of them finds
        assert director.alive() == [e for e in director.entries.values() if e.alive]
        entries = await server.entries(tid)
        for e in entries:
            if e.place is not None:
                assert await server.balance(e.user_id) == int(e.prize or 0)  # had only its price
                if director.status == "running":
                    paid_while_running.add(e.id)

    await server.run_until(tid, lambda: server.finished(tid), watch=watch)
    entries = await server.entries(tid)
    assert sorted(e.place or 0 for e in entries) == [1, 2, 3, 4, 5, 6]
    assert sum(int(e.prize or 0) for e in entries) == 6000  # the pool, whole (R34)
    # every place but the last hand's two (2nd and 1st) was paid while the others played on
    assert paid_while_running == {e.id for e in entries if (e.place or 0) > 2}
    assert [e.status for e in director.entries.values()].count("won") == 1
    assert director.alive() == []  # the winner is out of the live entries too
    async with server.db.session() as s:
        keys = list(
            await s.scalars(
                select(LedgerTransaction.idempotency_key).where(
                    LedgerTransaction.kind == TxKind.TOURNAMENT_PRIZE
                )
            )
        )
        assert await ledger.balance(s, ledger.prize_pool_code(tid)) == 0
    paid = [e for e in entries if e.prize]
    assert len(keys) == len(set(keys)) == len(paid) >= 3
    await server.ledger_ok()
