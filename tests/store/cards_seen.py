"""Which cards of a recorded hand a viewer may see (R24), from the hand's own events, and
every card a text shows: for checking a whole history or export, not one section of it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.store.hand_models import HandRecord

# a run of cards written together ("7d", "QsQhKc"), not part of a word ("Ace", "stud0")
_RUN = re.compile(r"(?<![0-9A-Za-z])((?:[2-9TJQKA][cdhs])+)(?![0-9A-Za-z])")


def cards_in(text: str) -> list[str]:
    """Every card written anywhere in `text`, PokerStars (`[7d 8d]`) or PHH (`7d8d`)."""
    return [run[i : i + 2] for run in _RUN.findall(text) for i in range(0, len(run), 2)]


@dataclass(frozen=True)
class Deal:
    """A finished hand's cards: the up cards, each seat's down cards, who reached the
    showdown and who folded."""

    up: frozenset[str]
    down: dict[int, list[str]]
    showdown: frozenset[int]
    folded: frozenset[int]

    @classmethod
    def of(cls, row: HandRecord) -> Deal:
        events = row.events or []
        assert row.result is not None and events
        down: dict[int, list[str]] = {seat: [] for seat in events[0]["seats"]}
        up = set()
        for e in events:
            if e["type"] == "community_card_dealt":  # R9: one card for all, face up
                up.add(e["card"])
            elif e["type"] == "card_dealt":
                if e["face_up"]:
                    up.add(e["card"])
                else:
                    down[e["seat"]].append(e["card"])
        return cls(
            up=frozenset(up),
            down=down,
            showdown=frozenset(row.result["showdown_seats"]),
            folded=frozenset(e["seat"] for e in events if e["type"] == "folded"),
        )

    def revealed(self, viewer_seat: int | None) -> set[int]:
        """The seats whose down cards the viewer may see: the showdown's, and their own."""
        return set(self.showdown) | ({viewer_seat} if viewer_seat is not None else set())

    def visible(self, viewer_seat: int | None) -> set[str]:
        return set(self.up) | {c for s in self.revealed(viewer_seat) for c in self.down[s]}

    def hidden(self, viewer_seat: int | None) -> set[str]:
        every = {c for cards in self.down.values() for c in cards}
        return every - self.visible(viewer_seat)

    @property
    def every_card(self) -> set[str]:
        return set(self.up) | {c for cards in self.down.values() for c in cards}
