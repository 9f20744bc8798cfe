"""A table's settings (docs/rules.md R1-R4, R19, R22, R25, R42, R45): one model, checked once.

Table creation (the lobby) and the host's changes (HTTP and the socket) both go through
`TableSettings`, with strict types: a whole number is a JSON integer (no `7.5`, no `"8"`,
no `true`), a name is a string. The model checks the table's own bounds; the game's
relations between the stakes (R2, the bring-in, the rake) are the engine's `Rules`, checked
by building one, so each rule is written once.

`rake_cap` None means uncapped, as in the engine. Clients and the database say "uncapped"
with 0 (a cap of 0 would be no rake at all, which is `rake_bps` 0), so 0 is read as None.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from app.engine import Rules, Variant, money
from app.engine.rules import ShowdownFirst, TimeoutAction
from app.tables.errors import TableError
from app.wire.limits import MAX_CHIPS, MAX_SEATS, MIN_SEATS


def _no_cap(value: Any) -> Any:
    return None if value == 0 and type(value) is int else value


def _at_most_max_chips(value: int) -> int:
    """Bounds said in dollars, as the table shows amounts (pydantic's own would name cents)."""
    if value > MAX_CHIPS:
        raise ValueError(f"at most {money.chips(MAX_CHIPS)}")
    return value


Chips = Annotated[int, AfterValidator(_at_most_max_chips)]
Millis = Annotated[int, Field(ge=0)]
# Floors a host cannot go below: a table of bots with no think time and no pause played
# hundreds of hands a second, faster than any database writes them
MIN_BOT_DELAY_MS = 100
MIN_HAND_PAUSE_MS = 500


class TableSettings(BaseModel):
    """What a host chooses for a table. `max_buy_in` None means no maximum (R3)."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
    variant: Annotated[Variant, Field(strict=False)] = Variant.STUD  # by its value: "stud8"
    small_bet: Chips
    big_bet: Chips  # default: twice the small bet
    ante: Chips = 0
    bring_in: Chips  # default: half the small bet
    max_buy_in: Annotated[int, Field(gt=0), AfterValidator(_at_most_max_chips)] | None = None
    max_seats: Annotated[int, Field(ge=MIN_SEATS, le=MAX_SEATS)] = MAX_SEATS  # R1
    action_timer_ms: Annotated[int, Field(ge=100, le=300_000)] = 10_000
    hand_pause_ms: Annotated[Millis, Field(ge=MIN_HAND_PAUSE_MS, le=60_000)] = 3_000
    rake_bps: int = 0
    rake_cap: Annotated[Chips | None, BeforeValidator(_no_cap)] = None
    rake_third_street: bool = False
    timeout_action: TimeoutAction = "all_in"
    showdown_first_when_checked: ShowdownFirst = "first_to_act"
    private: bool = False
    sit_out_limit: Annotated[int, Field(ge=0, le=1000)] = 3  # hands sat out, then the seat frees
    bot_delay_ms: Annotated[Millis, Field(ge=MIN_BOT_DELAY_MS, le=60_000)] = 800  # think time
    raise_cap: bool = True  # R16; a tournament lifts it once two players remain (R29)
    open_pair: Literal["r14", "rp10f"] = "r14"  # R14, or TDA's RP-10-F (R30)
    # R42: a cash table's time bank, in seconds: each player's at the start (0: none), the
    # refill, every how many hands dealt in (0: never), and the most it holds (0: the start)
    time_bank: Annotated[int, Field(ge=0, le=600)] = 0
    time_bank_refill: Annotated[int, Field(ge=0, le=600)] = 0
    time_bank_every: Annotated[int, Field(ge=0, le=1000)] = 0
    time_bank_cap: Annotated[int, Field(ge=0, le=600)] = 0
    # a private table's host options: a seat waits for the host's yes (R43); the session
    # ledger shown to every player, not only the host
    seat_approval: bool = False
    ledger_shared: bool = False
    # R45: the game rotates (Stud Hi, Stud Hi/Lo, Razz) every `rotation_hands` hands or every
    # orbit; `variant` is then the game being played, moved on by the table between hands
    rotation: Literal["none", "hands", "orbit"] = "none"
    rotation_hands: Annotated[int, Field(ge=1, le=100)] = 8

    @model_validator(mode="before")
    @classmethod
    def _stakes_defaults(cls, data: Any) -> Any:
        """`big_bet` defaults to twice the small bet, `bring_in` to half of it (R2)."""
        if not isinstance(data, dict) or type(data.get("small_bet")) is not int:
            return data
        small: int = data["small_bet"]
        data = dict(data)
        if data.get("big_bet") is None:
            data["big_bet"] = 2 * small
        if data.get("bring_in") is None:
            data["bring_in"] = max(1, small // 2)
        return data

    @model_validator(mode="after")
    def _game_rules(self) -> TableSettings:
        self.rules()  # the engine's ValueError names the broken rule
        if self.time_bank_cap and self.time_bank_cap < self.time_bank:
            raise ValueError("the time bank's cap must be at least its starting seconds")
        if self.max_buy_in is not None and self.max_buy_in < self.min_buy_in:
            raise ValueError(
                f"the maximum buy-in must be at least the minimum ({money.chips(self.min_buy_in)})"
            )
        if not self.private and (self.seat_approval or self.ledger_shared):
            raise ValueError("seat approval and a shared session ledger are for private tables")
        return self

    @classmethod
    def stored(cls, values: dict[str, Any]) -> TableSettings:
        """A table's settings as the database kept them; a table made before a floor existed
        comes back at the floor."""
        floors = {"hand_pause_ms": MIN_HAND_PAUSE_MS, "bot_delay_ms": MIN_BOT_DELAY_MS}
        for name, floor in floors.items():
            if type(values.get(name)) is int and values[name] < floor:
                values = {**values, name: floor}
        return cls(**values)

    @classmethod
    def directed(cls, values: dict[str, Any]) -> TableSettings:
        """A tournament table's settings, made by its director (never a host): checked like
        any, but its pace may go below the hosts' floors (a simulation's bots act at once)."""
        pace = {name: values.get(name, 0) for name in ("hand_pause_ms", "bot_delay_ms")}
        floors = {"hand_pause_ms": MIN_HAND_PAUSE_MS, "bot_delay_ms": MIN_BOT_DELAY_MS}
        checked = cls.model_validate({**values, **floors})
        return checked.model_copy(update={k: max(0, int(v)) for k, v in pace.items()})

    @classmethod
    def parse(cls, data: Any) -> TableSettings:
        """Settings from a client's JSON object, or `TableError("invalid_settings")`."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise invalid(exc) from None

    @property
    def min_buy_in(self) -> int:
        """R3: ten small bets."""
        return 10 * self.small_bet

    def rules(self) -> Rules:
        return Rules(
            self.variant,
            ante=self.ante,
            bring_in=self.bring_in,
            small_bet=self.small_bet,
            big_bet=self.big_bet,
            rake_bps=self.rake_bps,
            rake_cap=self.rake_cap,
            rake_third_street=self.rake_third_street,
            timeout_action=self.timeout_action,
            showdown_first_when_checked=self.showdown_first_when_checked,
            raise_cap=self.raise_cap,
            open_pair=self.open_pair,
        )

    def changed(self, changes: dict[str, Any]) -> TableSettings:
        """These settings with the host's changes, checked like new ones."""
        unknown = set(changes) - CHANGEABLE
        if unknown:
            raise TableError("invalid_settings", f"cannot change {sorted(unknown)}")
        return self.parse({**self.model_dump(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """The settings as clients see them (and as the database keeps them)."""
        out = self.model_dump(mode="json")
        out["rake_cap"] = self.rake_cap or 0  # the wire's and the database's "uncapped"
        out["min_buy_in"] = self.min_buy_in
        return out


def invalid(exc: ValidationError) -> TableError:
    """The first problem, said plainly: `max_seats: Input should be a valid integer`."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return TableError("invalid_settings", f"{where}: {message}" if where else message)


# Settings the host may change between hands (not the stakes' identity: not `private`).
CHANGEABLE = frozenset(TableSettings.model_fields) - {"private"}
# Kept in `PokerTable.extra` (no column of their own).
EXTRA = (
    "sit_out_limit", "bot_delay_ms", "raise_cap", "open_pair", "seat_approval", "ledger_shared",
    "rotation", "rotation_hands",
    "time_bank", "time_bank_refill", "time_bank_every", "time_bank_cap",
)  # fmt: skip
