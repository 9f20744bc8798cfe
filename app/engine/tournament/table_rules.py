"""What a tournament table plays by for its next hand (docs/rules.md R26, R28-R30, R32)."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.rules import Rules
from app.engine.tournament.structure import Structure
from app.engine.variants import Variant


def raise_cap_holds(players_left: int) -> bool:
    """R29: the cap of a bet and three raises holds until two players remain."""
    return players_left > 2


def table_rules(structure: Structure, level_index: int, game: str, players_left: int) -> Rules:
    """The engine rules of the next hand dealt at level `level_index` (R26: a level applies
    from the next hand): the level's stakes (a break's are the level's before), its variant
    or else the tournament's `game`, the structure's open-pair rule (R30), the cap while more
    than two players remain (R29), no rake, and no all-in protection (R28: a player whose
    time runs out checks if free, else folds)."""
    level = structure.playing_level(level_index)
    return Rules(
        Variant(level.variant or game),
        level.ante,
        level.bring_in,
        level.small_bet,
        level.big_bet,
        timeout_action="fold",
        raise_cap=raise_cap_holds(players_left),
        open_pair="rp10f" if structure.open_pair == "rp10f" else "r14",
    )


# R32: a big pay jump: the place above pays at least 1.24 times the next bust's place, a
# quarter more less the odd chips of rounding (the harmonic curve's 5/4 of 3rd over 4th,
# R34, is a big jump in any pool of a few hundred chips; its 6/5 of 4th over 5th is not)
BIG_JUMP = (124, 100)


def big_pay_jump(prizes: Sequence[int], players_left: int) -> bool:
    """R32: the next bust takes place `players_left`; the players left after it are sure of
    the place above at least. A big jump: that place pays something and at least 1.24 times
    the bust's place (an unpaid place pays nothing, so the bubble is the first big jump)."""
    if players_left < 2:
        return False

    def prize(place: int) -> int:
        return prizes[place - 1] if place <= len(prizes) else 0

    above, below = prize(players_left - 1), prize(players_left)
    times, per = BIG_JUMP
    return above > 0 and above * per >= below * times


def hand_for_hand(players_left: int, prizes: Sequence[int], tables: int) -> bool:
    """R32: with more than one table, the tables play hand for hand while the next bust is
    on a big pay jump (`big_pay_jump`: the bubble, and the jumps in the money)."""
    return tables > 1 and big_pay_jump(prizes, players_left)
