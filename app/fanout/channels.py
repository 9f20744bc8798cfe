"""Channel names, made here and nowhere else.

Names are logical (`table:42`, `table:42:user:17`, `sessions`); a backend that shares a medium
(Redis) puts `qualify(namespace, name)` on the wire, so two deployments or two test runs on
one Redis never hear each other. Subscribers always see the logical name.

Public and private channels (the contract the table server enforces; the fan-out never
looks inside a message):
- `table(t)` is public: anyone at the table may follow it, observers included. Never
  publish a face-down card, a seat's own hand, a password, an invite token or anything else
  that one seat may know and another may not on it.
- `user(t, u)` is private: only that user's sockets follow it, from the moment they connect
  (a socket never adds a channel later). The table puts a seat-private event (a face-down
  card) on the channel of the user it seated there; the table channel gets only the bare
  event number in its place.
- `sessions()` carries revoked login sessions between processes: no socket follows it.
- `process(p)` is the servers' own (routed commands and their answers): no socket follows it.
- `director(t)` carries a tournament's tables' reports to its director: no socket follows it.
- `tournament(t)` is public: a tournament's clock, standings and notices, for its page.
"""

from __future__ import annotations

import re
from typing import Final

DEFAULT_NAMESPACE: Final = "stud"

_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_NAMESPACE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


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


def table(table_id: int | str) -> str:
    """The public channel of one table: events everyone at the table may see."""
    return f"table:{_id('table id', table_id)}"


def user(table_id: int | str, user_id: int | str) -> str:
    """The private channel of one user at a table (e.g. their own errors and balance)."""
    return f"{table(table_id)}:user:{_id('user id', user_id)}"


def process(process_id: str) -> str:
    """One server process's own channel: commands routed to the tables it runs, and the
    answers to what it asked (`app.tables.rpc`). Servers only: no socket follows it."""
    return f"process:{_id('process id', process_id)}"


def director(tournament_id: int) -> str:
    """What a tournament's tables report to its director (a hand over, with its busts),
    wherever the director runs. Servers only: no socket follows it."""
    return f"director:{_id('tournament id', tournament_id)}"


def tournament(tournament_id: int) -> str:
    """The public channel of one tournament: its clock, players left and places."""
    return f"tournament:{_id('tournament id', tournament_id)}"


def sessions() -> str:
    """Logouts: the id of each revoked login session, so every process closes its sockets."""
    return "sessions"


def qualify(namespace: str, channel: str) -> str:
    """The name on the wire: the logical name behind its deployment's namespace."""
    if not _NAMESPACE.fullmatch(namespace):
        raise ValueError(f"namespace must be 1-64 letters, digits, '_', '.' or '-': {namespace!r}")
    return f"{namespace}:{channel}"
