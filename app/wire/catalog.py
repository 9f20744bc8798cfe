"""The wire catalog: every client message and every server event (the table's, the engine's
and the replies), each with its `type`, audiences, fields and doc, built once from the
models in `client` and `events`. It is plain data: `to_json_schema()` serialises it, `check`
validates a frame against it, and `render_markdown` writes docs/protocol.md's tables.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from app.engine import events as engine
from app.engine.cards import Card
from app.wire import client, envelope, events

Direction = Literal["client", "server"]

# The engine's events, by reference: the static test proves none is missing.
ENGINE_EVENTS: tuple[type[engine.Event], ...] = (
    engine.HandStarted, engine.AntePosted, engine.StreetStarted, engine.CardDealt,
    engine.BurnsReshuffled, engine.CommunityCardDealt, engine.BringInDue, engine.BroughtIn,
    engine.Completed, engine.Bet, engine.Raised, engine.Called, engine.Checked, engine.Folded,
    engine.TimedOut, engine.UncalledBetReturned, engine.ShowdownStarted, engine.HandShown,
    engine.HandMucked, engine.ShowDeclined, engine.RakeTaken, engine.PotAwarded,
    engine.HandEnded,
)  # fmt: skip
CARD_SCHEMA = {"type": "string", "pattern": "^[2-9TJQKA][cdhs]$"}


@dataclass(frozen=True, slots=True)
class WireField:
    name: str
    schema: dict[str, Any]
    doc: str
    required: bool = True


@dataclass(frozen=True, slots=True)
class Entry:
    type: str
    direction: Direction
    group: str  # "client", "table", "engine" or "reply": how the document groups them
    audiences: tuple[str, ...]
    fields: tuple[WireField, ...]
    doc: str
    numbered: bool  # an event in the table's numbered stream (its text starts ``{"v":n,``)
    example: dict[str, Any] | None = None

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the frame (a numbered event's `v` included)."""
        properties: dict[str, Any] = {"type": {"const": self.type}}
        required = ["type"]
        if self.numbered:
            properties["v"] = {"type": "integer", "minimum": 1}
            required.append("v")
        for f in self.fields:
            properties[f.name] = f.schema
            if f.required:
                required.append(f.name)
        return {
            "type": "object",
            "description": self.doc,
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }


def _schema(tp: Any) -> dict[str, Any]:
    """The JSON schema of a Python annotation of the server's models."""
    if tp is Any:
        return {}
    if tp is Card:
        return dict(CARD_SCHEMA)
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [{"type": "null"} if a is type(None) else _schema(a) for a in args]}
    if origin in (list, tuple):
        return {"type": "array", "items": _schema(args[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1])}
    raise TypeError(f"no wire schema for {tp!r}")


def _doc(obj: Any) -> str:
    text = obj.__doc__ or ""
    if text.startswith(f"{getattr(obj, '__name__', '')}("):  # a dataclass's made-up one
        return ""
    return " ".join(text.split())


def _dataclass_fields(cls: type) -> list[WireField]:
    hints = typing.get_type_hints(cls)
    return [
        WireField(f.name, _schema(hints[f.name]), f.metadata.get("doc", ""))
        for f in dataclasses.fields(cls)
        if f.metadata.get("sent", True)
    ]


def _client_entry(model: type[client.ClientMessage]) -> Entry:
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    required = set(schema.get("required", ()))
    fields = []
    for name, prop in schema["properties"].items():
        if name == "type":
            continue
        fields.append(
            WireField(name, _inline(prop, defs), prop.get("description", ""), name in required)
        )
    return Entry(
        client.type_of(model), "client", "client", (), tuple(fields), _doc(model), False,
        dict(model.example),
    )  # fmt: skip


def _inline(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A pydantic property schema without `$ref`s, titles and descriptions (kept apart)."""
    if "$ref" in schema:
        return _inline(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "description", "default"):
            continue
        if key == "anyOf":
            out[key] = [_inline(s, defs) for s in value]
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _inline(value, defs)
        else:
            out[key] = value
    return out


def _table_entries() -> list[Entry]:
    by_type: dict[str, Entry] = {}
    for cls in events.TABLE_EVENTS:
        entry = by_type.get(cls.type)
        if entry is not None:  # one type sent to more than one audience (`deal_revealed`)
            # each audience's copy may differ (who gets it): say what the later one is
            later = _doc(cls)
            by_type[cls.type] = dataclasses.replace(
                entry,
                audiences=(*entry.audiences, cls.audience),
                doc=f"{entry.doc} To `{cls.audience}`: {later[:1].lower()}{later[1:]}",
            )
            continue
        by_type[cls.type] = Entry(
            cls.type, "server", "table", (cls.audience,), tuple(_dataclass_fields(cls)),
            _doc(cls), True,
        )  # fmt: skip
    return list(by_type.values())


def _engine_entry(cls: type[engine.Event]) -> Entry:
    fields = _dataclass_fields(cls)
    for name, (where, tp, doc) in events.ENGINE_ADDED.items():
        if where == "*" or cls.type in where.split():
            fields.append(WireField(name, _schema(tp), doc))
    # an event whose audience depends on it (a face-down card) overrides `Event.audience`
    varies = cls.__dict__.get("audience") is not None
    audiences = ("public", "seat") if varies else ("public",)
    return Entry(cls.type, "server", "engine", audiences, tuple(fields), _doc(cls), True)


def _reply_entry(cls: type[events.ServerEvent]) -> Entry:
    return Entry(
        cls.type, "server", "reply", (cls.audience,), tuple(_dataclass_fields(cls)), _doc(cls),
        False,
    )  # fmt: skip


CLIENT: dict[str, Entry] = {e.type: e for e in map(_client_entry, client.MESSAGES)}
SERVER: dict[str, Entry] = {
    e.type: e
    for e in [
        *_table_entries(),
        *map(_engine_entry, ENGINE_EVENTS),
        *map(_reply_entry, events.REPLIES),
    ]
}


def to_json_schema() -> dict[str, Any]:
    """The whole catalog as JSON schema: each client message and server frame by type."""
    return {
        "envelope": {
            "doc": _doc(envelope),
            "prefix": envelope.PREFIX,
            "placeholder": {
                "type": "object",
                "properties": {"v": {"type": "integer", "minimum": 1}},
                "required": ["v"],
                "additionalProperties": False,
            },
        },
        "client": {t: e.schema() for t, e in CLIENT.items()},
        "server": {
            t: {**e.schema(), "audiences": list(e.audiences), "group": e.group}
            for t, e in SERVER.items()
        },
    }


# -- checking a frame ---------------------------------------------------------------------

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


def _problems(schema: dict[str, Any], value: Any, where: str) -> list[str]:
    if "anyOf" in schema:
        if any(not _problems(s, value, where) for s in schema["anyOf"]):
            return []
        return [f"{where}: {value!r} matches none of its types"]
    if "const" in schema and value != schema["const"]:
        return [f"{where}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r} is not one of {schema['enum']}"]
    kind = schema.get("type")
    if kind is None:
        return []
    ok = isinstance(value, _JSON_TYPES[kind])
    if kind in ("integer", "number") and isinstance(value, bool):
        ok = False
    if not ok:
        return [f"{where}: {value!r} is not {kind}"]
    out: list[str] = []
    if kind == "array" and "items" in schema:
        for i, item in enumerate(value):
            out += _problems(schema["items"], item, f"{where}[{i}]")
    if kind == "object":
        properties = schema.get("properties", {})
        out += [f"{where}: no `{n}`" for n in schema.get("required", ()) if n not in value]
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                out += _problems(properties[name], item, f"{where}.{name}")
            elif extra is False:
                out.append(f"{where}: unknown field `{name}`")
            elif isinstance(extra, dict):
                out += _problems(extra, item, f"{where}.{name}")
    return out


def check(frame: Any, direction: Direction = "server") -> list[str]:
    """What is wrong with one frame (parsed JSON): empty when it is valid.
    A bare ``{"v": n}`` is a seat-private event's placeholder."""
    if not isinstance(frame, dict):
        return ["a frame is a JSON object"]
    if direction == "server" and list(frame) == ["v"]:
        return _problems(to_json_schema()["envelope"]["placeholder"], frame, "placeholder")
    if direction == "client":  # the models' own validation, bounds and all
        try:
            client.client_message.validate_python(frame)
        except ValidationError as exc:
            return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        return []
    entry = SERVER.get(frame.get("type"))  # type: ignore[arg-type]
    if entry is None:
        return [f"type {frame.get('type')!r} is not in the catalog"]
    return _problems(entry.schema(), frame, entry.type)
