"""Cards: parsing and formatting, the deck, and shuffling sources."""

from __future__ import annotations

import random

import pytest

from app.engine.cards import (
    DECK,
    Card,
    Rank,
    Suit,
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


def test_default_shuffle_uses_the_system_csprng(monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[int] = []

    class Spy(random.SystemRandom):
        def shuffle(self, x: list[Card]) -> None:  # type: ignore[override]
            used.append(len(x))
            super().shuffle(x)

    monkeypatch.setattr("app.engine.cards.secrets.SystemRandom", Spy)
    deck = shuffled_deck()
    assert used == [52]
    assert sorted(deck) == list(DECK)
