"""Who watches a table, and its chat: a socket joining and closing, a dead process's sockets
forgotten, a chat line said, and whether a seated player is here at all (R40: a seat whose
player has no socket open on any process is away, for everyone to see). Rules: they take the
table's state and a message and return an `effects.Outcome` (the actor answers, numbers and
publishes)."""

from __future__ import annotations

from app.tables import messages as m
from app.tables import publishing
from app.tables.effects import Effects, Outcome, Said
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
        {"seat": table.by_user.get(msg.user_id), "host": msg.user_id == table.host_user_id},
        presence(table, {msg.user_id}),
    )


async def unwatch(table: TableState, msg: m.Unwatch, io: Io) -> Outcome:
    watcher = (msg.user_id, msg.via)
    left = table.watchers.get(watcher, 0) - 1
    if left > 0:
        table.watchers[watcher] = left
    else:
        table.watchers.pop(watcher, None)
    return Outcome(None, presence(table, {msg.user_id}))


async def watchers_gone(table: TableState, msg: m.WatchersGone, io: Io) -> Outcome:
    gone = set(msg.via)
    users = set()
    for watcher in [w for w in table.watchers if w[1] in gone]:
        del table.watchers[watcher]
        users.add(watcher[0])
    return Outcome(None, presence(table, users))


def presence(table: TableState, users: set[int]) -> Effects:
    """R40: the seats of `users` are away while none of their sockets, on any process,
    watches the table, and back as soon as one does; said to all when that changes. A bot
    has no socket and is never away."""
    changed = False
    connected = {user for user, _ in table.watchers}
    for user in users:
        seat = table.by_user.get(user)
        if seat is None or table.seats[seat].bot:
            continue
        info = table.seats[seat]
        away = user not in connected
        if info.away != away:
            info.away = away
            changed = True
    return [publishing.seats_said(table)] if changed else []


async def chat(table: TableState, ask: m.Ask[c.ChatMsg], io: Io) -> Outcome:
    text = ask.msg.text.strip()
    if not text:
        raise TableError("invalid_chat", "say something")
    if len(text) > CHAT_MAX:
        raise TableError("chat_too_long", f"chat lines are at most {CHAT_MAX} characters")
    return Outcome({}, [Said(Chat(ask.user_id, ask.name, table.by_user.get(ask.user_id), text))])
