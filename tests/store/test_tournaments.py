"""Tournaments in the store, on SQLite and PostgreSQL: entries pay their price into the prize
pool and their fee to the house and get it back exactly (R35, R36), refusals change nothing,
keys replay, prizes are paid once (R34); tournament chips move between seats and entries and
through hands without touching the ledger, a 0 stack busts with the hand and its start stack
(R31's input); cash paths refuse a tournament's table; draws are committed then revealed once
(R38); the director's lease fences its writes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import hands, leases, ledger, tournaments
from app.store.audit import check_ledger
from app.store.db import Database
from app.store.errors import (
    AddOnTaken,
    AlreadyRegistered,
    DrawRevealed,
    EntryElsewhere,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    InvalidSeat,
    LeaseLost,
    NotRegistered,
    NotSeated,
    PlaceTaken,
    SeatTaken,
    TournamentClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentTable,
)
from app.store.hand_models import HandRecord, HandStatus
from app.store.lease_models import TableLease, TournamentLease
from app.store.models import LedgerTransaction, PokerTable, Seat, TxKind
from app.store.tournament_models import EntryStatus, Tournament, TournamentEntry
from app.store.types import utcnow
from app.tables import LedgerTableStore, TableError, TableSettings
from app.tables.store import EntryChips
from tests.store.factories import make_table, make_tournament
from tests.store.statements import statements, verbs
from tests.store.tournament_play import (
    CHIPS,
    FEE,
    PRICE,
    START,
    enter,
    entries_of,
    finished,
    players,
    seated,
    setup,
    start_hand,
)


async def _money(db: Database, t: int, users: list[int]) -> dict[str, int]:
    async with db.session() as s:
        codes = [ledger.prize_pool_code(t), ledger.HOUSE, *map(ledger.player_code, users)]
        return {code: await ledger.balance(s, code) for code in codes}


async def _postings(db: Database) -> int:
    async with db.session() as s:
        return int(await s.scalar(select(func.count()).select_from(LedgerTransaction)) or 0)


async def _sound(db: Database) -> None:
    async with db.session() as s:
        report = await check_ledger(s)
    assert report.ok, report.violations
    assert report.tournaments >= 1


async def test_r35_register_and_unregister_refund_exactly(db: Database) -> None:
    t, (ann, bob) = await setup(db, 2)
    posted = await enter(db, t, ann, "ann-in")
    await enter(db, t, bob, "bob-in")
    assert not posted.replayed
    pool = ledger.prize_pool_code(t)
    money = await _money(db, t, [ann, bob])
    assert money == {
        pool: 2 * PRICE,
        "house": 2 * FEE,
        f"player:{ann}": START - PRICE - FEE,
        f"player:{bob}": START - PRICE - FEE,
    }
    (first, _) = await entries_of(db, t)
    assert (first.status, first.chips, first.number) == (EntryStatus.REGISTERED, CHIPS, 1)
    assert (first.paid, first.fees, first.time_bank_ms, first.pause_left_ms) == (
        PRICE, FEE, 30_000, 60_000,
    )  # fmt: skip
    await _sound(db)

    async with db.transaction() as s:
        await tournaments.unregister(s, t, ann, key="ann-out")
    money = await _money(db, t, [ann, bob])
    assert money[f"player:{ann}"] == START and money[pool] == PRICE and money["house"] == FEE
    first = (await entries_of(db, t))[0]
    assert (first.status, first.chips, first.refunded) == (EntryStatus.UNREGISTERED, 0, True)
    async with db.session() as s:
        assert (await tournaments.get_tournament(s, t)).issued == CHIPS  # bob's only
    await _sound(db)
    with pytest.raises(NotRegistered):  # nothing left to refund
        async with db.transaction() as s:
            await tournaments.unregister(s, t, ann, key="ann-out-again")
    await enter(db, t, ann, "ann-back")  # back in: a new entry, numbered on
    assert [e.number for e in await entries_of(db, t) if e.user_id == ann] == [1, 2]


async def test_r35_registering_twice_is_refused_and_changes_nothing(db: Database) -> None:
    t, (ann,) = await setup(db, 1)
    await enter(db, t, ann, "first")
    before, postings = await _money(db, t, [ann]), await _postings(db)
    with pytest.raises(AlreadyRegistered):
        await enter(db, t, ann, "second")
    with pytest.raises(AlreadyRegistered):  # a re-entry while the first entry lives: the same
        await enter(db, t, ann, "third", kind="reentry")
    assert await _money(db, t, [ann]) == before and await _postings(db) == postings
    assert len(await entries_of(db, t)) == 1
    await _sound(db)


async def test_r35_without_funds_an_entry_is_refused_and_changes_nothing(db: Database) -> None:
    t, _ = await setup(db, 0)
    (poor,) = await players(db, 1, balance=PRICE)  # the price, not the fee
    postings = await _postings(db)
    with pytest.raises(InsufficientFunds) as refused:
        await enter(db, t, poor, "in")
    assert "your balance holds" in refused.value.message
    assert await _money(db, t, [poor]) == {
        ledger.prize_pool_code(t): 0,
        "house": 0,
        f"player:{poor}": PRICE,
    }
    assert await entries_of(db, t) == [] and await _postings(db) == postings
    async with db.session() as s:
        assert (await tournaments.get_tournament(s, t)).issued == 0
    await _sound(db)


async def test_the_same_key_replays_and_another_request_under_it_conflicts(db: Database) -> None:
    t, (ann,) = await setup(db, 1)
    first = await enter(db, t, ann, "k")
    again = await enter(db, t, ann, "k")
    assert again.replayed and again.transaction_id == first.transaction_id
    assert len(await entries_of(db, t)) == 1
    assert (await _money(db, t, [ann]))[f"player:{ann}"] == START - PRICE - FEE
    with pytest.raises(IdempotencyConflict):
        await enter(db, t, ann, "k", price=PRICE + 1)
    async with db.transaction() as s:
        out = await tournaments.unregister(s, t, ann, key="out")
    async with db.transaction() as s:
        assert (await tournaments.unregister(s, t, ann, key="out")).replayed
    assert out.amount_for(await _account(db, ann)) == PRICE + FEE
    assert (await _money(db, t, [ann]))[f"player:{ann}"] == START
    await _sound(db)


async def _account(db: Database, user: int) -> int:
    async with db.session() as s:
        return await ledger.account_id(s, ledger.player_code(user))


async def test_r35_rebuys_and_one_add_on_add_chips_and_money(db: Database) -> None:
    t, (ann, bob) = await setup(db, 2)
    await enter(db, t, ann, "in")
    await enter(db, t, ann, "rebuy-1", kind="rebuy", chips=1000, price=500, fee=50)
    await enter(db, t, ann, "addon", kind="addon", chips=2000, price=800, fee=0)
    with pytest.raises(AddOnTaken):
        await enter(db, t, ann, "addon-2", kind="addon", chips=2000, price=800, fee=0)
    with pytest.raises(NotRegistered):
        await enter(db, t, bob, "bob-rebuy", kind="rebuy")
    (entry,) = await entries_of(db, t)
    assert (entry.chips, entry.rebuys, entry.addon) == (CHIPS + 3000, 1, True)
    assert (entry.paid, entry.fees) == (PRICE + 1300, FEE + 50)
    money = await _money(db, t, [ann])
    assert money[ledger.prize_pool_code(t)] == PRICE + 1300 and money["house"] == FEE + 50
    await _sound(db)


async def test_r36_a_cancelled_tournament_refunds_every_entry_once(db: Database) -> None:
    t, (ann, bob, cat) = await setup(db, 3)
    for user in (ann, bob, cat):
        await enter(db, t, user, f"in-{user}")
    await enter(db, t, ann, "rebuy", kind="rebuy", chips=1000, price=500, fee=50)
    async with db.transaction() as s:
        await tournaments.unregister(s, t, cat, key="cat-out")
        table = await make_table(s, tournament_id=t)
        (bob_entry,) = [e for e in await tournaments.entries(s, t) if e.user_id == bob]
        await tournaments.seat_entries(s, table.id, {bob_entry.id: 0}, stacks={"0": [bob, CHIPS]})
    async with db.transaction() as s:
        refunds = await tournaments.refund_all(s, t, key_prefix="cancel")
    assert len(refunds) == 2  # cat was refunded when she left
    assert await _money(db, t, [ann, bob, cat]) == {
        ledger.prize_pool_code(t): 0, "house": 0,
        f"player:{ann}": START, f"player:{bob}": START, f"player:{cat}": START,
    }  # fmt: skip
    rows = {e.user_id: e for e in await entries_of(db, t)}
    assert rows[ann].status == EntryStatus.UNREGISTERED and rows[ann].chips == 0
    assert rows[bob].status == EntryStatus.PLAYING and rows[bob].prize == 0  # as it was
    assert rows[bob].chips == CHIPS and all(e.refunded for e in rows.values())
    async with db.transaction() as s:
        again = await tournaments.refund_all(s, t, key_prefix="cancel")
        assert (await tournaments.get_tournament(s, t)).status == "cancelled"
    assert [p.replayed for p in again] == [True, True]
    with pytest.raises(TournamentClosed):  # nobody enters a cancelled tournament
        await enter(db, t, cat, "late")
    await _sound(db)


async def _three_entries(db: Database) -> tuple[int, list[int], list[TournamentEntry]]:
    t, users = await setup(db, 3)
    for user in users:
        await enter(db, t, user, f"in-{user}")
    return t, users, await entries_of(db, t)


async def test_r34_prizes_are_paid_once(db: Database) -> None:
    t, users, rows = await _three_entries(db)
    plan = [(rows[0].id, 1, 2000), (rows[1].id, 2, 1000), (rows[2].id, 3, 0)]
    async with db.transaction() as s:
        paid = await tournaments.pay_prizes(s, t, plan)
    assert [p.replayed for p in paid] == [False, False]  # nothing posted for a prize of 0
    postings = await _postings(db)
    async with db.transaction() as s:
        again = await tournaments.pay_prizes(s, t, plan)
    assert [p.replayed for p in again] == [True, True]
    assert [p.transaction_id for p in again] == [p.transaction_id for p in paid]
    assert await _postings(db) == postings
    money = await _money(db, t, users)
    assert money[ledger.prize_pool_code(t)] == 0
    assert money[f"player:{users[0]}"] == START - PRICE - FEE + 2000
    assert [(e.place, e.prize) for e in await entries_of(db, t)] == [(1, 2000), (2, 1000), (3, 0)]
    with pytest.raises(PlaceTaken):  # placed otherwise
        async with db.transaction() as s:
            await tournaments.pay_prizes(s, t, [(rows[0].id, 2, 1000)])
    await _sound(db)


async def test_r34_places_are_given_in_the_same_statements_however_many(db: Database) -> None:
    """A big field's busts come many at a time, mostly out of the money: the entries and the
    places' holders are read in one statement each, and the places written in one."""
    t, _, rows = await _three_entries(db)
    async with db.transaction() as s:
        with statements(db) as one:
            await tournaments.pay_prizes(s, t, [(rows[2].id, 3, 0)])
    async with db.transaction() as s:
        with statements(db) as two:
            await tournaments.pay_prizes(s, t, [(rows[1].id, 2, 0), (rows[0].id, 1, 0)])
    assert verbs(two) == verbs(one), (one, two)
    assert [(e.place, e.prize) for e in await entries_of(db, t)] == [(1, 0), (2, 0), (3, 0)]


async def test_r34_a_place_given_twice_in_one_batch_is_refused_whole(db: Database) -> None:
    t, _, rows = await _three_entries(db)
    with pytest.raises(PlaceTaken):
        async with db.transaction() as s:
            await tournaments.pay_prizes(s, t, [(rows[0].id, 2, 0), (rows[1].id, 2, 0)])
    assert [(e.place, e.prize) for e in await entries_of(db, t)] == [(None, None)] * 3
    await _sound(db)


async def test_r34_a_place_is_given_once(db: Database) -> None:
    t, _, rows = await _three_entries(db)
    async with db.transaction() as s:
        await tournaments.pay_prizes(s, t, [(rows[0].id, 1, 500)])
    with pytest.raises(PlaceTaken):
        async with db.transaction() as s:
            await tournaments.pay_prizes(s, t, [(rows[1].id, 1, 500)])
    with pytest.raises(InsufficientFunds):  # the pool holds 2,500 now
        async with db.transaction() as s:
            await tournaments.pay_prizes(s, t, [(rows[1].id, 2, 2600)])
    assert [(e.place, e.prize) for e in await entries_of(db, t)][1] == (None, None)
    await _sound(db)


async def test_a_full_tournament_refuses_another_entry(db: Database) -> None:
    t, (ann, bob, cat) = await setup(db, 3, max_players=2)
    await enter(db, t, ann, "a")
    await enter(db, t, bob, "b")
    with pytest.raises(TournamentFull):
        await enter(db, t, cat, "c")
    assert (await _money(db, t, [cat]))[f"player:{cat}"] == START


async def _seats(db: Database, table_id: int) -> dict[int, tuple[int, int]]:
    async with db.session() as s:
        rows = await s.execute(
            select(Seat.seat_no, Seat.user_id, Seat.stack).where(Seat.table_id == table_id)
        )
        return {seat: (user, stack) for seat, user, stack in rows}


async def test_seating_and_moving_an_entry_keeps_its_chips(db: Database) -> None:
    t, users, entries, (first, second) = await seated(db)
    assert await _seats(db, first) == {i: (u, CHIPS) for i, u in enumerate(users)}
    await _sound(db)
    async with db.transaction() as s:
        with pytest.raises(EntryElsewhere):
            await tournaments.seat_entries(s, second, {entries[0]: 0}, stacks={})
        await tournaments.seat_entries(s, first, {entries[0]: 0}, stacks={})  # a retry: nothing
    assert await _seats(db, first) == {i: (u, CHIPS) for i, u in enumerate(users)}
    async with db.transaction() as s:  # the move: off one table, in transit, on the other
        moved = await tournaments.unseat_entries(
            s, first, [entries[2]], stacks={"0": [users[0], CHIPS], "1": [users[1], CHIPS]}
        )
        assert moved == {entries[2]: CHIPS}
        transit = (await tournaments.entries(s, t))[2]
        assert (transit.status, transit.table_id, transit.moves) == ("playing", None, 1)
    for seat, refusal in ((0, SeatTaken), (8, InvalidSeat)):
        with pytest.raises(refusal):
            async with db.transaction() as s:
                await tournaments.seat_entries(s, first, {entries[2]: seat}, stacks={})
    await _sound(db)  # in transit: counted on its entry, seated nowhere
    async with db.transaction() as s:
        await tournaments.seat_entries(s, second, {entries[2]: 4}, stacks={"4": [users[2], CHIPS]})
    with pytest.raises(NotSeated):
        async with db.transaction() as s:
            await tournaments.unseat_entries(s, first, [entries[2]], stacks={})
    assert await _seats(db, second) == {4: (users[2], CHIPS)}
    assert sum(e.chips for e in await entries_of(db, t)) == 3 * CHIPS  # a move keeps the sum
    await _sound(db)


async def test_r33_a_breaking_tables_players_move_in_the_same_statements_however_many(
    db: Database,
) -> None:
    """A breaking table's players stand up in one transaction and sit down in another, one
    statement of each kind for one player or for several (on a busy process each statement
    waits its turn, and the move waits for all of them)."""
    t, users, entries, (first, second) = await seated(db, 4)
    view = {str(i): [u, CHIPS] for i, u in enumerate(users)}
    async with db.transaction() as s:
        with statements(db) as one_off:
            off = await tournaments.unseat_entries(s, first, [entries[0]], stacks={
                k: v for k, v in view.items() if k != "0"
            })  # fmt: skip
    async with db.transaction() as s:
        with statements(db) as three_off:
            off |= await tournaments.unseat_entries(s, first, entries[1:], stacks={})
    assert verbs(three_off) == verbs(one_off), (one_off, three_off)
    assert off == {e: CHIPS for e in entries}
    to = {entries[0]: 5, entries[1]: 0, entries[2]: 2, entries[3]: 7}
    there = {str(to[e]): [u, CHIPS] for e, u in zip(entries, users, strict=True)}
    async with db.transaction() as s:
        with statements(db) as one_on:
            await tournaments.seat_entries(s, second, {entries[0]: 5}, stacks={"5": there["5"]})
    async with db.transaction() as s:
        with statements(db) as three_on:
            await tournaments.seat_entries(s, second, {e: to[e] for e in entries[1:]}, stacks=there)
    assert verbs(three_on) == verbs(one_on), (one_on, three_on)
    assert await _seats(db, second) == {
        to[e]: (u, CHIPS) for e, u in zip(entries, users, strict=True)
    }
    assert [e.moves for e in await entries_of(db, t)] == [1] * 4
    await _sound(db)


async def test_r33_a_move_of_several_players_is_refused_whole(db: Database) -> None:
    """One player of several not seated there, or a seat taken: nobody moves."""
    t, users, entries, (first, second) = await seated(db)
    both = {"0": [users[0], CHIPS], "1": [users[1], CHIPS]}
    async with db.transaction() as s:
        await tournaments.unseat_entries(s, first, [entries[2]], stacks=both)
    for named in ([entries[0], entries[2]], [entries[0], entries[0]]):
        with pytest.raises(NotSeated):
            async with db.transaction() as s:
                await tournaments.unseat_entries(s, first, named, stacks={})
    assert await _seats(db, first) == {0: (users[0], CHIPS), 1: (users[1], CHIPS)}
    async with db.transaction() as s:
        await tournaments.seat_entries(s, second, {entries[2]: 3}, stacks={"3": [users[2], CHIPS]})
        await tournaments.unseat_entries(s, first, [entries[0], entries[1]], stacks={})
    for seats, refusal in (
        ({entries[0]: 1, entries[1]: 3}, SeatTaken),  # 3 is entries[2]'s
        ({entries[0]: 1, entries[1]: 1}, SeatTaken),  # two in one seat
        ({entries[0]: 1, entries[1]: 8}, InvalidSeat),
        ({entries[0]: 1, entries[2]: 4}, EntryElsewhere),  # entries[2] sits at 3
    ):
        with pytest.raises(refusal):
            async with db.transaction() as s:
                await tournaments.seat_entries(s, second, seats, stacks={})
    assert await _seats(db, second) == {3: (users[2], CHIPS)}
    transit = [(e.table_id, e.seat) for e in await entries_of(db, t)][:2]
    assert transit == [(None, None), (None, None)]
    await _sound(db)


@pytest.mark.parametrize("busted_in_view", [True, False])
async def test_r31_a_tournament_hand_moves_no_ledger_chip_and_busts_a_0_stack(
    db: Database, busted_in_view: bool
) -> None:
    """The table may pass its view with the busted seat still in it (0 chips) or already
    gone: either way the seat goes."""
    t, (ann, bob, cat), _, (table, _) = await seated(db)
    start = await start_hand(db, t, table, [ann, bob, cat], [CHIPS] * 3)
    view = {"0": [ann, 2 * CHIPS + 100], "2": [cat, CHIPS - 100]}
    if busted_in_view:
        view["1"] = [bob, 0]
    money, postings = await _money(db, t, [ann, bob, cat]), await _postings(db)
    finish = finished(start, {ann: CHIPS + 100, bob: -CHIPS, cat: -100}, view)
    async with db.transaction() as s:
        assert await hands.record_finished(s, finish)
    async with db.transaction() as s:
        assert not await hands.record_finished(s, finish)  # once
    assert await _money(db, t, [ann, bob, cat]) == money and await _postings(db) == postings
    rows = await entries_of(db, t)
    assert [e.chips for e in rows] == [2 * CHIPS + 100, 0, CHIPS - 100]
    busted = rows[1]
    assert (busted.status, busted.table_id, busted.seat) == (EntryStatus.BUSTED, None, None)
    assert (busted.bust_hand, busted.bust_round, busted.bust_stack) == (start.number, 7, CHIPS)
    assert await _seats(db, table) == {0: (ann, 2 * CHIPS + 100), 2: (cat, CHIPS - 100)}
    async with db.session() as s:
        row = await s.get(HandRecord, start.hand_id)
        assert row is not None and (row.status, row.tournament_id, row.level) == ("done", t, 3)
        stored = await s.get(PokerTable, table, populate_existing=True)
        assert stored is not None and stored.stacks == {k: v for k, v in view.items() if v[1]}
    await _sound(db)


async def test_void_of_a_live_tournament_hand_keeps_the_stacks_it_started_with(
    db: Database,
) -> None:
    t, users, _, (table, _) = await seated(db)
    start = await start_hand(db, t, table, users, [CHIPS] * 3)
    async with db.transaction() as s:
        voided = await hands.void_live_hands(s, table_ids=[table])
    assert [row.id for row in voided] == [start.hand_id]
    assert voided[0].status == HandStatus.VOID and voided[0].tournament_id == t
    assert await _seats(db, table) == {i: (u, CHIPS) for i, u in enumerate(users)}
    assert [e.chips for e in await entries_of(db, t)] == [CHIPS] * 3
    await _sound(db)


async def test_cash_paths_refuse_a_tournament_table(db: Database) -> None:
    t, users, _, (table, _) = await seated(db)
    async with db.transaction() as s:
        cash = await make_table(s, name="Cash")
    refusals: list[Callable[[AsyncSession], Awaitable[object]]] = [
        lambda s: ledger.buy_in(s, user_id=users[0], table_id=table, amount=500, key="b"),
        lambda s: ledger.cash_out(s, user_id=users[0], table_id=table, key="c"),
        lambda s: ledger.settle_hand(s, table_id=table, key="h", deltas={users[0]: 0}),
    ]
    for refused in refusals:
        with pytest.raises(TournamentTable):
            async with db.transaction() as s:
                await refused(s)
    start = await start_hand(db, t, table, users, [CHIPS] * 3, tournament_id=None)  # a cash hand?
    with pytest.raises(TournamentTable):
        async with db.transaction() as s:
            await hands.record_finished(s, finished(start, dict.fromkeys(users, 0), {}))
    elsewhere = await start_hand(db, t, cash.id, users, [CHIPS] * 3)  # a tournament hand at cash
    with pytest.raises(TournamentTable):
        async with db.transaction() as s:
            await hands.record_finished(s, finished(elsewhere, dict.fromkeys(users, 0), {}))
    raked = await start_hand(db, t, table, users, [CHIPS] * 3)
    with pytest.raises(InvalidAmount):
        async with db.transaction() as s:
            await hands.record_finished(s, finished(raked, {users[0]: -10}, {}, rake=10))
    assert await _seats(db, table) == {i: (u, CHIPS) for i, u in enumerate(users)}
    await _sound(db)


async def test_r38_draws_are_committed_then_revealed_once(db: Database) -> None:
    t, _ = await setup(db, 0)
    async with db.transaction() as s:
        assert await tournaments.add_draw(s, t, "seats", "hmac-sha256-draw-v1", "a" * 64) == 1
        assert await tournaments.add_draw(s, t, "break order", "hmac-sha256-draw-v1", "b" * 64) == 2
    async with db.transaction() as s:
        await tournaments.reveal_draw(s, t, 1, "0f" * 32, {"7": [0, 3]})
        await tournaments.reveal_draw(s, t, 1, "0f" * 32, {"7": [0, 3]})  # the same: nothing
    with pytest.raises(DrawRevealed):
        async with db.transaction() as s:
            await tournaments.reveal_draw(s, t, 1, "1f" * 32, {"7": [0, 3]})
    async with db.session() as s:
        draws = await tournaments.draws(s, t)
    assert [(d.seq, d.purpose, d.seed) for d in draws] == [
        (1, "seats", "0f" * 32), (2, "break order", None),
    ]  # fmt: skip
    assert draws[0].result == {"7": [0, 3]}


async def test_r38_a_draw_from_the_committed_seed_is_recorded_in_one_write(db: Database) -> None:
    """`record_draw`: the next number after the draws before it, the master's seed ("")
    and what it drew, as `add_draw` then `reveal_draw` would leave it."""
    t, _ = await setup(db, 0)
    async with db.transaction() as s:
        assert await tournaments.add_draw(s, t, "master", "hmac-sha256-draw-v1", "a" * 64) == 1
        moves = {"moves": [[4, 1, 2, 5]]}
        assert await tournaments.record_draw(s, t, "balance:9:0", "v1", "a" * 64, moves) == 2
        assert await tournaments.record_draw(s, t, "stray:3:9:1", "v1", "a" * 64, [2, 6]) == 3
    async with db.session() as s:
        draws = await tournaments.draws(s, t)
    assert [(d.seq, d.purpose, d.seed, d.result) for d in draws] == [
        (1, "master", None, None), (2, "balance:9:0", "", moves), (3, "stray:3:9:1", "", [2, 6]),
    ]  # fmt: skip


async def test_tournament_rows_and_the_director_columns(db: Database) -> None:
    t, _ = await setup(db, 0)
    with pytest.raises(TypeError):
        async with db.transaction() as s:
            await make_tournament(s, level=3)  # the director's, not a setting
    async with db.transaction() as s:
        with pytest.raises(TypeError):
            await tournaments.save_director(s, t, {"buy_in": 0})
        await tournaments.save_director(
            s, t, {"status": "running", "level": 2, "clock_at": utcnow(), "state": {"x": 1}}
        )
        with pytest.raises(TournamentNotFound):
            await tournaments.save_director(s, 999, {"level": 1})
        other = await make_tournament(s, name="Other")
    async with db.session() as s:
        row = await tournaments.get_tournament(s, t)
        assert (row.status, row.level, row.state) == ("running", 2, {"x": 1})
        running = await tournaments.list_tournaments(s, statuses=["running"])
        assert [r.id for r in running] == [t]
        assert [r.id for r in await tournaments.list_tournaments(s)] == [t, other]
        with pytest.raises(TournamentNotFound):
            await tournaments.get_tournament(s, 999)


async def test_the_director_lease_fences_its_writes(db: Database) -> None:
    t, (ann,) = await setup(db, 1)
    async with db.transaction() as s:
        epoch = await leases.claim(s, t, "a", seconds=5.0, model=TournamentLease)
    assert epoch == 1
    mine = tournaments.DirectorFence("a", 1)
    async with db.transaction() as s:
        await tournaments.save_director(s, t, {"level": 1}, fence=mine)
        await tournaments.check_director(s, t, "a", 1)
    async with db.transaction() as s:
        assert await leases.release(s, "a", [t], model=TournamentLease) == 1
        assert await leases.claim(s, t, "b", seconds=5.0, model=TournamentLease) == 2
    postings = await _postings(db)
    stale: list[Callable[[AsyncSession], Awaitable[object]]] = [
        lambda s: tournaments.save_director(s, t, {"level": 9}, fence=mine),
        lambda s: tournaments.enter(
            s, t, ann, key="k", chips=CHIPS, price=PRICE, fee=FEE, fence=mine
        ),
        lambda s: tournaments.add_draw(s, t, "seats", "x", "c" * 64, fence=mine),
        lambda s: tournaments.refund_all(s, t, key_prefix="r", fence=mine),
    ]
    for write in stale:
        with pytest.raises(LeaseLost) as lost:
            async with db.transaction() as s:
                await write(s)
        assert lost.value.tournament_ids == frozenset({t}) and lost.value.table_ids == frozenset()
        assert "tournament" in lost.value.message
    async with db.session() as s:
        row = await tournaments.get_tournament(s, t)
        assert (row.level, row.status) == (1, "registering")
        assert await tournaments.draws(s, t) == []
    assert await _postings(db) == postings and await entries_of(db, t) == []
    async with db.transaction() as s:  # a dead process's tournaments are freed with its tables
        assert await leases.release_owners(s, ["b"]) == 1
        lease = await leases.lease_of(s, t, model=TournamentLease)
        assert lease is not None and lease.owner is None


async def test_the_table_store_seats_and_moves_entries_under_its_lease(db: Database) -> None:
    t, users = await setup(db, 2)
    for user in users:
        await enter(db, t, user, f"in-{user}")
    rows = await entries_of(db, t)
    store = LedgerTableStore(db)
    settings = TableSettings(name="T 1", small_bet=100, big_bet=200, bring_in=50)
    table = await store.create(
        settings, host_user_id=None, invite_token=None, password_hash=None, tournament_id=t
    )
    (loaded,) = await store.load_open([table])
    assert loaded.tournament_id == t and loaded.seats == []
    await store.seat_entries(table, {rows[0].id: 0}, {"0": [users[0], CHIPS]})
    both = {"0": [users[0], CHIPS], "1": [users[1], CHIPS]}
    await store.seat_entries(table, {rows[1].id: 1}, both)
    (loaded,) = await store.load_open([table])
    assert [(seat.user_id, seat.stack) for seat in loaded.seats] == [(u, CHIPS) for u in users]
    with pytest.raises(TableError) as refused:
        await store.buy_in(table, users[0], 3, 500, "cash", {})
    assert refused.value.code == "tournament_table"
    rebuy = EntryChips(t, "rebuy", chips=1000, price=500, fee=50, key="rebuy-0")
    assert await store.add_entry_chips(table, users[0], rebuy, {
        "0": [users[0], CHIPS + 1000], "1": [users[1], CHIPS]
    })  # fmt: skip
    assert not await store.add_entry_chips(table, users[0], rebuy, {})  # replayed
    assert await _seats(db, table) == {0: (users[0], CHIPS + 1000), 1: (users[1], CHIPS)}
    await _sound(db)
    left = {"0": [users[0], CHIPS + 1000]}
    assert await store.unseat_entries(table, [rows[1].id], left) == {rows[1].id: CHIPS}
    async with db.transaction() as s:  # another process takes the table over
        await s.execute(update(TableLease).values(expires_at=utcnow()))
        assert await leases.claim(s, table, "other", seconds=5.0) == 2
    with pytest.raises(TableError) as lost:
        await store.seat_entries(table, {rows[1].id: 1}, {})
    assert lost.value.code == "lease_lost"
    assert await _seats(db, table) == {0: (users[0], CHIPS + 1000)}
    await _sound(db)


async def test_entries_are_counted_as_issued(db: Database) -> None:
    t, (ann, bob) = await setup(db, 2)
    await enter(db, t, ann, "a")
    await enter(db, t, bob, "b", chips=2000, status="playing")  # a late entry, more chips
    async with db.session() as s:
        row = await s.get(Tournament, t, populate_existing=True)
        assert row is not None and row.issued == CHIPS + 2000
    assert [e.status for e in await entries_of(db, t)] == ["registered", "playing"]
    async with db.session() as s:
        kinds = await s.scalars(select(LedgerTransaction.kind).order_by(LedgerTransaction.id))
        assert list(kinds)[-2:] == [TxKind.TOURNAMENT_ENTRY] * 2
