"""PHH export and import (app/engine/phh.py): the format pokerkit reads, and replaying it."""

from __future__ import annotations

import re
import tomllib

import pytest

from app.cli.simulate import random_stacks
from app.engine import (
    Action,
    ActionKind,
    BurnsReshuffled,
    CommunityCardDealt,
    Hand,
    HandShown,
    Rules,
    SeatSpec,
    ShowDeclined,
    TimedOut,
    Variant,
)
from app.engine.cards import seeded_rng, shuffled_deck
from app.engine.phh import PHHError, replay_phh, to_phh
from app.engine.policies import random_policy
from app.engine.scripted import play, scripted_hand
from tests.engine.pokerkit_oracle import replay_strict
from tests.engine.support import passive, rules


def actions(text: str) -> list[str]:
    value = tomllib.loads(text)["actions"]
    assert isinstance(value, list)
    return [str(a) for a in value]


def assert_round_trip(hand: Hand, *, pokerkit: bool = True) -> str:
    """The export replays to the same events in our engine and, strictly, to the same
    finishing stacks in pokerkit."""
    text = to_phh(hand)
    replayed = replay_phh(text)
    assert replayed.hand.events == hand.events
    assert replayed.finishing_stacks == [hand.stacks[s] for s in hand.seats]
    if pokerkit:
        assert replay_strict(text).finishing_stacks == replayed.finishing_stacks
    return text


def three_handed() -> Hand:
    # seats 1, 4, 6, button 4: dealing order 6, 1, 4; seat 4's 2s brings in
    return scripted_hand(
        rules(),
        {1: 300, 4: 200, 6: 400},
        {6: "AhKh9c", 1: "QdQc8s", 4: "3c4d2s"},
        button=4,
    )


def test_export_writes_the_fields_and_lines_pokerkit_reads() -> None:
    hand = three_handed()
    play(hand, "4: bring_in, 6: complete 20, 1: raise 40, 4: fold, 6: call")
    passive(hand)
    text = to_phh(hand, hand_number=17, players={1: 'Ann "the" Bee', 4: "Bo", 6: "Cy"})
    fields = tomllib.loads(text)
    assert fields["variant"] == "F7S"
    assert fields["ante_trimming_status"] is True
    assert fields["antes"] == [5, 5, 5]
    assert (fields["bring_in"], fields["small_bet"], fields["big_bet"]) == (10, 20, 40)
    assert fields["starting_stacks"] == [400, 300, 200]  # p1 is the button's left: seat 6
    assert fields["seats"] == [7, 2, 5]
    assert fields["players"] == ["Cy", 'Ann "the" Bee', "Bo"]
    assert fields["hand"] == 17
    assert fields["_button"] == 5
    assert fields["finishing_stacks"] == [hand.stacks[s] for s in (6, 1, 4)]
    lines = fields["actions"]
    assert lines[:9] == [
        "d dh p1 AhKh9c",
        "d dh p2 QdQc8s",
        "d dh p3 3c4d2s",
        "p3 pb",
        "p1 cbr 20",
        "p2 cbr 40",
        "p3 f",
        "p1 cc",
        f"d dh p1 {hand.seat_state(6).up[1]}",
    ]
    assert lines[-2:] == [
        f"p{1 if lines[-2].startswith('p1') else 2} sm {lines[-2].split()[-1]}",
        lines[-1],
    ]
    assert_round_trip(hand)


@pytest.mark.parametrize("variant", list(Variant))
def test_every_variant_round_trips_and_replays_in_pokerkit(variant: Variant) -> None:
    hand = scripted_hand(
        rules(variant),
        {0: 500, 2: 500, 5: 500, 7: 500},
        {0: "As2c3d4h5s6c7d", 2: "KsKd8c9h", 5: "7c7h2d2h", 7: "Ac8dTs"},
        button=7,
    )
    passive(hand)
    text = assert_round_trip(hand)
    assert (
        tomllib.loads(text)["variant"] == {"stud": "F7S", "stud8": "F7S/8", "razz": "FR"}[variant]
    )


def test_an_all_in_before_the_river_turns_the_hands_up_as_pokerkit_expects() -> None:
    # seat 0 (35 chips) is all-in on fourth street; pokerkit then shows both hands at once
    hand = scripted_hand(
        rules(),
        {0: 35, 3: 500},
        {0: "AsAd7c8c9hTh2s", 3: "KsKd2c3c4d5d6h"},
        button=3,
    )
    play(hand, "3: bring_in, 0: call, 0: bet 20, 3: call")
    passive(hand)
    lines = actions(assert_round_trip(hand))
    assert lines[4:] == [
        "d dh p1 8c",
        "d dh p2 3c",
        "p1 cbr 20",
        "p2 cc",
        "p1 sm AsAd7c8c",
        "p2 sm KsKd2c3c",
        "d dh p1 9h",
        "d dh p2 4d",
        "d dh p1 Th",
        "d dh p2 5d",
        "d dh p1 2s",
        "d dh p2 6h",
        "p1 sm AsAd7c8c9hTh2s",
        "p2 sm KsKd2c3c4d5d6h",
    ]


def test_r9_community_card_is_a_board_card_and_round_trips() -> None:
    seats = {s: 1000 for s in range(8)}
    hand = scripted_hand(rules(), seats, {}, button=7)
    passive(hand)
    assert any(isinstance(e, CommunityCardDealt) for e in hand.events)
    lines = actions(assert_round_trip(hand))
    assert sum(1 for line in lines if line.startswith("d db ")) == 1


def test_r9_reshuffled_burns_deal_the_recorded_cards_on_replay() -> None:
    seats = {s: 1000 for s in range(7)}
    hand = scripted_hand(rules(), seats, {}, button=6, reshuffle_seed=b"seed")
    passive(hand)
    assert any(isinstance(e, BurnsReshuffled) for e in hand.events)
    assert_round_trip(hand)


def test_timeouts_and_the_uncalled_winners_show_round_trip_as_comments() -> None:
    hand = three_handed()
    hand.time_out(4, all_in_protection=True)  # the bring-in is protected; it passes left
    hand.time_out(hand.to_act or 0, all_in_protection=False)  # folds (nothing to check)
    passive_until_decision(hand)
    text = to_phh(hand)
    lines = actions(text)
    assert "# p3 times out: all-in protection (R19)" in lines
    assert any(line.endswith(" # timeout") for line in lines)
    replayed = replay_phh(text)
    assert replayed.hand.events == hand.events
    assert any(isinstance(e, TimedOut) for e in replayed.hand.events)


def passive_until_decision(hand: Hand) -> None:
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.show:
            hand.act(legal.seat, Action(ActionKind.SHOW))
        elif legal.check:
            hand.act(legal.seat, Action(ActionKind.CHECK))
        else:
            hand.act(legal.seat, Action(ActionKind.CALL))


def test_r23_uncalled_winner_show_or_not_is_kept() -> None:
    for show in (True, False):
        hand = three_handed()
        play(hand, "4: complete 20, 6: fold, 1: fold")
        assert hand.legal_actions().show
        hand.act(4, Action(ActionKind.SHOW if show else ActionKind.MUCK))
        text = assert_round_trip(hand)
        assert actions(text)[-1] == ("# p3 sm 3c4d2s" if show else "# p3 sm")
        kind = HandShown if show else ShowDeclined
        assert any(isinstance(e, kind) for e in replay_phh(text).hand.events)


def test_replay_names_the_first_illegal_action() -> None:
    hand = three_handed()
    play(hand, "4: bring_in, 6: complete 20, 1: raise 40, 4: fold, 6: call")
    passive(hand)
    text = to_phh(hand).replace('"p2 cbr 40"', '"p2 cbr 30"')
    with pytest.raises(PHHError, match=r"^action 5 'p2 cbr 30': Raise to \$0.40") as info:
        replay_phh(text)
    assert info.value.index == 5
    assert info.value.action == "p2 cbr 30"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('"p1 cbr 20"', '"p2 cbr 20"'), r"action 4 'p2 cbr 20': it is p1's turn"),
        (('variant = "F7S"', 'variant = "NT"'), r"variant 'NT' is not one of"),
        (('"p1 cbr 20"', '"p9 cbr 20"'), r"action 4 'p9 cbr 20': 'p9' is not one of"),
        (('"p1 cbr 20"', '"p1 cbr 2.5"'), r"action 4 'p1 cbr 2.5': amounts must be whole"),
        (('"p1 cbr 20"', '"p1 sd"'), r"action 4 'p1 sd': not a stud action"),
        (('"d dh p2 QdQc8s"', '"d dh p2 QdQcAh"'), r"action 1 'd dh p2 QdQcAh': Ah is dealt"),
        (("seats = [7, 2, 5]", "seats = [2, 7, 5]"), r"dealing order"),
        (("antes = [5, 5, 5]", "antes = [5, 5, 4]"), r"antes must be one"),
        (("bring_in = 10\n", ""), r"'bring_in' is missing"),
        (("big_bet = 40", "big_bet = 30"), r"twice the small bet"),
    ],
)
def test_replay_errors_are_clear(change: tuple[str, str], message: str) -> None:
    hand = three_handed()
    play(hand, "4: bring_in, 6: complete 20, 1: raise 40, 4: fold, 6: call")
    passive(hand)
    text = to_phh(hand)
    assert change[0] in text
    with pytest.raises(PHHError, match=message):
        replay_phh(text.replace(change[0], change[1]))


def test_replay_of_a_history_that_stops_short_or_is_not_toml() -> None:
    hand = three_handed()
    play(hand, "4: bring_in, 6: complete 20, 1: raise 40, 4: fold, 6: call")
    passive(hand)
    short = _cut_after(to_phh(hand), "d dh p2 " + str(hand.seat_state(1).up[1]))
    with pytest.raises(PHHError, match=r"ends before the hand is over: p\d is to act"):
        replay_phh(short)
    with pytest.raises(PHHError, match="not a PHH"):
        replay_phh("variant = 'F7S'\nactions = [")


def _cut_after(text: str, line: str) -> str:
    """The history with everything after the first `line` action dropped."""
    head, rest = text.split("actions = [\n", 1)
    body, tail = rest.split("\n]", 1)
    kept = []
    for item in body.splitlines():
        kept.append(item)
        if item.strip().strip(",").strip('"') == line:
            break
    return head + "actions = [\n" + "\n".join(kept) + "\n]" + tail


def test_unknown_down_cards_come_from_the_showdown_line() -> None:
    hand = three_handed()
    play(hand, "4: bring_in, 6: complete 20, 1: call, 4: fold")
    passive(hand)
    text = to_phh(hand)
    masked = text.replace('"d dh p1 AhKh9c"', '"d dh p1 ????9c"')
    masked = masked.replace('"d dh p3 3c4d2s"', '"d dh p3 ????2s"')  # folded: never shown
    replayed = replay_phh(masked)
    assert replayed.finishing_stacks == [hand.stacks[s] for s in hand.seats]
    assert replayed.hand.seat_state(6).down[:2] == hand.seat_state(6).down[:2]


def test_player_names_are_escaped_as_toml_strings() -> None:
    hand = three_handed()
    play(hand, "4: complete 20, 6: fold, 1: fold, 4: muck")
    names = {1: 'a"b\\c', 4: "tab\there\nnew\x7f\x01", 6: "Zoë 🂡 'quoted'"}
    fields = tomllib.loads(to_phh(hand, players=names, table="T'1"))
    assert fields["players"] == [names[6], names[1], names[4]]
    assert fields["table"] == "T'1"


def test_only_a_finished_hand_is_exported() -> None:
    with pytest.raises(ValueError, match="finished"):
        to_phh(three_handed())


def test_reads_pokerkits_own_writing() -> None:
    """A history as pokerkit's `HandHistory.dumps` writes it (single-quoted strings, a
    one-line list, ante trimming off) replays here."""
    text = (
        "variant = 'F7S'\nante_trimming_status = false\nantes = [5, 5, 5, 5]\n"
        "bring_in = 10\nsmall_bet = 20\nbig_bet = 40\nstarting_stacks = [300, 45, 200, 120]\n"
        "actions = ['d dh p1 7dQc8d', 'd dh p2 Ts7cTc', 'd dh p3 8h9c9d', 'd dh p4 Jd6sJc', "
        "'p1 pb', 'p2 cbr 20', 'p3 cbr 40', 'p4 f', 'p1 cc', 'p2 cc', 'd dh p1 6d', "
        "'d dh p2 Ah', 'd dh p3 Jh', 'p3 cbr 20', 'p1 cbr 40', 'p3 f', 'p1 sm 7dQc8d6d', "
        "'p2 sm Ts7cTcAh', 'd dh p1 9h', 'd dh p2 Qh', 'd dh p1 5h', 'd dh p2 6h', "
        "'d dh p1 Qd', 'd dh p2 8c', 'p1 sm 7dQc8d6d9h5hQd', 'p2 sm Ts7cTcAhQh6h8c']\n"
    )
    assert replay_phh(text).finishing_stacks == [415, 0, 135, 115]
    assert replay_strict(text).finishing_stacks == [415, 0, 135, 115]


def test_random_hands_with_timeouts_and_rake_round_trip_to_the_same_events() -> None:
    rng = seeded_rng("phh-timeouts")
    kinds: set[str] = set()
    for i in range(300):
        variant = list(Variant)[i % 3]
        rake = rng.choice([0, 500])
        rules = Rules(
            variant,
            2,
            5,
            10,
            20,
            rake_bps=rake,
            rake_cap=rng.choice([None, 7]),
            rake_third_street=rng.random() < 0.5,
            timeout_action=rng.choice(["all_in", "fold"]),
            showdown_first_when_checked=rng.choice(["first_to_act", "lowest_seat"]),
        )
        seats = sorted(rng.sample(range(8), rng.randint(2, 8)))
        stacks = random_stacks(rng, rules, len(seats))
        hand = Hand.start(
            rules,
            [SeatSpec(s, c) for s, c in zip(seats, stacks, strict=True)],
            rng.randrange(8),
            shuffled_deck(rng),
            reshuffle_seed=rng.randbytes(4),
        )
        policy = random_policy(rng)
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            if rng.random() < 0.08:
                for e in hand.time_out(seat, all_in_protection=rng.random() < 0.5):
                    if isinstance(e, TimedOut):
                        kinds.add(e.outcome)
            else:
                hand.act(seat, policy(hand.legal_actions()))
        replayed = replay_phh(to_phh(hand))
        assert replayed.hand.events == hand.events, to_phh(hand)
    assert kinds == {"all_in", "check", "fold", "muck"}


def test_a_tournament_hand_names_its_tournament_level_and_event_and_round_trips() -> None:
    """PHH's own optional fields `level` and `event` (the tournament's name), and the user
    field `_tournament` for its number, which the specification has no field for: pokerkit
    reads them as those fields, and our replay gives them back with the same hand."""
    from pokerkit import HandHistory

    hand = three_handed()
    play(hand, "4: bring_in, 6: complete 20, 1: call, 4: fold")
    passive(hand)
    text = to_phh(hand, hand_number=17, table=3, tournament=42, level=3, event="Friday Stud")
    fields = tomllib.loads(text)
    assert (fields["event"], fields["level"], fields["_tournament"]) == ("Friday Stud", 3, 42)
    assert (fields["hand"], fields["table"]) == (17, 3)
    history = HandHistory.loads(text)
    assert (history.event, history.level) == ("Friday Stud", 3)
    assert history.user_defined_fields["_tournament"] == 42
    replayed = replay_phh(text)
    assert (replayed.tournament, replayed.level) == (42, 3)
    assert replayed.hand.events == hand.events
    assert replay_strict(text).finishing_stacks == replayed.finishing_stacks
    cash = replay_phh(to_phh(hand))
    assert (cash.tournament, cash.level) == (None, None)
    assert "level" not in tomllib.loads(to_phh(hand)) and "_tournament" not in to_phh(hand)


@pytest.mark.parametrize(
    ("field", "value"),
    [("level", "0"), ("level", '"III"'), ("_tournament", "true"), ("_tournament", "-4")],
)
def test_a_tournament_field_that_is_not_a_whole_number_is_refused(field: str, value: str) -> None:
    text = to_phh(passive(three_handed()), tournament=42, level=3)
    wrong = re.sub(rf"^{field} = .*$", f"{field} = {value}", text, flags=re.MULTILINE)
    assert wrong != text
    with pytest.raises(PHHError, match=f"'{field}' must be a whole number"):
        replay_phh(wrong)
