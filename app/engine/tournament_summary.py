"""A tournament's summary as PokerStars writes it for one player, the text tracking tools
import next to the hands (in English, whatever the player's language).

    PokerStars Tournament #42, Limit 7 Card Stud
    Buy-In: $10.00/$1.00 USD
    20 players
    Total Prize Pool: $200.00 USD
    Tournament started 2026/12/01 20:00:00 UTC [2026/12/01 15:00:00 ET]
    Tournament finished 2026/12/01 22:10:00 UTC [2026/12/01 17:10:00 ET]
      1: ann (Netherlands), $100.00 (50%)
      2: bob [2] (Germany), $60.25 (30.125%)       (a re-entry: its number)
      3: cy (Unknown), $39.75 (19.875%)
      4: dee (Belgium),
    <blank>
    You finished in 2nd place.

Checked against PokerStars' summaries (FPDB's regression samples, 2010 to 2016): the game
with its limit first ("No Limit Hold'em", "Pot Limit 5 Card Omaha"; mixed games by the mix's
name alone: "8-Game", "Mixed Omaha"), so ours are "Limit 7 Card Stud", "Limit 7 Card Stud
Hi/Lo", "Limit Razz" and, for the rotation, PokerStars' own "Triple Stud"; the buy-in and the
prize pool always with cents, the places' prizes with thousands commas and the share of the
pool to three decimals at most; a place line without a prize ends at its comma. A summary
written while the tournament runs has no "finished" line, a blank line instead, and the
players still in first, numbered in name order, "still playing". The times are UTC with ET in
brackets, as the hands write them (`pokerstars.stars_time`). A player without a country is
"(Unknown)": importers need the brackets. PokerStars' summary carries no tournament name.

The summary shows places, names, countries and prizes only: nothing of any hand (R24).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from app.engine.pokerstars import MIX_NAME, dollars, ordinal, stars_time

SUMMARY_GAMES = {
    "stud": "Limit 7 Card Stud",
    "stud8": "Limit 7 Card Stud Hi/Lo",
    "razz": "Limit Razz",
    "rotation": MIX_NAME,
}
UNKNOWN_COUNTRY = "Unknown"


@dataclass(frozen=True, slots=True)
class Place:
    """One entry's line. `place` None: still playing (the tournament is not over)."""

    place: int | None
    name: str
    country: str | None = None
    prize: int = 0  # cents
    entry: int = 1  # 2 and up: a re-entry, written "ann [2]"


@dataclass(frozen=True, slots=True)
class SummaryText:
    """What the summary needs of a tournament. Money in cents; `finished_at` None while it
    runs; `viewer` the player it is written for (their place ends it), None for nobody."""

    tournament_id: int
    name: str  # the mail names it; PokerStars' summary has no place for it
    variant: str  # stud | stud8 | razz | rotation
    buy_in: int
    fee: int
    entrants: int
    prize_pool: int
    started_at: datetime
    finished_at: datetime | None
    places: Sequence[Place]
    viewer: str | None = None
    currency: str = "USD"


def render_summary(summary: SummaryText) -> str:
    """The summary's text; ValueError if the places do not fit together."""
    s = summary
    if s.variant not in SUMMARY_GAMES:
        raise ValueError(f"no tournament game {s.variant!r}")
    lines = [f"PokerStars Tournament #{s.tournament_id}, {SUMMARY_GAMES[s.variant]}"]
    if s.buy_in == 0 and s.fee == 0:
        lines.append("Freeroll")
    else:
        buy_in, fee = dollars(s.buy_in, s.currency), dollars(s.fee, s.currency)
        lines.append(f"Buy-In: {buy_in}/{fee} {s.currency}")
    lines.append(f"{s.entrants} players")
    lines.append(f"Total Prize Pool: {dollars(s.prize_pool, s.currency)} {s.currency}")
    lines.append(f"Tournament started {stars_time(s.started_at)}")
    if s.finished_at is not None:
        lines.append(f"Tournament finished {stars_time(s.finished_at)}")
    else:
        lines.append("")
    lines.extend(_place_lines(s))
    mine = viewer_place(s)
    if mine is not None:
        lines += ["", f"You finished in {ordinal(mine)} place."]
    return "\n".join(lines) + "\n"


def ordered_places(summary: SummaryText) -> list[tuple[int, Place]]:
    """Every entry with the number its line shows: the players still in first (1, 2, … in
    name order), then the finished by place. ValueError on places that do not fit."""
    still = sorted((p for p in summary.places if p.place is None), key=lambda p: (p.name, p.entry))
    done = sorted((p for p in summary.places if p.place is not None), key=lambda p: p.place or 0)
    if still and summary.finished_at is not None:
        raise ValueError("a finished tournament has nobody still playing")
    numbers = [p.place for p in done if p.place is not None]
    if len(set(numbers)) != len(numbers):
        raise ValueError(f"two entries share a place: {numbers}")
    if numbers and not len(still) < numbers[0] <= numbers[-1] <= summary.entrants:
        raise ValueError(
            f"places {numbers[0]}..{numbers[-1]} with {len(still)} still playing"
            f" of {summary.entrants}"
        )
    return [(i, p) for i, p in enumerate(still, 1)] + [(p.place or 0, p) for p in done]


def _place_lines(s: SummaryText) -> list[str]:
    lines = []
    for number, p in ordered_places(s):
        entry = f" [{p.entry}]" if p.entry > 1 else ""
        head = f"  {number}: {p.name}{entry} ({p.country or UNKNOWN_COUNTRY}),"
        if p.place is None:
            lines.append(f"{head} still playing")
        elif p.prize:
            prize = dollars(p.prize, s.currency, grouping=True)
            lines.append(f"{head} {prize} ({share(p.prize, s.prize_pool)})")
        else:
            lines.append(head)
    return lines


def viewer_place(summary: SummaryText) -> int | None:
    """The viewer's best finished place; None if there is no viewer, or they still play.
    ValueError if the viewer has no entry."""
    if summary.viewer is None:
        return None
    mine = [p for p in summary.places if p.name == summary.viewer]
    if not mine:
        raise ValueError(f"{summary.viewer!r} has no entry in the tournament")
    if any(p.place is None for p in mine):
        return None
    return min(p.place for p in mine if p.place is not None)


def share(prize: int, pool: int) -> str:
    """A prize's share of the pool, rounded half up to three decimals, trailing zeros
    dropped: "50%", "30.125%", "2.57%"."""
    if pool <= 0:
        raise ValueError("a prize from an empty pool")
    thousandths = (prize * 200_000 + pool) // (2 * pool)  # of a percent
    whole, rest = divmod(thousandths, 1000)
    decimals = f"{rest:03d}".rstrip("0")
    return f"{whole}.{decimals}%" if decimals else f"{whole}%"
