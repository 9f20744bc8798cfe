"""The benchmark's players: one WebSocket per seat that plays its own turns from the client
side, as a browser does (and as `tests/serverproc.py`'s `Player`): on a `turn` for its seat
it thinks for its table's think time, then sends `act` (bring in, muck, show, check, else
call). A socket may land on any server process; the act reaches the table wherever it runs.

Latency is measured in this one process, on its monotonic clock: from the instant an `act`
is handed to the socket to the instant each socket at the table receives the first event
after that turn (the event the act caused)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

EVENT = '{"v":'  # every numbered event starts so (app/wire/envelope.py); replies do not


@dataclass
class Play:
    """What every player socket adds to, and the window it counts in."""

    measuring: bool = False
    frames: int = 0
    chars: int = 0
    turns: int = 0  # turn events received (each table's six sockets each count it)
    acts: int = 0  # acts sent
    hands: int = 0  # hands ended (counted by each table's seat-0 socket)
    timeouts: int = 0  # timed_out events (each table's six sockets each count it)
    dropped: int = 0  # sockets the server closed or lost (at any time, not only measuring)
    closing: bool = False  # the load is closing its sockets: the end of the run
    errors: Counter[str] = field(default_factory=Counter)  # refused acts by code
    # act instants by (table << 32 | turn), and each delivery's key and latency (s)
    sent: dict[int, float] = field(default_factory=dict)
    keys: array[int] = field(default_factory=lambda: array("q"))
    latencies: array[float] = field(default_factory=lambda: array("d"))


def answer(legal: dict[str, Any]) -> str:
    return next((a for a in ("bring_in", "muck", "show", "check") if legal.get(a)), "call")


async def _send(ws: Any, text: str) -> None:
    with contextlib.suppress(Exception):  # a closing socket: the run is ending
        await ws.send(text)


async def play(ws: Any, table_id: int, seat: int, think: float, p: Play) -> None:
    """Read every frame of one seat's socket and play that seat's turns."""
    from websockets.exceptions import ConnectionClosed

    with contextlib.suppress(ConnectionClosed):
        await _play(ws, table_id, seat, think, p)
    if not p.closing:
        p.dropped += 1


async def _play(ws: Any, table_id: int, seat: int, think: float, p: Play) -> None:
    loop = asyncio.get_running_loop()
    monotonic = time.monotonic
    base = table_id << 32
    after_turn = -1  # the turn whose act's event is the next event here
    sending: set[asyncio.Task[None]] = set()  # kept until sent (the loop holds tasks weakly)

    def act(hand_id: str, turn_id: int, legal: dict[str, Any]) -> None:
        text = json.dumps(
            {"type": "act", "hand_id": hand_id, "turn_id": turn_id, "action": answer(legal)}
        )
        p.sent[base | turn_id] = monotonic()
        if p.measuring:
            p.acts += 1
        task = loop.create_task(_send(ws, text))
        sending.add(task)
        task.add_done_callback(sending.discard)

    async for text in ws:
        now = monotonic()
        if text.startswith(EVENT):
            if after_turn >= 0:
                if p.measuring:
                    at = p.sent.get(base | after_turn)
                    if at is not None:
                        p.keys.append(base | after_turn)
                        p.latencies.append(now - at)
                after_turn = -1
            head = text[:48]
            if '"type":"turn"' in head:
                turn = json.loads(text)
                after_turn = turn["turn_id"]
                if p.measuring:
                    p.turns += 1
                if turn["seat"] == seat:
                    loop.call_later(think, act, turn["hand_id"], after_turn, turn["legal"])
            elif p.measuring and '"type":"hand_ended"' in head and seat == 0:
                p.hands += 1
            elif p.measuring and '"type":"timed_out"' in head:
                p.timeouts += 1
        elif text.startswith('{"type":"error"'):
            if p.measuring:
                p.errors[json.loads(text).get("code", "?")] += 1
        elif text.startswith('{"type":"snapshot"'):
            hand = json.loads(text).get("hand")
            if hand and hand.get("legal") and hand.get("to_act") == seat:
                # connected in the middle of its own turn: answer it now
                loop.call_later(think, act, hand["hand_id"], hand["turn_id"], hand["legal"])
        if p.measuring:
            p.frames += 1
            p.chars += len(text)
