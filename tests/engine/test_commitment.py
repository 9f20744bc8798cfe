"""The per-card commitment (docs/fairness.md): it verifies for a real hand, for every audience,
fails for any change, and its hidden positions say nothing of their cards."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.engine import Action, ActionKind, Hand, Rules, SeatSpec, Variant, commitment
from app.engine.cards import DECK, Card
from app.engine.scripted import scripted_deck

MASTER = bytes(range(32))
RULES = Rules(Variant.STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)


def passive(
    seat_folds: Callable[[Hand, int], bool] = lambda h, s: False,
) -> Callable[[Hand], Action]:
    def choose(hand: Hand) -> Action:
        legal = hand.legal_actions()
        if legal.muck:
            return Action(ActionKind.MUCK)
        if legal.show:
            return Action(ActionKind.SHOW)
        if legal.fold and seat_folds(hand, legal.seat):
            return Action(ActionKind.FOLD)
        if legal.bring_in is not None:
            return Action(ActionKind.BRING_IN, legal.bring_in)
        if legal.check:
            return Action(ActionKind.CHECK)
        return Action(ActionKind.CALL)

    return choose


def play(deck: list[Card], seats: int, choose: Callable[[Hand], Action]) -> Hand:
    hand = Hand.start(
        RULES, [SeatSpec(s, 1000) for s in range(seats)], seats - 1, deck,
        commitment.reshuffle_seed(MASTER),
    )  # fmt: skip
    while not hand.is_over:
        assert hand.to_act is not None
        hand.act(hand.to_act, choose(hand))
    return hand


def events(hand: Hand) -> list[dict[str, Any]]:
    return [e.to_dict() for e in hand.events]


def shuffled(seed: int) -> list[Card]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


def masked(evs: list[dict[str, Any]], hidden_seats: set[int]) -> list[dict[str, Any]]:
    """The events as an audience sees them: the hidden seats' down cards as None."""
    return [
        {**e, "card": None}
        if e["type"] == "card_dealt" and not e["face_up"] and e["seat"] in hidden_seats
        else e
        for e in evs
    ]


def folding_hand() -> tuple[list[Card], Hand]:
    """Seat 1 folds, seats 0, 2 and 3 go to the showdown."""
    deck = shuffled(0)
    hand = play(deck, 4, passive(lambda h, s: s == 1))
    assert hand.result is not None and hand.result.showdown
    assert any(e["type"] == "folded" and e["seat"] == 1 for e in events(hand))
    return deck, hand


def test_the_commitment_is_the_documented_bytes() -> None:
    deck = shuffled(0)
    salts = [hashlib.sha256(MASTER + b"card" + bytes([i])).digest() for i in range(52)]
    leaves = [
        hashlib.sha256(s + str(c).encode()).digest() for s, c in zip(salts, deck, strict=True)
    ]
    assert commitment.commit(deck, MASTER) == hashlib.sha256(b"".join(leaves)).hexdigest()
    assert commitment.commit(commitment.deck_text(deck), MASTER) == commitment.commit(deck, MASTER)
    assert commitment.reshuffle_seed(MASTER) == hashlib.sha256(MASTER + b"reshuffle").digest()
    with pytest.raises(ValueError):
        commitment.commit(deck, MASTER[:31])
    with pytest.raises(ValueError):
        commitment.commit(deck[:51], MASTER)


def test_a_real_hand_verifies_for_every_audience_and_hides_folded_cards() -> None:
    deck, hand = folding_hand()
    evs = events(hand)
    c = commitment.commit(deck, MASTER)
    folded_downs = {
        e["card"] for e in evs if e["type"] == "card_dealt" and e["seat"] == 1 and not e["face_up"]
    }
    assert len(folded_downs) == 2
    dealt = {e["seat"] for e in evs if e["type"] == "card_dealt"}
    table_hidden = dealt - commitment.shown_seats(evs)
    for hidden_seats in ({1}, table_hidden, set()):
        opened = commitment.seen_positions(deck, evs, dealt - hidden_seats)
        r = commitment.reveal(deck, MASTER, opened)
        assert r["commitment"] == c and commitment.verify_reveal(c, r)
        assert commitment.check_deal(masked(evs, hidden_seats), r) == []
        text = json.dumps(r)
        assert MASTER.hex() not in text
        shown = {p["card"] for p in r["positions"] if "card" in p}
        # exactly the cards this audience saw: no burn, no stub, no hidden hand
        seen = {
            e["card"]
            for e in masked(evs, hidden_seats)
            if e["type"] in ("card_dealt", "community_card_dealt") and e["card"]
        }
        assert shown == seen and len(shown) < 52 - len(hidden_seats)
        if 1 in hidden_seats:
            assert not folded_downs & shown


def test_the_table_opens_only_shown_hands_never_mucked_or_folded_ones() -> None:
    deck, hand = folding_hand()
    evs = events(hand)
    shown = {e["seat"] for e in evs if e["type"] == "hand_shown"}
    mucked = {e["seat"] for e in evs if e["type"] == "hand_mucked"}
    assert mucked, "someone mucks at the showdown"
    assert commitment.shown_seats(evs) == shown and not shown & (mucked | {1})
    opened = commitment.seen_positions(deck, evs, commitment.shown_seats(evs))
    for e in evs:
        if e["type"] == "card_dealt":
            where = deck.index(Card.parse(e["card"]))
            assert (where in opened) == (e["face_up"] or e["seat"] in shown)


def test_any_change_fails() -> None:
    deck, hand = folding_hand()
    evs = events(hand)
    c = commitment.commit(deck, MASTER)
    opened = commitment.seen_positions(deck, evs, {0, 2})
    r = commitment.reveal(deck, MASTER, opened)
    i = next(p["position"] for p in r["positions"] if "card" in p)
    h = min(set(range(52)) - opened)

    def changed(edit: Callable[[list[dict[str, Any]]], None]) -> dict[str, Any]:
        copy = json.loads(json.dumps(r))
        edit(copy["positions"])
        return dict(copy)

    def other_card(ps: list[dict[str, Any]]) -> None:
        taken = {p["card"] for p in ps if "card" in p}
        ps[i]["card"] = next(str(x) for x in DECK if str(x) not in taken)

    def other_leaf(ps: list[dict[str, Any]]) -> None:
        ps[h]["leaf"] = hashlib.sha256(b"x").hexdigest()

    def swap(ps: list[dict[str, Any]]) -> None:
        a, b = ps[0], ps[1]
        ps[0], ps[1] = {**b, "position": 0}, {**a, "position": 1}

    def swap_cards(ps: list[dict[str, Any]]) -> None:
        a, b = [p for p in ps if "card" in p][:2]
        a["card"], b["card"] = b["card"], a["card"]

    for edit in (other_card, other_leaf, swap, swap_cards):
        assert not commitment.verify_reveal(c, changed(edit)), edit.__name__
    assert not commitment.verify_reveal(c, {"positions": r["positions"][:51]})
    assert not commitment.verify_reveal(c, {"positions": "nonsense"})
    assert commitment.commit(deck[1::-1] + deck[2:], MASTER) != c
    # a deck that commits fine but is not the one dealt: the deal check fails
    other = deck[1::-1] + deck[2:]
    r2 = commitment.reveal(other, MASTER, range(52))
    assert commitment.verify_reveal(commitment.commit(other, MASTER), r2)
    assert commitment.check_deal(evs, r2) != []


def test_hidden_positions_reveal_nothing_of_their_card() -> None:
    deck = shuffled(2)
    moved = deck[1:2] + deck[:1] + deck[2:]  # the same card at another position
    a = commitment.reveal(deck, MASTER, range(2, 52))["positions"]
    b = commitment.reveal(moved, MASTER, range(2, 52))["positions"]
    assert a[0]["leaf"] != b[1]["leaf"] and a[1]["leaf"] != b[0]["leaf"]
    assert set(a[0]) == {"position", "leaf"}
    # a position's salt is not the master's, nor any other position's
    salts = {p["salt"] for p in a if "salt" in p}
    assert len(salts) == 50 and MASTER.hex() not in salts
    # guessing the card of a hidden leaf needs its salt: no card's hash with a revealed salt
    # (or none) matches it
    for p in a[2:5]:
        for card in DECK:
            for salt in (bytes.fromhex(p["salt"]), b""):
                assert commitment.leaf(salt, card).hex() != a[0]["leaf"]


def test_the_reshuffle_checks_out_with_seven_players_to_the_river() -> None:
    deck = scripted_deck(list(range(7)), {}, burns="AsAhAdAc")
    hand = play(deck, 7, passive())
    evs = events(hand)
    assert any(e["type"] == "burns_reshuffled" for e in evs)
    c = commitment.commit(deck, MASTER)
    dealt = {e["seat"] for e in evs if e["type"] == "card_dealt"}
    for hidden_seats in (set(), dealt - commitment.shown_seats(evs)):
        r = commitment.reveal(
            deck, MASTER, commitment.seen_positions(deck, evs, dealt - hidden_seats)
        )
        assert commitment.verify_reveal(c, r)
        assert commitment.check_deal(masked(evs, hidden_seats), r) == []
    r = commitment.reveal(deck, MASTER, range(52))
    bad = {**r, "reshuffle_seed": hashlib.sha256(b"other").hexdigest()}
    assert commitment.check_deal(evs, bad) != []


def test_the_documented_one_line_check_prints_the_commitment() -> None:
    deck, hand = folding_hand()
    r = commitment.reveal(deck, MASTER, commitment.seen_positions(deck, events(hand), {0, 2}))
    line = (
        "import hashlib,json,sys;r=json.load(sys.stdin);print(hashlib.sha256(b''.join("
        "bytes.fromhex(p['leaf']) if 'leaf' in p else hashlib.sha256(bytes.fromhex(p['salt'])"
        "+p['card'].encode()).digest() for p in r['positions'])).hexdigest())"
    )
    assert line in (Path(__file__).parents[2] / "docs" / "fairness.md").read_text("utf-8")
    out = subprocess.run(
        [sys.executable, "-c", line],
        input=json.dumps(r),
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == commitment.commit(deck, MASTER)
