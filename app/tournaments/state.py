"""What a director holds in memory, rebuilt from the database after a crash: its entries,
its tables as it last heard from them, the level clock and the busts not yet placed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Entry:
    """One entry (a re-entry is another): where it sits and with what, as last written."""

    id: int
    user_id: int
    name: str
    number: int  # 1: the first entry, 2..: re-entries
    order: int  # the registration order: R31's tie order
    status: str  # registered, playing, busted, unregistered
    chips: int
    bot: bool = False
    table_id: int | None = None
    seat: int | None = None
    moves: int = 0
    place: int | None = None
    prize: int | None = None
    time_bank_ms: int = 0
    pause_left_ms: int = 0
    bust_stack: int = 0  # the stack it started its last hand with, once busted (R31)
    bust_hand: int = 0
    bust_group: str = ""  # busts of one hand, or of one hand-for-hand round, are one group
    rebuys: int = 0
    addon: bool = False

    @property
    def alive(self) -> bool:
        return self.status in ("registered", "playing")


@dataclass(slots=True)
class Slot:
    """One of the tournament's tables, as its last report or answer said."""

    table_id: int
    max_seats: int
    seats: dict[int, int] = field(default_factory=dict)  # seat -> user
    opened: list[int] = field(default_factory=list)  # seats vacated, oldest first
    in_hand: bool = True  # until it reports: a table is assumed busy
    reported: int | None = None  # the hand number of its last report
    round: int | None = None  # the hand-for-hand round it was last let deal
    told: bool = False  # told to wait since its last report (said once)


@dataclass(slots=True)
class Bust:
    """A player out, waiting for their place (late registration still open, or a
    hand-for-hand round other tables are still playing)."""

    entry_id: int
    start_stack: int
    hand: int  # the hand number (or the round) it happened in: one group
    group: str

    def to_dict(self) -> dict[str, Any]:
        return {"entry_id": self.entry_id, "start_stack": self.start_stack, "hand": self.hand,
                "group": self.group}  # fmt: skip


@dataclass(slots=True)
class LevelClock:
    """The level in force and the time spent in it: `elapsed_ms` as of the monotonic moment
    `since` (None: stopped, frozen or not started)."""

    level: int = 0  # index into the structure's levels
    elapsed_ms: int = 0
    since: float | None = None
    hands: int = 0  # hands dealt in this level, every table counted (levels by hands)

    def now_ms(self, monotonic: float) -> int:
        if self.since is None:
            return self.elapsed_ms
        return self.elapsed_ms + round((monotonic - self.since) * 1000)

    def stop(self, monotonic: float) -> None:
        self.elapsed_ms = self.now_ms(monotonic)
        self.since = None

    def run(self, monotonic: float) -> None:
        if self.since is None:
            self.since = monotonic

    def next_level(self, monotonic: float) -> None:
        self.level += 1
        self.elapsed_ms = 0
        self.hands = 0
        if self.since is not None:
            self.since = monotonic
