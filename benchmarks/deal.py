"""Deal latency, sha256-per-card-v1 against seeded-v2, side by side in one run: the work a
table does at a hand's start before its first card (rules.md R39, docs/fairness.md).

Run ``python benchmarks/deal.py`` (``--help`` for options). v1: shuffle a deck, draw a master
salt, commit to the 52 positions, derive R9's seed (what `dealing.deal` did before). v2
(`app.tables.fair.prepare`'s work): take the announced sealed deck and the pending seeds,
derive the key and the permutation, deal the slots in its order, derive R9's seed, build
`deal_committed`'s fields; the table makes the announce of the hand after next between hands
(shuffle, salt, seal: timed apart), and once at the start when it has none. Also the reveals
after the hand (the table's and one per player). CPU time per hand, best of the
rounds; it prints only (docs/benchmarks.md is left alone).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import commitment  # noqa: E402
from app.engine.cards import shuffled_deck  # noqa: E402
from app.tables import seeds  # noqa: E402


def v1_prepare() -> None:
    deck = list(shuffled_deck())
    master = secrets.token_bytes(commitment.SALT_BYTES)
    commitment.commit(deck, master)
    commitment.reshuffle_seed(master)


def v2_prepare(players: int, seeded: int, ahead: bool = False) -> Callable[[], seeds.HandSeeds]:
    state = seeds.TableSeeds()
    untimed = UNTIMED
    users = {seat: 100 + seat for seat in range(players)}
    for seat in range(seeded):
        state.chains[users[seat]] = seeds.Chain("00" * 32)

    def run() -> seeds.HandSeeds:
        for seat in range(seeded):
            state.chains[users[seat]].pending = secrets.token_bytes(32)
        if ahead:  # made between hands, as the table does: not timed
            clock = time.process_time()
            seeds.make_ahead(state)
            untimed[0] += time.process_time() - clock
        taken = seeds.take(state, users, users)
        taken.deck()
        taken.reshuffle_seed()
        taken.committed()
        return taken

    return run


UNTIMED = [0.0]  # CPU time spent inside a round on work the table does between hands


def best(fn: Callable[[], object], hands: int, rounds: int) -> float:
    """The best round's CPU time per call, in microseconds."""
    times = []
    for _ in range(rounds):
        UNTIMED[0] = 0.0
        start = time.process_time()
        for _ in range(hands):
            fn()
        times.append((time.process_time() - start - UNTIMED[0]) / hands * 1e6)
    return min(times)


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=2000, help="hands per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=8, help="dealt in (and seated)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    n = args.players
    rows = [("v1 sha256-per-card-v1", best(v1_prepare, args.hands, args.rounds))]
    for k in (0, n):
        rows.append(
            (
                f"v2, {k} seeds, next announce made at start",
                best(v2_prepare(n, k), args.hands, args.rounds),
            )
        )
        rows.append(
            (
                f"v2, {k} seeds (the table: announce ahead)",
                best(v2_prepare(n, k, True), args.hands, args.rounds),
            )
        )
    rows.append(
        ("v2 announce made between hands", best(seeds.new_announce, args.hands, args.rounds))
    )
    deck = list(shuffled_deck())
    master = secrets.token_bytes(32)
    opened = set(range(0, 52, 3))

    def v1_reveals() -> None:
        opening = commitment.Opening(deck, master)
        for _ in range(n + 1):
            opening.reveal(opened)

    taken = v2_prepare(n, n)()

    def v2_reveals() -> None:
        for _ in range(n + 1):
            taken.reveal(opened)

    rows.append(("v1 reveals (table + each player)", best(v1_reveals, args.hands // 4, 3)))
    rows.append(("v2 reveals (table + each player)", best(v2_reveals, args.hands // 4, 3)))
    print(f"deal preparation per hand, {n} players (CPU µs, best of {args.rounds})")
    for name, micros in rows:
        print(f"  {name:<44} {micros:9.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
