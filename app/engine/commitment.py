"""The provably fair deal: a per-card commitment before the first card, opened card by card.

Exact bytes (docs/fairness.md); ``‖`` is concatenation, SHA-256 digests are raw 32 bytes:

- master salt ``M``: 32 random bytes per hand (the table draws it; nothing random here).
  Never shown to players; the finished record keeps it for the operators.
- position salt ``s_i = SHA-256(M ‖ b"card" ‖ bytes([i]))`` for deck position i = 0..51
  (position i is the i-th card the engine deals from).
- leaf ``L_i = SHA-256(s_i ‖ card_i)``, ``card_i`` two ASCII characters, e.g. ``b"As"``
  (ranks ``23456789TJQKA``, suits ``cdhs``).
- commitment ``C = SHA-256(L_0 ‖ … ‖ L_51)``, 64 lower-case hex digits.
- R9's reshuffle seed ``SHA-256(M ‖ b"reshuffle")``, revealed after the hand.

A reveal gives, per position, either the card and its ``s_i`` (the card is opened) or only
``L_i`` (the card stays hidden: ``L_i`` says nothing of it, and ``s_i`` says nothing of
``M`` nor of any other ``s_j``). Anyone recomputes ``C`` from a reveal, and checks that the
cards of the hand came from the positions the engine deals from (`check_deal`).

A reveal opens only positions its audience has already seen (`seen_positions`): the up
cards, the hands shown, the audience's own down cards. Never the burns nor the undealt stub:
with those open, the 52 cards minus everything opened would be exactly the hidden hands.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from app.engine.cards import Card

SCHEME = "sha256-per-card-v1"
SALT_BYTES = 32
DECK_SIZE = 52


def _sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def deck_text(deck: Sequence[Card]) -> str:
    """The deck in deal order as ``"As7d2c…"``."""
    return "".join(str(card) for card in deck)


def parse_deck(text: str) -> list[Card]:
    """The cards of a deck text (two characters each)."""
    text = text.strip()
    if len(text) % 2:
        raise ValueError("a deck text is two characters per card")
    return [Card.parse(text[i : i + 2]) for i in range(0, len(text), 2)]


def _cards(deck: Sequence[Card] | str) -> list[Card]:
    cards = parse_deck(deck) if isinstance(deck, str) else list(deck)
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        raise ValueError("a deck is the 52 cards, each once")
    return cards


def _master(master: bytes) -> bytes:
    if len(master) != SALT_BYTES:
        raise ValueError(f"the master salt is {SALT_BYTES} bytes")
    return master


def position_salt(master: bytes, position: int) -> bytes:
    """``s_i = SHA-256(M ‖ b"card" ‖ bytes([i]))``."""
    return _sha(_master(master) + b"card" + bytes((position,)))


def leaf(salt: bytes, card: Card | str) -> bytes:
    """``L_i = SHA-256(s_i ‖ card as two ASCII characters)``."""
    return _sha(salt + str(card).encode("ascii"))


def _root(leaves: Iterable[bytes]) -> str:
    return hashlib.sha256(b"".join(leaves)).hexdigest()


def commit(deck: Sequence[Card] | str, master: bytes) -> str:
    """The commitment ``C`` to the deck, as lower-case hex."""
    cards = _cards(deck)
    return _root(leaf(position_salt(master, i), card) for i, card in enumerate(cards))


def reshuffle_seed(master: bytes) -> bytes:
    """R9's reshuffle seed ``SHA-256(M ‖ b"reshuffle")`` (revealed after the hand)."""
    return _sha(_master(master) + b"reshuffle")


class Opening:
    """A deck's salts and leaves, computed once, to reveal it to several audiences."""

    def __init__(self, deck: Sequence[Card] | str, master: bytes) -> None:
        self.cards = _cards(deck)
        self.salts = [position_salt(master, i) for i in range(DECK_SIZE)]
        self.leaves = [leaf(salt, card) for salt, card in zip(self.salts, self.cards, strict=True)]
        self.commitment = _root(self.leaves)
        self.reshuffle_seed = reshuffle_seed(master).hex()

    def reveal(self, opened: Collection[int]) -> dict[str, Any]:
        """The opening for one audience: the card and salt of each `opened` position (what
        that audience has seen, `seen_positions`), only the leaf of every other."""
        positions: list[dict[str, Any]] = [
            {"position": i, "card": str(self.cards[i]), "salt": self.salts[i].hex()}
            if i in opened
            else {"position": i, "leaf": self.leaves[i].hex()}
            for i in range(DECK_SIZE)
        ]
        return {
            "scheme": SCHEME,
            "commitment": self.commitment,
            "reshuffle_seed": self.reshuffle_seed,
            "positions": positions,
        }


def reveal(deck: Sequence[Card] | str, master: bytes, opened: Collection[int]) -> dict[str, Any]:
    """`Opening(deck, master).reveal(opened)`: one audience's opening."""
    return Opening(deck, master).reveal(opened)


def opened_cards(reveal: Mapping[str, Any]) -> list[Card | None]:
    """The card at each position of a well-formed reveal (None: hidden). ValueError if the
    reveal is malformed (not 52 positions, a bad card or hex, a card twice)."""
    positions = reveal.get("positions")
    if not isinstance(positions, list) or len(positions) != DECK_SIZE:
        raise ValueError("a reveal has the 52 positions")
    cards: list[Card | None] = []
    for i, p in enumerate(positions):
        if p.get("position", i) != i:
            raise ValueError(f"position {i} is out of order")
        if "leaf" in p:
            if len(bytes.fromhex(p["leaf"])) != 32:
                raise ValueError(f"position {i}: a leaf is 32 bytes")
            cards.append(None)
            continue
        card = Card.parse(p["card"])
        if str(card) != p["card"] or len(bytes.fromhex(p["salt"])) != 32:
            raise ValueError(f"position {i}: a card is two letters and its salt 32 bytes")
        cards.append(card)
    known = [c for c in cards if c is not None]
    if len(set(known)) != len(known):
        raise ValueError("a card is revealed twice")
    return cards


def reveal_root(reveal: Mapping[str, Any]) -> str:
    """``C`` recomputed from a reveal (the one-line check of docs/fairness.md)."""
    opened_cards(reveal)
    return _root(
        bytes.fromhex(p["leaf"]) if "leaf" in p else leaf(bytes.fromhex(p["salt"]), p["card"])
        for p in reveal["positions"]
    )


def verify_reveal(commitment: str, reveal: Mapping[str, Any]) -> bool:
    """Whether `reveal` opens `commitment`: the leaves recomputed from the revealed cards and
    salts, with the hidden leaves, hash to it."""
    try:
        root = reveal_root(reveal)
    except (ValueError, KeyError, TypeError, AttributeError):
        return False
    return hmac.compare_digest(root, commitment.strip().lower())


def seen_positions(
    deck: Sequence[Card] | str, events: Iterable[Mapping[str, Any]], seats: Collection[int]
) -> set[int]:
    """The deck positions an audience has seen (events as dicts, with their cards): every
    card dealt face up (and a community card), and the face-down cards of `seats` (its own,
    and the hands shown to it). Not a burn, not the stub."""
    return Dealt(deck, events).seen_by(seats)


class Dealt:
    """A hand's dealt cards by deck position, read from its events once: what each audience
    has seen (`seen_by`), for the table and then each seat, without parsing every card
    again for each."""

    __slots__ = ("cards",)

    def __init__(self, deck: Sequence[Card] | str, events: Iterable[Mapping[str, Any]]) -> None:
        where = {card: i for i, card in enumerate(_cards(deck))}
        # (position, seen by everyone, the seat it was dealt to face down)
        self.cards: list[tuple[int, bool, int | None]] = []
        for e in events:
            kind = e["type"]
            if (kind == "card_dealt" or kind == "community_card_dealt") and e.get("card"):
                public = kind == "community_card_dealt" or bool(e["face_up"])
                seat = None if public else e["seat"]
                self.cards.append((where[Card.parse(e["card"])], public, seat))

    def seen_by(self, seats: Collection[int]) -> set[int]:
        """The positions an audience of `seats` has seen (`seen_positions`)."""
        return {pos for pos, public, seat in self.cards if public or seat in seats}


def shown_seats(events: Iterable[Mapping[str, Any]]) -> set[int]:
    """The seats whose hands were shown to everyone at the table (observers too)."""
    return {e["seat"] for e in events if e["type"] == "hand_shown"}


def _sort_key(seed: bytes, card: Card) -> bytes:
    return _sha(seed + bytes((int(card),)))


def check_deal(events: Iterable[Mapping[str, Any]], reveal: Mapping[str, Any]) -> list[str]:
    """What is wrong (empty: nothing) between a hand's dealt cards (events as dicts; a
    hidden card is None) and the deck positions a reveal opens, following the engine's
    dealing: third street from position 0 in the events' order, a burn before each later
    street, R9's reshuffle of the burns and the stub by ``SHA-256(seed ‖ bytes([card]))``
    (card = 4 × rank index + suit index). Checks the cards only, not the commitment."""
    try:
        cards = opened_cards(reveal)
        seed = bytes.fromhex(reveal["reshuffle_seed"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return [f"the reveal is malformed: {exc}"]
    order: list[int] = list(range(DECK_SIZE))
    pos = 0
    burns: list[int] = []
    partial: list[int] | None = None  # gathered positions, when a hidden card is among them
    last_key = b""
    problems: list[str] = []
    for e in events:
        kind = e["type"]
        if kind == "street_started" and e["street"] >= 4 and pos < len(order):
            burns.append(order[pos])
            pos += 1
        elif kind == "burns_reshuffled":
            gathered = burns + order[pos:]
            if len(gathered) != e["count"]:
                problems.append("the reshuffle gathers another number of cards")
            burns, pos = [], 0
            known = [(i, c) for i in gathered if (c := cards[i]) is not None]
            if len(known) == len(gathered):
                order = sorted(gathered, key=lambda i: _sort_key(seed, known_card(cards, i)))
            else:
                partial, order = gathered, gathered
        elif kind in ("card_dealt", "community_card_dealt"):
            shown = Card.parse(e["card"]) if e.get("card") else None
            where = f"street {e.get('street')} card {e.get('card') or '??'}"
            if partial is not None:
                problems.extend(_partial_deal(partial, cards, shown, seed, last_key, where))
                if shown is not None:
                    last_key = _sort_key(seed, shown)
                continue
            if pos >= len(order):
                problems.append(f"{where}: dealt past the end of the deck")
                continue
            i = order[pos]
            pos += 1
            if shown is not None and cards[i] != shown:
                problems.append(f"{where}: position {i} holds {cards[i] or 'a hidden card'}")
    return problems


def known_card(cards: Sequence[Card | None], position: int) -> Card:
    card = cards[position]
    assert card is not None
    return card


def _partial_deal(
    gathered: list[int],
    cards: Sequence[Card | None],
    shown: Card | None,
    seed: bytes,
    last_key: bytes,
    where: str,
) -> list[str]:
    """After a reshuffle that gathered a hidden card: each shown card must be one gathered,
    in increasing sort-key order (the hidden ones cannot be ordered by anyone)."""
    if shown is None:
        hidden = [i for i in gathered if cards[i] is None]
        if not hidden:
            return [f"{where}: no hidden card was gathered"]
        gathered.remove(hidden[0])
        return []
    match = [i for i in gathered if cards[i] == shown]
    if not match:
        return [f"{where}: not among the gathered burns and stub"]
    gathered.remove(match[0])
    if _sort_key(seed, shown) < last_key:
        return [f"{where}: out of the reshuffle's order"]
    return []
