"""Cards: parsing and formatting, the deck, and shuffling sources."""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter

import pytest

from app.engine.cards import (
    DECK,
    Card,
    KeyedShuffler,
    Rank,
    Suit,
    _Words,
    format_cards,
    parse_cards,
    seeded_rng,
    shuffled_deck,
)


def test_parse_cards_returns_cards_and_round_trips() -> None:
    cards = parse_cards("AsKd7c")
    assert cards == (Card.parse("As"), Card.parse("Kd"), Card.parse("7c"))
    assert all(isinstance(c, Card) for c in cards)
    assert [str(c) for c in cards] == ["As", "Kd", "7c"]
    assert format_cards(cards) == "AsKd7c"


def test_every_card_round_trips_through_its_text() -> None:
    assert len(DECK) == 52
    assert len({str(c) for c in DECK}) == 52
    for card in DECK:
        assert Card.parse(str(card)) is card
        assert Card.of(card.rank, card.suit) is card


def test_parse_accepts_ten_and_spaces_and_rejects_garbage() -> None:
    assert parse_cards("10h Th") == (Card.parse("Th"), Card.parse("Th"))
    for bad in ("Ax", "1s", "A", "AsK", "Zz"):
        with pytest.raises(ValueError):
            parse_cards(bad)


def test_rank_and_suit_order() -> None:
    assert Card.parse("As").rank is Rank.ACE
    assert Card.parse("As").suit is Suit.SPADES
    assert Suit.CLUBS < Suit.DIAMONDS < Suit.HEARTS < Suit.SPADES
    assert Rank.ACE.low_value == 1
    assert Rank.KING.low_value == 13


def test_seeded_shuffle_is_reproducible_and_a_permutation() -> None:
    a = shuffled_deck(seeded_rng(7))
    b = shuffled_deck(seeded_rng(7))
    assert a == b
    assert sorted(a) == list(DECK)
    assert a != shuffled_deck(seeded_rng(8))


def test_default_shuffle_is_keyed_by_the_system_csprng_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One 256-bit key from the OS a deck (one system call, issue 26), the deck its
    SHAKE-256 stream's Fisher-Yates: the same key the same deck, another key another."""
    keys: list[int] = []
    real = secrets.token_bytes

    def spy(n: int) -> bytes:
        keys.append(n)
        return real(n)

    monkeypatch.setattr("app.engine.cards.secrets.token_bytes", spy)
    deck = shuffled_deck()
    assert keys == [32]
    assert sorted(deck) == list(DECK)
    key = bytes(range(32))
    same = shuffled_deck(KeyedShuffler(key))
    assert same == shuffled_deck(KeyedShuffler(key)) and sorted(same) == list(DECK)
    assert same != shuffled_deck(KeyedShuffler(bytes(32)))


def test_the_keyed_shuffle_is_uniform_and_reads_its_stream_in_order() -> None:
    # every card lands first about equally often over 52,000 fixed keys (deterministic):
    # chi-square with 51 degrees of freedom stays under 100 (p < 0.0001 of that by chance)
    firsts = Counter(
        shuffled_deck(KeyedShuffler(hashlib.sha256(b"%d" % i).digest()))[0] for i in range(52_000)
    )
    assert len(firsts) == 52
    assert sum((n - 1000) ** 2 / 1000 for n in firsts.values()) < 100
    # the words are SHAKE-256's in order, the stream lengthened past what was expected
    words = _Words(b"k", 1)
    drawn = [words.below(1 << 63) for _ in range(12)]
    stream = hashlib.shake_256(b"k").digest(96)
    expect = [int.from_bytes(stream[8 * i : 8 * i + 8], "big") for i in range(12)]
    # below 2**63 accepts every word (the limit is 2**64) and reduces it mod 2**63
    assert drawn == [w % (1 << 63) for w in expect]
