"""The table builds every event it sends from the wire catalog (`app.wire.events`)
and keeps each event's type beside its text, so nothing reads an event by matching its text."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from app.store.db import Database
from app.tables import messages as m
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


async def test_ring_keeps_each_events_type_beside_its_text(db: Database) -> None:
    """Every kept event's `type` is the one in its wire text, and a type the catalog holds."""
    manager, table, clock, _ = await seated_table(db, 3, "stud")
    try:
        await play_hands(table, clock, 2, fold_seat=1)
        await table.request(m.Sync())
        kept = list(table.ring)
    finally:
        await manager.stop()
    assert any(kind == "hand_started" for _, kind, _, _ in kept)
    assert any(user is not None for *_, user in kept)  # the seat-private ones too
    for v, kind, text, _ in kept:
        body = json.loads(text)
        assert body["v"] == v
        assert body["type"] == kind
        assert kind in catalog.SERVER
