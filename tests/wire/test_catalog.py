"""The wire catalog (app/wire): every event type the server can send is in it, every entry is
documented in docs/protocol.md, and each model agrees with the frame it writes."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

import pytest

from app.engine import events as engine
from app.jsontext import from_json
from app.wire import catalog, client, events, markdown
from app.wire.envelope import encode, placeholder, version_of
from tests.sources import parse

ROOT = Path(__file__).resolve().parents[2]
EMITTERS = [
    *(ROOT / "app" / "tables").rglob("*.py"),
    *(ROOT / "app" / "api").rglob("*.py"),
    ROOT / "app" / "wire" / "events.py",
    ROOT / "app" / "engine" / "events.py",
]


def _literal_types(path: Path) -> set[str]:
    """The `type` of every dict display ``{"type": "<x>", …}`` in a module, and of every
    class that names its own (``type: ClassVar[str] = "<x>"``)."""
    found = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                target: ast.expr | None = None
                if isinstance(item, ast.AnnAssign):
                    target = item.target
                if isinstance(item, ast.Assign) and len(item.targets) == 1:
                    target = item.targets[0]
                value = getattr(item, "value", None)
                if (
                    isinstance(target, ast.Name)
                    and target.id == "type"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    found.add(value.value)
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "type"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    found.add(value.value)
    return found


def test_every_type_literal_the_server_sends_is_in_the_catalog() -> None:
    written = {t: str(p.relative_to(ROOT)) for p in EMITTERS for t in _literal_types(p)}
    assert written, "the scan found no event at all: it is looking in the wrong place"
    abstract = {engine.Event.type}  # the engine's base class names no event of its own
    missing = {
        t: where for t, where in written.items() if t not in catalog.SERVER and t not in abstract
    }
    assert not missing, missing


def test_every_engine_event_is_in_the_catalog() -> None:
    defined = {
        cls
        for _, cls in inspect.getmembers(engine, inspect.isclass)
        if issubclass(cls, engine.Event) and cls is not engine.Event
    }
    assert defined - set(catalog.ENGINE_EVENTS) == set()
    for cls in defined:
        assert catalog.SERVER[cls.type].group == "engine"


def test_every_wire_event_class_is_in_the_catalog() -> None:
    defined = {
        cls
        for _, cls in inspect.getmembers(events, inspect.isclass)
        if issubclass(cls, events.ServerEvent) and cls is not events.ServerEvent
    }
    listed = {*events.TABLE_EVENTS, *events.REPLIES}
    assert defined == listed
    for cls in defined:
        assert cls.audience in catalog.SERVER[cls.type].audiences


def test_every_client_message_is_in_the_catalog_and_dispatchable() -> None:
    assert {client.type_of(m) for m in client.MESSAGES} == set(catalog.CLIENT)
    for entry in catalog.CLIENT.values():
        assert entry.example is not None
        assert catalog.check(entry.example, "client") == [], entry.type
        message = client.client_message.validate_python(entry.example)
        assert message.type == entry.type


def _sample(schema: dict[str, Any]) -> Any:
    """A value of a field's schema, for building each event once."""
    if "anyOf" in schema:
        return _sample(schema["anyOf"][0])
    if "enum" in schema:
        return schema["enum"][0]
    return {
        None: None, "integer": 3, "string": "As", "boolean": True, "array": [],
        "object": {}, "null": None,
    }[schema.get("type")]  # fmt: skip


@pytest.mark.parametrize("cls", [*events.TABLE_EVENTS, *events.REPLIES], ids=lambda c: c.__name__)
def test_an_event_body_is_exactly_its_catalog_entry(cls: type[events.ServerEvent]) -> None:
    entry = catalog.SERVER[cls.type]
    values = {f.name: _sample(f.schema) for f in entry.fields}
    kwargs = dict(values)
    if cls is events.SeatDealRevealed:
        kwargs["seat"] = 5  # whom it is for: not part of the frame
    body = cls(**kwargs).body()
    assert list(body) == ["type", *(f.name for f in entry.fields)]
    assert body == {"type": cls.type, **values}
    frame = from_json(encode(7, body)) if entry.numbered else body
    assert catalog.check(frame) == []


def test_check_refuses_what_the_catalog_does_not_say() -> None:
    turn = {"v": 9, "type": "observers", "count": 2}
    assert catalog.check(turn) == []
    assert catalog.check({**turn, "count": "2"}) != []
    assert catalog.check({**turn, "extra": 1}) != []
    assert catalog.check({"v": 9, "type": "observers"}) != []
    assert catalog.check({"v": 9, "type": "no_such_event"}) != []
    assert catalog.check({"v": 9}) == []  # a seat-private event's placeholder
    assert catalog.check({"type": "chat", "text": "x" * 201}, "client") != []


def test_the_envelope_numbers_events_for_readers_that_do_not_parse() -> None:
    text = encode(120, {"type": "observers", "count": 2})
    assert text == '{"v":120,"type":"observers","count":2}'
    assert version_of(text) == 120
    assert version_of(placeholder(121)) == 121
    assert from_json(placeholder(121)) == {"v": 121}


def test_engine_events_on_the_wire_carry_what_the_table_adds() -> None:
    from app.engine.cards import Card

    body, audience = events.engine_body(engine.CardDealt(2, Card.parse("As"), False, 3), "c0ffee")
    assert audience == 2
    assert catalog.check({"v": 4, **body}) == []
    started, _ = events.engine_body(
        engine.HandStarted("stud", 1, (2, 3), (100, 100)),
        "c0ffee",
        number="1207",
        started=events.Started(3, {"2": "ann", "3": "bob"}),
    )
    assert started["count"] == 3 and started["names"] == {"2": "ann", "3": "bob"}
    assert catalog.check({"v": 5, **started}) == []
    for added in ("number", "count", "names"):
        left = {k: v for k, v in started.items() if k != added}
        assert catalog.check({"v": 5, **left}) != [], added


def test_the_catalog_serialises_to_json_schema() -> None:
    from app.jsontext import to_json

    schema = from_json(to_json(catalog.to_json_schema()))
    assert set(schema["client"]) == set(catalog.CLIENT)
    assert set(schema["server"]) == set(catalog.SERVER)
    assert schema["server"]["card_dealt"]["audiences"] == ["public", "seat"]


def test_protocol_doc_is_generated_from_the_catalog() -> None:
    """docs/protocol.md's tables are the catalog's: `python -m app protocol-doc` rewrites
    them, and this fails when someone changes the catalog and not the document."""
    document = (ROOT / "docs" / "protocol.md").read_text()
    assert markdown.update(document) == document, "run `python -m app protocol-doc`"
    section = document[document.index(markdown.BEGIN) : document.index(markdown.END)]
    for kind, entries in (("client", catalog.CLIENT), ("server", catalog.SERVER)):
        for name, entry in entries.items():
            assert f"| `{name}` |" in section, (kind, name)
            for f in entry.fields:
                assert f"`{f.name}`" in section, (name, f.name)
