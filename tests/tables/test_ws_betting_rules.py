"""R4, R12, R13 and R14 through the table server: a real table, scripted cards, players
acting over real WebSockets. The engine tests prove each rule in detail; these prove the
server offers, accepts and refuses exactly what the engine does, and moves the chips.

Stakes: small bet 100, big bet 200, bring-in 50. The first hand's button is seat 0, so the
cards go round seats 1, 2, 0 (R7). A big ante (R2 sets no maximum) leaves a player bought in
for the minimum short, to reach R12's and R13's all-in cases in one hand.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.engine.scripted import dealing_order, scripted_deck
from app.fanout import BaseFanout
from app.store import ledger
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Client, Frame, Live, live_server
from tests.tables.test_ws_play import PAUSE, calldown, chips, drive

BALANCE = 100_000


@pytest.fixture
async def live(sqlite_db: Database, fanout: BaseFanout, clock: FakeClock) -> AsyncIterator[Live]:
    async with live_server(sqlite_db, fanout, clock) as server:
        yield server


class Game:
    """One scripted hand at a live table: whose turn it is, by the `turn` frames."""

    def __init__(self, live: Live, table_id: int, clients: dict[int, Client], users: list[int]):
        self.live = live
        self.table_id = table_id
        self.clients = clients
        self.users = users
        self.watcher = next(iter(clients.values()))  # the one `drive` watches too
        self.cursor = 0
        self.current: Frame | None = None

    @classmethod
    async def start(
        cls, live: Live, hands: dict[int, str], buy_ins: dict[int, int], **settings: Any
    ) -> Game:
        users = [await live.user(f"p{seat}", BALANCE) for seat in sorted(buy_ins)]
        created = await live.create_table(
            users[0][1],
            name="Rules",
            small_bet=100,
            bring_in=50,
            hand_pause_ms=int(PAUSE * 1000),
            **settings,
        )
        table_id = created["table"]["id"]
        deck = scripted_deck(dealing_order(list(buy_ins), 0), hands)
        live.table(table_id).deck_source = lambda: deck
        clients: dict[int, Client] = {}
        for seat, (user_id, token) in zip(sorted(buy_ins), users, strict=True):
            client = await Client.open(live, table_id, token, user_id)
            sat = await client.call(
                {"type": "sit", "seat": seat, "amount": buy_ins[seat], "request_id": f"b{seat}"}
            )
            assert sat["type"] == "ok", sat
            clients[seat] = client
        game = cls(live, table_id, clients, [u for u, _ in users])
        game.cursor = len(game.watcher.frames)
        await live.settle(table_id, PAUSE)
        return game

    async def turn(self) -> Frame:
        """The turn to act now (waiting for its frame)."""
        if self.current is None:
            i, self.current = await self.watcher.wait_index(
                lambda f: f.get("type") in ("turn", "hand_ended"), start=self.cursor
            )
            self.cursor = i + 1
        assert self.current["type"] == "turn", self.current
        return self.current

    async def act(self, seat: int, action: str, amount: int | None = None) -> Frame:
        """`seat` acts on its turn; returns the reply (an error leaves the turn as it was)."""
        turn = await self.turn()
        assert turn["seat"] == seat, turn
        msg: dict[str, Any] = {
            "type": "act",
            "hand_id": turn["hand_id"],
            "turn_id": turn["turn_id"],
            "action": action,
        }
        if amount is not None:
            msg["amount"] = amount
        reply = await self.clients[seat].call(msg)
        if reply["type"] == "ok":
            self.current = None
        return reply

    async def play(self, moves: str) -> None:
        """``"1: bring_in 50, 2: call"``: each must be accepted."""
        for move in moves.split(","):
            seat, _, action = move.strip().partition(": ")
            kind, _, amount = action.partition(" ")
            reply = await self.act(int(seat), kind, int(amount) if amount else None)
            assert reply["type"] == "ok", (move, reply)

    async def refused(self, seat: int, action: str, amount: int | None = None) -> Frame:
        """The action is refused with a clear error, and the table did not move."""
        version = self.live.table(self.table_id).version
        reply = await self.act(seat, action, amount)
        assert reply["type"] == "error" and reply["code"] == "illegal_action", reply
        assert reply["message"]
        assert self.live.table(self.table_id).version == version
        return reply

    async def finish(self) -> Frame:
        """Play the rest of the hand by checking and calling; returns `hand_ended`."""
        start = self.cursor - 1 if self.current is not None else self.cursor  # its own turn
        ended = await drive(self.clients, calldown, start)
        await self.live.settle(self.table_id)
        return ended

    def events(self, kind: str) -> list[Frame]:
        return [f for f in self.watcher.frames if f.get("type") == kind]

    async def conserved(self) -> None:
        total = BALANCE * len(self.users)
        assert await chips(self.live, self.table_id, self.users) == (total, total)


async def test_r14_after_a_small_bet_raises_may_be_small_or_big_until_one_is_big(
    live: Live,
) -> None:
    hands = {1: "????2c 9s", 2: "????Kd Kh", 0: "????Qh 3c"}  # seat 2 pairs its kings
    game = await Game.start(live, hands, dict.fromkeys((0, 1, 2), 3000), ante=10)
    await game.play("1: bring_in 50, 2: call, 0: call")
    turn = await game.turn()  # fourth street: the open pair acts first (R12) and may bet big
    assert (turn["seat"], turn["legal"]["bets"]) == (2, [100, 200])
    await game.play("2: bet 100")
    assert (await game.turn())["legal"]["raises"] == [200, 300]
    await game.play("0: raise 200")  # a small raise: the next player still has the choice
    assert (await game.turn())["legal"]["raises"] == [300, 400]
    await game.refused(1, "raise", 350)
    await game.refused(1, "raise")  # two amounts: the player must say which
    await game.play("1: raise 400")  # big: from now on every raise is big
    assert (await game.turn())["legal"]["raises"] == [600]
    await game.refused(2, "raise", 500)
    await game.play("2: call, 0: call")
    wagers = [
        (f["type"], f["seat"], f["amount"]) for f in game.events("bet") + game.events("raised")
    ]
    assert wagers == [("bet", 2, 100), ("raised", 0, 200), ("raised", 1, 400)]
    await game.finish()
    await game.conserved()


async def test_r14_stud8_has_no_big_bet_option_through_the_server(live: Live) -> None:
    hands = {1: "????2c 9s", 2: "????Kd Kh", 0: "????Qh 3c"}
    game = await Game.start(live, hands, dict.fromkeys((0, 1, 2), 3000), ante=10, variant="stud8")
    await game.play("1: bring_in 50, 2: call, 0: call")
    turn = await game.turn()
    assert turn["legal"]["bets"] == [100]
    await game.refused(turn["seat"], "bet", 200)
    await game.finish()
    await game.conserved()


async def test_r13_short_all_in_bring_in_is_called_or_completed_and_r4_rake_goes_to_the_house(
    live: Live,
) -> None:
    # ante 960: seat 1, bought in for 1000, has 40 left and brings in (2c) all-in for 40
    hands = {1: "????2c", 2: "????Kd", 0: "????Qh"}
    game = await Game.start(live, hands, {0: 3000, 1: 1000, 2: 3000}, ante=960, rake_bps=500)
    async with live.db.session() as s:
        house = await ledger.balance(s, ledger.HOUSE)
    turn = await game.turn()
    assert (turn["seat"], turn["legal"]["bring_in"], turn["legal"]["complete"]) == (1, 40, None)
    await game.play("1: bring_in 40")
    turn = await game.turn()
    legal = turn["legal"]
    assert (turn["seat"], legal["call"], legal["complete"], legal["bring_in"]) == (2, 40, 100, None)
    await game.refused(2, "complete", 50)  # nothing between the bring-in and the completion
    await game.play("2: call")
    turn = await game.turn()
    assert (turn["seat"], turn["legal"]["call"], turn["legal"]["complete"]) == (0, 40, 100)
    await game.play("0: complete 100, 2: call")
    await game.finish()
    (rake,) = game.events("rake_taken")
    # main pot 3 * 1000 (antes and the bring-in), side pot 2 * 60: 5% of 3120
    assert rake["amount"] == 156
    async with live.db.session() as s:
        assert await ledger.balance(s, ledger.HOUSE) == house + 156  # R4: all to the house
    await game.conserved()


async def test_r4_an_all_in_run_out_from_third_street_is_raked(
    live: Live,
) -> None:
    # two players; seat 1 brings in all-in for 40 (ante 960) and seat 0 calls: no more betting,
    # but the run-out deals fourth street, so the hand did not end on third street
    hands = {1: "????2c", 0: "????Kd"}
    game = await Game.start(live, hands, {0: 3000, 1: 1000}, ante=960, rake_bps=1000)
    await game.play("1: bring_in 40, 0: call")
    ended = await game.finish()
    assert ended["type"] == "hand_ended"
    assert [f["street"] for f in game.events("street_started")] == [3, 4, 5, 6, 7]
    assert [f["amount"] for f in game.events("rake_taken")] == [200]  # 10% of 2000
    await game.conserved()


async def test_r4_a_hand_ended_on_third_street_pays_no_rake(live: Live) -> None:
    hands = {1: "????2c", 2: "????Kd", 0: "????Qh"}
    game = await Game.start(live, hands, dict.fromkeys((0, 1, 2), 3000), ante=10, rake_bps=1000)
    await game.play("1: bring_in 50, 2: complete 100, 0: fold, 1: fold")
    await game.finish()
    assert game.events("rake_taken") == []
    (award,) = game.events("pot_awarded")
    assert (award["seat"], award["amount"]) == (2, 30 + 50 + 50)  # the uncalled 50 went back
    await game.conserved()


async def test_r12_an_all_in_best_board_passes_first_action_to_its_left(live: Live) -> None:
    # ante 960: seat 2, bought in for 1000, calls the bring-in all-in for 40; on fourth
    # street it shows the best board (open kings) but cannot act: seat 0, on its left, starts
    hands = {1: "????2c 9s", 2: "????Kd Kh", 0: "????Qh 3c"}
    game = await Game.start(live, hands, {0: 3000, 1: 3000, 2: 1000}, ante=960)
    await game.play("1: bring_in 50, 2: call, 0: call")
    turn = await game.turn()  # its frame comes after fourth street's cards
    assert [f["street"] for f in game.events("street_started")] == [3, 4]
    assert turn["seat"] == 0
    assert turn["legal"]["bets"] == [100, 200]  # R14: the all-in's open pair counts too
    await game.finish()
    await game.conserved()
