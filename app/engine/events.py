"""What happened in a hand: immutable, past-tense events, each with its audience.

`audience` is None for everyone, or the one seat that may see the event (a face-down card).
`public()` is what everyone else may see of it: the same event without the card.
`to_dict()` is JSON-friendly: ``{"type": "card_dealt", "audience": 3, "seat": 3, "card": "As"
…}`` with cards as two-letter strings.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from app.engine.cards import Card

_CARD_FIELDS = frozenset({"card", "cards"})
_E = TypeVar("_E", bound=type)


def _fast_init(cls: _E) -> _E:
    """Give a frozen dataclass an `__init__` that binds `object.__setattr__` once: about
    twice as fast as the generated one, and events are made on the engine's hot path."""
    names = [f.name for f in fields(cls)]
    body = "".join(f"\n    _set(self, {n!r}, {n})" for n in names)
    namespace: dict[str, Any] = {}
    exec(f"def __init__(self, {', '.join(names)}):{body}", {"_set": object.__setattr__}, namespace)
    cls.__init__ = namespace["__init__"]  # type: ignore[misc]
    return cls


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _jsonable(name: str, value: Any) -> Any:
    if name in _CARD_FIELDS:
        if value is None:
            return None
        if isinstance(value, tuple):
            return [str(c) for c in value]
        return str(value)
    if isinstance(value, tuple):
        return [_jsonable("", v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"

    @property
    def audience(self) -> int | None:
        return None

    def public(self) -> Event:
        return self

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "audience": self.audience}
        names = _FIELD_NAMES.get(type(self))
        if names is None:  # once per event class: `fields()` is slow for every event
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in fields(self))
        for name in names:
            out[name] = _jsonable(name, getattr(self, name))
        return out


@_fast_init
@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """The hand began; `seats` and `stacks` are in dealing order (left of the button first)."""

    type: ClassVar[str] = "hand_started"

    variant: str
    button: int
    seats: tuple[int, ...]
    stacks: tuple[int, ...]


@_fast_init
@dataclass(frozen=True, slots=True)
class AntePosted(Event):
    type: ClassVar[str] = "ante_posted"
    seat: int
    amount: int
    all_in: bool


@_fast_init
@dataclass(frozen=True, slots=True)
class StreetStarted(Event):
    type: ClassVar[str] = "street_started"
    street: int


@_fast_init
@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """A card to one seat; a face-down card is seen only by that seat (`card` is None in the
    public counterpart)."""

    type: ClassVar[str] = "card_dealt"

    seat: int
    card: Card | None
    face_up: bool
    street: int

    @property
    def audience(self) -> int | None:
        return None if self.face_up or self.card is None else self.seat

    def public(self) -> Event:
        if self.face_up:
            return self
        return CardDealt(self.seat, None, False, self.street)


@_fast_init
@dataclass(frozen=True, slots=True)
class BurnsReshuffled(Event):
    """R9: the burns and the stub (`count` cards) were gathered and shuffled."""

    type: ClassVar[str] = "burns_reshuffled"

    count: int


@_fast_init
@dataclass(frozen=True, slots=True)
class CommunityCardDealt(Event):
    """R9: one face-up card in the middle, every active player's seventh card."""

    type: ClassVar[str] = "community_card_dealt"

    card: Card
    street: int


@_fast_init
@dataclass(frozen=True, slots=True)
class BringInDue(Event):
    """Who must bring in (R10, R11); the prompt after the third-street deal."""

    type: ClassVar[str] = "bring_in_due"

    seat: int


@_fast_init
@dataclass(frozen=True, slots=True)
class BroughtIn(Event):
    type: ClassVar[str] = "brought_in"
    seat: int
    amount: int
    all_in: bool


@_fast_init
@dataclass(frozen=True, slots=True)
class Completed(Event):
    """To `amount`; `full` is False for an all-in short of the completion (R18)."""

    type: ClassVar[str] = "completed"

    seat: int
    amount: int
    all_in: bool
    full: bool


@_fast_init
@dataclass(frozen=True, slots=True)
class Bet(Event):
    """To `amount`; `full` is False for an all-in that does not count as a bet (R18)."""

    type: ClassVar[str] = "bet"

    seat: int
    amount: int
    all_in: bool
    full: bool


@_fast_init
@dataclass(frozen=True, slots=True)
class Raised(Event):
    """To `amount`; `full` is False for an all-in that does not count as a raise (R18)."""

    type: ClassVar[str] = "raised"

    seat: int
    amount: int
    all_in: bool
    full: bool


@_fast_init
@dataclass(frozen=True, slots=True)
class Called(Event):
    """`amount` is the chips the call added."""

    type: ClassVar[str] = "called"

    seat: int
    amount: int
    all_in: bool


@_fast_init
@dataclass(frozen=True, slots=True)
class Checked(Event):
    type: ClassVar[str] = "checked"
    seat: int


@_fast_init
@dataclass(frozen=True, slots=True)
class Folded(Event):
    type: ClassVar[str] = "folded"
    seat: int


@_fast_init
@dataclass(frozen=True, slots=True)
class TimedOut(Event):
    """R19; `outcome` is ``"all_in"`` (protection used), ``"check"``, ``"fold"`` or
    ``"muck"`` (a show/muck decision left to its default)."""

    type: ClassVar[str] = "timed_out"

    seat: int
    outcome: str


@_fast_init
@dataclass(frozen=True, slots=True)
class UncalledBetReturned(Event):
    type: ClassVar[str] = "uncalled_bet_returned"
    seat: int
    amount: int


@_fast_init
@dataclass(frozen=True, slots=True)
class ShowdownStarted(Event):
    """R22: the order in which hands are shown."""

    type: ClassVar[str] = "showdown_started"

    order: tuple[int, ...]


@_fast_init
@dataclass(frozen=True, slots=True)
class HandShown(Event):
    """All of the seat's own cards in the order dealt, with what they make."""

    type: ClassVar[str] = "hand_shown"

    seat: int
    cards: tuple[Card, ...]
    high: str | None
    low: str | None


@_fast_init
@dataclass(frozen=True, slots=True)
class HandMucked(Event):
    type: ClassVar[str] = "hand_mucked"
    seat: int


@_fast_init
@dataclass(frozen=True, slots=True)
class ShowDeclined(Event):
    """R23: the uncalled winner chose not to show."""

    type: ClassVar[str] = "show_declined"

    seat: int


@_fast_init
@dataclass(frozen=True, slots=True)
class RakeTaken(Event):
    type: ClassVar[str] = "rake_taken"
    amount: int


@_fast_init
@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    """`pot` 0 is the main pot; `share` is ``"whole"``, ``"high"`` or ``"low"``."""

    type: ClassVar[str] = "pot_awarded"

    pot: int
    seat: int
    amount: int
    share: str


@_fast_init
@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """Final stacks in dealing order (the same order as `HandStarted.seats`)."""

    type: ClassVar[str] = "hand_ended"

    seats: tuple[int, ...]
    stacks: tuple[int, ...]
