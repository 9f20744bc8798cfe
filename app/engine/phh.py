"""Hands in the open Poker Hand History format (PHH: TOML; variants F7S, F7S/8 and FR).

`to_phh` writes a finished hand the way pokerkit writes and reads one, so the file replays in
pokerkit as well as here; `replay_phh` replays a PHH text through our engine.

The players p1..pN are the seats in dealing order (the first seat left of the button first,
R7); `seats` holds their table seats counted from 1 and `_button` the button's. Everything a
history records is written: every card dealt, down cards included (third street compressed to
one line per player, down, down, up, as pokerkit does), the community card as ``d db``, each
action, and each showdown decision (``pN sm CARDS`` shows, ``pN sm`` mucks). As pokerkit
expects, when the betting ends with at most one player still holding chips before the river,
every player still in shows the cards they hold at that point, and shows again at the end.
Table settings PHH has no field for are user fields (``_button``, ``_rake_bps``,
``_rake_cap`` with -1 for no cap, …). A tournament hand names its tournament in the fields the
specification has: ``event`` (the tournament's name) and ``level`` (its 1-based level); the
tournament's number, for which it has none, is the user field ``_tournament``.

Some inputs have no place in pokerkit's PHH, so they are written as comment lines pokerkit
ignores and `replay_phh` applies: ``# pN times out: all-in protection (R19)``, and a show or
muck decision pokerkit does not ask for, written as a commented-out ``# pN sm …`` line: the
uncalled winner's choice (R23), and the decision of a player whose cards pokerkit already
turned up at an all-in. A timed-out check, fold or muck is its action with ``# timeout``.

Replaying builds the deck from the dealt cards (burns are not recorded: unused cards stand in
for them) and deals exactly the recorded cards, also after R9's reshuffle. A card written
``??`` is taken from the player's showdown line; else it gets a placeholder that decides
nothing (`phh_unknown`): unknown door cards follow the recorded bring-in, and the replay
refuses, naming the unknown card, where one would decide the order of action or be shown.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine.actions import Action, ActionKind, IllegalAction, LegalActions
from app.engine.cards import DECK, Card, format_cards
from app.engine.events import (
    AntePosted,
    Bet,
    BroughtIn,
    Called,
    CardDealt,
    Checked,
    CommunityCardDealt,
    Completed,
    Folded,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    Raised,
    ShowDeclined,
    StreetStarted,
    TimedOut,
    UncalledBetReturned,
)
from app.engine.hand import Hand
from app.engine.phh_unknown import UnknownCardError, describe, fill_unknown
from app.engine.rules import MAX_SEATS, Rules, SeatSpec
from app.engine.state import Phase, ReshuffleOrder
from app.engine.streets import STREETS, street_of
from app.engine.variants import VARIANTS, Variant

CODES: dict[str, Variant] = {spec.phh_code: v for v, spec in VARIANTS.items()}
"""PHH variant code -> our variant: F7S, F7S/8, FR."""

_PROTECTED = re.compile(r"^#\s*p(\d+) times out: all-in protection")
_COMMENTED_SM = re.compile(r"^#\s*(p\d+\s+sm\b.*)$")
_TIMEOUT = "timeout"


class PHHError(ValueError):
    """A PHH text that cannot be read or replayed; names the first action that failed."""

    def __init__(self, message: str, index: int | None = None, action: str | None = None):
        where = "" if index is None else f"action {index} {action!r}: "
        super().__init__(where + message)
        self.index = index
        self.action = action
        self.hand: Hand | None = None  # the hand as far as it was replayed, if it started


# -- export ---------------------------------------------------------------------------------


def to_phh(
    hand: Hand,
    *,
    hand_number: int | str | None = None,
    players: Mapping[int, str] | None = None,
    seat_count: int = MAX_SEATS,
    table: int | str | None = None,
    tournament: int | None = None,
    level: int | None = None,
    event: str | None = None,
) -> str:
    """The finished `hand` as PHH text. `players` maps seats to player names; a tournament
    hand gives its `tournament` number, `level` and the tournament's name as `event`."""
    if not hand.is_over:
        raise ValueError("only a finished hand can be written as a hand history")
    started = hand.events[0]
    assert isinstance(started, HandStarted)
    rules = hand.rules
    seats = started.seats
    label = {seat: f"p{i + 1}" for i, seat in enumerate(seats)}
    ended = hand.events[-1]
    assert isinstance(ended, HandEnded)
    fields: list[tuple[str, Any]] = [
        ("variant", hand.spec.phh_code),
        ("ante_trimming_status", True),
        ("antes", [rules.ante] * len(seats)),
        ("bring_in", rules.bring_in),
        ("small_bet", rules.small_bet),
        ("big_bet", rules.big_bet),
        ("starting_stacks", list(started.stacks)),
        ("actions", _actions(hand, label)),
        ("seat_count", seat_count),
        ("seats", [s + 1 for s in seats]),
    ]
    if players is not None:
        fields.append(("players", [players.get(s, f"seat {s + 1}") for s in seats]))
    optional = [("event", event), ("hand", hand_number), ("level", level), ("table", table)]
    fields += [(key, value) for key, value in optional if value is not None]
    if tournament is not None:
        fields.append(("_tournament", tournament))
    fields += [
        ("finishing_stacks", list(ended.stacks)),
        ("_button", started.button + 1),
        ("_rake_bps", rules.rake_bps),
        ("_rake_cap", -1 if rules.rake_cap is None else rules.rake_cap),
        ("_rake_third_street", rules.rake_third_street),
        ("_timeout_action", rules.timeout_action),
        ("_showdown_first_when_checked", rules.showdown_first_when_checked),
    ]
    return "".join(f"{key} = {_toml(value, key == 'actions')}\n" for key, value in fields)


_CHIPS_IN = (AntePosted, BroughtIn, Completed, Bet, Raised, Called)
"""The events that can put a seat all-in."""


def _actions(hand: Hand, label: Mapping[int, str]) -> list[str]:
    """The action lines of a finished hand, from its events."""
    out: list[str] = []
    started = hand.events[0]
    assert isinstance(started, HandStarted)
    order = started.seats
    cards: dict[int, list[Card]] = {s: [] for s in order}
    active = set(order)
    all_in: set[int] = set()
    protected: set[int] = set()
    hidden: set[int] = set()  # seats with a down card pokerkit has not seen shown
    third_street_written = shown_early = timeout = False
    for event in hand.events:
        if isinstance(event, CardDealt):
            cards[event.seat].append(event.card)  # type: ignore[arg-type]
            if not event.face_up:
                hidden.add(event.seat)
            if len(street_of(event.street).faces) == 1:  # a card a street: a line a card
                out.append(f"d dh {label[event.seat]} {event.card}")
            continue
        if not third_street_written and cards[order[0]]:  # one line per player, as pokerkit
            third_street_written = True
            out.extend(f"d dh {label[s]} {format_cards(cards[s])}" for s in order)
        suffix = " # timeout" if timeout else ""
        timeout = False
        if isinstance(event, _CHIPS_IN) and event.all_in:
            all_in.add(event.seat)
        if isinstance(event, StreetStarted):
            after_betting = event.street != STREETS[0].number
            if after_betting and not shown_early and _all_in_runout(active, all_in):
                shown_early = True  # pokerkit turns the hands up when the betting is over
                out.extend(f"{label[s]} sm {format_cards(cards[s])}" for s in order if s in active)
                hidden.clear()
        elif isinstance(event, CommunityCardDealt):
            out.append(f"d db {event.card}")
        elif isinstance(event, BroughtIn):
            out.append(f"{label[event.seat]} pb{suffix}")
        elif isinstance(event, Completed | Bet | Raised):
            out.append(f"{label[event.seat]} cbr {event.amount}{suffix}")
        elif isinstance(event, Called | Checked):
            out.append(f"{label[event.seat]} cc{suffix}")
        elif isinstance(event, Folded):
            out.append(f"{label[event.seat]} f{suffix}")
            active.discard(event.seat)
        elif isinstance(event, UncalledBetReturned):
            if event.seat not in protected:
                all_in.discard(event.seat)
        elif isinstance(event, TimedOut):
            if event.outcome == "all_in":
                out.append(f"# {label[event.seat]} times out: all-in protection (R19)")
                all_in.add(event.seat)
                protected.add(event.seat)
            else:
                timeout = True
        elif isinstance(event, HandShown | HandMucked | ShowDeclined):
            # pokerkit asks only for hands with a down card it has not seen
            asked = event.seat in hidden and len(active) > 1
            shown = f" {format_cards(event.cards)}" if isinstance(event, HandShown) else ""
            out.append(f"{'' if asked else '# '}{label[event.seat]} sm{shown}{suffix}")
    return out


def _all_in_runout(active: set[int], all_in: set[int]) -> bool:
    """Whether at most one player still in has chips behind (and two or more are in)."""
    return len(active) >= 2 and sum(1 for s in active if s not in all_in) <= 1


# -- TOML -----------------------------------------------------------------------------------

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f"}
_ESCAPES["\r"] = "\\r"


def _toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml(value: Any, multiline: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        items = [_toml(v) for v in value]
        if multiline and items:
            return "[\n" + "".join(f"    {item},\n" for item in items) + "]"
        return "[" + ", ".join(items) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


# -- import ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PHHReplay:
    """A history replayed through our engine: the hand and p1..pN's finishing stacks;
    `unknown` maps a player (0-based) to the indexes of their cards recorded as ``??`` that
    the replay dealt a placeholder for (see `phh_unknown`)."""

    hand: Hand
    seats: tuple[int, ...]
    finishing_stacks: list[int]
    unknown: dict[int, tuple[int, ...]] = field(default_factory=dict)
    tournament: int | None = None  # a tournament hand's tournament number and level
    level: int | None = None


@dataclass(frozen=True, slots=True)
class _Line:
    index: int
    text: str
    verb: str  # dh db pb f cc cbr sm | protect | comment
    player: int = -1  # 0-based
    cards: tuple[Card | None, ...] = ()
    amount: int | None = None
    show: bool = False
    timeout: bool = False


def _in_recorded_order(wanted: list[Card]) -> ReshuffleOrder:
    """R9's reshuffle for a replay: the gathered cards the history deals next come first, in
    its order; the rest follow as gathered."""

    def order(gathered: Sequence[Card]) -> list[Card]:
        first = [c for c in wanted if c in gathered]
        return first + [c for c in gathered if c not in first]

    return order


def read_phh(text: str) -> dict[str, Any]:
    """The fields of a PHH text (TOML), or PHHError."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PHHError(f"not a PHH (TOML) file: {exc}") from None


def replay_phh(text: str) -> PHHReplay:
    """Replay a PHH text through our engine. Raises PHHError naming the first action (its
    index in `actions` and its text) that cannot be applied, or what is wrong with the file."""
    fields = read_phh(text)
    rules = _rules(fields)
    stacks = _int_list(fields, "starting_stacks")
    n = len(stacks)
    if not 2 <= n <= MAX_SEATS:
        raise PHHError(f"a hand has 2 to {MAX_SEATS} players, not {n}")
    seats, button = _seats(fields, n)
    raw = fields.get("actions")
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise PHHError("'actions' must be a list of strings")
    lines = [_parse_line(i, a, n) for i, a in enumerate(raw)]
    recorded, community = _dealt_cards(lines, n)
    try:
        dealt, unknown = fill_unknown(
            recorded,
            _first_to_act(lines),
            [0 < stack <= rules.ante for stack in stacks],
            razz=rules.spec.razz,
        )
    except UnknownCardError as exc:
        raise PHHError(str(exc)) from None
    deck, wanted = _deck(dealt, community)
    try:
        hand = Hand.start(
            rules,
            [SeatSpec(s, c) for s, c in zip(seats, stacks, strict=True)],
            button,
            deck,
            reshuffle_order=_in_recorded_order(wanted),
        )
    except ValueError as exc:
        raise PHHError(str(exc)) from None
    _Replayer(hand, seats, lines, dealt, unknown).run()
    finishing = [hand.stacks[s] for s in seats]
    return PHHReplay(
        hand, seats, finishing, unknown, _whole(fields, "_tournament"), _whole(fields, "level")
    )


def _rules(fields: Mapping[str, Any]) -> Rules:
    code = fields.get("variant")
    if code not in CODES:
        raise PHHError(f"variant {code!r} is not one of {', '.join(CODES)}")
    for name in ("antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "actions"):
        if name not in fields:
            raise PHHError(f"the field {name!r} is missing")
    antes = fields["antes"]
    antes = antes if isinstance(antes, list) else [antes]
    if not antes or any(type(a) is not int for a in antes) or len(set(antes)) != 1:
        raise PHHError("antes must be one whole number of chips for every player")
    cap = fields.get("_rake_cap", -1)
    try:
        return Rules(
            CODES[code],
            antes[0],
            fields["bring_in"],
            fields["small_bet"],
            fields["big_bet"],
            rake_bps=fields.get("_rake_bps", 0),
            rake_cap=None if cap == -1 else cap,
            rake_third_street=bool(fields.get("_rake_third_street", False)),
            timeout_action=fields.get("_timeout_action", "all_in"),
            showdown_first_when_checked=fields.get("_showdown_first_when_checked", "first_to_act"),
        )
    except ValueError as exc:
        raise PHHError(str(exc)) from None


def _whole(fields: Mapping[str, Any], name: str) -> int | None:
    """An optional field that must be a whole number of 1 or more."""
    value = fields.get(name)
    if value is not None and (type(value) is not int or value < 1):
        raise PHHError(f"{name!r} must be a whole number from 1, not {value!r}")
    return value


def _int_list(fields: Mapping[str, Any], name: str) -> list[int]:
    value = fields.get(name)
    if not isinstance(value, list) or any(type(v) is not int for v in value):
        raise PHHError(f"{name!r} must be a list of whole numbers")
    return value


def _seats(fields: Mapping[str, Any], n: int) -> tuple[tuple[int, ...], int]:
    """Table seats (0-based) of p1..pN and the button; players must be in dealing order."""
    if "seats" in fields:
        numbers = _int_list(fields, "seats")
        if len(numbers) != n or len(set(numbers)) != n:
            raise PHHError("'seats' must give each player a different seat")
        if any(not 1 <= s <= MAX_SEATS for s in numbers):
            raise PHHError(f"seats are numbered 1 to {MAX_SEATS}")
        seats = tuple(s - 1 for s in numbers)
    else:
        seats = tuple(range(n))
    button = fields.get("_button", seats[-1] + 1)
    if type(button) is not int or not 1 <= button <= MAX_SEATS:
        raise PHHError(f"'_button' must be a seat number 1 to {MAX_SEATS}")
    button -= 1
    if sorted(seats, key=lambda s: (s - button - 1) % MAX_SEATS) != list(seats):
        raise PHHError("the players must be listed in dealing order, from the button's left")
    return seats, button


def _parse_cards(text: str) -> tuple[Card | None, ...]:
    if len(text) % 2:
        raise ValueError(f"not a run of cards: {text!r}")
    out: list[Card | None] = []
    for i in range(0, len(text), 2):
        token = text[i : i + 2]
        out.append(None if token == "??" else Card.parse(token))
    return tuple(out)


def _parse_line(index: int, text: str, n: int) -> _Line:
    body, _, comment = text.partition("#")
    words = body.split()
    if not words:
        m = _PROTECTED.match(text.strip())
        if m:
            return _Line(index, text, "protect", _player(index, text, "p" + m[1], n))
        m = _COMMENTED_SM.match(text.strip())
        if m:
            inner = _parse_line(index, m[1], n)
            return _Line(
                index, text, "sm", inner.player, inner.cards, None, inner.show, inner.timeout
            )
        return _Line(index, text, "comment")
    timeout = comment.strip() == _TIMEOUT
    match words:
        case ["d", "dh", who, cards]:
            return _Line(
                index, text, "dh", _player(index, text, who, n), _cards_or_error(index, text, cards)
            )
        case ["d", "db", cards]:
            return _Line(index, text, "db", cards=_cards_or_error(index, text, cards))
        case [who, ("pb" | "f" | "cc") as verb]:
            return _Line(index, text, verb, _player(index, text, who, n), timeout=timeout)
        case [who, "cbr", amount]:
            if not amount.isdigit():
                raise PHHError("amounts must be whole numbers of chips", index, text)
            return _Line(index, text, "cbr", _player(index, text, who, n), amount=int(amount))
        case [who, "sm"]:
            return _Line(index, text, "sm", _player(index, text, who, n), timeout=timeout)
        case [who, "sm", "-"]:
            return _Line(index, text, "sm", _player(index, text, who, n), show=True)
        case [who, "sm", cards]:
            return _Line(
                index,
                text,
                "sm",
                _player(index, text, who, n),
                _cards_or_error(index, text, cards),
                show=True,
            )
    raise PHHError("not a stud action", index, text)


def _player(index: int, text: str, word: str, n: int) -> int:
    if word[:1] == "p" and word[1:].isdigit() and 1 <= int(word[1:]) <= n:
        return int(word[1:]) - 1
    raise PHHError(f"{word!r} is not one of the players p1..p{n}", index, text)


def _cards_or_error(index: int, text: str, cards: str) -> tuple[Card | None, ...]:
    try:
        return _parse_cards(cards)
    except ValueError as exc:
        raise PHHError(str(exc), index, text) from None


def _dealt_cards(lines: Sequence[_Line], n: int) -> tuple[list[list[Card | None]], Card | None]:
    """Each player's cards in the order dealt, and the community card; a ``??`` card is taken
    from the player's showdown line when it shows it, else left None (unknown)."""
    dealt: list[list[Card | None]] = [[] for _ in range(n)]
    community: Card | None = None
    seen: set[Card] = set()
    shown: list[tuple[Card | None, ...]] = [() for _ in range(n)]
    for line in lines:
        if line.verb == "dh":
            dealt[line.player].extend(line.cards)
            if len(dealt[line.player]) > 7:
                raise PHHError(
                    f"p{line.player + 1} is dealt more than seven cards", line.index, line.text
                )
        elif line.verb == "db":
            if community is not None or len(line.cards) != 1 or line.cards[0] is None:
                raise PHHError("stud has at most one community card", line.index, line.text)
            community = line.cards[0]
        elif line.verb == "sm" and line.cards:
            shown[line.player] = line.cards
        if line.verb in ("dh", "db"):
            for card in line.cards:
                if card is not None and card in seen:
                    raise PHHError(f"{card} is dealt twice", line.index, line.text)
                if card is not None:
                    seen.add(card)
    for p, cards in enumerate(dealt):
        if len(cards) < 3:
            raise PHHError(f"p{p + 1} is not dealt the three cards of third street")
        if None in cards:
            extra = iter([c for c in shown[p] if c is not None and c not in cards])
            for i, card in enumerate(cards):
                if card is None:
                    found = next(extra, None)
                    if found is not None and found not in seen:
                        cards[i] = found
                        seen.add(found)
    return dealt, community


def _first_to_act(lines: Sequence[_Line]) -> int | None:
    """The player of the first betting line, if it comes before any fourth-street card: the
    bring-in (R10, R11); None when nobody bets on third street."""
    dealt: dict[int, int] = {}
    for line in lines:
        if line.verb == "dh":
            dealt[line.player] = dealt.get(line.player, 0) + len(line.cards)
            if dealt[line.player] > 3:
                return None
        elif line.verb in ("pb", "f", "cc", "cbr", "protect"):
            return line.player
    return None


def _deck(dealt: Sequence[Sequence[Card]], community: Card | None) -> tuple[list[Card], list[Card]]:
    """The 52 cards in the order our engine deals them (R7, R8), and the cards to deal after
    an R9 reshuffle."""
    first = STREETS[0].number
    deck: list[Card | None] = [cards[r] for r in range(first) for cards in dealt]
    wanted: list[Card] = []
    for street in STREETS[1:]:  # R8: one card each, a player's card number `number`
        number = street.number
        shared = street.last and community is not None
        receivers = [c for c in dealt if len(c) >= (number - 1 if shared else number)]
        if not receivers:
            break
        if street.burn and len(deck) < 52:
            deck.append(None)  # the burn
        street_cards = [community] if shared else [c[number - 1] for c in receivers]
        if 52 - len(deck) < len(receivers):  # R9: dealt from the reshuffled burns and stub
            wanted = [c for c in street_cards if c is not None]
            break
        deck.extend(street_cards)
    used = {c for c in deck if c is not None}  # the rest, `wanted` too, fill burns and stub
    spare = iter([c for c in DECK if c not in used])
    full = [c if c is not None else next(spare) for c in deck]
    full.extend(spare)
    return full, wanted


class _Replayer:
    """Applies the action lines to the hand, checking the deals against the history."""

    def __init__(
        self,
        hand: Hand,
        seats: tuple[int, ...],
        lines: list[_Line],
        dealt: list[list[Card]],
        unknown: dict[int, tuple[int, ...]],
    ) -> None:
        self.hand = hand
        self.seats = seats
        self.lines = lines
        self.dealt = dealt
        self.unknown = unknown
        self.checked = 0  # events checked for a shown hand holding a placeholder
        self.deals_checked = [0] * len(seats)
        self.last_deal = max((ln.index for ln in lines if ln.verb in ("dh", "db")), default=-1)
        self.pending: dict[int, _Line] = {}

    def run(self) -> None:
        for line in self.lines:
            try:
                self._apply(line)
                self._drain()
                self._check_shown(line)
            except IllegalAction as exc:
                error = PHHError(str(exc), line.index, line.text)
                error.hand = self.hand
                raise error from None
            except PHHError as exc:
                exc.hand = self.hand
                raise
        hand = self.hand
        while not hand.is_over and hand.phase is not Phase.BETTING:
            seat = hand.to_act
            assert seat is not None
            decision = self.pending.pop(seat) if seat in self.pending else None
            show = decision is not None and decision.show
            hand.act(seat, Action(ActionKind.SHOW if show else ActionKind.MUCK))
        try:
            self._check_shown(None)
        except PHHError as exc:
            exc.hand = hand
            raise
        if not hand.is_over:
            who = self._label(hand.to_act)
            error = PHHError(f"the history ends before the hand is over: {who} is to act")
            error.hand = hand
            raise error

    def _label(self, seat: int | None) -> str:
        return "nobody" if seat is None else f"p{self.seats.index(seat) + 1}"

    def _check_shown(self, line: _Line | None) -> None:
        """Refuse when the engine shows a hand holding a placeholder (R23: the cards speak,
        so the replay would guess the hand's value and maybe the pot's winner)."""
        events = self.hand.events
        for e in events[self.checked :]:
            if isinstance(e, HandShown):
                p = self.seats.index(e.seat)
                if p in self.unknown:
                    raise PHHError(
                        f"p{p + 1}'s hand is shown at the showdown, but the history does not "
                        f"record {describe(self.unknown, [p])}: its value would be a guess",
                        None if line is None else line.index,
                        None if line is None else line.text,
                    )
        self.checked = len(events)

    def _out_of_turn(self, line: _Line) -> PHHError:
        """The history has `line`'s player act where the engine has another; it names the
        unknown face-up cards of the players still in, which may decide the order (R12)."""
        hand = self.hand
        held: dict[int, tuple[int, ...]] = {}
        for p, s in enumerate(self.seats):
            state = hand.seat_state(s)
            up = tuple(i for i in self.unknown.get(p, ()) if 2 <= i < 2 + len(state.up))
            if up and not state.folded:
                held[p] = up
        why = f"it is {self._label(hand.to_act)}'s turn"
        if held:
            why += f"; the order of action depends on {describe(held)}, not recorded"
        return PHHError(why, line.index, line.text)

    def _drain(self) -> None:
        hand = self.hand
        while hand.phase is Phase.SHOWDOWN and hand.to_act in self.pending:
            line = self.pending.pop(hand.to_act)
            self._decide(line)

    def _decide(self, line: _Line) -> None:
        seat = self.seats[line.player]
        if line.timeout:
            self.hand.time_out(seat, all_in_protection=False)
        else:
            self.hand.act(seat, Action(ActionKind.SHOW if line.show else ActionKind.MUCK))

    def _apply(self, line: _Line) -> None:
        hand = self.hand
        verb = line.verb
        if verb == "comment":
            return
        if verb == "dh":
            self._check_deal(line)
            return
        if verb == "db":
            if hand.community != line.cards[0]:
                raise PHHError(
                    "our engine deals no community card here (R9)", line.index, line.text
                )
            return
        seat = self.seats[line.player]
        if verb == "sm":
            self._showdown_line(line, seat)
            return
        if hand.to_act != seat or hand.phase is not Phase.BETTING:
            if hand.is_over:
                raise PHHError("the hand is over", line.index, line.text)
            if hand.phase is not Phase.BETTING:
                raise PHHError("the betting is over", line.index, line.text)
            raise self._out_of_turn(line)
        if verb == "protect":
            hand.time_out(seat, all_in_protection=True)
        elif line.timeout:
            events = hand.time_out(seat, all_in_protection=False)
            got = "cc" if any(isinstance(e, Checked) for e in events) else "f"
            if got != verb:
                raise PHHError(
                    f"a timeout here is a {'check' if got == 'cc' else 'fold'}",
                    line.index,
                    line.text,
                )
        else:
            hand.act(seat, _action(line, hand.legal_actions()))

    def _check_deal(self, line: _Line) -> None:
        p = line.player
        seat = self.seats[p]
        got = [
            e.card
            for e in self.hand.events
            if isinstance(e, CardDealt) and e.seat == seat and e.card is not None
        ]
        start = self.deals_checked[p]
        want = self.dealt[p][start : start + len(line.cards)]
        if got[start : start + len(want)] != want:
            if len(got) < start + len(want):
                why = "our engine has not dealt this card yet (the betting is not over)"
                if self.hand.is_over or self.hand.phase is not Phase.BETTING:
                    why = "our engine deals this player no more cards"
            else:
                why = f"our engine deals {format_cards(got[start : start + len(want)])} here"
            raise PHHError(why, line.index, line.text)
        self.deals_checked[p] = start + len(want)

    def _showdown_line(self, line: _Line, seat: int) -> None:
        hand = self.hand
        mine = self.dealt[line.player]
        shown = [c for c in line.cards if c is not None]
        if any(c not in mine for c in shown):
            raise PHHError(f"p{line.player + 1} was not dealt these cards", line.index, line.text)
        if line.index < self.last_deal:
            return  # pokerkit's early show at an all-in: the cards are on the table anyway
        if hand.phase is Phase.BETTING:
            raise PHHError("this is not the showdown", line.index, line.text)
        if hand.to_act == seat:
            self._decide(line)  # a showdown decision, or the uncalled winner's (R23)
            return
        done = any(isinstance(e, HandShown | HandMucked) and e.seat == seat for e in hand.events)
        if done:
            return  # shown by the engine (the cards speak, R23)
        if hand.is_over:
            raise PHHError(f"p{line.player + 1} is not in the showdown", line.index, line.text)
        self.pending[seat] = line


def _action(line: _Line, legal: LegalActions) -> Action:
    """The engine action for a PHH betting line."""
    verb, amount = line.verb, line.amount
    if verb == "pb":
        return Action(ActionKind.BRING_IN)
    if verb == "f":
        return Action(ActionKind.FOLD)
    if verb == "cc":
        if legal.check:
            return Action(ActionKind.CHECK)
        return Action(ActionKind.CALL)
    if amount == legal.complete:
        return Action(ActionKind.COMPLETE, amount)
    if amount in legal.bets:
        return Action(ActionKind.BET, amount)
    if amount in legal.raises:
        return Action(ActionKind.RAISE, amount)
    if amount == legal.bring_in:
        return Action(ActionKind.BRING_IN, amount)
    # not legal: let the engine say why
    if legal.bring_in is not None or legal.complete is not None:
        return Action(ActionKind.COMPLETE, amount)
    if legal.bets:
        return Action(ActionKind.BET, amount)
    return Action(ActionKind.RAISE, amount)
