"""`GET /api/proof/{number}`: a finished hand's public record, for anyone (no login): enough
to check the seeded-v2 deal (R39), nothing the table did not show everyone."""

from __future__ import annotations

from app.cli.verify import check_public
from app.store import hands
from app.store.db import Database
from app.tables import messages as m
from tests import asks
from tests.store.hands_play import play_hands
from tests.tables.live import Live


async def test_r39_anyone_reads_a_finished_hands_public_proof_and_it_checks(
    live: Live, db: Database
) -> None:
    ann, bob, cy = [await live.user(n) for n in ("ann", "bob", "cy")]
    created = await live.create_table(ann[1], name="P", small_bet=100, ante=10, hand_pause_ms=500)
    table = live.table(created["table"]["id"])
    for seat, (user_id, _) in enumerate((ann, bob, cy)):
        await table.request(asks.sit(user_id, f"u{user_id}", seat, 2000, f"k{seat}"))
    await play_hands(table, live.clock, 3, fold_seat=1)
    await table.request(m.Sync())
    async with db.session() as s:
        rows, _ = await hands.list_hands(s, ann[0])
    async with live.http() as http:  # no login
        for row in rows:
            r = await http.get(f"/api/proof/{row.number}")
            assert r.status_code == 200, r.text
            proof = r.json()
            assert set(proof) == {
                "number", "scheme", "announce", "deal_committed", "reveal", "events",
            }  # fmt: skip
            assert proof["scheme"] == "seeded-v2" and proof["number"] == str(row.number)
            assert proof["announce"]["sealed"] == row.commitment
            assert check_public(proof) == []
            text = r.text
            assert row.salt is not None and row.salt not in text
            assert row.deal is not None and row.deal["slot_cards"] not in text
            assert "user_id" not in text and "u" + str(ann[0]) not in text
            shown = {e["seat"] for e in proof["events"] if e["type"] == "hand_shown"}
            for e in proof["events"]:
                if e["type"] == "card_dealt" and not e["face_up"]:
                    assert (e["card"] is None) == (e["seat"] not in shown)
        for missing in ("999999999", "x1", "1" * 19):
            r = await http.get(f"/api/proof/{missing}")
            assert r.status_code == 404 and r.json()["detail"]["code"] == "no_such_hand"
