"""What each process answers about the tables it runs, for the lobby and the sockets of every
process (`app.tables.rpc` carries the questions to the process that runs the table, or
asks every process): the lobby's lines, joining by invite, creating a table here, a table's
view, the host's commands and whether a socket may open."""

from __future__ import annotations

import hmac
from typing import Any

from pydantic import ValidationError

from app.store.passwords import Passwords
from app.tables import Table, TableError, TableManager, TableSettings
from app.tables import messages as m
from app.tables.peers import Peers
from app.tables.rpc import TableRouter, no_such_table
from app.wire import client as c
from app.wire import process


def may_see(table: Table, user_id: int | None) -> bool:
    """A public table is everyone's; a private one its host's and its admitted members'."""
    if not table.settings.private:
        return True
    return user_id is not None and (user_id in table.members or user_id == table.host_user_id)


def hosted_line(table: Table) -> dict[str, Any]:
    """A lobby line for the table's host: with its invite (null for a public table)."""
    return {**table.summary(), "invite": table.invite_token}


def joined(table_id: int, summary: dict[str, Any]) -> dict[str, Any]:
    """The answer to a join: the table's line and where its socket is."""
    return {"table": summary, "ws": f"/ws/tables/{table_id}"}


# -- what each process answers about the tables it runs (routed: `app.tables.rpc`) ----


class ProcessOps:
    """What this process answers for the tables it runs: the lobby's lines, joining by
    invite and creating a table here."""

    def __init__(self, manager: TableManager, passwords: Passwords) -> None:
        self.manager = manager
        self.passwords = passwords

    async def lobby_lines(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """The lobby's lines for the public tables run here."""
        return [t.summary() for t in self.manager.public_tables()]

    async def hosted_lines(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """The host's lines, with invites, for the tables they host here."""
        return [hosted_line(t) for t in self.manager.hosted_by(int(args["user"]))]

    async def your_lines(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """The lines of the open tables here the user hosts or sits at."""
        user = int(args["user"])
        lines = []
        for t in list(self.manager.tables.values()):
            if t.closed or not (t.host_user_id == user or user in t.by_user):
                continue
            line = hosted_line(t) if t.host_user_id == user else t.summary()
            lines.append({**line, "host": t.host_user_id == user, "seat": t.by_user.get(user)})
        return lines

    async def join_here(self, args: dict[str, Any]) -> dict[str, Any] | None:
        """The table of this invite if it runs here (None if not): its password checked."""
        table = self.manager.by_invite(str(args["invite"]))
        if table is None:
            return None
        password = args.get("password")
        if table.password_hash is not None and not await self.passwords.verify(
            table.password_hash, password if isinstance(password, str) else ""
        ):
            return {"refused": "bad_password"}
        await table.request(m.Admit(int(args["user"])))
        return joined(table.id, table.summary())

    async def create_here(self, args: dict[str, Any]) -> dict[str, Any]:
        """A new table run here, hosted by the asker, with its invite; or a tournament's
        table, made by its director (`tournament`), its settings the director's."""
        tournament = args.get("tournament")
        if isinstance(tournament, int):
            table = await self.manager.create(
                TableSettings.directed(args["values"]),
                host_user_id=None,
                password_hash=None,
                tournament_id=tournament,
            )
        else:
            table = await self.manager.create(
                TableSettings.parse(args["values"]),
                host_user_id=int(args["host"]),
                password_hash=args.get("password_hash"),
            )
        return {**joined(table.id, table.summary()), "invite": table.invite_token}


async def view(table: Table, args: dict[str, Any]) -> dict[str, Any]:
    """A table's line, settings and seats for a user who may see it (the host also gets
    the invite)."""
    user = int(args["user"])
    if not may_see(table, user):
        raise no_such_table()  # a private table is not confirmed
    answer: dict[str, Any] = {
        "table": table.summary(),
        "settings": table.info(),
        "seats": table.seat_list(),
    }
    if user == table.host_user_id:
        answer["invite"] = table.invite_token  # only the host may hand it out again
    return answer


async def host(table: Table, args: dict[str, Any]) -> Any:
    """One of the host's commands, sent over HTTP, carried to the table."""
    user = int(args["user"])
    if not may_see(table, user):
        raise no_such_table()
    try:  # the catalog's host message, checked here as at the socket
        msg = c.host_message.validate_python(process.upgrade_host(args["body"]))
    except ValidationError as exc:
        raise TableError(*c.refusal(exc)) from None
    return await table.request(m.Ask(user, str(args.get("name", "")), "", msg))


async def enter(table: Table, args: dict[str, Any]) -> bool:
    """May this user open a socket at the table: it is theirs to see, or they bring
    its invite (a private table without a password; one with a password is joined over
    HTTP first)."""
    user, invite = int(args["user"]), args.get("invite")
    if may_see(table, user):
        return True
    if not isinstance(invite, str) or table.password_hash is not None:
        raise no_such_table()
    if not table.invite_token or not hmac.compare_digest(invite, table.invite_token):
        raise no_such_table()
    await table.request(m.Admit(user))
    return True


async def place(peers: Peers, args: dict[str, Any]) -> dict[str, Any]:
    """Make a table on this process if it has room, else on the live process with the most;
    the refusal (`server_full`, `server_stopping`) when none has."""
    router = peers.router
    try:
        return dict(await router.ask_process(router.me, "create", args))
    except TableError as exc:  # this process is full or stopping
        refusal = exc
    for room in await peers.rooms():
        if room.free <= 0:
            break
        try:
            return dict(await router.ask_process(room.process, "create", args))
        except TableError as exc:
            refusal = exc
    raise refusal


def install(router: TableRouter, manager: TableManager, passwords: Passwords) -> None:
    """Teach the router what the lobby and the sockets ask: every process answers for the
    tables it runs."""
    ops = ProcessOps(manager, passwords)
    router.process_op("lobby", ops.lobby_lines)
    router.process_op("hosted", ops.hosted_lines)
    router.process_op("yours", ops.your_lines)
    router.process_op("join", ops.join_here)
    router.process_op("create", ops.create_here)
    router.table_op("view", view)
    router.table_op("host", host)
    router.table_op("enter", enter)
