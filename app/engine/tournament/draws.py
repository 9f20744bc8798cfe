"""Provably fair tournament draws (docs/rules.md R38): seats, table breaks, balancing ties.

Every draw of a tournament reads one `Rng`, made from a secret seed and a purpose naming the
draw (``"seat-draw"``, ``"balance-17"``, …). The commitment to the seed is published before
the draw is used and the seed after, so anyone can replay the draw. Exact bytes; ``‖`` is
concatenation, ``frame(a, b, …)`` is each part as its 4-byte big-endian length then its bytes
(text in UTF-8), so no two different part lists frame alike:

- commitment ``SHA-256(frame(SCHEME, "commit", purpose, seed))``, 64 lower-case hex digits.
- the random stream: the blocks ``HMAC-SHA256(key=seed, frame(SCHEME, purpose, counter))``
  for ``counter = 0, 1, 2, …`` as 8 bytes big-endian, concatenated.
- ``below(n)``: with ``bits = (n - 1).bit_length()``, take the next ``ceil(bits / 8)`` bytes
  of the stream as a big-endian integer, keep its low ``bits`` bits, and use it if it is
  below ``n``; else take the next bytes again (rejection: no modulo bias). ``below(1)`` reads
  nothing and is 0.
- ``shuffle``: Fisher-Yates from the last position down: for ``i = len - 1 … 1`` swap
  position ``i`` with position ``below(i + 1)``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import TypeVar

SCHEME = "hmac-sha256-draw-v1"
SEED_BYTES = 32
SEAT_DRAW = "seat-draw"
"""The purpose of the first seating (`seat_draw`)."""

T = TypeVar("T")


def _frame(*parts: str | bytes) -> bytes:
    out = bytearray()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        out += len(data).to_bytes(4, "big") + data
    return bytes(out)


def _seed(seed: bytes) -> bytes:
    if type(seed) is not bytes or len(seed) != SEED_BYTES:
        raise ValueError(f"a draw seed is {SEED_BYTES} bytes")
    return seed


def new_seed() -> bytes:
    """A fresh secret seed for one draw."""
    return secrets.token_bytes(SEED_BYTES)


def commit(seed: bytes, purpose: str) -> str:
    """The commitment published before the draw is used."""
    return hashlib.sha256(_frame(SCHEME, "commit", purpose, _seed(seed))).hexdigest()


def verify(seed: bytes, purpose: str, commitment: str) -> bool:
    """Whether a revealed seed is the one committed to for this purpose."""
    try:
        expected = commit(seed, purpose)
    except ValueError:
        return False
    return hmac.compare_digest(expected, commitment.lower())


class Rng:
    """The draw's random stream (see the module docstring); the same seed and purpose give
    the same numbers in the same order."""

    __slots__ = ("_buffer", "_counter", "_purpose", "_seed")

    def __init__(self, seed: bytes, purpose: str) -> None:
        self._seed = _seed(seed)
        self._purpose = purpose
        self._counter = 0
        self._buffer = b""

    def _take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            block = _frame(SCHEME, self._purpose, self._counter.to_bytes(8, "big"))
            self._buffer += hmac.new(self._seed, block, hashlib.sha256).digest()
            self._counter += 1
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def below(self, n: int) -> int:
        """A number in [0, n), every one equally likely."""
        if type(n) is not int or n < 1:
            raise ValueError(f"below() needs a whole number of at least 1, not {n!r}")
        bits = (n - 1).bit_length()
        if not bits:
            return 0
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self._take((bits + 7) // 8), "big") & mask
            if value < n:
                return value

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice() from nothing")
        return items[self.below(len(items))]

    def shuffle(self, items: list[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


ENTRANT_MIX = b"seeded-v2-draw"
"""Names the mixing of the entrants' seeds into a tournament's draw seed (`mix`)."""


def mix(seed: bytes, entrant_seeds: Sequence[tuple[int, bytes]]) -> bytes:
    """The seed every draw of the tournament reads once its entrants' seeds are known (R38,
    issue 28's idea applied to the draws): with none, the tournament's own seed; else
    ``HMAC-SHA256(seed, b"seeded-v2-draw" ‖ entry(8 bytes big-endian) ‖ entrant seed …)``,
    the entries in ascending order. One honest entrant's seed, sent before the draw and
    unknown to the house, makes the draws unforeseeable to it; the house's seed, committed
    before anyone registered, keeps them unforeseeable to the entrants."""
    if not entrant_seeds:
        return _seed(seed)
    ordered = sorted(entrant_seeds)
    if len({entry for entry, _ in ordered}) != len(ordered):
        raise ValueError("one seed an entry")
    message = ENTRANT_MIX + b"".join(
        entry.to_bytes(8, "big") + _seed(value) for entry, value in ordered
    )
    return hmac.new(_seed(seed), message, hashlib.sha256).digest()


def seat_draw(
    seed: bytes, entries: Sequence[int], tables: int, seats_per_table: int
) -> dict[int, tuple[int, int]]:
    """The first seating: entry -> (table index 0.., seat 0..seats_per_table-1).

    The entries are taken in ascending order (the draw depends on who plays, not on the order
    they are passed in) and shuffled; the i-th of the shuffled order sits at table
    ``i % tables``, so the tables differ by at most one player. Each table's seats are then
    drawn by a shuffle of its seat numbers, table by table. Purpose `SEAT_DRAW`.
    """
    if type(tables) is not int or tables < 1:
        raise ValueError("a seat draw needs at least one table")
    if type(seats_per_table) is not int or seats_per_table < 2:
        raise ValueError("a table has at least two seats")
    order = sorted(entries)
    if len(set(order)) != len(order):
        raise ValueError("an entry is drawn a seat once")
    if len(order) > tables * seats_per_table:
        raise ValueError(f"{len(order)} entries do not fit at {tables} tables")
    rng = Rng(seed, SEAT_DRAW)
    rng.shuffle(order)
    out: dict[int, tuple[int, int]] = {}
    for table in range(tables):
        seats = list(range(seats_per_table))
        rng.shuffle(seats)
        for seat, entry in zip(seats, order[table::tables], strict=False):
            out[entry] = (table, seat)
    return out
