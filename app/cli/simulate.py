"""Play many seeded hands through the engine, checking that chips are conserved."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from app.engine import Hand, Rules, SeatSpec
from app.engine.cards import seeded_rng, shuffled_deck
from app.engine.phh import to_phh
from app.engine.policies import POLICIES, Policy, play_out
from app.engine.rules import MAX_SEATS


class SimulationError(RuntimeError):
    """A simulated hand broke an invariant (chips not conserved) or the engine failed."""


@dataclass(frozen=True, slots=True)
class Table:
    """The fixed part of a simulation: stakes, players' seats and the policy."""

    rules: Rules
    seats: tuple[int, ...]


def random_stacks(rng: random.Random, rules: Rules, count: int) -> list[int]:
    """Stacks from a few chips to 100 big bets, log-uniform, so that all-ins, short antes
    (R6, R11) and side pots come up often."""
    low = max(1, 2 * rules.bring_in)
    high = max(low + 1, 100 * rules.big_bet)
    out = []
    for _ in range(count):
        if rng.random() < 0.04:
            out.append(rng.randint(1, max(1, rules.ante + rules.bring_in)))
        else:
            out.append(max(1, round(low * (high / low) ** rng.random())))
    return out


def simulate(
    table: Table,
    hands: int,
    seed: int | str,
    policy_name: str = "random",
) -> Iterator[Hand]:
    """Play `hands` hands, each to its end; yields each finished hand after checking that
    chips were conserved. The button moves one occupied seat clockwise each hand (R5)."""
    rng = seeded_rng(f"simulate:{seed}")
    policy: Policy = POLICIES[policy_name](seeded_rng(f"policy:{seed}"))
    seats = table.seats
    button = seats[rng.randrange(len(seats))]
    for index in range(hands):
        stacks = random_stacks(rng, table.rules, len(seats))
        deck = shuffled_deck(rng)
        try:
            hand = Hand.start(
                table.rules,
                [SeatSpec(s, c) for s, c in zip(seats, stacks, strict=True)],
                button,
                deck,
                reshuffle_seed=f"{seed}:{index}".encode(),
            )
            play_out(hand, policy)
        except Exception as exc:  # report which hand, then stop
            raise SimulationError(f"hand {index + 1}: the engine failed: {exc!r}") from exc
        before = sum(stacks)
        after = sum(hand.stacks.values()) + hand.rake
        if before != after:
            raise SimulationError(
                f"hand {index + 1}: chips not conserved: {before} before, {after} after "
                f"(stacks {hand.stacks}, rake {hand.rake})"
            )
        yield hand
        following = [s for s in sorted(seats) if s > button]
        button = following[0] if following else min(seats)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", choices=["stud", "stud8", "razz"], default="stud")
    parser.add_argument("--players", type=int, default=6, help="2 to 8 (default 6)")
    parser.add_argument("--hands", type=int, default=1000, help="default 1000")
    parser.add_argument("--seed", default="1", help="seeds the decks, stacks and policy")
    parser.add_argument(
        "--policy",
        choices=sorted(POLICIES),
        default="random",
        help="random: any legal action (default); calldown: always check or call",
    )
    parser.add_argument("--phh-dir", type=Path, default=None, help="write one .phh per hand")
    parser.add_argument("--ante", type=int, default=5, help="default 5")
    parser.add_argument("--bring-in", type=int, default=10, help="default 10")
    parser.add_argument("--small-bet", type=int, default=20, help="default 20; big bet twice")
    parser.add_argument("--rake-bps", type=int, default=0, help="rake in basis points")
    parser.add_argument("--rake-cap", type=int, default=None, help="rake cap (default none)")


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= MAX_SEATS:
        print(f"error: --players must be 2 to {MAX_SEATS}", file=sys.stderr)
        return 2
    if args.hands < 0:
        print("error: --hands must not be negative", file=sys.stderr)
        return 2
    try:
        rules = Rules(
            args.variant,
            args.ante,
            args.bring_in,
            args.small_bet,
            2 * args.small_bet,
            rake_bps=args.rake_bps,
            rake_cap=args.rake_cap,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seat_rng = seeded_rng(f"seats:{args.seed}")
    table = Table(rules, tuple(sorted(seat_rng.sample(range(MAX_SEATS), args.players))))
    if args.phh_dir is not None:
        args.phh_dir.mkdir(parents=True, exist_ok=True)
    bar = _Progress(args.hands, sys.stderr) if sys.stderr.isatty() else None
    showdowns = 0
    started = time.perf_counter()
    try:
        for index, hand in enumerate(simulate(table, args.hands, args.seed, args.policy)):
            if hand.result is not None and hand.result.showdown:
                showdowns += 1
            if args.phh_dir is not None:
                path = args.phh_dir / f"hand-{index + 1:06d}.phh"
                path.write_text(to_phh(hand, hand_number=index + 1), encoding="utf-8")
            if bar is not None:
                bar.update(index + 1)
    except SimulationError as exc:
        if bar is not None:
            bar.close()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    if bar is not None:
        bar.close()
    rate = args.hands / elapsed if elapsed > 0 else float("inf")
    print(
        f"{args.hands} {args.variant} hands, {args.players} players, {args.policy} policy: "
        f"{elapsed:.2f} s, {rate:,.0f} hands/s; {showdowns} showdowns; chips conserved"
    )
    return 0


class _Progress:
    """A one-line progress bar on a terminal, redrawn at most every 0.1 s."""

    def __init__(self, total: int, out: TextIO) -> None:
        self.total = max(total, 1)
        self.out = out
        self.last = 0.0

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.last < 0.1 and done < self.total:
            return
        self.last = now
        width = 30
        filled = width * done // self.total
        bar = "#" * filled + "-" * (width - filled)
        self.out.write(f"\r[{bar}] {done}/{self.total}")
        self.out.flush()

    def close(self) -> None:
        self.out.write("\n")
        self.out.flush()
