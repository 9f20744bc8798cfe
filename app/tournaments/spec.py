"""What a host chooses for a tournament: one strict model, checked in one place, as
`TableSettings` is for a table. The structure is a preset, the planner's, or the host's own
level table (R26); amounts are whole numbers: cents of play money for the buy-in, the fee
and rebuy prices, tournament chips for the stacks and the stakes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from app.engine.tournament import planner, structure
from app.engine.tournament.payouts import SCHEMES
from app.engine.tournament.structure import Structure
from app.tables.errors import TableError
from app.wire.limits import MAX_CHIPS, MAX_SEATS, MIN_SEATS

Variant = Literal["stud", "stud8", "razz", "rotation"]
MAX_PLAYERS = 10_000
MAX_PASSWORD = 128


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")


class Preset(Strict):
    """A preset structure (R26): `normal`, `turbo` or `hyper`, levels by time or by hands."""

    preset: Literal["normal", "turbo", "hyper"]
    by_hands: Annotated[int, Field(ge=1, le=1000)] | None = None


class Planned(Strict):
    """The planner's structure: about `hours` for the tournament's players at this speed."""

    hours: Annotated[float, Field(gt=0, le=48, strict=False)]
    speed: Literal["normal", "turbo", "hyper"] = "normal"


class Levels(Strict):
    """The host's own level table (each level as `Level.to_dict`)."""

    levels: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=200)]
    open_pair: Literal["r14", "rp10f"] = "r14"


class Rebuys(Strict):
    """Rebuys during the first `levels` levels, at or below the starting stack, and one
    add-on at the end of that period (R35)."""

    levels: Annotated[int, Field(ge=1, le=100)]
    price: Annotated[int, Field(ge=0, le=MAX_CHIPS)]
    fee: Annotated[int, Field(ge=0, le=MAX_CHIPS)] = 0
    chips: Annotated[int, Field(gt=0, le=MAX_CHIPS)] | None = None  # default: the starting stack
    addon_price: Annotated[int, Field(ge=0, le=MAX_CHIPS)] | None = None  # None: no add-on
    addon_fee: Annotated[int, Field(ge=0, le=MAX_CHIPS)] = 0
    addon_chips: Annotated[int, Field(gt=0, le=MAX_CHIPS)] | None = None


class TournamentSpec(Strict):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
    note: Annotated[str, StringConstraints(max_length=500)] = ""
    variant: Variant = "stud"
    seats_per_table: Annotated[int, Field(ge=MIN_SEATS, le=MAX_SEATS)] = MAX_SEATS
    buy_in: Annotated[int, Field(ge=0, le=MAX_CHIPS)] = 1000
    fee: Annotated[int, Field(ge=0, le=MAX_CHIPS)] = 100
    starting_chips: Annotated[int, Field(ge=100, le=100_000_000)] = 1500
    structure: Preset | Planned | Levels = Preset(preset="normal")
    payouts: str = "top15"  # one of `payouts.SCHEMES`
    min_players: Annotated[int, Field(ge=2, le=MAX_PLAYERS)] = 2
    max_players: Annotated[int, Field(ge=2, le=MAX_PLAYERS)] = MAX_SEATS
    start: Literal["full", "scheduled"] = "full"  # a sit & go starts when the last seat is taken
    starts_at: Annotated[datetime, Field(strict=False)] | None = None
    opens_at: Annotated[datetime, Field(strict=False)] | None = None
    late_levels: Annotated[int, Field(ge=0, le=50)] = 0
    reentry: bool = False
    rebuys: Rebuys | None = None
    action_timer_ms: Annotated[int, Field(ge=1000, le=300_000)] = 10_000  # R27: the house's 10 s
    time_bank_ms: Annotated[int, Field(ge=0, le=600_000)] = 30_000
    time_bank_refill_ms: Annotated[int, Field(ge=0, le=600_000)] = 5_000
    pause_allowance_ms: Annotated[int, Field(ge=0, le=3_600_000)] = 120_000
    hand_pause_ms: Annotated[int, Field(ge=500, le=60_000)] = 3_000
    bot_delay_ms: Annotated[int, Field(ge=100, le=60_000)] = 800
    bots: Annotated[int, Field(ge=0, le=MAX_PLAYERS)] = 0  # seats the host fills with bots
    private: bool = False

    @model_validator(mode="after")
    def _coherent(self) -> TournamentSpec:
        if self.payouts not in SCHEMES:
            raise ValueError(f"payouts: one of {', '.join(SCHEMES)}")
        if self.max_players < self.min_players:
            raise ValueError("max_players must be at least min_players")
        if self.start == "scheduled" and self.starts_at is None:
            raise ValueError("a scheduled tournament needs starts_at")
        if self.start == "full" and self.late_levels:
            raise ValueError("a sit & go starts full: it has no late registration")
        if self.reentry and not self.late_levels:
            raise ValueError("re-entry is during late registration: set late_levels")
        if self.bots >= self.max_players:
            raise ValueError("bots must leave at least one seat for a person")
        self.build_structure()  # the structure's own checks name the level at fault
        return self

    def build_structure(self) -> Structure:
        rotation = self.variant == "rotation"
        s = self.structure
        if isinstance(s, Preset):
            built = structure.preset(
                s.preset, self.starting_chips, by_hands=s.by_hands, variant_rotation=rotation
            )
        elif isinstance(s, Planned):
            built = planner.plan(
                self.max_players,
                s.hours,
                s.speed,
                self.starting_chips,
                seats_per_table=self.seats_per_table,
                rotation=rotation,
            )
        else:
            built = Structure.from_dict({"levels": s.levels, "open_pair": s.open_pair})
        built.validate()
        return built

    @classmethod
    def parse(cls, data: Any) -> TournamentSpec:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            message = first["msg"].removeprefix("Value error, ")
            raise TableError(
                "invalid_tournament", f"{where}: {message}" if where else message
            ) from None
        except ValueError as exc:
            raise TableError("invalid_tournament", str(exc)) from None


def edited_levels(built: Structure, level: int, levels: Any) -> Structure:
    """A host's edit (R26): the levels after `level` (0-based, the one in play, kept with
    those before it) replaced by `levels`, checked as the host form's own level table is.
    `invalid_levels` names what is wrong, counting levels from the first of the whole table."""
    kept = [lv.to_dict() for lv in built.levels[: level + 1]]
    try:
        Levels.model_validate({"levels": levels, "open_pair": built.open_pair})
        whole = Levels.model_validate({"levels": kept + list(levels), "open_pair": built.open_pair})
        return Structure.from_dict({"levels": whole.levels, "open_pair": whole.open_pair})
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise TableError("invalid_levels", f"{where}: {first['msg']}") from None
    except ValueError as exc:
        raise TableError("invalid_levels", str(exc)) from None


__all__ = [
    "MAX_PASSWORD",
    "MAX_PLAYERS",
    "Planned",
    "Preset",
    "Rebuys",
    "TournamentSpec",
    "edited_levels",
]
