"""The provably fair deal: a commitment to the deck before the first card, revealed after.

Byte format (docs/fairness.md): the deck is its 52 cards in deal order as two-letter text,
``"As7d2c…"`` (ranks ``23456789TJQKA``, suits ``cdhs``), ASCII; the salt is 32 random bytes.

    commitment = SHA-256(salt || deck_text)   (lower-case hex)

R9's reshuffle seed is the salt itself, so the reshuffle's order is committed too. The check,
in one line: ``python3 -c "import hashlib;print(hashlib.sha256(bytes.fromhex('SALT')+b'DECK')
.hexdigest())"`` prints the commitment announced when the hand began.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from app.engine.cards import Card

SCHEME = "sha256(salt||deck)"
SALT_BYTES = 32


def deck_text(deck: Sequence[Card]) -> str:
    """The deck in deal order as ``"As7d2c…"``."""
    return "".join(str(card) for card in deck)


def parse_deck(text: str) -> list[Card]:
    """The cards of a deck text (two characters each)."""
    text = text.strip()
    if len(text) % 2:
        raise ValueError("a deck text is two characters per card")
    return [Card.parse(text[i : i + 2]) for i in range(0, len(text), 2)]


def commit(deck: Sequence[Card] | str, salt: bytes) -> str:
    """SHA-256 over the salt and the deck text, as lower-case hex."""
    if len(salt) != SALT_BYTES:
        raise ValueError(f"the salt is {SALT_BYTES} bytes")
    text = deck if isinstance(deck, str) else deck_text(deck)
    return hashlib.sha256(salt + text.encode("ascii")).hexdigest()


def reshuffle_seed(salt: bytes) -> bytes:
    """R9's reshuffle seed: the salt (so the commitment covers the reshuffle too)."""
    return salt


def verify(commitment: str, salt_hex: str, deck: str) -> bool:
    """Whether `deck` (text) and `salt_hex` are what `commitment` was made from."""
    try:
        salt = bytes.fromhex(salt_hex)
        expected = commit(deck, salt)
    except ValueError:
        return False
    return hmac.compare_digest(expected, commitment.strip().lower())
