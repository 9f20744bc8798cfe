"""`python -m app verify --tournament ID`: every draw the director made is repeated from the
tournament's seed (R38), with the entrants' seeds mixed in when any were given (`draws.mix`,
recorded with the seat draw). The seed's commitment was published when the tournament was made;
the seed is revealed when it ends. Each recorded draw (the first seats, the order tables
break in, each balancing plan, each seating of a player between tables) holds what it drew
from and what it gave: drawn again from the seed, it must give the same."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.engine.tournament import draws
from app.tournaments.director import balance_plan, moves_of, open_seat


def check_draws(rows: Sequence[Any]) -> tuple[list[str], int]:
    """The problems found (empty: every draw verifies) and how many draws were checked."""
    master = [r for r in rows if r.purpose == "master"]
    if len(master) != 1:
        return ["the tournament has no single seed commitment"], 0
    if not master[0].seed:
        return ["the seed is not revealed yet: it is, when the tournament ends"], 0
    seed = bytes.fromhex(master[0].seed)
    if not draws.verify(seed, "master", master[0].commitment):
        return ["the revealed seed is not the one committed to"], 0
    seats = [r for r in rows if r.purpose == "seats"]
    given = (seats[0].result or {}).get("entrant_seeds") if seats else None
    if given:  # the entrants' seeds were mixed into every draw from the seat draw on
        try:
            seed = draws.mix(seed, [(g["entry"], bytes.fromhex(g["seed"])) for g in given])
        except (KeyError, TypeError, ValueError) as exc:
            return [f"the entrants' seeds of the seat draw are malformed ({exc})"], 0
    problems = []
    checked = 0
    for row in rows:
        if row.purpose == "master":
            continue
        checked += 1
        problem = _check(seed, row.purpose, row.result or {})
        if row.commitment != master[0].commitment:
            problem = problem or "it names another commitment than the tournament's"
        if problem is not None:
            problems.append(f"draw {row.seq} ({row.purpose}): {problem}")
    return problems, checked


def _check(seed: bytes, purpose: str, result: dict[str, Any]) -> str | None:
    try:
        if purpose == "seats":
            drawn = draws.seat_draw(
                seed, result["entries"], result["tables"], result["seats_per_table"]
            )
            if {str(k): list(v) for k, v in drawn.items()} != result["drawn"]:
                return "the seats drawn differ from the seed's draw"
        elif purpose == "break_order":
            order = list(range(len(result["tables"])))
            draws.Rng(seed, "break_order").shuffle(order)
            if [result["tables"][i] for i in order] != result["order"]:
                return "the order of the table breaks differs from the seed's draw"
        elif purpose.startswith("balance:"):
            if moves_of(balance_plan(seed, purpose, result)) != result["moves"]:
                return "the players moved differ from the seed's plan"
        elif purpose.startswith("stray:"):
            drawn_seat = open_seat(seed, purpose, result["free"])
            if drawn_seat is None or list(drawn_seat) != result["drawn"]:
                return "the seat drawn differs from the seed's draw"
        else:
            return "a draw of an unknown kind"
    except (KeyError, TypeError, ValueError) as exc:
        return f"its record is malformed ({exc})"
    return None
