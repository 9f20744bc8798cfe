"""What a tournament table plays by for its next hand (docs/rules.md R26, R28-R30, R32)."""

from __future__ import annotations

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


def hand_for_hand(players_left: int, paid_places: int, tables: int) -> bool:
    """R32: on the bubble, when the next bust puts everyone left in the money (players left
    = paid places + 1), and with more than one table, the tables play hand for hand."""
    return tables > 1 and players_left == paid_places + 1
