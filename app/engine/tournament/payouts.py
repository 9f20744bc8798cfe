"""Prize pools split into prizes (docs/rules.md R34).

Schemes: ``winner_takes_all``; ``top10``, ``top15``, ``top20`` pay the top 10, 15 or 20% of
the entrants (rounded up, at least 1, and at least 2 from 4 entrants up) on a curve; the
sit & go splits ``sng_50_30_20``, ``sng_65_35`` and ``sng_70_30`` pay fixed percentages.

The curve of the top-N% schemes is a harmonic (Zipf) curve shifted by one: of ``n`` paid
places, place ``i`` gets the weight ``1 / (i + 1)``, a share ``(1/(i+1)) / sum(1/(k+1) for k
= 1..n)``. For 100 entrants that pays 1st about 25% (top10), 21% (top15) or 19% (top20), 1st
half as much again as 2nd, as the big online rooms' tables do. A sit & go split with fewer
entrants than its places pays only as many places as there are entrants, their percentages
scaled up in proportion (50/30/20 with two entrants pays 62.5/37.5).

R36's chop when an operator cancels a tournament under way is `chip_chop`.

Whole chips: each place gets its share rounded down and the chips left over (fewer than the
places) go one each to 1st, 2nd, … in order. If that would leave a paid place with nothing
while the pool has a chip for every paid place, every paid place gets one chip first and the
rest of the pool is shared so. Prizes never grow down the places and always sum to the pool.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

SCHEMES = (
    "winner_takes_all",
    "top10",
    "top15",
    "top20",
    "sng_50_30_20",
    "sng_65_35",
    "sng_70_30",
)

SPLITS = {"sng_50_30_20": (50, 30, 20), "sng_65_35": (65, 35), "sng_70_30": (70, 30)}
PERCENT = {"top10": 10, "top15": 15, "top20": 20}


def _entrants(entrants: int) -> int:
    if type(entrants) is not int or entrants < 1:
        raise ValueError(f"entrants must be a whole number of at least 1, not {entrants!r}")
    return entrants


def paid_places(scheme: str, entrants: int) -> int:
    """How many places `scheme` pays with this many entrants."""
    _entrants(entrants)
    if scheme == "winner_takes_all":
        return 1
    if scheme in SPLITS:
        return min(len(SPLITS[scheme]), entrants)
    if scheme in PERCENT:
        paid = max(1, math.ceil(entrants * PERCENT[scheme] / 100))
        if entrants >= 4:
            paid = max(paid, 2)
        return min(paid, entrants)
    raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")


def weights(scheme: str, paid: int) -> list[int]:
    """Whole-number weights of places 1..paid (only their ratios matter)."""
    if scheme in SPLITS:
        return list(SPLITS[scheme][:paid])
    if scheme == "winner_takes_all":
        return [1]
    scale = math.lcm(*range(2, paid + 2))  # 1/(i+1) as exact whole numbers
    return [scale // (i + 1) for i in range(1, paid + 1)]


def share(pool: int, weights: list[int]) -> list[int]:
    """`pool` split in proportion to non-increasing `weights`, rounded down, the odd chips
    to the best places first."""
    total = sum(weights)
    shares = [pool * w // total for w in weights]
    for i in range(pool - sum(shares)):
        shares[i] += 1
    return shares


def prizes(scheme: str, pool: int, entrants: int) -> list[int]:
    """The prizes of places 1..paid_places(scheme, entrants); see the module docstring."""
    paid = paid_places(scheme, entrants)
    if type(pool) is not int or pool < 0:
        raise ValueError(f"the prize pool must be a whole number of chips, not {pool!r}")
    w = weights(scheme, paid)
    out = share(pool, w)
    if pool >= paid and min(out) == 0:
        out = [1 + chips for chips in share(pool - paid, w)]
    return out


def chip_chop(
    prizes: Sequence[int], chips: Mapping[int, int], order: Mapping[int, int]
) -> dict[int, int]:
    """R36, an operator's cancellation under way: what each player left (entry -> chips in
    play) is paid. The prizes not yet decided are those of places 1..n for the n players
    left; each player gets the lowest of them (place n's: what they were sure to win), and the
    rest is divided in proportion to the chips, rounded down, the chips left over one each to
    the biggest stacks (equal stacks by `order`, lowest first)."""
    n = len(chips)
    if n < 1 or any(type(c) is not int or c <= 0 for c in chips.values()):
        raise ValueError("a chop needs players left, each with chips")
    if set(order) < set(chips):
        raise ValueError("every player left needs an order")
    undecided = [prizes[p] if p < len(prizes) else 0 for p in range(n)]
    sure = undecided[-1]
    rest = sum(undecided) - n * sure
    ranked = sorted(chips, key=lambda e: (-chips[e], order[e]))
    total = sum(chips.values())
    out = {e: sure + rest * chips[e] // total for e in ranked}
    for e in ranked[: sum(undecided) - sum(out.values())]:
        out[e] += 1
    return out
