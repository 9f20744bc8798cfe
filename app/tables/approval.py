"""R43: a private table's seat approval and the host's buy-in limits for one player.

With the table's `seat_approval` on, a player's `sit` (not the host's) is checked as any sit
and then waits for the host (`wait_for_host`): nothing moves until the host says yes
(`hosting.host_seat_answer`), when the buy-in is posted as any sit's. A request stops
waiting when it is answered, withdrawn (`withdraw`) or overtaken: its seat taken, or its
player seated (`overtaken`, called by every seating); its player is told why
(`SeatAnswer`), and a late answer from the host is refused saying so.

The host's limits for a player (`limits_for`) bind that player's buy-ins and top-ups inside
the table's own (R3). Rules over the table's state, as the other rule modules.
"""

from __future__ import annotations

import secrets

from app.engine import money
from app.tables import messages as m
from app.tables.effects import Effects, Outcome, Said
from app.tables.errors import TableError
from app.tables.state import Io, SeatRequest, TableState
from app.wire import client as c
from app.wire.events import SeatAnswer, SeatRequests

GONE_KEPT = 256  # answered requests remembered, to say what became of a late answer

# why a request no longer waits, as the host is told when answering it late
GONE_WORDS = {
    "approved": "you already seated that player",
    "declined": "you already declined it",
    "withdrawn": "the player withdrew it",
    "seat_taken": "its seat was taken before you answered",
    "seated": "the player sat down meanwhile",
    "table_closed": "the table closed",
}


def limits_for(table: TableState, user_id: int) -> tuple[int, int | None]:
    """The buy-in bounds that bind this player here: the host's for them (R43) inside the
    table's (R3). A host's bound beyond the table's current ones yields to the table's."""
    s = table.settings
    low, high = s.min_buy_in, s.max_buy_in
    own_low, own_high = table.limits.get(user_id, (None, None))
    if own_high is not None:
        high = own_high if high is None else min(high, own_high)
    if own_low is not None:
        low = max(low, own_low)
    if high is not None:
        low = min(low, high)
    return low, high


def set_by_host(table: TableState, user_id: int) -> bool:
    return user_id in table.limits


def needs_approval(table: TableState, user_id: int) -> bool:
    return table.settings.seat_approval and table.directed is None and user_id != table.host_user_id


def requests_said(table: TableState, *users: int) -> Effects:
    """The waiting requests: the host's whole list, and each of `users` their own."""
    out: Effects = []
    if table.host_user_id is not None:
        out.append(Said(SeatRequests(listed(table, None)), table.host_user_id))
    for user in users:
        if user != table.host_user_id:
            out.append(Said(SeatRequests(listed(table, user)), user))
    return out


def listed(table: TableState, user_id: int | None) -> list[dict[str, object]]:
    """The waiting requests `user_id` may see: the host every one, a player their own."""
    everyone = user_id is None or user_id == table.host_user_id
    return [
        r.public(limits_for(table, r.user_id))
        for r in table.seat_requests.values()
        if everyone or r.user_id == user_id
    ]


def wait_for_host(
    table: TableState, ask: m.Ask[c.SitMsg], key: str, asked: tuple[object, ...]
) -> Outcome:
    """Keep a checked sit as a request for the host's answer."""
    if any(r.user_id == ask.user_id for r in table.seat_requests.values()):
        raise TableError(
            "request_waiting",
            "you have already asked for a seat; wait for the host's answer or withdraw it",
        )
    request = f"q-{secrets.token_hex(6)}"
    table.seat_requests[request] = SeatRequest(
        request, ask.user_id, ask.name, ask.msg.seat, ask.msg.amount, key, tuple(asked)
    )
    answer = {"waiting": True, "request": request, "seat": ask.msg.seat, "stack": 0}
    return Outcome(answer, requests_said(table, ask.user_id))


def gone(table: TableState, req: SeatRequest, why: str) -> Effects:
    """The request stops waiting: its player is told why (unless they were seated by it),
    and its `sit` may be asked again under the same id (nothing moved)."""
    del table.seat_requests[req.request]
    table.requests_gone[req.request] = why
    if len(table.requests_gone) > GONE_KEPT:
        del table.requests_gone[next(iter(table.requests_gone))]
    if why != "approved":
        table.answered.pop(req.key, None)
    told = SeatAnswer(req.request, req.seat, why == "approved", _reason(why))
    return [Said(told, req.user_id), *requests_said(table, req.user_id)]


def _reason(why: str) -> str | None:
    return None if why == "approved" else why


def waiting(table: TableState, request: str) -> SeatRequest:
    """The request the host answers, or a refusal saying what became of it."""
    req = table.seat_requests.get(request)
    if req is not None:
        return req
    why = table.requests_gone.get(request)
    if why is None:
        raise TableError("no_such_request", "no seat request by that id is waiting here")
    words = GONE_WORDS.get(why, f"it could not be granted ({why})")  # a ledger's refusal
    raise TableError("no_such_request", f"that seat request no longer waits: {words}")


def overtaken(table: TableState, seat: int, user_id: int) -> Effects:
    """A seat was taken (by `user_id`): the requests for it, and that player's own, stop."""
    out: Effects = []
    for req in list(table.seat_requests.values()):
        if req.user_id == user_id:
            out += gone(table, req, "seated")
        elif req.seat == seat:
            out += gone(table, req, "seat_taken")
    return out


def closing(table: TableState) -> Effects:
    out: Effects = []
    for req in list(table.seat_requests.values()):
        out += gone(table, req, "table_closed")
    return out


async def withdraw(table: TableState, ask: m.Ask[c.SeatWithdrawMsg], io: Io) -> Outcome:
    mine = [r for r in table.seat_requests.values() if r.user_id == ask.user_id]
    if not mine:
        raise TableError("no_such_request", "you have no seat request waiting here")
    return Outcome({"withdrawn": True}, gone(table, mine[0], "withdrawn"))


def checked_limits(table: TableState, msg: c.HostLimitsMsg) -> tuple[int | None, int | None]:
    """The host's limits for a player, inside the table's own (R3), or a refusal."""
    s = table.settings
    low, high = msg.min_buy_in, msg.max_buy_in
    if low is not None and low < s.min_buy_in:
        raise TableError(
            "invalid_limits",
            f"a player's minimum buy-in is at least the table's, {money.chips(s.min_buy_in)}",
        )
    if high is not None and s.max_buy_in is not None and high > s.max_buy_in:
        raise TableError(
            "invalid_limits",
            f"a player's maximum buy-in is at most the table's, {money.chips(s.max_buy_in)}",
        )
    if high is not None and high < max(low or 0, s.min_buy_in):
        raise TableError(
            "invalid_limits",
            f"a player's maximum buy-in is at least their minimum, "
            f"{money.chips(max(low or 0, s.min_buy_in))}",
        )
    return low, high
