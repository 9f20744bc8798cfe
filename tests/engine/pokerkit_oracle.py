"""pokerkit as an oracle for the differential tests (a test helper, not a test module).

`replay_strict` replays a PHH text in pokerkit action by action with
`pokerkit.notation.parse_action`. `HandHistory`'s own iterator is deliberately not used: it
silently repairs a bad history (it retries a rejected action after inserting checks, folds or
show-downs of its own). Here every line of the file must be accepted as it stands; only what a
PHH file never records is automated (antes, bet collection, burns, hand killing, pushing and
pulling chips). pokerkit warnings (a card dealt that is not in its deck, chips it "burns") are
errors too, except the cash-game "no reason to fold" warning, which is not a rejection.

`random_pokerkit_phh` plays a random stud hand in pokerkit (random legal actions taken from
pokerkit's own state) and returns it as PHH, for our engine to import.
"""

from __future__ import annotations

import random
import tomllib
import warnings
from dataclasses import dataclass
from typing import Any

from pokerkit import (
    Automation,
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Mode,
)
from pokerkit.hands import CombinationHand
from pokerkit.notation import HandHistory, parse_action
from pokerkit.utilities import Card

GAMES: dict[str, Any] = {
    "F7S": FixedLimitSevenCardStud,
    "F7S/8": FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    "FR": FixedLimitRazz,
}
VARIANT_CODES = {"stud": "F7S", "stud8": "F7S/8", "razz": "FR"}

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
"""Everything a PHH file does not record. Burns are done by hand with an unknown card ("??"),
as PHH records no burns: automating them would burn a random card from pokerkit's own
shuffled deck, possibly one the file deals later."""

_NO_REASON_TO_FOLD = "There is no reason for this player to fold"
BURNED_CHIPS = "some chips will be burned"
"""pokerkit's warning when it splits a Stud8 side pot although no player in it has a low."""


class OracleError(ValueError):
    """pokerkit rejected a line of the history (or warned), or the history stopped short."""

    def __init__(self, index: int | None, action: str | None, reason: str) -> None:
        where = "end of history" if index is None else f"action {index} {action!r}"
        super().__init__(f"pokerkit: {where}: {reason}")
        self.index = index
        self.action = action
        self.reason = reason


@dataclass(frozen=True)
class OracleResult:
    finishing_stacks: list[int]
    state: Any


def memoize_pokerkit_hands() -> None:
    """Cache pokerkit's best-hand search (a pure function of the cards): showdowns in pokerkit
    evaluate the same hands many times over, and this makes the oracle several times faster
    without changing any result."""
    if getattr(CombinationHand, "_memoized", False):
        return
    original = CombinationHand.from_game.__func__  # type: ignore[attr-defined]
    cache: dict[tuple[Any, ...], Any] = {}

    def from_game(cls: Any, hole_cards: Any, board_cards: Any = ()) -> Any:
        key = (cls, Card.clean(hole_cards), Card.clean(board_cards))
        try:
            hand = cache[key]
        except KeyError:
            try:
                hand = original(cls, *key[1:])
            except ValueError as exc:
                hand = exc
            if len(cache) > 200_000:
                cache.clear()
            cache[key] = hand
        if isinstance(hand, ValueError):
            raise hand
        return hand

    CombinationHand.from_game = classmethod(from_game)  # type: ignore[assignment]
    CombinationHand._memoized = True  # type: ignore[attr-defined]


def create_state(header: dict[str, Any]) -> Any:
    """The pokerkit state for a PHH header (cash-game mode, as `HandHistory` uses)."""
    game = GAMES[header["variant"]]
    stacks = list(header["starting_stacks"])
    return game.create_state(
        AUTOMATIONS,
        bool(header.get("ante_trimming_status", False)),
        list(header["antes"]),
        header["bring_in"],
        header["small_bet"],
        header["big_bet"],
        stacks,
        len(stacks),
        mode=Mode.CASH_GAME,
    )


def _burn_pending(state: Any) -> None:
    while state.card_burning_status:
        state.burn_card("??")


def replay_strict(text: str) -> OracleResult:
    """Replay a PHH text in pokerkit, every action exactly as written; the finishing stacks."""
    header = tomllib.loads(text)
    state = create_state(header)
    actions: list[str] = header["actions"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=_NO_REASON_TO_FOLD)
        for index, action in enumerate([*actions, None]):
            try:
                _burn_pending(state)
                if action is not None:
                    parse_action(state, action)
            except (ValueError, UserWarning) as exc:
                at = None if action is None else index
                raise OracleError(at, action, str(exc)) from exc
    if state.status:
        raise OracleError(None, None, "the hand is not over after the last action")
    return OracleResult(list(state.stacks), state)


# -- random pokerkit hands ------------------------------------------------------------------


@dataclass(frozen=True)
class Stakes:
    ante: int
    bring_in: int
    small_bet: int
    big_bet: int


def random_stakes(rng: random.Random) -> Stakes:
    small = rng.choice([2, 4, 10, 20, 50, 100])
    bring_in = rng.randint(1, small - 1) if rng.random() < 0.3 else max(1, small // 2)
    ante = rng.randint(1, bring_in)
    return Stakes(ante, bring_in, small, 2 * small)


def random_stacks(rng: random.Random, count: int, stakes: Stakes) -> list[int]:
    """Stacks from below the ante to 100 big bets, log-uniform, so all-ins come often."""
    top = 100 * stakes.big_bet
    out = []
    for _ in range(count):
        if rng.random() < 0.05:
            out.append(rng.randint(1, stakes.ante + stakes.bring_in))
        else:
            out.append(max(1, round(stakes.ante * (top / stakes.ante) ** rng.random())))
    return out


@dataclass(frozen=True)
class PokerkitHand:
    text: str
    finishing_stacks: list[int]


def random_pokerkit_phh(
    rng: random.Random, variant: str, players: int, *, fold_weight: float = 0.15
) -> PokerkitHand | None:
    """A random pokerkit-played hand as PHH text, with pokerkit's finishing stacks; None if
    it ran out of cards.

    pokerkit deals a 53rd card by reshuffling the muck (a named difference from docs/rules.md R9,
    which never reuses folded cards); such hands are dropped.
    """
    stakes = random_stakes(rng)
    game = GAMES[VARIANT_CODES[variant]](
        (*AUTOMATIONS, Automation.HOLE_CARDS_SHOWING_OR_MUCKING),
        True,
        stakes.ante,
        stakes.bring_in,
        stakes.small_bet,
        stakes.big_bet,
        mode=Mode.CASH_GAME,
    )
    stacks = random_stacks(rng, players, stakes)
    deck = [c for r in "23456789TJQKA" for c in (r + "c", r + "d", r + "h", r + "s")]
    rng.shuffle(deck)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        state = game(stacks, players)
        while state.status:
            if state.can_burn_card("??"):
                state.burn_card("??")
            elif any(state.hole_dealing_statuses):
                if not deck:
                    return None
                state.deal_hole(deck.pop())
            elif any(state.board_dealing_counts):
                state.deal_board(deck.pop())  # the community card (R9)
            elif state.actor_index is not None:
                _random_pokerkit_action(rng, state, fold_weight)
            else:  # pragma: no cover - every other step is automated
                raise AssertionError("pokerkit is waiting for something unexpected")
    hh = HandHistory.from_game_state(game, state, ante_trimming_status=True)
    text: str = hh.dumps()
    return PokerkitHand(text + "\n", list(state.stacks))


def _random_pokerkit_action(rng: random.Random, state: Any, fold_weight: float) -> None:
    choices: list[tuple[str, float]] = []
    if state.can_post_bring_in():
        choices.append(("pb", 1.0))
    if state.can_fold() and state.checking_or_calling_amount:
        choices.append(("f", fold_weight))
    if state.can_check_or_call() and not state.can_post_bring_in():
        choices.append(("cc", 1.0))
    if state.can_complete_bet_or_raise_to():
        choices.append(("cbr", 0.6))
    kinds = [k for k, _ in choices]
    kind = rng.choices(kinds, weights=[w for _, w in choices])[0]
    if kind == "pb":
        state.post_bring_in()
    elif kind == "f":
        state.fold()
    elif kind == "cc":
        state.check_or_call()
    else:
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        state.complete_bet_or_raise_to(rng.randint(low, high))
