"""Cards a hand history records as ``??``: placeholders that decide nothing.

Real histories hide the cards nobody saw: a folded player's down cards, often their door card
too, and the hands mucked at the showdown. A replay still needs 52 cards to deal, so each
unknown card gets a placeholder from the unused cards, chosen so that it decides nothing the
history records:

- the bring-in (R10, R11): the door cards of the unknown are chosen so that the player the
  history shows bringing in is the one who must; if no choice does that, the history is
  refused, naming the unknown door cards;
- the order of action on later streets (R12) and the showdown (R20-R23) are not chosen for:
  the replay refuses, naming the unknown cards, when a player acts out of the engine's order
  while a player still in shows an unknown card, or when a hand holding an unknown card is
  shown (`PHHReplay.unknown` lists every placeholder).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.engine.cards import DECK, Card
from app.engine.evaluate import bring_in_key

DOOR = 2
"""The index of the door card among a player's cards (down, down, door, ...)."""

_NAMES = (
    "first down card",
    "second down card",
    "door card",
    "fourth-street card",
    "fifth-street card",
    "sixth-street card",
    "river card",
)


class UnknownCardError(ValueError):
    """No placeholder for the unknown cards agrees with the history; the message names them."""


def describe(unknown: Mapping[int, Sequence[int]], players: Sequence[int] | None = None) -> str:
    """``"p2's door card and p3's first down card (??)"`` for the given players (all if None)."""
    parts = [
        f"p{p + 1}'s {_NAMES[i]}"
        for p in sorted(unknown)
        if players is None or p in players
        for i in unknown[p]
    ]
    if not parts:
        return ""
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{text} (??)"


def fill_unknown(
    dealt: Sequence[Sequence[Card | None]],
    bring_in: int | None,
    all_in_from_ante: Sequence[bool],
    *,
    razz: bool,
) -> tuple[list[list[Card]], dict[int, tuple[int, ...]]]:
    """Every player's cards with each unknown (None) replaced by an unused card, and for each
    player with placeholders the indexes of those cards.

    `bring_in` is the player the history shows acting first on third street (None when
    nobody bets there). Unknown door cards are chosen so that the engine's bring-in (R10,
    R11) is that player; the other unknown cards take the unused cards in deck order."""
    unknown = {
        p: tuple(i for i, c in enumerate(cards) if c is None)
        for p, cards in enumerate(dealt)
        if None in cards
    }
    used = {c for cards in dealt for c in cards if c is not None}
    spare = [c for c in DECK if c not in used]
    doors: dict[int, Card] = {}
    blind = [p for p, cards in enumerate(dealt) if len(cards) > DOOR and cards[DOOR] is None]
    if blind and bring_in is not None:
        doors = _doors_for(dealt, blind, bring_in, all_in_from_ante, spare, razz)
        spare = [c for c in spare if c not in doors.values()]
    rest = iter(spare)
    full = [
        [
            c if c is not None else doors[p] if i == DOOR and p in doors else next(rest)
            for i, c in enumerate(cards)
        ]
        for p, cards in enumerate(dealt)
    ]
    return full, unknown


def _doors_for(
    dealt: Sequence[Sequence[Card | None]],
    blind: Sequence[int],
    bring_in: int,
    all_in_from_ante: Sequence[bool],
    spare: Sequence[Card],
    razz: bool,
) -> dict[int, Card]:
    """Door cards for the `blind` players that make `bring_in` the player who must bring in:
    the lowest door belongs to them, or to a player all-in from the ante whose bring-in
    passes left to them (R11). The placeholders are otherwise the lowest-ranking cards above
    the bring-in's door."""
    n = len(dealt)

    def key(card: Card) -> int:
        return bring_in_key(card, razz=razz)

    known = {p: c for p, cards in enumerate(dealt) if (c := cards[DOOR]) is not None}
    # who may hold the lowest door: the bring-in, or a run of all-in players on its right
    holders = [bring_in]
    p = (bring_in - 1) % n
    while all_in_from_ante[p] and p != bring_in:
        holders.append(p)
        p = (p - 1) % n
    pool = sorted(spare, key=key)
    for holder in holders:
        if holder in known:
            lowest = known[holder]
            assigned: dict[int, Card] = {}
        elif pool:
            lowest = pool[0]
            assigned = {holder: lowest}
        else:
            continue
        if any(key(c) < key(lowest) for q, c in known.items() if q != holder):
            continue
        above = iter(c for c in pool if key(c) > key(lowest) and c not in assigned.values())
        for q in blind:
            if q not in assigned:
                card = next(above, None)
                if card is None:
                    break
                assigned[q] = card
        else:
            return assigned
    unknown = {q: (DOOR,) for q in blind}
    raise UnknownCardError(
        f"p{bring_in + 1} brings in, as the history records, but no card for "
        f"{describe(unknown)} makes that the bring-in the door cards call for (R10, R11)"
    )
