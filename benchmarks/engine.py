"""The hand engine against pokerkit: whole hands to the showdown, 4 and 8 players, calldown.

Run ``python benchmarks/engine.py`` (``--help`` for options). Each engine plays complete hands
of fixed-limit stud from a freshly shuffled deck: antes, the deal, the bring-in, every player
checking or calling on every street, the showdown and the pots settled. Stacks are deep, so
nobody is all-in. Ours: `Hand.start` and `play_out` with `calldown_policy`. pokerkit: a state
with every automation on (antes, dealing from its own deck, burns, showdown, chips), then
`post_bring_in` / `check_or_call` until it is over. Times are the process's CPU time (the
machine may be busy with other work); the two run in turns and each keeps its best round.
The results replace the "Engine" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pokerkit  # noqa: E402

from app.engine import Hand, Rules, SeatSpec, Variant  # noqa: E402
from app.engine.cards import seeded_rng, shuffled_deck  # noqa: E402
from app.engine.policies import calldown_policy, play_out  # noqa: E402
from benchmarks.machine import DOC, load_average, machine, write_section  # noqa: E402

SECTION = "## Engine"
TARGET = 20.0
"""The target: at least 20 times pokerkit's hands per second."""

ANTE, BRING_IN, SMALL_BET, BIG_BET, STACK = 5, 10, 20, 40, 100_000

POKERKIT_GAMES: dict[Variant, Any] = {
    Variant.STUD: pokerkit.FixedLimitSevenCardStud,
    Variant.STUD8: pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Variant.RAZZ: pokerkit.FixedLimitRazz,
}
_A = pokerkit.Automation
POKERKIT_AUTOMATIONS = (
    _A.ANTE_POSTING,
    _A.BET_COLLECTION,
    _A.BLIND_OR_STRADDLE_POSTING,
    _A.CARD_BURNING,
    _A.HOLE_DEALING,
    _A.BOARD_DEALING,
    _A.RUNOUT_COUNT_SELECTION,
    _A.HOLE_CARDS_SHOWING_OR_MUCKING,
    _A.HAND_KILLING,
    _A.CHIPS_PUSHING,
    _A.CHIPS_PULLING,
)


def ours(variant: Variant, players: int, hands: int, seed: int) -> float:
    """Seconds for `hands` calldown hands in our engine."""
    rules = Rules(variant, ANTE, BRING_IN, SMALL_BET, BIG_BET)
    seats = [SeatSpec(s, STACK) for s in range(players)]
    rng = seeded_rng(seed)
    start = time.process_time()
    for i in range(hands):
        hand = Hand.start(rules, seats, i % players, shuffled_deck(rng))
        play_out(hand, calldown_policy)
    elapsed = time.process_time() - start
    assert sum(hand.stacks.values()) == STACK * players
    return elapsed


def theirs(variant: Variant, players: int, hands: int, seed: int) -> float:
    """Seconds for `hands` calldown hands in pokerkit (it shuffles with `random`)."""
    game = POKERKIT_GAMES[variant]
    random.seed(seed)
    stacks = [STACK] * players
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 8 players run out of cards: pokerkit warns
        start = time.process_time()
        for _ in range(hands):
            state = game.create_state(
                POKERKIT_AUTOMATIONS,
                True,
                ANTE,
                BRING_IN,
                SMALL_BET,
                BIG_BET,
                stacks,
                players,
                mode=pokerkit.Mode.CASH_GAME,
            )
            while state.status:
                if state.can_post_bring_in():
                    state.post_bring_in()
                else:
                    state.check_or_call()
        elapsed = time.process_time() - start
    assert sum(state.stacks) == STACK * players
    return elapsed


@dataclass
class Result:
    variant: Variant
    players: int
    ours_hands: int
    theirs_hands: int
    ours_best: float = float("inf")
    theirs_best: float = float("inf")

    @property
    def ours_rate(self) -> float:
        return self.ours_hands / self.ours_best

    @property
    def theirs_rate(self) -> float:
        return self.theirs_hands / self.theirs_best

    @property
    def ratio(self) -> float:
        return self.ours_rate / self.theirs_rate


def measure(
    variants: Iterable[Variant], hands: int, pokerkit_hands: int, rounds: int, seed: int
) -> list[Result]:
    results = [
        Result(v, n, hands * 4 // n, max(1, pokerkit_hands * 4 // n))
        for v in variants
        for n in (4, 8)
    ]
    runs: list[tuple[Callable[[Variant, int, int, int], float], str, str]] = [
        (ours, "ours_hands", "ours_best"),
        (theirs, "theirs_hands", "theirs_best"),
    ]
    for round_ in range(rounds):
        for r in results:
            for fn, count, best in runs:
                seconds = fn(r.variant, r.players, getattr(r, count), seed + round_)
                setattr(r, best, min(getattr(r, best), seconds))
    return results


def markdown(results: list[Result], rounds: int, load: str) -> str:
    lines = [
        SECTION,
        "",
        "Generated by `python benchmarks/engine.py`; do not edit by hand.",
        "",
        f"- Machine: {machine()}; load average {load}",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; pokerkit {version('pokerkit')}",
        "- Whole fixed-limit hands (antes 5, bring-in 10, bets 20/40, deep stacks) from a"
        " shuffled deck to the showdown, every player bringing in, checking or calling;"
        f" the two engines in turns, best of {rounds} rounds each, in process CPU time",
        f"- Target: at least {TARGET:.0f}x pokerkit",
        "",
        "| Variant | Players | Ours (hands/s) | pokerkit (hands/s) | Ours / pokerkit |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.variant.value} | {r.players} | {r.ours_rate:,.0f} | {r.theirs_rate:,.1f}"
            f" | {r.ratio:.1f}x |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=2000, help="ours, per 4-player round")
    parser.add_argument("--pokerkit-hands", type=int, default=100, help="per 4-player round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--variant", choices=[v.value for v in Variant], action="append", dest="variants"
    )
    parser.add_argument("--no-write", action="store_true", help="don't update the docs")
    args = parser.parse_args(list(argv) if argv is not None else None)
    variants = [Variant(v) for v in args.variants] if args.variants else list(Variant)

    results = measure(variants, args.hands, args.pokerkit_hands, args.rounds, args.seed)
    load = load_average()
    for r in results:
        print(
            f"{r.variant.value:5} {r.players} players: ours {r.ours_rate:8,.0f} hands/s,"
            f" pokerkit {r.theirs_rate:6,.1f} hands/s, {r.ratio:5.1f}x"
        )
    print(f"load average {load}")
    if not args.no_write:
        write_section(SECTION, markdown(results, args.rounds, load))
        print(f"updated {DOC.relative_to(ROOT)}")
    return 0 if all(r.ratio >= TARGET for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
