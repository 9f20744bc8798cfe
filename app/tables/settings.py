"""A table's settings (RULES.md R1-R4, R19, R22, R25), checked once, as the runtime uses them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from app.engine import Rules, Variant, money
from app.tables.errors import TableError

TimeoutAction = Literal["all_in", "fold"]
ShowdownFirst = Literal["first_to_act", "lowest_seat"]

# Settings the host may change between hands (not the stakes' identity: not `private`).
CHANGEABLE = frozenset(
    {
        "name", "small_bet", "big_bet", "ante", "bring_in", "max_buy_in", "max_seats",
        "action_timer_ms", "hand_pause_ms", "rake_bps", "rake_cap", "rake_third_street",
        "timeout_action", "showdown_first_when_checked", "sit_out_limit", "bot_delay_ms",
        "variant",
    }
)  # fmt: skip
# Kept in `PokerTable.extra` (no column of their own).
EXTRA = ("sit_out_limit", "bot_delay_ms")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """`rake_cap` 0 means uncapped; `max_buy_in` None means no maximum (R3)."""

    name: str
    variant: str = "stud"
    small_bet: int = 100
    big_bet: int = 200
    ante: int = 15
    bring_in: int = 50
    max_buy_in: int | None = None
    max_seats: int = 8
    action_timer_ms: int = 10_000
    hand_pause_ms: int = 3_000
    rake_bps: int = 0
    rake_cap: int = 0
    rake_third_street: bool = False
    timeout_action: TimeoutAction = "all_in"
    showdown_first_when_checked: ShowdownFirst = "first_to_act"
    private: bool = False
    sit_out_limit: int = 3  # hands a player may sit out before the seat is freed
    bot_delay_ms: int = 800  # a bot's "thinking" time

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        def bad(message: str) -> TableError:
            return TableError("invalid_settings", message)

        if not 1 <= len(self.name.strip()) <= 64:
            raise bad("the table name is 1 to 64 characters")
        if self.variant not in {v.value for v in Variant}:
            raise bad("the variant is stud, stud8 or razz")
        if not 2 <= self.max_seats <= 8:
            raise bad("a table seats 2 to 8 players (R1)")
        if not 100 <= self.action_timer_ms <= 300_000:
            raise bad("the action timer is 0.1 to 300 seconds")
        if not 0 <= self.hand_pause_ms <= 60_000:
            raise bad("the pause between hands is 0 to 60 seconds")
        if not 0 <= self.sit_out_limit <= 1000 or not 0 <= self.bot_delay_ms <= 60_000:
            raise bad("sit_out_limit is 0..1000 hands and bot_delay_ms 0..60000")
        if self.rake_cap < 0:
            raise bad("the rake cap cannot be negative")
        if self.max_buy_in is not None and self.max_buy_in < self.min_buy_in:
            raise bad(
                f"the maximum buy-in must be at least the minimum ({money.chips(self.min_buy_in)})"
            )
        try:
            self.rules()
        except ValueError as exc:
            raise bad(str(exc)) from None

    @property
    def min_buy_in(self) -> int:
        """R3: ten small bets."""
        return 10 * self.small_bet

    def rules(self) -> Rules:
        return Rules(
            Variant(self.variant),
            ante=self.ante,
            bring_in=self.bring_in,
            small_bet=self.small_bet,
            big_bet=self.big_bet,
            rake_bps=self.rake_bps,
            rake_cap=self.rake_cap or None,
            rake_third_street=self.rake_third_street,
            timeout_action=self.timeout_action,
            showdown_first_when_checked=self.showdown_first_when_checked,
        )

    def changed(self, changes: dict[str, Any]) -> TableSettings:
        unknown = set(changes) - CHANGEABLE
        if unknown:
            raise TableError("invalid_settings", f"cannot change {sorted(unknown)}")
        try:
            return replace(self, **changes)
        except TypeError as exc:
            raise TableError("invalid_settings", str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["min_buy_in"] = self.min_buy_in
        return out
