"""Finishing places and their prizes (docs/rules.md R31, R34).

Players who bust in the same hand (at one table, or at every table of one hand-for-hand hand,
R32) take the places from the number of players still in before that hand down, the one who
started the hand with more chips finishing higher. Every place is given once: among equal
start stacks the lower `order` (the entry's registration order) takes the better place
number. Players with equal start stacks share the prizes of their places equally, and the
chips that sharing leaves over go one each to them in `order`, lowest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby


@dataclass(frozen=True, slots=True)
class Bust:
    entry_id: int
    start_stack: int  # the chips they started the hand they busted in with
    order: int  # registration order: the tie order of R31


@dataclass(frozen=True, slots=True)
class Placed:
    entry_id: int
    place: int
    prize: int


def prize_of(place: int, prizes: Sequence[int]) -> int:
    """Place `place`'s prize (`prizes[0]` is 1st's); unpaid places win 0."""
    return prizes[place - 1] if place <= len(prizes) else 0


def _check(busts: Sequence[Bust], remaining_before: int) -> None:
    if len({b.entry_id for b in busts}) != len(busts) or len({b.order for b in busts}) != len(
        busts
    ):
        raise ValueError("each bust is a different entry with its own order")
    if any(type(b.start_stack) is not int or b.start_stack <= 0 for b in busts):
        raise ValueError("a player who busts started the hand with chips")
    if type(remaining_before) is not int or remaining_before - len(busts) < 1:
        raise ValueError("someone is left after every hand: the busts cannot be everyone")


def place_busts(
    busts: Sequence[Bust], remaining_before: int, prizes: Sequence[int]
) -> list[Placed]:
    """The places and prizes of one hand's busts, best place first."""
    _check(busts, remaining_before)
    ranked = sorted(busts, key=lambda b: (-b.start_stack, b.order))
    best = remaining_before - len(busts) + 1
    out: list[Placed] = []
    place = best
    for _, group in groupby(ranked, key=lambda b: b.start_stack):
        tied = list(group)  # already in `order`, lowest first
        places = range(place, place + len(tied))
        each, odd = divmod(sum(prize_of(p, prizes) for p in places), len(tied))
        for i, (bust, p) in enumerate(zip(tied, places, strict=True)):
            out.append(Placed(bust.entry_id, p, each + (1 if i < odd else 0)))
        place += len(tied)
    return out


def winner(entry_id: int, prizes: Sequence[int]) -> Placed:
    """The last player in: 1st place."""
    return Placed(entry_id, 1, prize_of(1, prizes))
