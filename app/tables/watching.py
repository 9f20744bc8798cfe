"""Who watches a table, and its chat: a socket joining and closing, a dead process's sockets
forgotten, a chat line said, and whether a seated player is here at all (R40: a seat whose
player has no socket open on any process is away, for everyone to see). Rules: they take the
table's state and a message and return an `effects.Outcome` (the actor answers, numbers and
publishes)."""

from __future__ import annotations

import secrets

from app.tables import messages as m
from app.tables import publishing
from app.tables.effects import Effects, Outcome, Said
from app.tables.errors import TableError
from app.tables.state import ChatLine, Io, TableState
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


# every process's sockets re-join a table that started elsewhere (its owner's notice) within
# a few seconds; a player whose client did not is away from then on, as if it had closed
RETURN_GRACE = 15.0


async def presence_check(table: TableState, msg: m.PresenceCheck, io: Io) -> Outcome:
    """R40 after a start: the seats were loaded as not away (nobody could be watching yet)."""
    return Outcome(None, presence(table, set(table.by_user)))


REPORT_BEFORE, REPORT_AFTER = 8, 4  # lines around a reported one that go with the report


async def chat(table: TableState, ask: m.Ask[c.ChatMsg], io: Io) -> Outcome:
    """A chat line, unless the host muted the player here or an operator everywhere (read
    from the database at each line: a mute takes effect at once on every table)."""
    text = ask.msg.text.strip()
    if not text:
        raise TableError("invalid_chat", "say something")
    if len(text) > CHAT_MAX:
        raise TableError("chat_too_long", f"chat lines are at most {CHAT_MAX} characters")
    if ask.user_id in table.muted:
        raise TableError("muted", "the host has muted you at this table")
    until = await io.store.chat_muted(ask.user_id)
    if until is not None:
        when = "for good" if until.year >= 9999 else f"until {until:%Y-%m-%d %H:%M} UTC"
        raise TableError("muted", f"you are muted {when}: your chat is not shown")
    line = ChatLine(secrets.token_hex(8), ask.user_id, ask.name, text)
    table.chat.append(line)
    seat = table.by_user.get(ask.user_id)
    return Outcome({"line": line.line}, [Said(Chat(ask.user_id, ask.name, seat, text, line.line))])


async def report_chat(table: TableState, ask: m.Ask[c.ReportChatMsg], io: Io) -> Outcome:
    """A player reports a line said here: it goes to the operators with the lines around it
    as this table kept them. A line no longer kept, or one's own, is refused; a second
    report of the same line by the same player changes nothing."""
    lines = list(table.chat)
    at = next((i for i, kept in enumerate(lines) if kept.line == ask.msg.line), None)
    if at is None:
        raise TableError("no_such_line", "that chat line is no longer kept at this table")
    said = lines[at]
    if said.user_id == ask.user_id:
        raise TableError("own_line", "you cannot report your own chat line")
    if (ask.user_id, said.line) in table.reported:
        return Outcome({"reported": True, "again": True})
    context = [kept.public() for kept in lines[max(0, at - REPORT_BEFORE) : at + REPORT_AFTER + 1]]
    await io.store.report_chat(table.id, ask.user_id, said.user_id, said.line, context)
    table.reported.add((ask.user_id, said.line))
    return Outcome({"reported": True})
