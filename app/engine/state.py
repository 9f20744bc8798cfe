"""The mutable per-seat state inside a hand, the deck being dealt, and read-only snapshots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from hashlib import sha256

from app.engine.cards import Card
from app.engine.events import PotAwarded
from app.engine.pots import Pot


class Phase(StrEnum):
    BETTING = "betting"
    SHOWDOWN = "showdown"  # a show/muck decision is pending (R23)
    UNCONTESTED = "uncontested"  # the uncalled winner's show/don't-show choice (R23)
    OVER = "over"


class Player:
    """One seat in the hand. Engine-internal and mutable; the outside sees `SeatState`."""

    __slots__ = (
        "acted",
        "all_in",
        "cards",
        "folded",
        "high",
        "low",
        "mucked",
        "protected",
        "put",
        "seat",
        "shown",
        "stack",
        "up",
        "wager",
    )

    def __init__(self, seat: int, stack: int) -> None:
        self.seat = seat
        self.stack = stack
        self.cards: list[Card] = []  # own cards in the order dealt
        self.up: list[Card] = []
        self.folded = False
        self.all_in = False
        self.protected = False  # all-in by timeout protection (R19), chips left behind
        self.wager = 0  # chips in front of the seat this street
        self.put = 0  # chips put into the pot this hand, antes included
        self.acted = -1  # the betting round's reopen count when this seat last acted
        self.shown = False
        self.mucked = False
        self.high = 0  # showdown values (evaluate.py ints), set at the showdown
        self.low = 0

    @property
    def down(self) -> list[Card]:
        return [c for c in self.cards if c not in self.up]


@dataclass(frozen=True, slots=True)
class SeatState:
    """A snapshot of one seat; `down` holds the face-down cards (secret: views filter it)."""

    seat: int
    stack: int
    wager: int
    put: int
    folded: bool
    all_in: bool
    up: tuple[Card, ...]
    down: tuple[Card, ...]
    shown: bool
    mucked: bool


@dataclass(frozen=True, slots=True)
class HandResult:
    """The settled hand: pots as formed (before rake), the rake, every award, final stacks."""

    pots: tuple[Pot, ...]
    rake: int
    awards: tuple[PotAwarded, ...]
    stacks: dict[int, int]
    showdown: bool
    street: int


ReshuffleOrder = Callable[[Sequence[Card]], Sequence[Card]]
"""Given R9's gathered cards (the burns, then the stub), the order to deal them in: the
same cards, each once."""


class Dealer:
    """The deck in deal order, the burns, and R9's deterministic reshuffle.

    The reshuffle orders the gathered cards (burns and stub) by ``sha256(seed + bytes([card]))``
    where `seed` is the hand's committed `reshuffle_seed`: verifiable, and no randomness inside.
    A `ReshuffleOrder` given instead decides the order (a replay deals what a history records).
    """

    __slots__ = ("burns", "cards", "order", "pos", "seed")

    def __init__(self, cards: list[Card], seed: bytes, order: ReshuffleOrder | None = None) -> None:
        self.cards = cards
        self.pos = 0
        self.burns: list[Card] = []
        self.seed = seed
        self.order = order

    @property
    def left(self) -> int:
        return len(self.cards) - self.pos

    def draw(self) -> Card:
        card = self.cards[self.pos]
        self.pos += 1
        return card

    def burn(self) -> None:
        if self.left:
            self.burns.append(self.draw())

    def reshuffle(self) -> int:
        """Gather the burns and the stub and shuffle them (R9); returns how many."""
        seed = self.seed
        gathered = self.burns + self.cards[self.pos :]
        if self.order is None:
            gathered.sort(key=lambda c: sha256(seed + bytes((c,))).digest())
        else:
            gathered = list(self.order(gathered))
        self.cards, self.pos, self.burns = gathered, 0, []
        return len(gathered)
