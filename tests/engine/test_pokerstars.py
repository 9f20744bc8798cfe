"""The PokerStars-style text of a Stud Hi, a Stud8 and a Razz hand, line by line against
hand-written expected files (tests/engine/expected/), amounts in dollars and cents as
PokerStars writes real-money histories, and R24 in the text."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.engine import Action, ActionKind, Hand, Phase, Rules, Variant, money
from app.engine.pokerstars import HandText, render
from app.engine.scripted import scripted_hand

EXPECTED = Path(__file__).parent / "expected"
NAMES = {0: "ann", 2: "bob", 5: "cy"}
CARDS = {
    "stud": {0: "As Kd 7c 7h 2d 9s 3c", 2: "Qs Qd 2c 5h 8s Jd 4h", 5: "Ah Ac Kc 6d 9d Th 4s"},
    "stud8": {0: "As 2d 7c 3h 5d 9s Kc", 2: "Qs Qd 2c 5h 8s Jd 4h", 5: "Ah Ac Kh 6d 9d Th 4s"},
    "razz": {0: "As 2d 7c 3h 5d 9s Kc", 2: "Qs Qd 2c 5h 8s Jd 4h", 5: "Ah Ac Kh 6d 9d Th 4s"},
}
VIEWER = {"stud": 0, "stud8": 0, "razz": 5}


def play(variant: str) -> Hand:
    """Seat 5 completes on third street and bets fifth; seat 2 folds to that bet (not in
    Stud Hi, where it checks through); everyone else checks or calls; losers muck."""
    rules = Rules(
        Variant(variant), ante=10, bring_in=50, small_bet=100, big_bet=200,
        rake_bps=500, rake_cap=300,
    )  # fmt: skip
    hand = scripted_hand(rules, dict.fromkeys(NAMES, 2000), CARDS[variant], button=5)
    while not hand.is_over:
        legal = hand.legal_actions()
        seat = legal.seat
        if legal.bring_in is not None:
            action = Action(ActionKind.BRING_IN)
        elif hand.phase is not Phase.BETTING:
            action = Action(ActionKind.MUCK if legal.muck else ActionKind.SHOW)
        elif seat == 2 and hand.street == 5 and not legal.check:
            action = Action(ActionKind.FOLD)
        elif seat == 5 and hand.street == 3 and legal.complete is not None:
            action = Action(ActionKind.COMPLETE, legal.complete)
        elif seat == 5 and hand.street == 5 and legal.bets:
            action = Action(ActionKind.BET, legal.bets[0])
        else:
            action = Action(ActionKind.CHECK if legal.check else ActionKind.CALL)
        hand.act(seat, action)
    return hand


def text(hand: Hand, variant: str, viewer: int | None) -> str:
    record = HandText(
        number=1234,
        variant=variant,
        table_name="Friday",
        max_seats=8,
        small_bet=100,
        big_bet=200,
        started_at=datetime(2026, 11, 29, 15, 56, tzinfo=UTC),
        names=NAMES,
        events=[e.to_dict() for e in hand.events],
        rake=hand.rake,
    )
    return render(record, viewer_seat=viewer, revealed=set(hand.showdown_hands()))


@pytest.mark.parametrize("variant", ["stud", "stud8", "razz"])
def test_text_matches_the_expected_file_line_by_line(variant: str) -> None:
    got = text(play(variant), variant, VIEWER[variant]).splitlines()
    want = (EXPECTED / f"pokerstars_{variant}.txt").read_text().splitlines()
    for n, (g, w) in enumerate(zip(got, want, strict=False), 1):
        assert g == w, f"line {n}"
    assert len(got) == len(want)


def test_layout_landmarks() -> None:
    stud8 = text(play("stud8"), "stud8", 0)
    assert stud8.startswith("PokerStars Hand #1234: 7 Card Stud Hi/Lo Limit ($1/$2 USD) - ")
    for landmark in ("*** 3rd STREET ***", "*** 6th STREET ***", "*** RIVER ***",
                     "brings in for", "*** SHOW DOWN ***", "*** SUMMARY ***", "| Rake ",
                     "HI: ", "LO: "):  # fmt: skip
        assert landmark in stud8
    assert text(play("razz"), "razz", 0).startswith("PokerStars Hand #1234: Razz Limit")


def test_r24_folded_cards_never_mucked_cards_always() -> None:
    hand = play("razz")
    bob_down = [str(c) for c in hand.seat_state(2).down]
    cy_down = [str(c) for c in hand.seat_state(5).down]
    for viewer in (0, 5, None):
        shown = text(hand, "razz", viewer)
        assert not any(card in shown for card in bob_down), viewer  # folded: never
        assert "cy: mucks hand" in shown
        assert all(card in shown for card in cy_down), viewer  # reached the showdown
    assert all(card in text(hand, "razz", 2) for card in bob_down)  # bob sees his own


def test_amounts_are_dollars_and_cents_as_pokerstars_writes_them() -> None:
    """A $1/$2 table with $0.15 antes: every amount in dollars, cents only when there are
    some, no thousands commas; never a bare chip count."""
    rules = Rules(Variant.STUD, ante=15, bring_in=50, small_bet=100, big_bet=200)
    stacks = {0: 5000, 2: 150_000, 5: 2000}
    hand = scripted_hand(rules, stacks, CARDS["stud"], button=5)
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.bring_in is not None:
            action = Action(ActionKind.BRING_IN)
        elif hand.phase is not Phase.BETTING:
            action = Action(ActionKind.MUCK if legal.muck else ActionKind.SHOW)
        else:
            action = Action(ActionKind.CHECK if legal.check else ActionKind.CALL)
        hand.act(legal.seat, action)
    record = HandText(
        number=1234, variant="stud", table_name="Friday", max_seats=8,
        small_bet=100, big_bet=200, started_at=datetime(2026, 11, 29, 15, 56, tzinfo=UTC),
        names=NAMES, events=[e.to_dict() for e in hand.events], rake=hand.rake,
    )  # fmt: skip
    got = render(record, viewer_seat=0, revealed=set(hand.showdown_hands()))
    assert "7 Card Stud Limit ($1/$2 USD) - " in got.splitlines()[0]
    assert "Seat 1: ann ($50 in chips)" in got
    assert "Seat 3: bob ($1500 in chips)" in got
    assert "ann: posts the ante $0.15" in got
    assert "brings in for $0.50" in got
    body = "\n".join(got.splitlines()[1:])  # below the header (checked above)
    # cards, streets, seats, the table's size, dollars
    for known in (r"\[[^\]]*\]", r"\*\*\* .* \*\*\*", r"Seat \d+:", r"\d+-max", r"\$\d+(\.\d\d)?"):
        body = re.sub(known, "", body)
    assert re.search(r"\d", body) is None, body  # no bare chip count anywhere


@pytest.mark.parametrize(
    ("cents", "shown"),
    [(0, "$0"), (15, "$0.15"), (100, "$1"), (150, "$1.50"), (123456, "$1,234.56"),
     (-2550, "-$25.50"), (150_000, "$1,500")],
)  # fmt: skip
def test_money_shows_cents_as_the_table_does(cents: int, shown: str) -> None:
    assert money.chips(cents) == shown
    assert money.chips(cents, grouping=False) == shown.replace(",", "")
