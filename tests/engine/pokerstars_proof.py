"""The proof of a hand's PokerStars text (a test helper, not a test module): `prove` reads
the text back with tests/engine/pokerstars_reader.py, which shares nothing with the renderer
(app/engine/pokerstars.py), replays it in pokerkit, settles pokerkit's pots by docs/rules.md
(R4, R20, R21), and compares all of it with the text and with the engine's hand."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime

from app.engine import CardDealt, Folded, Hand, Rules
from app.engine.pokerstars import HandText, TournamentText, render
from tests.engine.pokerstars_reader import (
    Reading,
    ReplayError,
    Settlement,
    description_problem,
    expected_rake,
    named_difference,
    pots_from_the_text,
    read,
    replay,
    settle,
)


def dealt(hand: Hand) -> dict[int, list[tuple[str, bool]]]:
    """Each seat's cards in the order the engine dealt them, and whether face up."""
    out: dict[int, list[tuple[str, bool]]] = {s: [] for s in hand.seats}
    for e in hand.events:
        if isinstance(e, CardDealt):
            out[e.seat].append((str(e.card), e.face_up))
    return out


def text(
    hand: Hand,
    viewer: int | None,
    names: Mapping[int, str],
    tournament: TournamentText | None = None,
) -> str:
    """The hand's PokerStars text for `viewer` (None: an observer); with `tournament`, the
    tournament form, at the tournament's table 3."""
    record = HandText(
        number=1234,
        variant=str(hand.rules.variant.value),
        table_name="Friday" if tournament is None else "3",
        max_seats=8,
        small_bet=hand.rules.small_bet,
        big_bet=hand.rules.big_bet,
        started_at=datetime(2026, 11, 29, 15, 56, tzinfo=UTC),
        names=names,
        events=[e.to_dict() for e in hand.events],
        rake=hand.rake,
        tournament=tournament,
    )
    return render(record, viewer_seat=viewer, revealed=set(hand.showdown_hands()))


def _pot_index(label: str) -> int:
    return 0 if label in ("pot", "main pot") else int(label.rsplit("-", 1)[1])


def prove(
    shown: str, rules: Rules, hand: Hand | None = None, names: Mapping[int, str] | None = None
) -> str:
    """Check a hand's text by reading it back and replaying it in pokerkit, and against
    `hand`, the engine's hand it was written from (if given). Returns "same" when pokerkit's
    own finishing stacks agree; "adapted" when they differ only where pokerkit's settlement
    does (odd chips, a stud8 pot without a low: see test_differential.py), the settlement by
    docs/rules.md on pokerkit's pots still agreeing; else the named difference for which
    pokerkit refused the hand (its actions are then only checked against the engine)."""
    r = read(shown)
    assert (r.variant, r.small_bet, r.big_bet) == (rules.variant, rules.small_bet, rules.big_bet)
    for n in r.order:  # R6, R11: a full ante, or all of a short stack
        assert r.antes.get(n, 0) == min(rules.ante, r.stacks[n]), n
    for a in r.acts:
        if a.verb == "bring_in":  # R11, R13: the table's bring-in, or what is left
            assert a.amount == min(rules.bring_in, r.stacks[a.name] - r.antes.get(a.name, 0)), a
    # R4: a percentage of all the pots, rounded down, capped; none if no fourth street
    third_only = r.streets == [3] and not rules.rake_third_street
    assert r.rake == expected_rake(r.total_pot, rules.rake_bps, rules.rake_cap, third_only)
    if hand is not None:
        assert names is not None
        _agrees_with_the_engine(r, shown, hand, names)
    try:
        played = replay(r, rules.bring_in)
    except ReplayError as exc:
        named = named_difference(r, exc)
        assert named is not None, f"{exc}\n{shown}"
        if named == "community card":  # settled all the same, on the text's own pots
            _collected_as_settled(r, settle(pots_from_the_text(r), r.rake), shown)
        return named
    assert r.showdown == bool(played.pots), "pokerkit's showdown"
    for name, description in r.descriptions.items():
        problem = description_problem(r.variant, description, r.shown[name])
        assert problem is None, f"{name}: {problem}\n{shown}"
    _collected_as_settled(r, settle(played, r.rake), shown)
    unraked = settle(played, 0)
    put = r.put_in()
    by_rules = {n: r.stacks[n] - put[n] + unraked.won()[n] for n in r.order}
    if by_rules == played.pokerkit_stacks:
        return "same"
    assert unraked.odd_chips or unraked.lowless_side_pot, f"{played.pokerkit_stacks}\n{shown}"
    return "adapted"


def _collected_as_settled(r: Reading, settled: Settlement, shown: str) -> None:
    """Each player collected what the settlement gives, pot for pot."""
    collected = Counter[str]()
    by_pot = Counter[int]()
    for name, amount, label in r.collected:
        collected[name] += amount
        by_pot[_pot_index(label)] += amount
    assert +settled.won() == +collected, f"{settled}\n{shown}"
    pots = Counter[int]()
    for index, _, amount in settled.awards:
        pots[index] += amount
    assert sorted(pots.values()) == sorted(by_pot.values()), f"{settled}\n{shown}"


def _agrees_with_the_engine(r: Reading, shown: str, hand: Hand, names: Mapping[int, str]) -> None:
    """The text's stacks, rake, awards and cards are the engine's; no down card of a folded
    seat is in it, unless that seat is the viewer (R24)."""
    seat = {names[s]: s for s in hand.seats}
    assert r.order == [names[s] for s in hand.seats]  # dealing order (R7)
    assert r.finishing_stacks() == {names[s]: hand.stacks[s] for s in hand.seats}
    assert r.rake == hand.rake
    assert hand.result is not None
    awards = [(names[a.seat], a.amount, a.pot) for a in hand.result.awards]
    if len({pot for _, _, pot in awards}) == 1:  # "from pot", whichever pot it is (R4 may
        awards = [(n, a, 0) for n, a, _ in awards]  # rake a small main pot away entirely)
    assert [(n, a, _pot_index(label)) for n, a, label in r.collected] == awards
    cards = dealt(hand)
    folded = {e.seat for e in hand.events if isinstance(e, Folded)}
    in_text = set(re.findall(r"\b[2-9TJQKA][cdhs]\b", shown))
    for name in r.order:
        own = [str(c) for c, _ in cards[seat[name]]]
        for i, card in enumerate(r.cards[name]):
            assert card is None or card == own[i], (name, i, card)
        for whole in (r.shown.get(name), r.summary_cards.get(name)):
            assert whole is None or whole in (own, [*own, r.board]), (name, whole)
        if seat[name] in folded and name != r.viewer:
            down = {str(c) for c, up in cards[seat[name]] if not up}
            assert not down & in_text, name
