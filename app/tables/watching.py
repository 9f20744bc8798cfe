"""Who watches a table, and its chat: a socket joining and closing, a dead process's sockets
forgotten, a chat line said. Rules: they take the table's state and a message and return an
`effects.Outcome` (the actor answers, numbers and publishes)."""

from __future__ import annotations

from app.tables import messages as m
from app.tables.effects import Outcome, Said
from app.tables.errors import TableError
from app.tables.state import Io, TableState
from app.wire import client as c
from app.wire.events import Chat
from app.wire.limits import CHAT_MAX


async def join(table: TableState, msg: m.Join, io: Io) -> Outcome:
    """A socket opens: counted until it closes (`unwatch`); the answer says who they are
    here (the actor adds the epoch of its numbering)."""
    watcher = (msg.user_id, msg.via)
    table.watchers[watcher] = table.watchers.get(watcher, 0) + 1
    return Outcome(
        {"seat": table.by_user.get(msg.user_id), "host": msg.user_id == table.host_user_id}
    )


async def unwatch(table: TableState, msg: m.Unwatch, io: Io) -> Outcome:
    watcher = (msg.user_id, msg.via)
    left = table.watchers.get(watcher, 0) - 1
    if left > 0:
        table.watchers[watcher] = left
    else:
        table.watchers.pop(watcher, None)
    return Outcome()


async def watchers_gone(table: TableState, msg: m.WatchersGone, io: Io) -> Outcome:
    gone = set(msg.via)
    for watcher in [w for w in table.watchers if w[1] in gone]:
        del table.watchers[watcher]
    return Outcome()


async def chat(table: TableState, ask: m.Ask[c.ChatMsg], io: Io) -> Outcome:
    text = ask.msg.text.strip()
    if not text:
        raise TableError("invalid_chat", "say something")
    if len(text) > CHAT_MAX:
        raise TableError("chat_too_long", f"chat lines are at most {CHAT_MAX} characters")
    return Outcome({}, [Said(Chat(ask.user_id, ask.name, table.by_user.get(ask.user_id), text))])
