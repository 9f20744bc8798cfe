"""PHH import with cards recorded as ``??`` (app/engine/phh_unknown.py): an unknown card
decides nothing. The replay follows the recorded bring-in (R10, R11) whatever the unknown
door cards were, and refuses, naming the unknown card, where one would decide the order of
action (R12) or the showdown (R23).

Histories are written by hand, as real ones are: p1..pN in dealing order, the last player on
the button; ante 5, bring-in 10, bets 20/40.
"""

from __future__ import annotations

import pytest

from app.engine import BringInDue, HandMucked, HandShown
from app.engine.cards import Card
from app.engine.evaluate import bring_in_key
from app.engine.phh import PHHError, replay_phh


def history(actions: list[str], stacks: list[int], variant: str = "F7S") -> str:
    lines = "".join(f'    "{a}",\n' for a in actions)
    return (
        f'variant = "{variant}"\n'
        f"antes = {[5] * len(stacks)}\n"
        "bring_in = 10\nsmall_bet = 20\nbig_bet = 40\n"
        f"starting_stacks = {stacks}\n"
        f"actions = [\n{lines}]\n"
    )


def test_r10_unknown_door_card_of_another_player_does_not_take_the_recorded_bring_in() -> None:
    # p1 folds and shows nothing; the lowest unused card (a deuce) as its door would make
    # p1 the bring-in, where the history has p2's 5c bring in
    text = history(
        [
            "d dh p1 ??????",
            "d dh p2 AhKh5c",
            "d dh p3 QdQc9s",
            "p2 pb",
            "p3 cbr 20",
            "p1 f",
            "p2 f",
        ],
        [500, 500, 500],
    )
    replayed = replay_phh(text)
    assert replayed.unknown == {0: (0, 1, 2)}
    (due,) = [e for e in replayed.hand.events if isinstance(e, BringInDue)]
    assert due.seat == 1  # p2
    p1_door = replayed.hand.seat_state(0).up[0]
    assert bring_in_key(p1_door, razz=False) > bring_in_key(Card.parse("5c"), razz=False)
    assert replayed.finishing_stacks == [495, 485, 520]


@pytest.mark.parametrize(
    ("variant", "doors"),
    [("F7S", ("9d", "Ks")), ("F7S/8", ("3d", "Ks")), ("FR", ("Qd", "5s"))],
)
def test_r10_unknown_door_card_of_the_bring_in_player_follows_the_history(
    variant: str, doors: tuple[str, str]
) -> None:
    text = history(
        [
            "d dh p1 ??????",
            f"d dh p2 7h8h{doors[0]}",
            f"d dh p3 4c4d{doors[1]}",
            "p1 pb",
            "p2 cbr 20",
            "p3 f",
            "p1 f",
        ],
        [500, 500, 500],
        variant,
    )
    replayed = replay_phh(text)
    hand = replayed.hand
    (due,) = [e for e in hand.events if isinstance(e, BringInDue)]
    assert due.seat == 0
    razz = variant == "FR"
    mine = bring_in_key(hand.seat_state(0).up[0], razz=razz)
    assert all(mine < bring_in_key(Card.parse(d), razz=razz) for d in doors)  # R10
    assert replayed.finishing_stacks == [485, 520, 495]


def test_r10_a_bring_in_no_unknown_door_card_allows_is_refused_naming_the_card() -> None:
    # p2's 2c is the lowest card there is: nothing hidden in p1's door lets p1 bring in
    text = history(
        ["d dh p1 ??????", "d dh p2 7h8h2c", "d dh p3 4c4dKs", "p1 pb", "p2 f", "p3 f"],
        [500, 500, 500],
    )
    with pytest.raises(PHHError, match=r"p1 brings in.*p1's door card \(\?\?\)"):
        replay_phh(text)


def test_r11_unknown_door_of_a_player_all_in_from_the_ante_passes_the_bring_in() -> None:
    # p1 (5 chips) is all-in from the ante: if its unknown door is the lowest, the bring-in
    # passes to p2, as recorded, though p3's 5d is lower than p2's 9h. p1 reaches the
    # showdown, loses to four aces and mucks, its cards never known
    text = history(
        [
            "d dh p1 ??????",
            "d dh p2 KcQc9h",
            "d dh p3 AcAd5d",
            "p2 pb",
            "p3 cbr 20",
            "p2 f",
            "d dh p1 3h",
            "d dh p3 Ah",
            "d dh p1 7s",
            "d dh p3 As",
            "d dh p1 9d",
            "d dh p3 6c",
            "d dh p1 ??",
            "d dh p3 7c",
            "p3 sm AcAd5dAhAs6c7c",
            "p1 sm",
        ],
        [5, 500, 500],
    )
    replayed = replay_phh(text)
    hand = replayed.hand
    assert replayed.unknown == {0: (0, 1, 2, 6)}
    assert [e.seat for e in hand.events if isinstance(e, BringInDue)] == [1]
    assert [e.seat for e in hand.events if isinstance(e, HandMucked)] == [0]
    assert replayed.finishing_stacks == [0, 485, 520]


def test_r23_unknown_down_cards_of_a_hand_the_showdown_must_show_are_refused_by_name() -> None:
    # p1's open kings beat p2 whatever p1's hidden cards are, so the cards would speak
    # (R23): its value, and the pot, would be a guess
    text = history(
        [
            "d dh p1 ????Kc",
            "d dh p2 7c8c9s",
            "p2 pb",
            "p1 cc",
            "d dh p1 Kd",
            "d dh p2 2d",
            "p1 cc",
            "p2 cc",
            "d dh p1 5h",
            "d dh p2 3d",
            "p1 cc",
            "p2 cc",
            "d dh p1 6h",
            "d dh p2 4s",
            "p1 cc",
            "p2 cc",
            "d dh p1 ??",
            "d dh p2 Js",
            "p1 cc",
            "p2 cc",
            "p1 sm",
        ],
        [500, 500],
    )
    with pytest.raises(PHHError) as info:
        replay_phh(text)
    message = str(info.value)
    assert "p1's first down card, p1's second down card and p1's river card (??)" in message
    assert info.value.hand is not None
    shown = [e.seat for e in info.value.hand.events if isinstance(e, HandShown)]
    assert shown == [0]  # p1, first to act on the river, shows first


def test_r12_unknown_up_card_that_decides_who_acts_first_is_refused_by_name() -> None:
    # p2 shows a pair of threes on fourth street; p1's fourth-street card is not recorded,
    # and the history has p1 act first (a queen would pair it): the replay cannot know
    text = history(
        [
            "d dh p1 AcAdQs",
            "d dh p2 7c8c3d",
            "p2 pb",
            "p1 cc",
            "d dh p1 ??",
            "d dh p2 3h",
            "p1 cc",
            "p2 cc",
        ],
        [500, 500],
    )
    with pytest.raises(PHHError, match=r"it is p2's turn.*p1's fourth-street card \(\?\?\)"):
        replay_phh(text)
