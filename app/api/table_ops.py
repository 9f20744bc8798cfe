"""What the table answers about itself, for the lobby and the sockets of every process
(`app.tables.rpc` carries the question to the process that runs the table): a table's view,
the host's commands sent over HTTP and whether a socket may open. What each process answers
about all the tables it runs: `app.api.process_ops`."""

from __future__ import annotations

import hmac
from typing import Any

from pydantic import ValidationError

from app.tables import Table, TableError, publishing
from app.tables import messages as m
from app.tables.rpc import TableRouter, no_such_table
from app.wire import client as c
from app.wire import process


def may_see(table: Table, user_id: int | None) -> bool:
    """A public table is everyone's; a private one its host's and its admitted members'."""
    state = table.state
    if not state.settings.private:
        return True
    return user_id is not None and (user_id in state.members or user_id == state.host_user_id)


async def view(table: Table, args: dict[str, Any]) -> dict[str, Any]:
    """A table's line, settings and seats for a user who may see it (the host also gets
    the invite)."""
    user = int(args["user"])
    if not may_see(table, user):
        raise no_such_table()  # a private table is not confirmed
    answer: dict[str, Any] = {
        "table": table.summary(),
        "settings": table.info(),
        "seats": publishing.seat_list(table.state),
    }
    if user == table.state.host_user_id:
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


async def wait(table: Table, args: dict[str, Any]) -> Any:
    """Joining or leaving the table's waiting list from the lobby (R44): the catalog's
    `wait_join` or `wait_leave`, checked here as at the socket."""
    user = int(args["user"])
    if not may_see(table, user):
        raise no_such_table()
    try:
        msg = c.wait_message.validate_python(args["body"])
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


def install(router: TableRouter) -> None:
    """Teach the router what the lobby and the sockets ask a table."""
    router.table_op("view", view)
    router.table_op("host", host)
    router.table_op("enter", enter)
    router.table_op("wait", wait)
