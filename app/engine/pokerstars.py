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

A tournament hand (`HandText.tournament`) is written in PokerStars' tournament form, checked
against its stud tournament histories (Razz 2010, Triple Stud 2013; see test_pokerstars.py):

    PokerStars Hand #<n>: Tournament #<t>, $10+$1 USD 7 Card Stud Limit - Level III (40/80)
        - 2026/12/01 20:15:00 UTC [2026/12/01 15:15:00 ET]          (one line)
    Table '<t> <the table's number>' 8-max
    Seat 1: ann (1500 in chips)
    ann: posts the ante 10 ... ann collected 240 from pot
    bob finished the tournament in 2nd place and received $60.00.
    ann wins the tournament and receives $100.00 - congratulations!
    *** SUMMARY ***
    Total pot 240 | Rake 0

Tournament chips are whole chips, written as plain integers everywhere, the stakes included.
The buy-in is prize-pool part + fee: whole dollars ("$10+$1 USD") unless either has cents, then
both with cents ("$2.00+$0.20 USD"), as PokerStars writes it; "Freeroll" when both are 0. The
site's money is play money shown as dollars (the table, the cash text above), so the buy-in is
written as a dollar buy-in, not in PokerStars' own play-money form ("300+20", no currency),
which would file it apart from everything else the site writes. The time is UTC, the viewer's
zone, with ET in brackets as PokerStars writes both ("… 9:27:43 ET]", hours unpadded):
importers take the bracketed ET time as the hand's. The rotation of stud, stud8 and razz is
PokerStars' "Triple Stud", each hand naming its game: "Triple Stud (Razz Limit)"; a cash
rotation table's hand (R45) writes its game and stakes together, as PokerStars' mixed cash
games do ("HORSE (Razz Limit, $0.10/$0.20 USD)"): "Triple Stud (Razz Limit, $1/$2 USD)".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from app.engine import money
from app.engine.streets import STREETS
from app.engine.variants import Variant, VariantSpec, spec_of

GAME_NAMES: dict[str, str] = {
    Variant.STUD: "7 Card Stud Limit",
    Variant.STUD8: "7 Card Stud Hi/Lo Limit",
    Variant.RAZZ: "Razz Limit",
}
STREET_NAMES = {3: "3rd STREET", 4: "4th STREET", 5: "5th STREET", 6: "6th STREET", 7: "RIVER"}
FOLDED_ON = {3: "3rd Street", 4: "4th Street", 5: "5th Street", 6: "6th Street", 7: "River"}


MIX_NAME = "Triple Stud"  # PokerStars' name for the rotation of 7 Card Stud, Razz and Stud Hi/Lo
CURRENCY_SYMBOLS = {"USD": "$", "CAD": "$", "EUR": "\u20ac", "GBP": "\u00a3"}


@dataclass(frozen=True, slots=True)
class Finish:
    """A player who went out in this hand (or won the tournament in it): their place and the
    prize it pays, in cents."""

    seat: int
    place: int
    prize: int = 0


@dataclass(frozen=True, slots=True)
class TournamentText:
    """What a tournament hand's text adds: the header's tournament, buy-in and level, and the
    finishing places the hand decided."""

    tournament_id: int
    buy_in: int  # cents of play money, the prize-pool part
    fee: int  # cents
    level: int  # 1-based level number, shown in Roman numerals
    currency: str = "USD"
    rotation: bool = False  # the tournament rotates stud, stud8 and razz ("Triple Stud")
    finishes: Sequence[Finish] = ()


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
    # a tournament hand; `table_name` is then the table's number within the tournament
    tournament: TournamentText | None = None
    mixed: bool = False  # a rotation table's hand (R45): "Triple Stud (<game>, <stakes>)"


def _spec(variant: str) -> VariantSpec | None:
    """The game's rules, None for a name this release does not know (its text as it was)."""
    try:
        return spec_of(variant)
    except ValueError:
        return None


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
        self.street = STREETS[0].number
        self.high = 0  # the highest wager on this street
        self.wagers: dict[int, int] = {}
        self.pots: list[int] = []
        self.awards: list[tuple[int, int, int, str]] = []  # (pot, seat, amount, share)
        self.showdown = False
        self.community: str | None = None
        self.pending_decline: int | None = None

    def name(self, seat: int) -> str:
        return self.seats[seat].name

    def chips(self, amount: int) -> str:
        """An amount as the text writes it: dollars at a cash table, tournament chips bare."""
        return str(amount) if self.hand.tournament is not None else _usd(amount)

    def _header(self) -> None:
        h = self.hand
        game = GAME_NAMES.get(h.variant, h.variant)
        t = h.tournament
        if t is None:
            when = h.started_at.strftime("%Y/%m/%d %H:%M:%S")
            limits = f"{self.chips(h.small_bet)}/{self.chips(h.big_bet)} USD"
            played = f"{MIX_NAME} ({game}, {limits})" if h.mixed else f"{game} ({limits})"
            self.lines.append(f"PokerStars Hand #{h.number}: {played} - {when} UTC")
            self.lines.append(f"Table '{h.table_name}' {h.max_seats}-max")
            return
        if t.rotation:
            game = f"{MIX_NAME} ({game})"
        self.lines.append(
            f"PokerStars Hand #{h.number}: Tournament #{t.tournament_id},"
            f" {buy_in_text(t.buy_in, t.fee, t.currency)} {game}"
            f" - Level {roman(t.level)} ({h.small_bet}/{h.big_bet}) - {stars_time(h.started_at)}"
        )
        self.lines.append(f"Table '{t.tournament_id} {h.table_name}' {h.max_seats}-max")

    def run(self) -> str:
        self._header()
        pending_deal: list[int] = []
        for event in self.hand.events:
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
            stack = self.chips(stacks[seat])
            self.lines.append(f"Seat {seat + 1}: {self.name(seat)} ({stack} in chips)")

    def _on_ante_posted(self, e: Mapping[str, Any]) -> None:
        ante = self.chips(e["amount"])
        self.lines.append(f"{self.name(e['seat'])}: posts the ante {ante}{_all_in(e)}")

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
        bring_in = self.chips(e["amount"])
        self.lines.append(f"{self.name(e['seat'])}: brings in for {bring_in}{_all_in(e)}")
        self._wager(e, e["amount"])

    def _raise_line(self, e: Mapping[str, Any]) -> None:
        seat, to = e["seat"], e["amount"]
        self.seats[seat].voluntary = True
        if e["type"] == "completed" and to > self.high:
            self.lines.append(f"{self.name(seat)}: completes it to {self.chips(to)}{_all_in(e)}")
        elif self.high == 0:
            self.lines.append(f"{self.name(seat)}: bets {self.chips(to)}{_all_in(e)}")
        elif to > self.high:
            raised = self.chips(to - self.high)
            self.lines.append(f"{self.name(seat)}: raises {raised} to {self.chips(to)}{_all_in(e)}")
        else:  # an all-in short of the bet: a call for what it has
            added = to - self.wagers.get(seat, 0)
            self.lines.append(f"{self.name(seat)}: calls {self.chips(added)}{_all_in(e)}")
        self._wager(e, to)

    _on_completed = _raise_line
    _on_bet = _raise_line
    _on_raised = _raise_line

    def _on_called(self, e: Mapping[str, Any]) -> None:
        self.seats[e["seat"]].voluntary = True
        self.lines.append(f"{self.name(e['seat'])}: calls {self.chips(e['amount'])}{_all_in(e)}")
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
        back = self.chips(e["amount"])
        self.lines.append(f"Uncalled bet ({back}) returned to {self.name(e['seat'])}")

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
        spec = _spec(self.hand.variant)
        if spec is not None and spec.high and spec.low is not None:  # a split pot's game
            return f"HI: {high}; LO: {low}" if low else f"HI: {high}"
        if spec is not None and not spec.high:  # a low-only game
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
            self.lines.append(f"{self.name(seat)} collected {self.chips(amount)} from {where}")
        declined = self.pending_decline
        if declined is not None:
            self.lines.append(f"{self.name(declined)}: doesn't show hand")
        if self.hand.tournament is not None:
            self.lines.extend(self._finish_lines(self.hand.tournament))

    def _finish_lines(self, t: TournamentText) -> list[str]:
        """The places this hand decided, the lowest first and the winner last."""
        lines = []
        for f in sorted(t.finishes, key=lambda finish: -finish.place):
            prize = dollars(f.prize, t.currency)
            if f.place == 1:
                lines.append(f"{self.name(f.seat)} wins the tournament and receives {prize}"
                             " - congratulations!")  # fmt: skip
            elif f.prize:
                lines.append(f"{self.name(f.seat)} finished the tournament in"
                             f" {ordinal(f.place)} place and received {prize}.")  # fmt: skip
            else:
                lines.append(f"{self.name(f.seat)} finished the tournament in"
                             f" {ordinal(f.place)} place")  # fmt: skip
        return lines

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
            parts = [f"Main pot {self.chips(pots[0] + rake)}."]  # the rake comes from the main pot
            parts += [f"Side pot-{i} {self.chips(amount)}." for i, amount in enumerate(pots[1:], 1)]
            shown = f"{self.chips(total)} {' '.join(parts)}"
        else:
            shown = self.chips(total)
        self.lines.append(f"Total pot {shown} | Rake {self.chips(rake)}")
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
            first = seat.folded_on == STREETS[0].number
            quiet = " (didn't bet)" if first and not seat.voluntary else ""
            return f"{head} folded on the {FOLDED_ON[seat.folded_on]}{quiet}"
        if seat.shown is not None and self.showdown:
            cards, desc = seat.shown
            if seat.won:
                won = self.chips(seat.won)
                return f"{head} showed [{' '.join(cards)}] and won ({won}) with {desc}"
            return f"{head} showed [{' '.join(cards)}] and lost with {desc}"
        if seat.mucked:
            cards_or_none = self._all_cards(seat_no) if seat_no in self.revealed else None
            shown = f" [{' '.join(cards_or_none)}]" if cards_or_none else ""
            won = f" and won ({self.chips(seat.won)})" if seat.won else ""
            return f"{head} mucked{shown}{won}"
        if seat.won:
            return f"{head} collected ({self.chips(seat.won)})"
        return head


def _usd(amount: int) -> str:
    return money.chips(amount, grouping=False)


def _all_in(e: Mapping[str, Any]) -> str:
    return " and is all-in" if e.get("all_in") else ""


# -- the tournament form's pieces, shared with the tournament summary ----------------------------

_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]  # fmt: skip


def roman(number: int) -> str:
    """A level as PokerStars numbers it: 3 -> "III", 40 -> "XL"."""
    if number < 1:
        raise ValueError(f"a level counts from 1, not {number}")
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def ordinal(number: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    teens = number % 100 in (11, 12, 13)
    suffix = "th" if teens else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _symbol(currency: str) -> str:
    try:
        return CURRENCY_SYMBOLS[currency]
    except KeyError:
        raise ValueError(f"no currency sign for {currency!r}") from None


def dollars(amount: int, currency: str = "USD", *, grouping: bool = False) -> str:
    """Cents always with their two decimals, as PokerStars writes prizes: 1000 -> "$10.00"
    (`grouping`: "$1,234.56", as the summary's places are written)."""
    if amount < 0:
        raise ValueError(f"a prize or buy-in of {amount}")
    whole, cents = divmod(amount, 100)
    number = f"{whole:,}" if grouping else str(whole)
    return f"{_symbol(currency)}{number}.{cents:02d}"


def buy_in_text(buy_in: int, fee: int, currency: str = "USD") -> str:
    """The header's buy-in: "$10+$1 USD", "$2.00+$0.20 USD" (both with cents when either has
    some), "Freeroll" for nothing."""
    if buy_in < 0 or fee < 0:
        raise ValueError(f"a buy-in of {buy_in}+{fee}")
    if buy_in == 0 and fee == 0:
        return "Freeroll"
    if buy_in % 100 or fee % 100:
        return f"{dollars(buy_in, currency)}+{dollars(fee, currency)} {currency}"
    sign = _symbol(currency)
    return f"{sign}{buy_in // 100}+{sign}{fee // 100} {currency}"


def _clock(moment: datetime) -> str:
    return f"{moment:%Y/%m/%d} {moment.hour}:{moment:%M:%S}"


def stars_time(moment: datetime) -> str:
    """A time as PokerStars' tournament texts write it: the viewer's zone (UTC here), then ET
    in brackets, the hour unpadded: "2026/12/01 20:15:00 UTC [2026/12/01 15:15:00 ET]". A
    naive time is taken as UTC."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    eastern = utc.astimezone(ZoneInfo("America/New_York"))
    return f"{_clock(utc)} UTC [{_clock(eastern)} ET]"
