"""Users' commands for tests that drive a table directly: the catalog's own models
(`app.wire.client`), checked as the socket checks them, with who asks (`messages.Ask`)."""

from __future__ import annotations

from typing import Any

from app.tables import messages as m
from app.wire import client as c


def ask(user_id: int, data: dict[str, Any], name: str = "", via: str = "") -> m.Ask[Any]:
    return m.Ask(user_id, name, via, c.client_message.validate_python(data))


def sit(user_id: int, name: str, seat: int, amount: int, request_id: str) -> m.Ask[Any]:
    data = {"type": "sit", "seat": seat, "amount": amount, "request_id": request_id}
    return ask(user_id, data, name)


def act(
    user_id: int, hand_id: str | None, turn_id: int, action: str, amount: int | None = None
) -> m.Ask[Any]:
    data = {"type": "act", "hand_id": hand_id, "turn_id": turn_id, "action": action}
    return ask(user_id, {**data, "amount": amount})


def leave(user_id: int) -> m.Ask[Any]:
    return ask(user_id, {"type": "leave"})
