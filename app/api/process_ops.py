"""What each process answers about the tables it runs, for the lobby of every process
(`app.tables.peers` asks every process, `app.tables.rpc` carries the question): the lobby's
lines, joining by invite and creating a table here; and `place`, which makes a table where
there is room."""

from __future__ import annotations

from typing import Any

from app.store.passwords import Passwords
from app.tables import Table, TableError, TableManager, TableSettings
from app.tables import messages as m
from app.tables.peers import Peers
from app.tables.rpc import TableRouter


def hosted_line(table: Table) -> dict[str, Any]:
    """A lobby line for the table's host: with its invite (null for a public table)."""
    return {**table.summary(), "invite": table.invite_token}


def joined(table_id: int, summary: dict[str, Any]) -> dict[str, Any]:
    """The answer to a join: the table's line and where its socket is."""
    return {"table": summary, "ws": f"/ws/tables/{table_id}"}


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
        """The lines of the open tables here the user hosts, sits at or waits for (R44: their
        place in line, and the seat offered to them, if any)."""
        user = int(args["user"])
        lines = []
        for t in list(self.manager.tables.values()):
            state = t.state
            place = state.waiting.position(user)
            if t.closed or not (state.host_user_id == user or user in state.by_user or place):
                continue
            hosts = state.host_user_id == user
            line = hosted_line(t) if hosts else t.summary()
            offer = state.waiting.offers.get(user)
            lines.append(
                {
                    **line,
                    "host": hosts,
                    "seat": state.by_user.get(user),
                    "waiting_place": place,
                    "offer": None if offer is None else offer.seat,
                }
            )
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

    async def invited_here(self, args: dict[str, Any]) -> dict[str, Any] | None:
        """Who invites to the table of this invite, if it runs here (None if not): its name
        and its host's user id, nothing else (the login page says "Anna invited you to …")."""
        table = self.manager.by_invite(str(args["invite"]))
        if table is None or table.state.host_user_id is None:
            return None
        return {"table": table.state.settings.name, "host": table.state.host_user_id}

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
    """Teach the router what the lobby asks every process about the tables it runs."""
    ops = ProcessOps(manager, passwords)
    router.process_op("lobby", ops.lobby_lines)
    router.process_op("hosted", ops.hosted_lines)
    router.process_op("yours", ops.your_lines)
    router.process_op("join", ops.join_here)
    router.process_op("invited", ops.invited_here)
    router.process_op("create", ops.create_here)
