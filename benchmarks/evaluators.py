"""Seven-card hand evaluators: ours (pure Python) against treys, eval7, phevaluator, pokerkit.

Run ``python benchmarks/evaluators.py`` (``--help`` for options). Every evaluator gets the
same seeded random 7-card hands, converted beforehand to its own card type; each is checked
to order every consecutive pair of hands exactly as ours does, then timed with
``map(evaluate, hands)`` in process CPU time (the machines are shared), in turns, best of a
few rounds. pokerkit (~3 k hands/s) runs on a subset. The results replace the "Evaluators"
section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import partial
from importlib.metadata import version
from itertools import pairwise, starmap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import eval7  # noqa: E402
import phevaluator  # noqa: E402
import pokerkit  # noqa: E402
import treys  # noqa: E402

from app.engine.cards import DECK, Card, format_cards  # noqa: E402
from app.engine.evaluate import (  # noqa: E402
    high,
    high_value,
    low_eight_value,
    low_razz,
    low_razz_value,
)
from app.engine.evaluate.tables import Tables  # noqa: E402
from benchmarks.machine import DOC, load_average, machine, write_section  # noqa: E402

SECTION = "## Evaluators"


class Run:
    """One evaluator: its prepared inputs (one per hand) and a call over a slice of them."""

    def __init__(
        self,
        name: str,
        evaluate: Callable[[list[Any]], Iterable[Any]],
        inputs: list[Any],
        *,
        lower_is_better: bool = False,
        note: str = "",
        compare: bool = True,
    ) -> None:
        self.name = name
        self.evaluate = evaluate
        self.inputs = inputs
        self.lower_is_better = lower_is_better
        self.note = note
        self.compare = compare
        self.best: dict[int, float] = {}  # chunk start -> best CPU seconds

    @property
    def count(self) -> int:
        return len(self.inputs)

    def values(self) -> list[Any]:
        return list(self.evaluate(self.inputs))

    def time_chunk(self, start: int, size: int) -> None:
        """CPU time of one chunk, garbage collector off (as `timeit` does)."""
        chunk = self.inputs[start : start + size]
        if not chunk:
            return
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            deque(self.evaluate(chunk), maxlen=0)  # consume without a Python-level loop
            elapsed = time.process_time() - t0
        finally:
            gc.enable()
        self.best[start] = min(self.best.get(start, elapsed), elapsed)

    @property
    def per_second(self) -> float:
        return self.count / sum(self.best.values())


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def disagreements(ours: Sequence[int], theirs: Sequence[int], lower_is_better: bool) -> int:
    """Consecutive pairs ordered differently (``theirs`` flipped when lower is better)."""
    flip = -1 if lower_is_better else 1
    return sum(
        _sign(b - a) != flip * _sign(d - c)
        for (a, b), (c, d) in zip(pairwise(ours), pairwise(theirs), strict=True)
    )


def _pokerkit_values(hands: list[str]) -> Iterable[int]:
    return (h.entry.index for h in map(pokerkit.StandardHighHand.from_game, hands))


def _values(hands: Iterable[Any]) -> Iterable[int]:
    return (h.value for h in hands)


def build_runs(hands: list[tuple[Card, ...]], pokerkit_hands: int) -> list[Run]:
    t_eval = treys.Evaluator()
    t_hands = [[treys.Card.new(str(c)) for c in h] for h in hands]
    e_hands = [[eval7.Card(str(c)) for c in h] for h in hands]
    p_hands = [tuple(map(int, h)) for h in hands]  # phevaluator ids are ours: rank * 4 + suit
    p_eval = phevaluator.evaluate_cards
    k_hands = [format_cards(h) for h in hands[:pokerkit_hands]]
    return [
        Run("ours: high_value", partial(map, high_value), hands),
        Run("ours: low_razz_value", partial(map, low_razz_value), hands, compare=False),
        Run("ours: low_eight_value", partial(map, low_eight_value), hands, compare=False),
        Run("ours: high() object", lambda xs: _values(map(high, xs)), hands),
        Run("ours: low_razz() object", lambda xs: _values(map(low_razz, xs)), hands, compare=False),
        Run("eval7", partial(map, eval7.evaluate), e_hands, note="C extension"),
        Run(
            "phevaluator",
            partial(starmap, p_eval),
            p_hands,
            lower_is_better=True,
            note="C extension, `evaluate_cards`",
        ),
        Run(
            "treys",
            lambda xs: map(t_eval.evaluate, (h[:2] for h in xs), (h[2:] for h in xs)),
            t_hands,
            lower_is_better=True,
            note="pure Python, `Evaluator.evaluate`",
        ),
        Run(
            "pokerkit",
            _pokerkit_values,
            k_hands,
            note=f"pure Python, `StandardHighHand.from_game`, first {len(k_hands):,} hands",
        ),
    ]


def table_build_seconds(rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        Tables()
        best = min(best, time.perf_counter() - start)
    return best


def markdown(
    runs: Sequence[Run], *, hands: int, seed: int, rounds: int, chunk: int, build: float
) -> str:
    eval7_rate = next(r.per_second for r in runs if r.name == "eval7")
    ours_rate = runs[0].per_second
    load = load_average()
    lines = [
        SECTION,
        "",
        "Generated by `python benchmarks/evaluators.py`; do not edit by hand.",
        "",
        f"- Machine: {machine()}; load average {load}",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- Hands: {hands:,} random 7-card hands (seed {seed}), the same for every evaluator,"
        " converted beforehand to its own card type",
        "- Timing: process CPU time (the machine is shared), garbage collector off, evaluators in"
        + (
            f" turn over all the hands; best of {rounds} rounds"
            if chunk >= hands
            else f" turn on each chunk of {chunk:,} hands; the sum of each chunk's best of {rounds}"
        )
        + " (pokerkit: one round)",
        "- Every evaluator ordered every consecutive pair of hands as ours does",
        f"- Our tables build in {build:.2f} s (at import)",
        f"- Versions: eval7 {version('eval7')}, phevaluator {version('phevaluator')},"
        f" treys {version('treys')}, pokerkit {version('pokerkit')}",
        "",
        "| Evaluator | Hands | Evaluations/s | vs eval7 | ours is | Notes |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r.name} | {r.count:,} | {r.per_second:,.0f} | {r.per_second / eval7_rate:.2f}x"
            f" | {ours_rate / r.per_second:.2f}x | {r.note} |"
        )
    lines += [
        "",
        '"ours is" compares `high_value` with each row. The object rows build the hand object',
        "(`HighHand`/`LowHand`: checked input, eager value, lazy `.cards`). Seven-card high",
        "values are one read of a 16 MB array indexed by the sum of the cards' rank keys: in",
        "steady use (this benchmark, a simulator) the parts in use stay in cache; a lone",
        "evaluation after other work may pay a memory access or two (~0.1 µs). Lows read a dict.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--pokerkit-hands", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--chunk", type=int, default=0, help="time in chunks of this many hands (0: whole passes)"
    )
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-write", action="store_true", help="don't update the docs")
    args = parser.parse_args(list(argv) if argv is not None else None)

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(DECK, 7)) for _ in range(args.hands)]
    runs = build_runs(hands, args.pokerkit_hands)

    ours = runs[0].values()
    failed = False
    for run in runs[1:]:
        if run.compare:
            bad = disagreements(ours[: run.count], run.values(), run.lower_is_better)
            if bad:
                print(f"{run.name}: {bad} consecutive pairs ordered differently from ours")
                failed = True
    chunk = args.chunk or args.hands
    for round_ in range(args.rounds):
        for start in range(0, args.hands, chunk):
            for run in runs:
                if round_ == 0 or run.name != "pokerkit":  # pokerkit: one round is plenty
                    run.time_chunk(start, chunk)
    build = table_build_seconds()

    width = max(len(r.name) for r in runs)
    eval7_rate = next(r.per_second for r in runs if r.name == "eval7")
    for r in runs:
        print(
            f"{r.name:{width}}  {r.count:>8,} hands  {r.per_second:>12,.0f}/s"
            f"  {r.per_second / eval7_rate:6.2f}x eval7"
        )
    print(f"table build: {build:.3f} s")
    if failed:
        return 1
    if not args.no_write:
        write_section(
            SECTION,
            markdown(
                runs,
                hands=args.hands,
                seed=args.seed,
                rounds=args.rounds,
                chunk=chunk,
                build=build,
            ),
        )
        print(f"updated {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
