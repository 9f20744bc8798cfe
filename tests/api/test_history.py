"""The history API: a player lists the hands they were dealt into (newest first, paged,
filtered by table and variant) and fetches one as JSON, PHH and PokerStars text; a hand they
were not dealt into answers 404 like one that does not exist."""

from __future__ import annotations

from app.tables import messages as m
from tests import asks
from tests.store.hands_play import play_hands
from tests.tables.live import Live


async def _table(live: Live, users: list[tuple[int, str]], variant: str) -> int:
    created = await live.create_table(
        users[0][1], name=f"T{variant}", small_bet=100, ante=10, variant=variant,
        hand_pause_ms=500,
    )  # fmt: skip
    table_id: int = created["table"]["id"]
    table = live.table(table_id)
    for seat, (user_id, _) in enumerate(users):
        await table.request(asks.sit(user_id, f"u{user_id}", seat, 2000, f"k{seat}"))
    return table_id


async def test_list_fetch_formats_filters_and_404(live: Live) -> None:
    ann, bob, cy = [await live.user(n) for n in ("ann", "bob", "cy")]
    stud = await _table(live, [ann, bob], "stud")
    razz = await _table(live, [ann, cy], "razz")
    for table_id in (stud, razz):
        await play_hands(live.table(table_id), live.clock, 2, fold_seat=1)
        await live.table(table_id).request(m.Sync())

    async with live.http(ann[1]) as http:
        listed = (await http.get("/api/hands")).json()
        assert listed["total"] == 4 and len(listed["hands"]) == 4
        starts = [h["started_at"] for h in listed["hands"]]
        assert starts == sorted(starts, reverse=True)  # newest first
        numbers = [h["number"] for h in listed["hands"]]  # strings of digits, as the table's
        assert all(n.isdigit() for n in numbers) and len(set(numbers)) == 4
        assert all("hand_id" not in h for h in listed["hands"])  # the number is its name
        page = (await http.get("/api/hands", params={"limit": 3, "offset": 3})).json()
        assert [h["number"] for h in page["hands"]] == [numbers[3]]
        only = (await http.get("/api/hands", params={"table_id": razz})).json()
        assert only["total"] == 2 and {h["variant"] for h in only["hands"]} == {"razz"}
        only = (await http.get("/api/hands", params={"variant": "stud"})).json()
        assert only["total"] == 2 and {h["table_id"] for h in only["hands"]} == {stud}

        number = only["hands"][0]["number"]
        body = (await http.get(f"/api/hands/{number}")).json()
        assert body["number"] == number and body["viewer_seat"] == 0
        assert "hand_id" not in body
        # the engine's pots, as the table sent them, on the events that end a round
        rounds = [e for e in body["events"] if e["type"] in ("street_started", "hand_ended")]
        assert rounds and all(e["pots"] for e in rounds)
        assert rounds[0]["pots"][0]["amount"] == 20  # two antes of 10
        assert sum(p["amount"] for p in rounds[-1]["pots"]) == sum(
            e["amount"] for e in body["events"] if e["type"] in ("pot_awarded", "rake_taken")
        )
        assert body["fairness"]["commitment"]
        text = (await http.get(f"/api/hands/{number}", params={"format": "pokerstars"})).text
        assert text.startswith(f"PokerStars Hand #{body['number']}: 7 Card Stud Limit")
        assert "*** SUMMARY ***" in text
        phh = await http.get(f"/api/hands/{number}", params={"format": "phh"})
        assert phh.text.startswith('variant = "F7S"')
        assert f"hand = {number}\n" in phh.text
        assert f'filename="hand-{number}.phh"' in phh.headers["content-disposition"]
        assert (await http.get("/api/hands/ffffffffffffffff")).status_code == 404
        assert (await http.get("/api/hands/999999999")).json()["detail"]["code"] == "no_such_hand"

    async with live.http(cy[1]) as http:  # cy was never dealt into the stud hands
        missing = await http.get("/api/hands/999999999")
        not_dealt = await http.get(f"/api/hands/{number}")
        assert not_dealt.status_code == missing.status_code == 404
        assert not_dealt.json() == missing.json()
        assert (await http.get("/api/hands")).json()["total"] == 2

    async with live.http() as http:
        assert (await http.get("/api/hands")).status_code == 401
