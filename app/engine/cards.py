"""Cards, ranks, suits, the deck and shuffling.

A `Card` is an `int` from 0 to 51 (`(rank - 2) * 4 + suit`) so the evaluator can index its
tables with it directly; the 52 instances are made once and `Card` never makes others.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Protocol


class Rank(IntEnum):
    """Card ranks; the value is the rank with aces high (2..14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        return RANK_SYMBOLS[self - 2]

    @property
    def low_value(self) -> int:
        """The rank with aces low (1..13), for ace-to-five lows and razz."""
        return 1 if self is Rank.ACE else int(self)


class Suit(IntEnum):
    """Suits in bring-in and odd-chip order: clubs < diamonds < hearts < spades."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self]


RANK_SYMBOLS = "23456789TJQKA"
SUIT_SYMBOLS = "cdhs"


class Card(int):
    """One of the 52 cards; `str(card)` is its two-letter form, e.g. ``"As"``."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        return _CARDS[value]

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        return _CARDS[(rank - 2) * 4 + suit]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"As"``, ``"Td"`` or ``"10d"``; rank and suit letters are case-insensitive."""
        t = text.strip()
        if t[:2] == "10":
            t = "T" + t[2:]
        if len(t) != 2:
            raise ValueError(f"not a card: {text!r}")
        r = RANK_SYMBOLS.find(t[0].upper())
        s = SUIT_SYMBOLS.find(t[1].lower())
        if r < 0 or s < 0:
            raise ValueError(f"not a card: {text!r}")
        return _CARDS[r * 4 + s]

    @property
    def rank(self) -> Rank:
        return _RANKS[self >> 2]

    @property
    def suit(self) -> Suit:
        return _SUITS[self & 3]

    def __str__(self) -> str:
        return RANK_SYMBOLS[self >> 2] + SUIT_SYMBOLS[self & 3]

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


_RANKS = tuple(Rank(r) for r in range(2, 15))
_SUITS = tuple(Suit(s) for s in range(4))
_CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))

DECK: tuple[Card, ...] = _CARDS
"""The 52 cards in index order (2c, 2d, 2h, 2s, 3c, …, As)."""


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a run of cards such as ``"AsKd7c"`` or ``"As Kd 7c"`` into a tuple."""
    compact = "".join(text.split()).replace("10", "T")
    if len(compact) % 2:
        raise ValueError(f"not a run of cards: {text!r}")
    return tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of `parse_cards`: ``"AsKd7c"``."""
    return "".join(str(c) for c in cards)


class Shuffler(Protocol):
    """Anything with `shuffle`, e.g. `random.Random(seed)` or `KeyedShuffler()`."""

    def shuffle(self, x: list[Card]) -> None: ...


def seeded_rng(seed: int | str | bytes) -> random.Random:
    """A reproducible source for tests and simulations only; never used for real deals."""
    return random.Random(seed)


class KeyedShuffler:
    """A Fisher-Yates shuffle drawn from SHAKE-256 of one 256-bit key from the operating
    system's CSPRNG (`secrets.token_bytes`), each position by rejection sampling over 64-bit
    words, so unbiased. One system call per deck: `SystemRandom` makes one per card, and each
    lets go of the interpreter, so with another thread busy the event loop waited for it back
    51 times a deck (170 ms stalls, issue 26)."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def shuffle(self, x: list[Card]) -> None:
        words = _Words(self._key, 2 * len(x))
        for i in range(len(x) - 1, 0, -1):
            j = words.below(i + 1)
            x[i], x[j] = x[j], x[i]


class _Words:
    """64-bit words of SHAKE-256(key), read in order; the stream is longer on demand."""

    def __init__(self, key: bytes, expected: int) -> None:
        self._key, self._at = key, 0
        self._bytes = hashlib.shake_256(key).digest(8 * expected)

    def below(self, n: int) -> int:
        limit = (1 << 64) - (1 << 64) % n  # the words at or over it would favour small j
        while True:
            if self._at + 8 > len(self._bytes):
                self._bytes = hashlib.shake_256(self._key).digest(2 * len(self._bytes))
            word = int.from_bytes(self._bytes[self._at : self._at + 8], "big")
            self._at += 8
            if word < limit:
                return word % n


def shuffled_deck(rng: Shuffler | None = None) -> tuple[Card, ...]:
    """A freshly shuffled 52-card deck; shuffled from the CSPRNG (`KeyedShuffler`) unless a
    source is given."""
    cards = list(DECK)
    (rng or KeyedShuffler()).shuffle(cards)
    return tuple(cards)


def shuffled(cards: Sequence[Card], rng: Shuffler) -> tuple[Card, ...]:
    """A shuffled copy of some cards (e.g. the burns and the stub, docs/rules.md R9)."""
    out = list(cards)
    rng.shuffle(out)
    return tuple(out)
