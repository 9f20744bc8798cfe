"""The tournament summary (app/engine/tournament_summary.py), read back the way a tracker reads
PokerStars' own.

The form was checked against PokerStars' summaries among the FPDB importer's regression
samples (github.com/philroberts/FPDB-for-OSX, pyfpdb/regression-test-files/summaries/Stars/):
NLSD-MTT-USD-1000-50-201609.reentry.txt (2016: a finished tournament, "Tournament finished",
place lines with thousands commas, three-decimal shares and re-entries "[2]"),
NLHE-USD-HUSnG-10-201011.s0rrow.wins.txt (2010: "You finished in 1st place."),
NLHE-Play-STT-20110405.txt and MPLO-6max-MTT-USD-27-201605.txt (a summary while the tournament
runs: a blank line, "still playing"; the time with ET in brackets), 5-Card-PLO-6max-MTT-USD-
12.30-12.25-2.45-201611.progressive.txt ("Pot Limit 5 Card Omaha": the limit first) and
8-Game-2max-STT-play-100-201306.homeGame.shootout.txt (a mixed game by its name alone).
The real lines quoted below are read by the same reader as ours.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

import pytest

from app.engine.tournament_summary import Place, SummaryText, render_summary, share

STARTED = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
FINISHED = datetime(2026, 12, 1, 22, 10, tzinfo=UTC)


def finished(**changes: object) -> SummaryText:
    places = [
        Place(1, "ann", "Netherlands", 10_000),
        Place(2, "bob", "Germany", 6000, entry=2),
        Place(3, "cy", None, 4000),
        *(Place(n, f"p{n}", "Belgium") for n in range(4, 21)),
    ]
    summary = SummaryText(
        tournament_id=42, name="Friday Stud", variant="stud", buy_in=1000, fee=100,
        entrants=20, prize_pool=20_000, started_at=STARTED, finished_at=FINISHED,
        places=places, viewer="p7",
    )  # fmt: skip
    return dataclasses.replace(summary, **changes)  # type: ignore[arg-type]


def test_a_finished_tournament_for_one_viewer() -> None:
    got = render_summary(finished()).splitlines()
    assert got[:10] == [
        "PokerStars Tournament #42, Limit 7 Card Stud",
        "Buy-In: $10.00/$1.00 USD",
        "20 players",
        "Total Prize Pool: $200.00 USD",
        "Tournament started 2026/12/01 20:00:00 UTC [2026/12/01 15:00:00 ET]",
        "Tournament finished 2026/12/01 22:10:00 UTC [2026/12/01 17:10:00 ET]",
        "  1: ann (Netherlands), $100.00 (50%)",
        "  2: bob [2] (Germany), $60.00 (30%)",
        "  3: cy (Unknown), $40.00 (20%)",
        "  4: p4 (Belgium),",
    ]
    assert got[-3:] == ["  20: p20 (Belgium),", "", "You finished in 7th place."]
    assert len(got) == 6 + 20 + 2


# -- a tracker's reading -------------------------------------------------------------------------

GAMES = {"Limit 7 Card Stud": "stud", "Limit 7 Card Stud Hi/Lo": "stud8", "Limit Razz": "razz",
         "Triple Stud": "rotation"}  # fmt: skip
MONEY = r"\$([\d,]+\.\d\d)"
PLACE = re.compile(
    r"^  (\d+): (.+?)(?: \[(\d+)\])? \(([^)]+)\),(?: " + MONEY + r" \((\d+(?:\.\d{1,3})?)%\)"
    r"| (still playing))?$"
)
TIME = r"(\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d) [A-Z]+(?: \[(\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d) ET\])?"


def cents(text: str) -> int:
    whole, part = text.replace(",", "").split(".")
    return int(whole) * 100 + int(part)


def read_place(line: str) -> tuple[int, Place, str | None]:
    """A place line: its number, the entry it names, the share it states."""
    m = PLACE.match(line)
    assert m is not None, line
    number, name, entry, country, prize, pct, still = m.groups()
    place = None if still else int(number)
    p = Place(place, name, None if country == "Unknown" else country,
              cents(prize) if prize else 0, int(entry or 1))  # fmt: skip
    return int(number), p, pct


def read_summary(text: str) -> SummaryText:
    """Every line of the summary, in PokerStars' order; an AssertionError on any other."""
    lines = text.splitlines()
    head = re.fullmatch(r"PokerStars Tournament #(\d+), (.+)", lines[0])
    assert head is not None and head[2] in GAMES
    buy = re.fullmatch(r"Buy-In: " + MONEY + "/" + MONEY + " USD", lines[1])
    assert buy is not None or lines[1] == "Freeroll"
    entrants = re.fullmatch(r"(\d+) players", lines[2])
    pool = re.fullmatch(r"Total Prize Pool: " + MONEY + " USD", lines[3])
    started = re.fullmatch("Tournament started " + TIME, lines[4])
    assert entrants and pool and started
    ended = re.fullmatch("Tournament finished " + TIME, lines[5])
    assert ended is not None or lines[5] == ""
    places, viewer = [], None
    for line in lines[6:]:
        if line == "":
            break
        number, place, pct = read_place(line)
        assert place.place in (None, number)
        if pct is not None:
            assert pct == share(place.prize, cents(pool[1])).rstrip("%")
        places.append(place)
    rest = lines[6 + len(places) :]
    if rest:
        you = re.fullmatch(r"You finished in (\d+)(st|nd|rd|th) place\.", rest[1])
        assert rest[0] == "" and you is not None and len(rest) == 2
        viewer = next(p.name for p in places if p.place == int(you[1]))
    when = "%Y/%m/%d %H:%M:%S"
    return SummaryText(
        int(head[1]), "", GAMES[head[2]], cents(buy[1]) if buy else 0, cents(buy[2]) if buy else 0,
        int(entrants[1]), cents(pool[1]), datetime.strptime(started[1], when).replace(tzinfo=UTC),
        datetime.strptime(ended[1], when).replace(tzinfo=UTC) if ended else None, places, viewer,
    )  # fmt: skip


def test_the_reader_reads_pokerstars_own_summary_lines() -> None:
    """Lines of the real summaries named above, read as ours are."""
    assert read_place("  5: blanconegro [2] (Mexico), $11,267.10 (7.77%)") == (
        5, Place(5, "blanconegro", "Mexico", 1_126_710, 2), "7.77")  # fmt: skip
    assert read_place("  1: nilsef (Germany), $30,511.94 (21.042%)")[1].prize == 3_051_194
    assert read_place("  15: Antonio7 (Canada),") == (15, Place(15, "Antonio7", "Canada"), None)
    assert read_place("  1: ColdChipz (Australia), still playing")[1].place is None
    assert re.fullmatch(r"Buy-In: " + MONEY + "/" + MONEY + " USD", "Buy-In: $1000.00/$50.00 USD")
    assert re.fullmatch(r"Total Prize Pool: " + MONEY + " USD", "Total Prize Pool: $145000.00 USD")
    real = "Tournament started 2016/05/16 0:00:00 EET [2016/05/15 17:00:00 ET]"
    assert re.fullmatch("Tournament started " + TIME, real)
    assert read_summary(render_summary(finished())).places[1].entry == 2


@pytest.mark.parametrize("variant", ["stud", "stud8", "razz", "rotation"])
def test_every_summary_reads_back_to_what_it_was_written_from(variant: str) -> None:
    summary = finished(variant=variant)
    back = read_summary(render_summary(summary))
    assert back == dataclasses.replace(summary, name="")
    assert sum(p.prize for p in back.places) == back.prize_pool


def test_the_rotation_is_triple_stud_and_a_freeroll_has_no_buy_in() -> None:
    got = render_summary(finished(variant="rotation", buy_in=0, fee=0)).splitlines()
    assert got[:2] == ["PokerStars Tournament #42, Triple Stud", "Freeroll"]


def test_a_summary_while_the_tournament_runs() -> None:
    """Seven still in (numbered in name order, as PokerStars does), three out; the viewer went
    out eighth."""
    still = [Place(None, name, "Netherlands") for name in ("zed", "Ann", "bob", "ann", "_x", "cy",
                                                           "dee")]  # fmt: skip
    out = [Place(10, "p10", "Belgium"), Place(8, "me", None), Place(9, "p9", "Belgium")]
    summary = finished(entrants=10, places=[*still, *out], finished_at=None, viewer="me",
                       prize_pool=1000)  # fmt: skip
    got = render_summary(summary).splitlines()
    assert got[5] == ""
    assert got[6:13] == [f"  {n}: {name} (Netherlands), still playing" for n, name in
                         enumerate(["Ann", "_x", "ann", "bob", "cy", "dee", "zed"], 1)]  # fmt: skip
    assert got[13:] == ["  8: me (Unknown),", "  9: p9 (Belgium),", "  10: p10 (Belgium),", "",
                        "You finished in 8th place."]  # fmt: skip
    assert read_summary("\n".join(got)).finished_at is None
    still_in = render_summary(dataclasses.replace(summary, viewer="cy"))
    assert "You finished" not in still_in  # the viewer still plays: no place yet


def test_a_re_entered_player_finished_where_the_best_entry_did() -> None:
    """p7 went out 20th, re-entered and went out 7th: both lines, the second "[2]"; the
    viewer's line names the better place."""
    places = [
        Place(p.place, "p7", p.country, entry=2) if p.place == 7
        else Place(p.place, "p7", p.country) if p.place == 20 else p
        for p in finished().places
    ]  # fmt: skip
    got = render_summary(finished(places=places))
    assert "\n  7: p7 [2] (Belgium),\n" in got and "\n  20: p7 (Belgium),\n" in got
    assert got.endswith("\n\nYou finished in 7th place.\n")
    assert "You finished" not in render_summary(finished(viewer=None))


@pytest.mark.parametrize(
    ("prize", "pool", "shown"),
    [(10_000, 20_000, "50%"), (6025, 20_000, "30.125%"), (257, 10_000, "2.57%"),
     (1, 3, "33.333%"), (2, 3, "66.667%"), (1, 100_000, "0.001%"), (1, 200_000, "0.001%"),
     (1, 200_001, "0%"), (20_000, 20_000, "100%")],
)  # fmt: skip
def test_the_share_of_the_pool_rounds_half_up_to_three_decimals(
    prize: int, pool: int, shown: str
) -> None:
    assert share(prize, pool) == shown


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"places": [Place(1, "a"), Place(1, "b")]}, "share a place"),
     ({"places": [Place(None, "a"), Place(2, "b")]}, "nobody still playing"),
     ({"places": [Place(21, "a")], "viewer": None}, "places 21..21"),
     ({"places": [Place(None, "a"), Place(1, "b")], "finished_at": None, "viewer": None},
      "1 still playing"),
     ({"viewer": "nobody"}, "no entry"),
     ({"variant": "holdem"}, "no tournament game")],
)  # fmt: skip
def test_places_that_do_not_fit_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render_summary(finished(**changes))


def test_r24_the_summary_shows_places_names_and_prizes_only() -> None:
    """Every line is one of the summary's own (the reader refuses any other): nothing of a
    hand, no card and no action, is in it, even with a name that looks like cards."""
    places = [Place(1, "Ah Kd", "Spain", 20_000), *(Place(n, f"p{n}") for n in range(2, 21))]
    text = render_summary(finished(places=places, viewer="Ah Kd"))
    back = read_summary(text)
    assert [(p.name, p.prize) for p in back.places[:2]] == [("Ah Kd", 20_000), ("p2", 0)]
    assert back.viewer == "Ah Kd"
    assert not re.search(r"\*\*\*|Dealt to|shows|mucks|collected|folds", text)
