"""Channel names, made here and nowhere else.

Names are logical (`table:42`, `table:42:seat:3`, `lobby`); a backend that shares a medium
(Redis) puts `qualify(namespace, name)` on the wire, so two deployments or two test runs on
one Redis never hear each other. Subscribers always see the logical name.

Public and private channels (the contract the table server enforces; the fan-out never
looks inside a message):
- `lobby()` and `table(t)` are public: anyone may follow them, observers included. Never
  publish a face-down card, a seat's own hand, a password, an invite token or anything else
  that one seat may know and another may not on them.
- `seat(t, s)` and `user(t, u)` are private: only the one player seated there (or that one
  user) may follow them. A seat-private event goes here; the table channel gets only the
  bare event number in its place.
- `process(p)` is the servers' own (routed commands and their answers): no socket follows it.
"""

from __future__ import annotations

import re
from typing import Final

DEFAULT_NAMESPACE: Final = "stud"

_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_NAMESPACE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_PRIVATE_KINDS: Final = frozenset({"seat", "user"})


def _id(kind: str, value: int | str) -> str:
    # bool is an int; a seat or table called True is a bug, not an id.
    if isinstance(value, bool):
        raise ValueError(f"{kind} must be an int or str, not {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{kind} must not be negative: {value}")
        return str(value)
    if not _ID.fullmatch(value):
        raise ValueError(f"{kind} must be 1-64 letters, digits, '_', '.' or '-': {value!r}")
    return value


def lobby() -> str:
    """The public lobby channel: table list changes."""
    return "lobby"


def table(table_id: int | str) -> str:
    """The public channel of one table: events everyone at the table may see."""
    return f"table:{_id('table id', table_id)}"


def seat(table_id: int | str, seat_no: int) -> str:
    """The private channel of one seat at a table: that seat's face-down cards and the like."""
    if not isinstance(seat_no, int):
        raise ValueError(f"seat must be an int, not {seat_no!r}")
    return f"{table(table_id)}:seat:{_id('seat', seat_no)}"


def user(table_id: int | str, user_id: int | str) -> str:
    """The private channel of one user at a table (e.g. their own errors and balance)."""
    return f"{table(table_id)}:user:{_id('user id', user_id)}"


def process(process_id: str) -> str:
    """One server process's own channel: commands routed to the tables it runs, and the
    answers to what it asked (`app.tables.router`). Servers only: no socket follows it."""
    return f"process:{_id('process id', process_id)}"


def sessions() -> str:
    """Logouts: the id of each revoked login session, so every process closes its sockets."""
    return "sessions"


def is_public(channel: str) -> bool:
    """True for channels anyone may follow; the table server asserts this before it
    publishes anything secret."""
    parts = channel.split(":")
    if parts[0] == "process":
        return False
    return not (len(parts) == 4 and parts[0] == "table" and parts[2] in _PRIVATE_KINDS)


def qualify(namespace: str, channel: str) -> str:
    """The name on the wire: the logical name behind its deployment's namespace."""
    if not _NAMESPACE.fullmatch(namespace):
        raise ValueError(f"namespace must be 1-64 letters, digits, '_', '.' or '-': {namespace!r}")
    return f"{namespace}:{channel}"
