"""The envelope of a table event on the wire: its text begins ``{"v":<n>,`` (or is the bare
``{"v":<n>}`` a seat-private event leaves in its place for everybody else), so a reader finds
an event's number without parsing the JSON. Replies (`ok`, `error`) and the `snapshot` carry
no such prefix: they are not numbered events."""

from __future__ import annotations

from typing import Any

from app.jsontext import to_json
from app.wire.process import OwnerNotice

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


NOTICE_V = 0
"""The `v` of a table's owner notice: not an event (clients never receive it), but a word to
every process's sockets at the table that a new owner runs it from now on (`owner_notice`)."""


def owner_notice(owner: str, epoch: str) -> str:
    """Published on a table's channel by a process that claimed the table (a failover or a
    move): sockets elsewhere learn where it runs now and resync with its new epoch."""
    notice = OwnerNotice(owner=owner, epoch=epoch).model_dump(mode="json")
    return f"{PREFIX}{NOTICE_V}," + to_json(notice)[1:]
