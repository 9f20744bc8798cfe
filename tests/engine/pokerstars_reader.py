"""PokerStars-style stud text read back, and replayed in pokerkit (a test helper, not a test
module).

`read` parses the text app/engine/pokerstars.py writes (and nothing of that module is used
here): seats, starting stacks, antes, every action per street with its amount, the cards as
the text shows them to its viewer, the shown and mucked hands, uncalled bets, the collected
amounts, the pots and the rake. It checks the text against itself as it goes (a card line
repeats the cards shown before it; the summary agrees with the body).

A tournament hand is read the way a tracker reads PokerStars' own (`read_header`): the header's
tournament, buy-in, level, stakes and time, the table named by the tournament, amounts in bare
chips, and the lines naming who finished the tournament in that hand, each checked against the
hand (an eliminated player has no chips left, the winner has them all).

`replay` plays what was read through pokerkit, action by action: pokerkit must accept each
action, at the amount the text gives, by the player the text names, with the stack the text
implies. Its pots and hand rankings are then settled by docs/rules.md (R4 rake, R20, R21) in
`settle`, written from the rules, not from the engine, and pokerkit's own finishing stacks are
kept too: they differ from the rules' only in the ways test_differential.py names (odd chips,
stud8 side pots without a low). pokerkit is given no rake, which it would take pot by pot
where R4 takes a share of all the pots, main pot first.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from pokerkit import EightOrBetterLowHand, RegularLowHand, StandardHighHand

from tests.engine.pokerkit_oracle import AUTOMATIONS, GAMES, VARIANT_CODES

GAMES_BY_NAME = {
    "7 Card Stud Limit": "stud",
    "7 Card Stud Hi/Lo Limit": "stud8",
    "Razz Limit": "razz",
}
STREETS = {"3rd STREET": 3, "4th STREET": 4, "5th STREET": 5, "6th STREET": 6, "RIVER": 7}
FOLDED_ON = {"3rd Street": 3, "4th Street": 4, "5th Street": 5, "6th Street": 6, "River": 7}
DOWN_POSITIONS = (0, 1, 6)  # seven-card stud: two down, four up, the last down
SUITS = "cdhs"  # R10, R21: clubs lowest, then diamonds, hearts, spades
HIGH_RANKS = "23456789TJQKA"
LOW_RANKS = "A23456789TJQK"

_DOLLARS = r"\$(\d+(?:\.\d\d)?)"
_CHIPS = r"(\d+)"  # tournament chips: whole, no sign
_ALL_IN = r"( and is all-in)?"
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
MIXES = ("Triple Stud",)  # PokerStars' rotation of the three stud games


class ReadError(ValueError):
    """The text is not what the renderer should write, or contradicts itself."""


def cents(text: str) -> int:
    """Dollars to chips (cents): "$1.50" -> 150, "$20" -> 2000."""
    dollars, _, part = text.lstrip("$").partition(".")
    if part and len(part) != 2:
        raise ReadError(f"not an amount: {text!r}")
    return int(dollars) * 100 + int(part or 0)


def chips(text: str) -> int:
    """A tournament amount: whole chips, "1500" -> 1500."""
    if not text.isdigit():
        raise ReadError(f"not a chip count: {text!r}")
    return int(text)


def roman(text: str) -> int:
    """A level's Roman numeral, refused unless written the one standard way."""
    values = [ROMAN[c] for c in text]
    total = sum(
        -v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values)
    )
    if not text or _to_roman(total) != text:
        raise ReadError(f"not a Roman numeral: {text!r}")
    return total


def _to_roman(n: int) -> str:
    out = ""
    for letters, value in [("M", 1000), ("CM", 900), ("D", 500), ("CD", 400), ("C", 100),
                           ("XC", 90), ("L", 50), ("XL", 40), ("X", 10), ("IX", 9), ("V", 5),
                           ("IV", 4), ("I", 1)]:  # fmt: skip
        while n >= value:
            out, n = out + letters, n - value
    return out


def ordinal_suffix(n: int) -> str:
    return "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


@dataclass(frozen=True)
class Tournament:
    """A tournament header as a tracker reads it. `buy_in` and `fee` in cents (0 and 0 for
    "Freeroll"); `started_et` the bracketed (or only) time, which trackers take as ET;
    `started_utc` the UTC time when the text gives one, checked against it."""

    tournament_id: int
    buy_in: int
    fee: int
    currency: str  # "USD", or "FREE" for a freeroll
    mix: str | None
    level: int
    started_et: datetime
    started_utc: datetime | None


@dataclass(frozen=True)
class Header:
    hand: int
    variant: str
    small_bet: int
    big_bet: int
    tournament: Tournament | None = None


@dataclass(frozen=True)
class Act:
    """One action line. `amount`: a bring-in or call, the chips put in; a completion, bet or
    raise, the street's wager it goes to; an uncalled bet, the chips given back."""

    street: int
    name: str
    verb: str  # bring_in complete bet raise call check fold returned
    amount: int = 0
    all_in: bool = False


@dataclass
class Reading:
    variant: str
    small_bet: int
    big_bet: int
    seat_numbers: dict[str, int] = field(default_factory=dict)  # as the text numbers them
    stacks: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # dealing order (third street's lines)
    antes: dict[str, int] = field(default_factory=dict)
    acts: list[Act] = field(default_factory=list)
    cards: dict[str, list[str | None]] = field(default_factory=dict)  # by position; None: not
    viewer: str | None = None  # the seat whose down cards the card lines show
    streets: list[int] = field(default_factory=list)
    board: str | None = None
    reshuffled: bool = False
    protected: list[str] = field(default_factory=list)  # timed out all-in (R19)
    showdown: bool = False
    shown: dict[str, list[str]] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)
    mucked: list[str] = field(default_factory=list)
    collected: list[tuple[str, int, str]] = field(default_factory=list)  # name, chips, pot
    declined: str | None = None
    total_pot: int = 0
    pots: list[int] = field(default_factory=list)  # as the summary states them
    rake: int = 0
    summary_cards: dict[str, list[str]] = field(default_factory=dict)
    won: dict[str, int] = field(default_factory=dict)
    folded_on: dict[str, int] = field(default_factory=dict)
    tournament: Tournament | None = None
    table: str = ""  # the table line's name (a tournament's: its table's number)
    finishes: list[tuple[str, int, int]] = field(default_factory=list)  # name, place, cents

    def put_in(self) -> dict[str, int]:
        """The chips each player put in, by the action lines, less any uncalled bet."""
        put = Counter(self.antes)
        wager = Counter[str]()
        street = 0
        for a in self.acts:
            if a.street != street:
                street, wager = a.street, Counter()
            if a.verb in ("bring_in", "call"):
                wager[a.name] += a.amount
                put[a.name] += a.amount
            elif a.verb in ("complete", "bet", "raise"):
                put[a.name] += a.amount - wager[a.name]
                wager[a.name] = a.amount
            elif a.verb == "returned":
                put[a.name] -= a.amount
        return {n: put[n] for n in self.stacks}

    def finishing_stacks(self) -> dict[str, int]:
        """Starting stacks, less what went in, plus what the text says each collected."""
        got = Counter[str]()
        for name, amount, _ in self.collected:
            got[name] += amount
        put = self.put_in()
        return {n: self.stacks[n] - put[n] + got[n] for n in self.order}

    def all_cards(self, name: str) -> list[str] | None:
        """A player's seven cards as the text gives them (the shown or mucked hand, else what
        the card lines show); None if some are not shown."""
        if name in self.shown:
            return self.shown[name]
        if name in self.summary_cards:
            return self.summary_cards[name]
        cards = self.cards[name]
        return None if None in cards else [c for c in cards if c is not None]


def _patterns(money: str) -> list[tuple[str, re.Pattern[str]]]:
    """The body's lines, amounts as `money` writes them (dollars, or a tournament's chips)."""
    return [
        (name, re.compile(pattern))
        for name, pattern in [
            ("table", r"^Table '(.*)' \d+-max$"),
            ("seat", r"^Seat (\d+): (.+) \(" + money + r" in chips\)$"),
            ("ante", r"^(.+): posts the ante " + money + _ALL_IN + "$"),
            ("street", r"^\*\*\* (3rd STREET|4th STREET|5th STREET|6th STREET|RIVER) \*\*\*$"),
            ("board", r"^Dealt to board \[(\w\w)\]$"),
            ("dealt", r"^Dealt to (.+?) \[([^\]]*)\](?: \[([^\]]*)\])?$"),
            ("bring_in", r"^(.+): brings in for " + money + _ALL_IN + "$"),
            ("complete", r"^(.+): completes it to " + money + _ALL_IN + "$"),
            ("bet", r"^(.+): bets " + money + _ALL_IN + "$"),
            ("raise", r"^(.+): raises " + money + " to " + money + _ALL_IN + "$"),
            ("call", r"^(.+): calls " + money + _ALL_IN + "$"),
            ("check", r"^(.+): checks$"),
            ("fold", r"^(.+): folds$"),
            ("timed_out", r"^(.+) has timed out( \(all-in protection\))?$"),
            ("returned", r"^Uncalled bet \(" + money + r"\) returned to (.+)$"),
            ("reshuffled", r"^The burns and the stub \(\d+ cards\) are reshuffled$"),
            ("showdown", r"^\*\*\* SHOW DOWN \*\*\*$"),
            ("shows", r"^(.+): shows \[([^\]]*)\] \((.*)\)$"),
            ("mucks", r"^(.+): mucks hand$"),
            ("collected", r"^(.+) collected " + money + r" from (pot|main pot|side pot-\d+)$"),
            ("declined", r"^(.+): doesn't show hand$"),
            ("finished", r"^(.+) finished the tournament in (\d+)(st|nd|rd|th) place"
                         r"(?: and received \$(\d+\.\d\d)\.)?$"),
            ("wins", r"^(.+) wins the tournament and receives \$(\d+\.\d\d) - congratulations!$"),
            ("summary", r"^\*\*\* SUMMARY \*\*\*$"),
            ("total", r"^Total pot " + money + r"(.*) \| Rake " + money + "$"),
            ("board_summary", r"^Board \[(\w\w)\]$"),
            ("seat_summary", r"^Seat (\d+): (.+?)(?: (showed|mucked|folded|collected)(.*))?$"),
        ]
    ]  # fmt: skip


@dataclass(frozen=True)
class _Amounts:
    """How a text writes its amounts: the pattern of one, and its reading in chips."""

    pattern: str
    parse: Callable[[str], int]
    lines: list[tuple[str, re.Pattern[str]]]


DOLLARS = _Amounts(_DOLLARS, cents, _patterns(_DOLLARS))
CHIPS = _Amounts(_CHIPS, chips, _patterns(_CHIPS))

_CASH_HEADER = re.compile(
    r"^PokerStars Hand #(\d+): (.+) \(" + _DOLLARS + "/" + _DOLLARS + r" USD\) - .+ UTC$"
)
_TOURNAMENT_HEADER = re.compile(
    r"^PokerStars Hand #(?P<hand>\d+): Tournament #(?P<id>\d+), "
    r"(?:(?P<free>Freeroll)|\$(?P<buy>\d+(?:\.\d\d)?)\+\$(?P<fee>\d+(?:\.\d\d)?) USD) "
    r"(?:(?P<mix>" + "|".join(MIXES) + r") \((?P<mixed>[^)]+)\)|(?P<game>[^-]+?)) "
    r"- Level (?P<level>[IVXLCDM]+) \((?P<small>\d+)/(?P<big>\d+)\) - (?P<when>.+)$"
)
_TIME = re.compile(r"(\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d) ?\(?([A-Z]+)")


def read_header(line: str) -> Header:
    """A hand's first line: the cash form, or the tournament form as trackers read PokerStars'
    (the last time given is ET; where a UTC time comes first, the two must agree)."""
    m = _CASH_HEADER.match(line)
    if m is not None:
        if m[2] not in GAMES_BY_NAME:
            raise ReadError(f"not a stud game: {m[2]!r}")
        return Header(int(m[1]), GAMES_BY_NAME[m[2]], cents(m[3]), cents(m[4]))
    m = _TOURNAMENT_HEADER.match(line)
    if m is None:
        raise ReadError(f"not a stud header: {line!r}")
    game = m["mixed"] or m["game"]
    if game not in GAMES_BY_NAME:
        raise ReadError(f"not a stud game: {game!r}")
    buy, fee = m["buy"] or "0", m["fee"] or "0"
    if ("." in buy) != ("." in fee):  # PokerStars writes both with cents, or both without
        raise ReadError(f"a buy-in of {buy}+{fee}")
    et, utc = _times(m["when"])
    tournament = Tournament(
        int(m["id"]), cents(buy), cents(fee), "FREE" if m["free"] else "USD", m["mix"],
        roman(m["level"]), et, utc,
    )  # fmt: skip
    return Header(int(m["hand"]), GAMES_BY_NAME[game], int(m["small"]), int(m["big"]), tournament)


def _times(text: str) -> tuple[datetime, datetime | None]:
    found = _TIME.findall(text)
    if not found or found[-1][1] != "ET":
        raise ReadError(f"no ET time in {text!r}")
    et = datetime.strptime(found[-1][0], "%Y/%m/%d %H:%M:%S")
    if found[0][1] != "UTC" or len(found) != 2:
        return et, None
    utc = datetime.strptime(found[0][0], "%Y/%m/%d %H:%M:%S").replace(tzinfo=UTC)
    eastern = utc.astimezone(ZoneInfo("America/New_York")).replace(tzinfo=None)
    if eastern != et:
        raise ReadError(f"{found[0][0]} UTC is not {found[-1][0]} ET")
    return et, utc


def read(text: str) -> Reading:
    """Parse a hand's PokerStars text; ReadError on any line it does not expect."""
    lines = text.splitlines()
    if not lines:
        raise ReadError("no text")
    header = read_header(lines[0])
    r = Reading(header.variant, header.small_bet, header.big_bet, tournament=header.tournament)
    money = DOLLARS if header.tournament is None else CHIPS
    amount = money.parse
    street = 0
    in_summary = False
    for n, line in enumerate(lines[1:], 2):
        kind, m = _match(line, money)
        if m is None:
            raise ReadError(f"line {n}: unexpected {line!r}")
        if in_summary and kind not in ("total", "board_summary", "seat_summary"):
            raise ReadError(f"line {n}: {line!r} after the summary started")
        if (kind == "table") != (n == 2):
            raise ReadError(f"line {n}: {line!r} out of place")
        if kind == "table":
            r.table = _table(r, m[1])
        elif kind == "seat":
            if r.order:
                raise ReadError(f"line {n}: a seat line after the deal")
            r.seat_numbers[m[2]] = int(m[1])
            r.stacks[m[2]] = amount(m[3])
        elif kind == "ante":
            _known(r, m[1], n)
            r.antes[m[1]] = amount(m[2])
            _check_all_in(r, m[1], bool(m[3]), n)
        elif kind == "street":
            street = STREETS[m[1]]
            if r.streets and street != r.streets[-1] + 1:
                raise ReadError(f"line {n}: street {street} after {r.streets[-1]}")
            r.streets.append(street)
        elif kind == "board":
            r.board = m[1]
        elif kind == "dealt":
            _dealt(r, street, m[1], m[2], m[3], n)
        elif kind in ("bring_in", "complete", "bet", "call"):
            _known(r, m[1], n)
            r.acts.append(Act(street, m[1], kind, amount(m[2]), bool(m[3])))
            _check_all_in(r, m[1], bool(m[3]), n)
        elif kind == "raise":
            _known(r, m[1], n)
            to = amount(m[3])
            wager = _street_wagers(r, street)
            high = max(wager.values(), default=0)
            if to - high != amount(m[2]):
                raise ReadError(f"line {n}: a raise of {m[2]} to {m[3]} over {high}")
            r.acts.append(Act(street, m[1], "raise", to, bool(m[4])))
            _check_all_in(r, m[1], bool(m[4]), n)
        elif kind in ("check", "fold"):
            _known(r, m[1], n)
            r.acts.append(Act(street, m[1], kind))
            if kind == "fold":
                r.folded_on[m[1]] = street
        elif kind == "timed_out":
            _known(r, m[1], n)
            if m[2]:
                r.protected.append(m[1])
        elif kind == "returned":
            _known(r, m[2], n)
            r.acts.append(Act(street, m[2], "returned", amount(m[1])))
        elif kind == "reshuffled":
            r.reshuffled = True
        elif kind == "showdown":
            r.showdown = True
        elif kind == "shows":
            _known(r, m[1], n)
            r.shown[m[1]] = m[2].split()
            r.descriptions[m[1]] = m[3]
        elif kind == "mucks":
            _known(r, m[1], n)
            r.mucked.append(m[1])
        elif kind == "collected":
            _known(r, m[1], n)
            r.collected.append((m[1], amount(m[2]), m[3]))
        elif kind == "declined":
            r.declined = m[1]
        elif kind in ("finished", "wins"):
            _finish(r, kind, m, n)
        elif kind == "summary":
            in_summary = True
        elif kind == "total":
            r.total_pot, r.rake = amount(m[1]), amount(m[3])
            pots = re.findall(r"(?:Main|Side) pot(?:-\d+)? " + money.pattern, m[2])
            r.pots = [amount(p) for p in pots]
        elif kind == "board_summary":
            if m[1] != r.board:
                raise ReadError(f"line {n}: the summary's board {m[1]} is not {r.board}")
        elif kind == "seat_summary":
            _seat_summary(r, m, n, money)
    if not in_summary:
        raise ReadError("no summary")
    _check_summary(r)
    _check_finishes(r)
    return r


def _match(line: str, money: _Amounts) -> tuple[str, re.Match[str] | None]:
    for kind, pattern in money.lines:
        m = pattern.match(line)
        if m is not None:
            return kind, m
    return "", None


def _table(r: Reading, name: str) -> str:
    """A tournament's table is named '<tournament id> <table number>', as PokerStars names it."""
    t = r.tournament
    if t is not None and re.fullmatch(rf"{t.tournament_id} \d+", name) is None:
        raise ReadError(f"table {name!r} is not one of tournament #{t.tournament_id}'s")
    return name


def _finish(r: Reading, kind: str, m: re.Match[str], n: int) -> None:
    """A line naming a player who finished the tournament in this hand, and the prize."""
    if r.tournament is None:
        raise ReadError(f"line {n}: a tournament's finish in a cash hand")
    _known(r, m[1], n)
    if kind == "wins":
        r.finishes.append((m[1], 1, cents(m[2])))
        return
    place = int(m[2])
    if m[3] != ordinal_suffix(place) or place < 2:
        raise ReadError(f"line {n}: {m[2]}{m[3]} place")
    r.finishes.append((m[1], place, cents(m[4]) if m[4] else 0))


def _check_finishes(r: Reading) -> None:
    """Who finished went out in this hand (no chips left, lowest place first), and the winner
    has every chip at the table."""
    places = [place for _, place, _ in r.finishes]
    if places != sorted(set(places), reverse=True):
        raise ReadError(f"finishing places {places}")
    who = Counter(name for name, _, _ in r.finishes)
    if who and max(who.values()) > 1:
        raise ReadError(f"a player finishes twice: {dict(who)}")
    left = r.finishing_stacks()
    for name, place, _ in r.finishes:
        if place > 1 and left[name] != 0:
            raise ReadError(f"{name} finished {place} with {left[name]} chips")
        if place == 1 and left[name] != sum(r.stacks[n] for n in r.order):
            raise ReadError(f"{name} won the tournament with {left[name]} of the chips")


def _known(r: Reading, name: str, n: int) -> None:
    if name not in r.stacks:
        raise ReadError(f"line {n}: {name!r} has no seat")


def _street_wagers(r: Reading, street: int) -> Counter[str]:
    wager = Counter[str]()
    for a in r.acts:
        if a.street != street:
            continue
        if a.verb in ("bring_in", "call"):
            wager[a.name] += a.amount
        elif a.verb in ("complete", "bet", "raise"):
            wager[a.name] = a.amount
        elif a.verb == "returned":
            wager[a.name] -= a.amount
    return wager


def _check_all_in(r: Reading, name: str, all_in: bool, n: int) -> None:
    """An all-in line leaves no chips; any other leaves some."""
    left = r.stacks[name] - r.put_in()[name]
    if left < 0 or all_in != (left == 0):
        raise ReadError(f"line {n}: {name} has {left} left, all-in said {all_in}")


def _dealt(r: Reading, street: int, name: str, before: str, new: str | None, n: int) -> None:
    """Place a card line's new cards at the positions the street deals (R7: three on third
    street, one on each later one) and check it repeats the cards shown before."""
    _known(r, name, n)
    cards = r.cards.setdefault(name, [])
    if street == 3:
        if name in r.order:
            raise ReadError(f"line {n}: {name} dealt twice on third street")
        r.order.append(name)
    old, fresh = ([], before.split()) if new is None else (before.split(), new.split())
    if old != [c for c in cards if c is not None]:
        raise ReadError(f"line {n}: {name}'s cards so far are {cards}, the line says {old}")
    if street == 3 and len(fresh) == 3:
        if r.viewer not in (None, name):
            raise ReadError(f"line {n}: two viewers")
        r.viewer = name
        cards.extend(fresh)
    elif street == 3 and len(fresh) == 1:
        cards.extend([None, None, *fresh])
    elif street in (4, 5, 6, 7) and len(fresh) == 1 and len(cards) <= street - 1:
        cards.extend([None] * (street - 1 - len(cards)))
        cards.append(fresh[0])
        if street == 7 and name != r.viewer:
            raise ReadError(f"line {n}: a river card shown to somebody else")
    else:
        raise ReadError(f"line {n}: {fresh} on street {street} after {cards}")


def _seat_summary(r: Reading, m: re.Match[str], n: int, money: _Amounts) -> None:
    number, name, what, rest = int(m[1]), m[2], m[3], m[4] or ""
    if r.seat_numbers.get(name) != number:
        raise ReadError(f"line {n}: {name} is not in seat {number}")
    if what == "folded":
        fm = re.fullmatch(r" on the (.+?)( \(didn't bet\))?", rest)
        if fm is None or r.folded_on.get(name) != FOLDED_ON.get(fm[1]):
            raise ReadError(f"line {n}: {name} did not fold on {rest!r}")
        return
    won = re.search(r" won \(" + money.pattern + r"\)", rest)
    if won:
        r.won[name] = money.parse(won[1])
    if what == "collected":
        cm = re.fullmatch(r" \(" + money.pattern + r"\)", rest)
        if cm is None:
            raise ReadError(f"line {n}: {rest!r}")
        r.won[name] = money.parse(cm[1])
    shown = re.match(r" \[([^\]]*)\]", rest)
    if shown:
        r.summary_cards[name] = shown[1].split()
    if what == "showed" and (not shown or r.summary_cards[name] != r.shown.get(name)):
        raise ReadError(f"line {n}: the summary's cards are not those {name} showed")


def _check_summary(r: Reading) -> None:
    """The summary agrees with the body: who collected how much, the pots, the total."""
    got = Counter[str]()
    for name, amount, _ in r.collected:
        got[name] += amount
    if dict(got) != {k: v for k, v in r.won.items() if v}:
        raise ReadError(f"collected {dict(got)}, the summary says {r.won}")
    collected = sum(got.values())
    if r.total_pot != collected + r.rake:
        raise ReadError(f"total pot {r.total_pot}, collected {collected} and rake {r.rake}")
    if r.total_pot != sum(r.put_in().values()):
        raise ReadError(f"total pot {r.total_pot}, the action lines put in {r.put_in()}")
    labels = list(dict.fromkeys(label for _, _, label in r.collected))
    if len(labels) > 1:
        by_pot = Counter[str]()
        for _, amount, label in r.collected:
            by_pot[label] += amount
        # the rake comes out of the main pot first (R4), and the summary adds it back there
        stated = [by_pot[label] for label in labels]
        stated[0] += r.rake
        if sorted(labels, key=_pot_number) != labels or stated != r.pots:
            raise ReadError(f"pots {r.pots}, collected {dict(by_pot)} (rake {r.rake})")
    for name in r.mucked:
        if name in r.shown:
            raise ReadError(f"{name} shows and mucks")


def _pot_number(label: str) -> int:
    return 0 if label in ("pot", "main pot") else int(label.rsplit("-", 1)[1])


# -- replaying in pokerkit -------------------------------------------------------------------

_NO_REASON_TO_FOLD = "There is no reason for this player to fold"


class ReplayError(ValueError):
    """pokerkit refused an action of the text, or disagrees with the text about it."""

    def __init__(self, act: Act | None, reason: str, street: int | None = None) -> None:
        super().__init__(f"pokerkit at {act}: {reason}" if act else f"pokerkit: {reason}")
        self.act = act
        self.reason = reason
        self.street = street  # pokerkit's street then


@dataclass(frozen=True)
class Pot:
    amount: int
    eligible: tuple[str, ...]


@dataclass
class Replay:
    reading: Reading
    state: Any
    pots: list[Pot]  # pokerkit's pots when the betting was over (only with a showdown)
    pokerkit_stacks: dict[str, int]  # pokerkit's finishing stacks (it takes no rake here)


def _pot(pot: Any, order: Sequence[str]) -> Pot:
    return Pot(pot.amount, tuple(order[i] for i in pot.player_indices))


def replay(r: Reading, bring_in: int) -> Replay:
    """Play the text's actions through pokerkit (`bring_in`: the table's, which the text only
    shows when somebody brings in for it). The players are pokerkit's in dealing order."""
    if r.board is not None:
        raise ReplayError(None, "a community card (pokerkit would deal from the muck, R9)")
    if r.protected:
        raise ReplayError(None, "an all-in by timeout protection (R19), which pokerkit lacks")
    order = r.order
    state = GAMES[VARIANT_CODES[r.variant]].create_state(
        AUTOMATIONS,
        True,
        [r.antes.get(n, 0) for n in order],
        bring_in,
        r.small_bet,
        r.big_bet,
        [r.stacks[n] for n in order],
        len(order),
    )
    index = {n: i for i, n in enumerate(order)}
    put = Counter[str]()
    for n in order:
        put[n] = r.antes.get(n, 0)
    pots: list[Pot] = []
    acts = iter(r.acts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=_NO_REASON_TO_FOLD)
        act: Act | None = None
        try:
            while state.status:
                if state.can_burn_card("??"):
                    state.burn_card("??")
                elif any(state.hole_dealing_statuses):
                    _deal(r, state)
                elif state.can_show_or_muck_hole_cards():
                    if not pots:  # before hand killing, which drops hands that cannot win
                        pots = [_pot(p, order) for p in state.pots]
                    state.show_or_muck_hole_cards(True)  # every hand shown: R23's cards speak
                elif state.actor_index is not None:
                    new = next(acts, None)
                    while new is not None and new.verb == "returned":
                        put[new.name] -= new.amount
                        new = next(acts, None)
                    if new is None:
                        raise ReplayError(act, f"{order[state.actor_index]} is to act")
                    act = new
                    _act(state, act, index[act.name], put, r)
                else:  # pragma: no cover - every other step is automated
                    raise ReplayError(act, "pokerkit is waiting for something unexpected")
        except (ValueError, UserWarning) as exc:
            street = None if state.street_index is None else state.street_index + 3
            if isinstance(exc, ReplayError):
                raise ReplayError(exc.act or act, exc.reason, street) from exc
            raise ReplayError(act, str(exc), street) from exc
    rest = [a for a in acts if a.verb != "returned"]
    if rest:
        raise ReplayError(rest[0], "the hand is over in pokerkit")
    return Replay(r, state, pots, {n: state.stacks[i] for i, n in enumerate(order)})


def _deal(r: Reading, state: Any) -> None:
    """The next card pokerkit deals, from the text ("??" where the text does not show it),
    and the card's face as pokerkit deals it must be as the text shows it."""
    i = state.hole_dealee_index
    name = r.order[i]
    position = len(state.hole_cards[i])
    known = r.all_cards(name)
    card = known[position] if known is not None and position < len(known) else None
    shown = r.cards[name][position] if position < len(r.cards[name]) else None
    if shown is not None and card is not None and shown != card:
        raise ReplayError(None, f"{name}'s card {position + 1} is {shown} and {card}")
    card = card or shown
    face_up = state.hole_dealing_statuses[i][0]
    if face_up != (position not in DOWN_POSITIONS):
        raise ReplayError(None, f"pokerkit deals {name}'s card {position + 1} face up={face_up}")
    if name != r.viewer and face_up != (shown is not None):
        raise ReplayError(None, f"{name}'s card {position + 1}: up={face_up}, shown: {shown}")
    state.deal_hole(card or "??", i)


def _act(state: Any, act: Act, i: int, put: Counter[str], r: Reading) -> None:
    if state.actor_index != i:
        raise ReplayError(act, f"pokerkit's player to act is {r.order[state.actor_index]}")
    if state.street_index + 3 != act.street:
        raise ReplayError(act, f"pokerkit is on street {state.street_index + 3}")
    stack = r.stacks[act.name] - put[act.name]
    if state.stacks[i] != stack:
        raise ReplayError(act, f"pokerkit's stack {state.stacks[i]}, the text's {stack}")
    before = state.bets[i]
    if act.verb == "bring_in":
        if not state.can_post_bring_in() or state.effective_bring_in_amount != act.amount:
            raise ReplayError(act, f"pokerkit's bring-in is {state.effective_bring_in_amount}")
        state.post_bring_in()
        put[act.name] += act.amount
    elif act.verb in ("complete", "bet", "raise"):
        state.complete_bet_or_raise_to(act.amount)
        put[act.name] += act.amount - before
    elif act.verb in ("call", "check"):
        owed = state.checking_or_calling_amount
        if owed != act.amount:
            raise ReplayError(act, f"pokerkit's call is {owed}")
        state.check_or_call()
        put[act.name] += act.amount
    elif act.verb == "fold":
        state.fold()
    if act.verb != "fold" and (state.stacks[i] == 0) != act.all_in:
        raise ReplayError(act, f"pokerkit leaves {state.stacks[i]} (all-in: {act.all_in})")


# -- settling by docs/rules.md ----------------------------------------------------------------


@dataclass(frozen=True)
class Settlement:
    rake: int
    awards: list[tuple[int, str, int]]  # pot index, name, chips
    odd_chips: bool  # a pot split with odd chips (R21): pokerkit may give them elsewhere
    lowless_side_pot: bool  # a stud8 pot none of whose players has a low (R21)

    def won(self) -> Counter[str]:
        out = Counter[str]()
        for _, name, amount in self.awards:
            out[name] += amount
        return out


def _hands(variant: str, cards: Sequence[str]) -> tuple[Any, Any]:
    """pokerkit's best high and low of seven cards (None: none, or no qualifying low)."""
    text = "".join(cards)
    high = StandardHighHand.from_game(text) if variant != "razz" else None
    low = None
    if variant == "razz":
        low = RegularLowHand.from_game(text)
    elif variant == "stud8":
        try:
            low = EightOrBetterLowHand.from_game(text)
        except ValueError:
            low = None
    return high, low


def _odd_chip_key(hand: Any, cards: Sequence[str], low: bool) -> tuple[int, int]:
    """R21: the highest of the five cards used, aces high for a high hand (also in a 5-high
    straight) and low for a low; between equal ranks the higher suit. Of two cards of that
    rank a player may use either, and uses the higher suit (the engine's reading, which
    docs/rules.md states; pokerkit's choice of five may take the other)."""
    ranks = LOW_RANKS if low else HIGH_RANKS
    top = max((c.rank.value for c in hand.cards), key=ranks.index)
    suit = max(SUITS.index(c[1]) for c in cards if c[0] == top)
    return ranks.index(top), suit


def expected_rake(pot: int, bps: int, cap: int | None, third_street_only: bool) -> int:
    """R4: a percentage of all the pots, rounded down, at most the cap (0 or None: none);
    nothing for a hand that never reached fourth street."""
    if third_street_only:
        return 0
    rake = pot * bps // 10_000
    return rake if not cap else min(rake, cap)


def pots_from_the_text(r: Reading) -> Replay:
    """For a hand pokerkit cannot replay (a community card): the pots as the action lines
    build them, one for each all-in level of the players still in, merged while the same
    players may win them, as pokerkit builds its own; no pokerkit stacks."""
    put = r.put_in()
    live = [n for n in r.order if n not in r.folded_on]
    pots: list[Pot] = []
    prev = 0
    for level in sorted({put[n] for n in live}):
        amount = sum(min(put[n], level) - min(put[n], prev) for n in r.order)
        eligible = tuple(n for n in live if put[n] >= level)
        while pots and pots[-1].eligible == eligible:
            amount += pots.pop().amount
        pots.append(Pot(amount, eligible))
        prev = level
    if not r.showdown:
        pots = []
    return Replay(r, None, pots, {})


def settle(play: Replay, rake: int) -> Settlement:
    """Award pokerkit's pots by R20 and R21, after `rake` taken from the main pot first (R4),
    ranking the hands with pokerkit's evaluators."""
    r = play.reading
    if not play.pots:  # no showdown: the one player left takes everything in
        (last,) = [n for n in r.order if n not in r.folded_on]
        total = sum(r.put_in().values())
        return Settlement(rake, [(0, last, total - rake)] if total > rake else [], False, False)
    hands = {}
    seven = {}
    for n in {n for p in play.pots for n in p.eligible}:
        cards = r.all_cards(n)
        if cards is None:
            raise ReplayError(None, f"{n} reached the showdown with cards not shown")
        if r.board is not None and len(cards) == 6:
            cards = [*cards, r.board]  # the community card (R9)
        hands[n], seven[n] = _hands(r.variant, cards), cards
    awards: list[tuple[int, str, int]] = []
    odd_chips = lowless = False
    left = rake
    for index, pot in enumerate(play.pots):
        amount = pot.amount - min(left, pot.amount)
        left -= pot.amount - amount
        if len(pot.eligible) == 1:
            awards.append((index, pot.eligible[0], amount))
            continue
        if r.variant == "stud":
            parts = [(amount, 0, False)]
        elif r.variant == "razz":
            parts = [(amount, 1, True)]
        elif any(hands[n][1] is not None for n in pot.eligible):
            parts = [(amount - amount // 2, 0, False), (amount // 2, 1, True)]  # odd chip high
        else:
            parts = [(amount, 0, False)]
            lowless |= any(h[1] is not None for h in hands.values())
        for part, k, low in parts:
            best = max(hands[n][k] for n in pot.eligible if hands[n][k] is not None)
            winners = [n for n in pot.eligible if hands[n][k] == best]
            share, odd = divmod(part, len(winners))
            if odd:
                odd_chips = True
                winners.sort(key=lambda n: _odd_chip_key(hands[n][k], seven[n], low), reverse=True)
            for j, n in enumerate(winners):
                awards.append((index, n, share + (1 if j < odd else 0)))
        odd_chips |= len(parts) == 2 and amount % 2 == 1
    return Settlement(rake, [a for a in awards if a[2]], odd_chips, lowless)


# -- the named differences from pokerkit (see test_differential.py) --------------------------


def named_difference(r: Reading, error: ReplayError) -> str | None:
    """Which of the differences from pokerkit that test_differential.py names explains its
    refusal of the text's hand (None: none does): a community card (R9), a wager after an
    all-in short of a full one (R18), a fourth-street big bet in Stud Hi (R14)."""
    if r.board is not None and error.act is None:
        return "community card"
    act = error.act
    if act is None:
        return None
    position = next(i for i, a in enumerate(r.acts) if a is act)
    for street in {act.street, error.street or act.street}:
        before = [a for a in r.acts[:position] if a.street == street]
        if _short_all_in(before, r, street):
            return "short all-in"
    upto = [a for a in r.acts[: position + 1] if a.street == act.street]
    if r.variant == "stud" and act.street == 4 and _big_bet(upto, r):
        return "open-pair big bet"
    return None


def _short_all_in(acts: Sequence[Act], r: Reading, street: int) -> bool:
    """Whether a wager of these is an all-in for less than a full completion, bet or raise."""
    unit = r.small_bet if street <= 4 else r.big_bet
    level = 0
    for a in acts:
        if a.verb == "bring_in":
            level = a.amount
        elif a.verb in ("complete", "bet", "raise"):
            if street == 4 and a.amount - level > r.small_bet:
                unit = r.big_bet  # the R14 big bet: every later wager is big
            full = r.small_bet if a.verb == "complete" else level + unit
            if a.all_in and a.amount < full:
                return True
            level = max(level, a.amount)
    return False


def _big_bet(acts: Sequence[Act], r: Reading) -> bool:
    """Whether a fourth-street bet or raise went more than a small bet over the wager before
    it (R14's big bet with an open pair)."""
    level = 0
    for a in acts:
        if a.verb in ("bet", "raise"):
            if a.amount - level > r.small_bet:
                return True
            level = a.amount
    return False


def description_problem(variant: str, description: str, cards: Sequence[str]) -> str | None:
    """Whether a shown hand's description names the hand pokerkit finds in its cards: the
    high hand's category ("two pair, ..."), the unpaired low's cards ("7-5-3-2-A low"), a
    paired razz hand's category ("one pair, ... (low)"); None if it does."""
    if len(cards) < 5:  # shown by a winner nobody called (R23), before any five-card hand
        return None
    high, low = _hands(variant, cards)
    parts: list[tuple[str, Any, bool]] = []
    if variant == "stud":
        parts = [(description, high, False)]
    elif variant == "razz":
        parts = [(description, low, True)]
    else:
        hi, _, lo = description.partition("; LO: ")
        if not hi.startswith("HI: ") or bool(lo) != (low is not None):
            return f"{description!r}: pokerkit's low is {low}"
        parts = [(hi.removeprefix("HI: "), high, False)]
        if lo:
            parts.append((lo, low, True))
    for text, hand, is_low in parts:
        label = hand.entry.label.value.lower()
        if is_low and label == "high card":
            ranks = sorted((c.rank.value for c in hand.cards), key=LOW_RANKS.index, reverse=True)
            want = "-".join(ranks) + " low"
            if text != want:
                return f"{text!r}: pokerkit's low is {want!r}"
        elif _category(text) != label:
            return f"{text!r}: pokerkit's hand is {label!r}"
    return None


def _category(description: str) -> str:
    """A description's category as pokerkit names it: "pair of sevens, K-8-2 (low)" is
    "one pair", a royal flush a "straight flush"."""
    head = description.split(",")[0].lower()
    if head.startswith("pair of "):
        return "one pair"
    return "straight flush" if head == "royal flush" else head
