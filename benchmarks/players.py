"""The benchmark's players: one WebSocket per seat that plays its own turns from the client
side, as a browser does (and as `tests/serverproc.py`'s `Player`): on a `turn` for its seat
it thinks for its table's think time, then sends `act` (bring in, muck, show, check, else
call). A socket may land on any server process; the act reaches the table wherever it runs.

Latency is measured in this one process, on its monotonic clock: from the instant an `act`
is written to the socket to the instant the bytes of the first event after that turn (the
event the act caused) are read from each socket at the table."""

from __future__ import annotations

import asyncio
import json
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from benchmarks.wsclient import Socket

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


class Reader:
    """What the load runs for one socket's messages (`benchmarks/wsclient.py` calls
    `on_text` as each arrives, `on_closed` when the socket is gone)."""

    sock: Socket | None = None

    def on_text(self, text: str, now: float) -> None:
        raise NotImplementedError

    def on_closed(self) -> None:
        """The server closed or lost the socket."""


class Player(Reader):
    """One seat's socket: reads every frame and plays that seat's turns."""

    def __init__(self, table_id: int, seat: int, think: float, p: Play) -> None:
        self.seat = seat
        self.think = think
        self.p = p
        self.base = table_id << 32
        self.after_turn = -1  # the turn whose act's event is the next event here
        self.loop = asyncio.get_running_loop()

    def act(self, hand_id: str, turn_id: int, legal: dict[str, Any]) -> None:
        text = json.dumps(
            {"type": "act", "hand_id": hand_id, "turn_id": turn_id, "action": answer(legal)}
        )
        p = self.p
        p.sent[self.base | turn_id] = time.monotonic()
        if p.measuring:
            p.acts += 1
        if self.sock is not None:
            self.sock.send(text)

    def on_text(self, text: str, now: float) -> None:
        p = self.p
        if text.startswith(EVENT):
            if self.after_turn >= 0:
                if p.measuring:
                    key = self.base | self.after_turn
                    at = p.sent.get(key)
                    if at is not None:
                        p.keys.append(key)
                        p.latencies.append(now - at)
                self.after_turn = -1
            head = text[:48]
            if '"type":"turn"' in head:
                turn = json.loads(text)
                self.after_turn = turn["turn_id"]
                if p.measuring:
                    p.turns += 1
                if turn["seat"] == self.seat:
                    self.loop.call_later(
                        self.think, self.act, turn["hand_id"], self.after_turn, turn["legal"]
                    )
            elif p.measuring and '"type":"hand_ended"' in head and self.seat == 0:
                p.hands += 1
            elif p.measuring and '"type":"timed_out"' in head:
                p.timeouts += 1
        elif text.startswith('{"type":"error"'):
            if p.measuring:
                p.errors[json.loads(text).get("code", "?")] += 1
        elif text.startswith('{"type":"snapshot"'):
            hand = json.loads(text).get("hand")
            if hand and hand.get("legal") and hand.get("to_act") == self.seat:
                # connected in the middle of its own turn: answer it now
                self.loop.call_later(
                    self.think, self.act, hand["hand_id"], hand["turn_id"], hand["legal"]
                )
        if p.measuring:
            p.frames += 1
            p.chars += len(text)

    def on_closed(self) -> None:
        if not self.p.closing:
            self.p.dropped += 1


class BareReader(Reader):
    """A socket of the bare broadcast server: each message carries its send instant."""

    def __init__(self, p: Play) -> None:
        self.p = p

    def on_text(self, text: str, now: float) -> None:
        p = self.p
        if p.measuring:
            p.frames += 1
            p.chars += len(text)
            p.latencies.append(now - float(text[5 : text.index(",")]))
