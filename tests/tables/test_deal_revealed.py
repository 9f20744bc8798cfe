"""`deal_revealed` (docs/fairness.md): right after each hand, everyone at the table gets the
opening of the commitment sent in `deal_committed`; it verifies, and it hides the down cards
of every hand not shown (folded, mucked, or an uncalled winner who did not show)."""

from __future__ import annotations

import json
from typing import Any

from app.engine import seeded
from app.fanout import channels
from app.store import hands
from app.store.db import Database
from app.tables import messages as m
from tests.store.hands_play import play_hands, seated_table


async def test_deal_revealed_verifies_and_hides_folded_and_mucked_cards(db: Database) -> None:
    manager, table, clock, _ = await seated_table(db, 3, "stud")
    try:
        # every public event, as a watcher hears it (the ring keeps only the last two hands)
        sub = await manager.fanout.subscribe(channels.table(table.id), queue_size=100_000)
        await play_hands(table, clock, 6, fold_seat=1)  # some fold, some muck
        await table.request(m.Sync())
        public: list[dict[str, Any]] = []
        async for _, text in sub:
            assert isinstance(text, str)  # no gap: the queue holds every event
            body = json.loads(text)
            if len(body) > 1:  # not a seat-private event's bare number
                public.append(body)
            if body["v"] >= table.version:
                break
        await sub.close()
    finally:
        await manager.stop()
    committed = {e["hand_id"]: e for e in public if e["type"] == "deal_committed"}
    # each hand's announce was published before it: in the hand before's `next`
    announced = {e["next"]["sealed"]: e["next"] for e in committed.values()}
    revealed = [e for e in public if e["type"] == "deal_revealed"]
    assert len(revealed) >= 3
    hidden_kinds: set[str] = set()
    for event in revealed:
        hand_id = event["hand_id"]
        reveal = event["reveal"]
        assert committed[hand_id]["scheme"] == reveal["scheme"] == seeded.SCHEME
        assert committed[hand_id]["seeds"] == [] == reveal["seeds"]  # no seed was sent
        ended = [e for e in public if e["type"] == "hand_ended" and e["hand_id"] == hand_id]
        assert ended and public.index(ended[0]) < public.index(event)
        async with db.session() as s:
            row = await hands.get_hand(s, hand_id)
        assert row is not None and row.events is not None and row.salt is not None
        assert row.salt not in json.dumps(event)  # the master salt is never shown
        shown_seats = {e["seat"] for e in row.events if e["type"] == "hand_shown"}
        open_cards = {p["card"] for p in reveal["slots"] if "card" in p}
        # scan it: no down card of a hand not shown, every other card
        for e in row.events:
            if e["type"] != "card_dealt":
                continue
            visible = e["face_up"] or e["seat"] in shown_seats
            assert (e["card"] in open_cards) == visible, (hand_id, e)
            if not visible:
                hidden_kinds.add(_why(row.events, e["seat"]))
        # and the table's own view of the hand checks out position by position
        seen: list[dict[str, Any]] = [
            {**e, "card": e["card"] if e["face_up"] or e["seat"] in shown_seats else None}
            if e["type"] == "card_dealt"
            else e
            for e in row.events
        ]
        sealed = committed[hand_id]["commitment"]
        announce = announced.get(sealed)
        if announce is None:  # the table's first hand: announced in the snapshot
            announce = {
                "sealed": sealed,
                "server_seed_hash": committed[hand_id]["server_seed_hash"],
            }
        assert seeded.check_deal_v2(seen, announce, reveal, committed=committed[hand_id]) == []
    assert {"folded", "mucked"} <= hidden_kinds


def _why(events: list[dict[str, Any]], seat: int) -> str:
    for e in events:
        if e.get("seat") == seat and e["type"] == "folded":
            return "folded"
        if e.get("seat") == seat and e["type"] in ("hand_mucked", "show_declined"):
            return "mucked"
    return "?"
