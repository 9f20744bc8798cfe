"""The players' seeds at a real table (seeded-v2, rules.md R39): a seed sent before a hand is
used in it; a late one is refused for that hand and used for the next; a seed off its chain
or for an unknown deck is refused; a hand of bots only deals at once; and a server that
changes its seed after the announce, or drops a player's seed, is caught by that player's
check."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from app.engine import seeded
from app.store import hands
from app.store.db import Database
from app.store.history import history_view
from app.tables import Table, TableError, seeds
from app.tables import messages as m
from tests import asks
from tests.store.hands_play import play_hands, seated_table, start_hand


def chain(label: str, n: int = 4) -> list[bytes]:
    return [hashlib.sha256(f"{label} {i}".encode()).digest() for i in range(n)]


def h(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


async def send(table: Table, user: int, seed: bytes, commit: str, sealed: str) -> Any:
    data = {"type": "seed", "seed": seed.hex(), "commit": commit, "sealed": sealed}
    return await table.request(asks.ask(user, data))


def public(table: Table, kind: str) -> list[dict[str, Any]]:
    public = [json.loads(entry) for entry in table.ring if isinstance(entry, str)]
    return [e for e in public if e["type"] == kind]


async def my_check(
    db: Database, table: Table, hand_id: str, seat: int, announce: dict[str, str],
    own: bytes | None,
) -> list[str]:  # fmt: skip
    """The honest client's check of a finished hand, from its own history (R24's view)."""
    await table.request(m.Sync())
    async with db.session() as s:
        row = await hands.get_hand(s, hand_id)
    assert row is not None
    view = history_view(row, seat).json
    fairness = view["fairness"]
    return seeded.check_deal_v2(
        view["events"], announce, fairness["reveal"],
        own_seed=(seat, own.hex()) if own is not None else None,
        committed=fairness["deal_committed"],
    )  # fmt: skip


async def test_r39_a_seed_is_used_a_late_one_goes_to_the_next_hand(db: Database) -> None:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    s = chain("ann")
    try:
        first = table.state.fair.next.public()
        answer = await send(table, users[0], b"\0" * 32, h(s[0]), first["sealed"])
        assert answer["reason"] == "first of a chain" and answer["used"] is False
        answer = await send(table, users[0], s[0], h(s[1]), first["sealed"])
        assert answer == {"seed_ok": True, "used": True, "pending": True, "sealed": first["sealed"]}
        await start_hand(table, clock)
        one = table.state.hand_id
        assert one is not None
        committed = public(table, "deal_committed")[-1]
        assert committed["commitment"] == first["sealed"]
        assert committed["server_seed_hash"] == first["server_seed_hash"]
        assert committed["seeds"] == [{"seat": 0, "seed_hash": h(s[0])}]
        assert {"seat": 0, "commit": h(s[1])} in committed["commits"]
        second = committed["next"]
        # too late for the hand in play: refused for it, kept for the next
        with pytest.raises(TableError) as late:
            await send(table, users[0], s[1], h(s[2]), first["sealed"])
        assert late.value.code == "seed_late" and second["sealed"] in late.value.message
        await play_hands(table, clock, 1)
        assert await my_check(db, table, one, 0, first, s[0]) == []
        await start_hand(table, clock)
        committed = public(table, "deal_committed")[-1]
        assert committed["commitment"] == second["sealed"]
        assert committed["seeds"] == [{"seat": 0, "seed_hash": h(s[1])}]
        two = table.state.hand_id
        assert two is not None
        await play_hands(table, clock, 1)
        assert await my_check(db, table, two, 0, second, s[1]) == []
        revealed = public(table, "deal_revealed")[-1]["reveal"]
        assert revealed["seeds"] == [{"seat": 0, "seed": s[1].hex()}]
        assert (
            revealed["server_seed"]
            and h(bytes.fromhex(revealed["server_seed"])) == (second["server_seed_hash"])
        )
    finally:
        await manager.stop()


async def test_r39_seeds_off_the_chain_or_for_no_known_deck_are_refused(db: Database) -> None:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    s = chain("bob")
    try:
        sealed = table.state.fair.next.sealed
        await send(table, users[1], b"\0" * 32, h(s[0]), sealed)
        # the anti-grind chain: a seed that is not the one committed to is refused
        with pytest.raises(TableError) as off:
            await send(table, users[1], s[2], h(s[3]), sealed)
        assert off.value.code == "seed_mismatch"
        assert table.state.fair.chains[users[1]] == seeds.Chain(head=h(s[3]), pending=None)
        # a deck the table never announced: refused, nothing changes
        with pytest.raises(TableError) as unknown:
            await send(table, users[2], s[0], h(s[1]), "ab" * 32)
        assert unknown.value.code == "unknown_deal" and users[2] not in table.state.fair.chains
        # only a seated player's seeds
        with pytest.raises(TableError) as unseated:
            await send(table, 10**9, s[0], h(s[1]), sealed)
        assert unseated.value.code == "not_seated"
        await start_hand(table, clock)
        assert public(table, "deal_committed")[-1]["seeds"] == []
    finally:
        await manager.stop()


async def test_r39_a_server_that_changes_its_seed_after_the_announce_is_caught(
    db: Database,
) -> None:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    s = chain("cy")
    try:
        announced = table.state.fair.next.public()
        await send(table, users[0], b"\0" * 32, h(s[0]), announced["sealed"])
        await send(table, users[0], s[0], h(s[1]), announced["sealed"])
        # the patched server: having seen the seed, it deals with a seed of its choosing
        table.state.fair.next.server_seed = hashlib.sha256(b"chosen after the seeds").digest()
        await start_hand(table, clock)
        hand_id = table.state.hand_id
        assert hand_id is not None
        await play_hands(table, clock, 1)
        problems = await my_check(db, table, hand_id, 0, announced, s[0])
        assert problems and problems[0].startswith("step 1:"), problems
    finally:
        await manager.stop()


async def test_r39_a_server_that_drops_a_players_seed_is_caught(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    s = chain("di")
    honest_take = seeds.take

    def dropping(state: seeds.TableSeeds, dealt: Any, seated: Any) -> seeds.HandSeeds:
        taken = honest_take(state, dealt, seated)
        return seeds.HandSeeds(taken.announce, [], taken.commits, taken.next)

    try:
        announced = table.state.fair.next.public()
        await send(table, users[0], b"\0" * 32, h(s[0]), announced["sealed"])
        await send(table, users[0], s[0], h(s[1]), announced["sealed"])
        monkeypatch.setattr(seeds, "take", dropping)
        await start_hand(table, clock)
        hand_id = table.state.hand_id
        assert hand_id is not None
        await play_hands(table, clock, 1)
        problems = await my_check(db, table, hand_id, 0, announced, s[0])
        assert problems == ["step 3: my seed (seat 0) was not used"]
    finally:
        await manager.stop()


async def test_r39_a_table_of_bots_only_deals_at_once(db: Database) -> None:
    manager, table, clock, users = await seated_table(db, 1, "stud")
    table.state.bots_play_alone = True  # a demo table (else a person must be dealt in)
    try:
        await table.request(asks.leave(users[0]))
        assert await table.request(asks.ask(users[0], {"type": "host_bots", "count": 3}))
        announced = table.state.fair.next.public()
        await start_hand(table, clock)
        committed = public(table, "deal_committed")[-1]
        assert committed["commitment"] == announced["sealed"] and committed["seeds"] == []
        assert table.state.hand is not None and committed["next"] == table.state.fair.next.public()
    finally:
        await manager.stop()
