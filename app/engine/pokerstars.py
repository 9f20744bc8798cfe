"""A finished hand as PokerStars-style text, the layout hand-history tools import.

Input: the hand's record as plain data (`HandText`), every event as its `to_dict()` (down
cards included). Output for one viewer, by R24: the viewer's own down cards; the cards of
every seat that reached the showdown (`revealed`), shown or mucked; never a folded seat's.

    PokerStars Hand #<the hand's number>: 7 Card Stud Limit ($1/$2 USD) - <date> UTC
    Table '<name>' 8-max
    Seat 1: ann ($20 in chips)
    ann: posts the ante $0.10
    *** 3rd STREET ***
    Dealt to ann [As 2h Kd]          (the viewer: all three; the others: the door card)
    bob: brings in for $0.50
    cy: completes it to $1
    ... *** 4th STREET *** ... *** 6th STREET *** ... *** RIVER *** ... *** SHOW DOWN ***
    ann: shows [...] (a description)       Stud8: (HI: ...; LO: ...)
    bob: mucks hand
    ann collected $4.30 from pot
    *** SUMMARY ***
    Total pot $4.50 | Rake $0.20
    Seat 1: ann showed [...] and won ($4.30) with ...

Variants' names: ``7 Card Stud Limit``, ``7 Card Stud Hi/Lo Limit``, ``Razz Limit``.
Amounts are chips in cents, written in dollars as PokerStars writes real-money histories (and
as the table shows them): "$0.15", "$1", "$1500" (no thousands commas, which importers read as
the end of the number).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.engine import money

GAME_NAMES = {
    "stud": "7 Card Stud Limit",
    "stud8": "7 Card Stud Hi/Lo Limit",
    "razz": "Razz Limit",
}
STREET_NAMES = {3: "3rd STREET", 4: "4th STREET", 5: "5th STREET", 6: "6th STREET", 7: "RIVER"}
FOLDED_ON = {3: "3rd Street", 4: "4th Street", 5: "5th Street", 6: "6th Street", 7: "River"}


@dataclass(frozen=True, slots=True)
class HandText:
    """What the text needs of a hand's record."""

    number: int  # the hand's number, as the table and the hand list show it
    variant: str
    table_name: str
    max_seats: int
    small_bet: int
    big_bet: int
    started_at: datetime
    names: Mapping[int, str]  # seat -> player name
    events: Sequence[Mapping[str, Any]]  # every event's to_dict(), in order
    rake: int = 0


def _describe(text: str | None) -> str:
    """A description as the text writes it after a word: "one pair, sevens"; a low's first
    card keeps its case ("K-Q-J-4-A low")."""
    if not text:
        return ""
    return text[0].lower() + text[1:] if text[1:2].islower() else text


@dataclass(slots=True)
class _Seat:
    name: str
    cards: list[tuple[str | None, bool]] = field(default_factory=list)  # (card, face up)
    folded_on: int | None = None
    voluntary: bool = False  # put chips in beyond the ante
    shown: tuple[list[str], str] | None = None  # (cards, description)
    mucked: bool = False
    won: int = 0


def render(
    hand: HandText, *, viewer_seat: int | None = None, revealed: Collection[int] = ()
) -> str:
    """The text for `viewer_seat` (None: an observer); `revealed` are the seats that reached
    the showdown, whose cards R24 shows, mucked or not."""
    r = _Renderer(hand, viewer_seat, set(revealed))
    return r.run()


class _Renderer:
    def __init__(self, hand: HandText, viewer: int | None, revealed: set[int]) -> None:
        self.hand = hand
        self.viewer = viewer
        self.revealed = revealed | ({viewer} if viewer is not None else set())
        self.seats: dict[int, _Seat] = {}
        self.order: list[int] = []
        self.lines: list[str] = []
        self.street = 3
        self.high = 0  # the highest wager on this street
        self.wagers: dict[int, int] = {}
        self.pots: list[int] = []
        self.awards: list[tuple[int, int, int, str]] = []  # (pot, seat, amount, share)
        self.showdown = False
        self.community: str | None = None
        self.pending_decline: int | None = None

    def name(self, seat: int) -> str:
        return self.seats[seat].name

    def run(self) -> str:
        h = self.hand
        game = GAME_NAMES.get(h.variant, h.variant)
        when = h.started_at.strftime("%Y/%m/%d %H:%M:%S")
        self.lines.append(
            f"PokerStars Hand #{h.number}: {game}"
            f" ({_usd(h.small_bet)}/{_usd(h.big_bet)} USD) - {when} UTC"
        )
        self.lines.append(f"Table '{h.table_name}' {h.max_seats}-max")
        pending_deal: list[int] = []
        for event in h.events:
            kind = event["type"]
            if kind == "card_dealt":
                pending_deal.append(self._deal(event))
                continue
            if pending_deal:
                self._dealt_lines(pending_deal)
                pending_deal = []
            handler = getattr(self, f"_on_{kind}", None)
            if handler is not None:
                handler(event)
        if pending_deal:
            self._dealt_lines(pending_deal)
        self._collections()
        self._summary()
        return "\n".join(self.lines) + "\n"

    # -- events ----------------------------------------------------------------------------

    def _on_hand_started(self, e: Mapping[str, Any]) -> None:
        self.order = list(e["seats"])
        stacks = dict(zip(e["seats"], e["stacks"], strict=True))
        for seat in sorted(self.order):
            self.seats[seat] = _Seat(self.hand.names.get(seat, f"Seat {seat + 1}"))
            self.lines.append(f"Seat {seat + 1}: {self.name(seat)} ({_usd(stacks[seat])} in chips)")

    def _on_ante_posted(self, e: Mapping[str, Any]) -> None:
        self.lines.append(f"{self.name(e['seat'])}: posts the ante {_usd(e['amount'])}{_all_in(e)}")

    def _on_street_started(self, e: Mapping[str, Any]) -> None:
        self.street = e["street"]
        self.high = 0
        self.wagers = {}
        self.lines.append(f"*** {STREET_NAMES[self.street]} ***")

    def _deal(self, e: Mapping[str, Any]) -> int:
        seat: int = e["seat"]
        self.seats[seat].cards.append((e["card"], bool(e["face_up"])))
        return seat

    def _dealt_lines(self, seats: list[int]) -> None:
        for seat in dict.fromkeys(seats):
            cards = self.seats[seat].cards
            mine = seat == self.viewer
            new_count = len([s for s in seats if s == seat])
            before, new = cards[:-new_count], cards[-new_count:]
            shown_new = [c for c, up in new if c is not None and (up or mine)]
            if not shown_new:
                continue  # a down card to somebody else
            shown_before = [c for c, up in before if c is not None and (up or mine)]
            text = f"Dealt to {self.name(seat)} "
            if shown_before:
                text += f"[{' '.join(shown_before)}] "
            self.lines.append(text + f"[{' '.join(shown_new)}]")

    def _wager(self, e: Mapping[str, Any], to: int | None = None) -> None:
        seat = e["seat"]
        if to is None:
            self.wagers[seat] = self.wagers.get(seat, 0) + e["amount"]
        else:
            self.wagers[seat] = to
        self.high = max(self.high, self.wagers[seat])

    def _on_brought_in(self, e: Mapping[str, Any]) -> None:
        self.lines.append(f"{self.name(e['seat'])}: brings in for {_usd(e['amount'])}{_all_in(e)}")
        self._wager(e, e["amount"])

    def _raise_line(self, e: Mapping[str, Any]) -> None:
        seat, to = e["seat"], e["amount"]
        self.seats[seat].voluntary = True
        if e["type"] == "completed" and to > self.high:
            self.lines.append(f"{self.name(seat)}: completes it to {_usd(to)}{_all_in(e)}")
        elif self.high == 0:
            self.lines.append(f"{self.name(seat)}: bets {_usd(to)}{_all_in(e)}")
        elif to > self.high:
            raised = _usd(to - self.high)
            self.lines.append(f"{self.name(seat)}: raises {raised} to {_usd(to)}{_all_in(e)}")
        else:  # an all-in short of the bet: a call for what it has
            added = to - self.wagers.get(seat, 0)
            self.lines.append(f"{self.name(seat)}: calls {_usd(added)}{_all_in(e)}")
        self._wager(e, to)

    _on_completed = _raise_line
    _on_bet = _raise_line
    _on_raised = _raise_line

    def _on_called(self, e: Mapping[str, Any]) -> None:
        self.seats[e["seat"]].voluntary = True
        self.lines.append(f"{self.name(e['seat'])}: calls {_usd(e['amount'])}{_all_in(e)}")
        self._wager(e)

    def _on_checked(self, e: Mapping[str, Any]) -> None:
        self.lines.append(f"{self.name(e['seat'])}: checks")

    def _on_folded(self, e: Mapping[str, Any]) -> None:
        self.seats[e["seat"]].folded_on = self.street
        self.lines.append(f"{self.name(e['seat'])}: folds")

    def _on_timed_out(self, e: Mapping[str, Any]) -> None:
        note = " (all-in protection)" if e["outcome"] == "all_in" else ""
        self.lines.append(f"{self.name(e['seat'])} has timed out{note}")

    def _on_uncalled_bet_returned(self, e: Mapping[str, Any]) -> None:
        self.lines.append(f"Uncalled bet ({_usd(e['amount'])}) returned to {self.name(e['seat'])}")

    def _on_burns_reshuffled(self, e: Mapping[str, Any]) -> None:
        self.lines.append(f"The burns and the stub ({e['count']} cards) are reshuffled")

    def _on_community_card_dealt(self, e: Mapping[str, Any]) -> None:
        self.community = e["card"]
        self.lines.append(f"Dealt to board [{e['card']}]")

    def _on_showdown_started(self, e: Mapping[str, Any]) -> None:
        self.showdown = True
        self.lines.append("*** SHOW DOWN ***")

    def _description(self, e: Mapping[str, Any]) -> str:
        high, low = _describe(e.get("high")), _describe(e.get("low"))
        if self.hand.variant == "stud8":
            return f"HI: {high}; LO: {low}" if low else f"HI: {high}"
        if self.hand.variant == "razz":
            return low or high
        return high or low

    def _on_hand_shown(self, e: Mapping[str, Any]) -> None:
        seat = e["seat"]
        desc = self._description(e)
        self.seats[seat].shown = (list(e["cards"]), desc)
        self.lines.append(f"{self.name(seat)}: shows [{' '.join(e['cards'])}] ({desc})")

    def _on_hand_mucked(self, e: Mapping[str, Any]) -> None:
        self.seats[e["seat"]].mucked = True
        self.lines.append(f"{self.name(e['seat'])}: mucks hand")

    def _on_show_declined(self, e: Mapping[str, Any]) -> None:
        self.pending_decline = e["seat"]

    def _on_pot_awarded(self, e: Mapping[str, Any]) -> None:
        self.awards.append((e["pot"], e["seat"], e["amount"], e["share"]))
        self.seats[e["seat"]].won += e["amount"]

    def _on_rake_taken(self, e: Mapping[str, Any]) -> None:
        pass

    def _on_hand_ended(self, e: Mapping[str, Any]) -> None:
        pass

    # -- the end -----------------------------------------------------------------------------

    def _collections(self) -> None:
        pots = {pot for pot, _, _, _ in self.awards}
        for pot, seat, amount, _share in self.awards:
            where = "pot" if len(pots) == 1 else ("main pot" if pot == 0 else f"side pot-{pot}")
            self.lines.append(f"{self.name(seat)} collected {_usd(amount)} from {where}")
        declined = self.pending_decline
        if declined is not None:
            self.lines.append(f"{self.name(declined)}: doesn't show hand")

    def _pot_totals(self) -> list[int]:
        totals: dict[int, int] = {}
        for pot, _, amount, _ in self.awards:
            totals[pot] = totals.get(pot, 0) + amount
        return [totals[p] for p in sorted(totals)]

    def _summary(self) -> None:
        self.lines.append("*** SUMMARY ***")
        pots = self._pot_totals()
        rake = self.hand.rake
        total = sum(pots) + rake
        if len(pots) > 1:
            parts = [f"Main pot {_usd(pots[0] + rake)}."]  # the rake comes from the main pot
            parts += [f"Side pot-{i} {_usd(amount)}." for i, amount in enumerate(pots[1:], 1)]
            self.lines.append(f"Total pot {_usd(total)} {' '.join(parts)} | Rake {_usd(rake)}")
        else:
            self.lines.append(f"Total pot {_usd(total)} | Rake {_usd(rake)}")
        if self.community is not None:
            self.lines.append(f"Board [{self.community}]")
        for seat_no in sorted(self.seats):
            self.lines.append(self._seat_summary(seat_no, self.seats[seat_no]))

    def _all_cards(self, seat_no: int) -> list[str] | None:
        cards = [c for c, _ in self.seats[seat_no].cards]
        if any(c is None for c in cards):
            return None
        return [c for c in cards if c is not None]

    def _seat_summary(self, seat_no: int, seat: _Seat) -> str:
        head = f"Seat {seat_no + 1}: {seat.name}"
        if seat.folded_on is not None:
            quiet = " (didn't bet)" if seat.folded_on == 3 and not seat.voluntary else ""
            return f"{head} folded on the {FOLDED_ON[seat.folded_on]}{quiet}"
        if seat.shown is not None and self.showdown:
            cards, desc = seat.shown
            if seat.won:
                return f"{head} showed [{' '.join(cards)}] and won ({_usd(seat.won)}) with {desc}"
            return f"{head} showed [{' '.join(cards)}] and lost with {desc}"
        if seat.mucked:
            cards_or_none = self._all_cards(seat_no) if seat_no in self.revealed else None
            shown = f" [{' '.join(cards_or_none)}]" if cards_or_none else ""
            won = f" and won ({_usd(seat.won)})" if seat.won else ""
            return f"{head} mucked{shown}{won}"
        if seat.won:
            return f"{head} collected ({_usd(seat.won)})"
        return head


def _usd(amount: int) -> str:
    return money.chips(amount, grouping=False)


def _all_in(e: Mapping[str, Any]) -> str:
    return " and is all-in" if e.get("all_in") else ""
