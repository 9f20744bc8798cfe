"""The envelope of a table event on the wire: its text begins ``{"v":<n>,`` (or is the bare
``{"v":<n>}`` a seat-private event leaves in its place for everybody else), so a reader finds
an event's number without parsing the JSON. Replies (`ok`, `error`) and the `snapshot` carry
no such prefix: they are not numbered events."""

from __future__ import annotations

from typing import Any

from app.jsontext import to_json

PREFIX = '{"v":'


def encode(v: int, body: dict[str, Any]) -> str:
    """The wire text of event `v`: ``{"v":n,…}``."""
    return f"{PREFIX}{v}," + to_json(body)[1:]


def placeholder(v: int) -> str:
    """What everybody else receives in place of a seat-private event `v`."""
    return f"{PREFIX}{v}}}"


def version_of(text: str) -> int:
    """The `v` of an event's text: ``{"v":n,…}`` or a bare ``{"v":n}``."""
    end = text.find(",", 5)
    return int(text[5:end] if end > 0 else text[5:-1])
