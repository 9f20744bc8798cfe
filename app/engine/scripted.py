"""Build a 52-card deck that deals chosen cards to chosen seats: for tests and replays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.engine.actions import Action, ActionKind
from app.engine.cards import DECK, Card
from app.engine.events import Event
from app.engine.hand import Hand
from app.engine.rules import MAX_SEATS, Rules, SeatSpec

UNKNOWN = "??"


def _tokens(text: str) -> list[str]:
    compact = "".join(text.split())
    return [compact[i : i + 2] for i in range(0, len(compact), 2)]


def dealing_order(seats: Sequence[int], button: int) -> list[int]:
    """The seats in the order the cards go round: left of the button first (R7)."""
    return sorted(seats, key=lambda s: (s - button - 1) % MAX_SEATS)


def scripted_deck(
    order: Sequence[int],
    hands: Mapping[int, str],
    *,
    burns: str = "",
    last_street: Mapping[int, int] | None = None,
    filler: Sequence[Card] = DECK,
) -> list[Card]:
    """A deck so that seat `s` (in dealing `order`) gets `hands[s]`, e.g. ``"2c3dAs"`` or
    ``"?? ?? As Kd"`` (cards in the order dealt; ``??`` or a short string leaves it to the
    filler). `burns` are the burns before streets 4..7; `last_street[s]` is the last street
    seat `s` is dealt (it folds before the next one), default 7. Other places get the unused
    cards of `filler` in order. Past a 52nd card (R9) nothing more can be scripted."""
    last = dict.fromkeys(order, 7) | dict(last_street or {})
    wanted: list[str] = []
    for round_ in range(3):
        wanted.extend(_card_at(hands, s, round_) for s in order)
    burn_tokens = _tokens(burns)
    for street in range(4, 8):
        wanted.append(burn_tokens[street - 4] if street - 4 < len(burn_tokens) else UNKNOWN)
        wanted.extend(_card_at(hands, s, street - 1) for s in order if last[s] >= street)
    for s in order:
        extra = _tokens(hands.get(s, ""))[3 + sum(1 for t in range(4, 8) if last[s] >= t) :]
        if any(t != UNKNOWN for t in extra):
            raise ValueError(f"seat {s} is given cards it is never dealt")
    chosen = [Card.parse(t) for t in wanted[:52] if t != UNKNOWN]
    if len(set(chosen)) != len(chosen):
        raise ValueError("a card is scripted twice")
    if any(t != UNKNOWN for t in wanted[52:]):
        raise ValueError("cards scripted past the end of the deck")
    spare = iter([c for c in filler if c not in set(chosen)])
    deck = [next(spare) if t == UNKNOWN else Card.parse(t) for t in wanted[:52]]
    deck.extend(spare)
    return deck


def _card_at(hands: Mapping[int, str], seat: int, index: int) -> str:
    tokens = _tokens(hands.get(seat, ""))
    return tokens[index] if index < len(tokens) else UNKNOWN


def parse_action(text: str) -> Action:
    """``"fold"``, ``"call"``, ``"bring_in 10"``, ``"raise 40"``, ``"show"`` … as an Action."""
    kind, _, amount = text.strip().partition(" ")
    return Action(ActionKind(kind), int(amount) if amount.strip() else None)


def play(hand: Hand, moves: str) -> list[Event]:
    """Apply ``"3: bring_in, 5: call, 0: complete 20"`` in order; returns the new events."""
    events: list[Event] = []
    for move in filter(None, (m.strip() for m in moves.split(","))):
        seat, _, action = move.partition(":")
        events.extend(hand.act(int(seat), parse_action(action)))
    return events


def scripted_hand(
    rules: Rules,
    stacks: Mapping[int, int],
    hands: Mapping[int, str],
    *,
    button: int,
    burns: str = "",
    last_street: Mapping[int, int] | None = None,
    reshuffle_seed: bytes = b"",
) -> Hand:
    """Start a hand whose deck deals `hands` (see `scripted_deck`); `stacks` by seat."""
    order = dealing_order(list(stacks), button)
    deck = scripted_deck(order, hands, burns=burns, last_street=last_street)
    seats = [SeatSpec(s, stacks[s]) for s in sorted(stacks)]
    return Hand.start(rules, seats, button, deck, reshuffle_seed)
