"""The ring of events kept for reconnecting clients: the hand before the latest and the
latest (not a fixed number of events of hands long over, which held most of a busy
process's memory). A client away for less than that is told what it missed; one away
longer gets the snapshot, whose hand log is the latest hand's, complete."""

from __future__ import annotations

import json
from collections.abc import Iterable

from app.store.db import Database
from app.tables import messages as m
from app.tables.state import Kept, kept_v
from tests.store.hands_play import play_hands, seated_table


def starts_in(ring: Iterable[Kept]) -> list[int]:
    """The numbers of the hands' public starts in the ring."""
    public = [json.loads(entry) for entry in ring if isinstance(entry, str)]
    return [e["v"] for e in public if e["type"] == "hand_started"]


async def test_the_ring_keeps_the_last_two_hands_and_a_long_absence_gets_the_snapshot(
    db: Database,
) -> None:
    manager, table, clock, users = await seated_table(db, 3, "stud")
    try:
        await play_hands(table, clock, 2)
        await table.request(m.Sync())
        first_deal = starts_in(table.ring)[0]
        await play_hands(table, clock, 3)
        await table.request(m.Sync())
        ring = list(table.ring)
        starts = starts_in(ring)
        assert len(starts) == 2  # the hand before the latest, and the latest
        assert kept_v(ring[0]) == starts[0]  # nothing older than the hand before
        assert first_deal < kept_v(ring[0])  # the first hands' events are gone

        # away since the hand before began: told every event since, nothing else
        back = await table.request(m.Resync(users[1], kept_v(ring[0]) - 1, table.epoch))
        assert back["snapshot"] is None
        assert [json.loads(t)["v"] for t in back["events"]] == [kept_v(e) for e in ring]

        # away longer: the snapshot, its log the latest hand's from its start
        away = await table.request(m.Resync(users[1], first_deal, table.epoch))
        assert away["events"] == [] and away["snapshot"] is not None
        snap = away["snapshot"]
        assert snap["log_complete"] is True
        assert snap["log"][0]["type"] == "hand_started" and snap["log"][0]["v"] == starts[1]
    finally:
        await manager.stop()
