"""The table builds every event it sends from the wire catalog (`app.wire.events`)
and keeps each event's type beside its text, so nothing reads an event by matching its text."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from app.store.db import Database
from app.tables import messages as m
from app.tables.state import kept_v, unkept
from app.wire import catalog
from tests.sources import parse
from tests.store.hands_play import play_hands, seated_table

TABLES = Path(__file__).resolve().parents[2] / "app" / "tables"


def test_no_emit_site_builds_an_event_from_a_dict_literal() -> None:
    """A `say(...)` in app/tables names a catalog class (or an engine event's `engine_body`),
    never a dict literal; and no string there spells a wire event's `"type":` to match text."""
    found: list[str] = []
    for path in sorted(TABLES.glob("*.py")):
        for node in ast.walk(parse(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "say"
                and node.args
                and isinstance(node.args[0], ast.Dict | ast.DictComp)
            ):
                found.append(f"{path.name}:{node.lineno} says a dict literal")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and '"type":' in node.value
            ):
                found.append(f"{path.name}:{node.lineno} matches an event's text")
    assert found == []


async def test_ring_keeps_each_event_as_its_text_and_a_private_one_with_its_user(
    db: Database,
) -> None:
    """A public event is kept as its wire text alone, a seat-private one with the user who
    may see it; the numbers, read from the texts, run on without a gap, and every type is
    one the catalog holds."""
    manager, table, clock, _ = await seated_table(db, 3, "stud")
    try:
        await play_hands(table, clock, 2, fold_seat=1)
        await table.request(m.Sync())
        kept = list(table.ring)
        seated = {info.user_id for info in table.state.seats.values()}
    finally:
        await manager.stop()
    private = [entry for entry in kept if not isinstance(entry, str)]
    assert private  # the down cards
    assert all(user in seated for _, user in private)
    bodies = [json.loads(unkept(entry)[0]) for entry in kept]
    assert any(body["type"] == "hand_started" for body in bodies)
    assert [body["v"] for body in bodies] == [kept_v(entry) for entry in kept]
    assert [kept_v(e) for e in kept] == list(range(kept_v(kept[0]), kept_v(kept[0]) + len(kept)))
    assert all(body["type"] in catalog.SERVER for body in bodies)
