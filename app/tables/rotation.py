"""A rotation table (docs/rules.md R45): its game changes among Stud Hi, Stud Hi/Lo and Razz,
in the engine's one rotation order (`variants.ROTATION`, which a tournament's levels follow
too), every `rotation_hands` hands or every orbit, with the same limits.

The game is the table's `variant` setting, as at a tournament table: when a step is over the
table takes new settings with the next game, between hands, by the path every settings change
takes (`hosting.apply_settings`: saved, then said in a `table` event). Each hand's record
carries its place in its step (`rules.rotation`: mode, hand, of), so a table rebuilt from the
database (a restart, a failover, a move) goes on from its last recorded hand (`resume`), not
from the start of the rotation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.variants import Variant, next_game
from app.tables.settings import TableSettings
from app.tables.state import SeatInfo, Step, TableState


def rotates(table: TableState) -> bool:
    return table.settings.rotation != "none" and table.directed is None


def length(table: TableState) -> int | None:
    """How many hands the step plays: `rotation_hands`, or an orbit: as many hands as players
    were dealt in at the step's first hand (None until that hand is dealt)."""
    s = table.settings
    return s.rotation_hands if s.rotation == "hands" else table.step.orbit


def dealt(table: TableState, players: Sequence[SeatInfo]) -> dict[str, Any] | None:
    """A hand is dealt to `players`: its place in the step, for its record (None at a table
    that does not rotate). The step's first hand fixes an orbit's length."""
    if not rotates(table):
        return None
    step = table.step
    if step.played == 0:
        step.orbit = len(players)
    return {"mode": table.settings.rotation, "hand": step.played + 1, "of": length(table)}


def hand_over(table: TableState) -> TableSettings | None:
    """A hand of the step was played: after the step's last hand, the settings of the next
    game (for `hosting.apply_settings`, between hands); else None. A host's change of the game
    or of the rotation waiting for the hand's end starts a new step instead (applying it
    resets the step: `changes_step`)."""
    if not rotates(table):
        return None
    pending = table.pending_settings
    s = table.settings
    if pending is not None and changes_step(s, pending):
        return None
    table.step.played += 1
    if table.step.played < (length(table) or 1):
        return None
    base = (pending or s).model_dump()
    return TableSettings.stored({**base, "variant": next_game(s.variant).value})


def changes_step(old: TableSettings, new: TableSettings) -> bool:
    """Whether new settings start a new step: another game, or another rotation."""
    keys = ("variant", "rotation", "rotation_hands")
    return any(getattr(old, k) != getattr(new, k) for k in keys)


def resume(table: TableState, last: Mapping[str, Any] | None) -> None:
    """A table rebuilt from the database goes on where its last recorded hand left the
    rotation (`last`: that hand's `variant` and `rotation`, None if it has none): the same
    game with the rest of its step, or the next game when that hand ended its step."""
    if not rotates(table) or last is None:
        return
    place = last.get("rotation")
    s = table.settings
    if not isinstance(place, Mapping) or place.get("mode") != s.rotation:
        return
    game = Variant(last["variant"])
    played = int(place["hand"])
    orbit = int(place["of"]) if s.rotation == "orbit" else None
    if played >= (orbit if orbit is not None else s.rotation_hands):
        game, played, orbit = next_game(game), 0, None
    table.settings = s.model_copy(update={"variant": game})
    table.step = Step(played, orbit)


def view(table: TableState) -> dict[str, Any] | None:
    """The rotation as the table shows it: the game now, the next hand's place in the step
    (`of` null until an orbit's first hand fixes it), and the game that follows."""
    if not rotates(table):
        return None
    s = table.settings
    return {
        "mode": s.rotation,
        "game": s.variant.value,
        "hand": table.step.played + 1,
        "of": length(table),
        "next": next_game(s.variant).value,
    }
