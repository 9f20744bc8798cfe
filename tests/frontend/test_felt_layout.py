"""The felt's layout at its fullest, drawn on purpose rather than waited for: 2 to 8 seats,
every one with 7 cards, a status line, a bet and long names, on the desktop and phone sizes
players use. A live hand reaches these states only by chance (the 8-seat desktop overlap at
7th street showed up on one CI run in several), so the page's own renderFelt draws them."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.frontend.players import Player
from tests.frontend.table_kit import (
    HEADER_JS,
    create_table,
    open_table,
    overlaps,
    register,
    seat_bots,
    sit,
)

SIZES = [(1024, 768), (1280, 720), (1366, 768), (1366, 860), (1920, 1080)]
PHONES = [(360, 640), (390, 844)]

# the real page's state with the hand replaced by its fullest: `stage` is "seventh" (two
# backs, four up, one back; bets out; every seat with a status) or "showdown" (every hand
# shown, seven faces, the hands' names hanging below the plates, one winner)
DRAW_JS = """async ([stage, names]) => {
  const { renderFelt } = await import("/static/js/table/view.js");
  const real = document.querySelector(".table-page .felt");
  const felt = real.cloneNode(true);
  felt.classList.add("drawn");
  felt.dataset.layout = "";
  felt.querySelectorAll("[data-key]").forEach((e) => delete e.dataset.key);
  real.style.display = "none"; // (the live hand goes on drawing there)
  real.after(felt);
  const state = structuredClone(window.studDebug.state);
  const n = state.table.max_seats;
  const me = state.seats.find((s) => s.user_id === state.userId)?.seat ?? 0;
  state.seats = state.seats.map((s, i) => ({
    ...s, name: names[i % names.length], stack: 1234567,
    sitting_out: s.seat % 4 === 1, away: s.seat % 4 === 3,
  }));
  const faces = ["Qs", "Qh", "Td", "Tc", "9s", "9h", "Kd"];
  const showdown = stage === "showdown";
  const players = {};
  for (let seat = 0; seat < n; seat++) {
    players[seat] = {
      seat, stack: 1234567, wager: showdown ? 0 : 120000, folded: false,
      all_in: seat % 2 === 0, mucked: false, shown: showdown,
      up: faces.slice(2, 6), down_count: 3,
      down: seat === me || showdown ? [faces[0], faces[1], faces[6]] : null,
      high: showdown ? "Full house, queens full of tens" : null,
      low: showdown && seat % 3 === 0 ? "8-7-6-5-4" : null,
      won: showdown && seat === 3 % n ? 2345678 : 0,
    };
  }
  const pots = [{ amount: 9876543, eligible: [...Array(n).keys()] },
                { amount: 123456, eligible: [0, 1] }];
  state.hand = { ...(state.hand || {}), players, pots, over: showdown,
                 to_act: showdown ? null : (me + n - 1) % n, button: (me + 1) % n, street: 7 };
  renderFelt(felt, state, { me, onSit: () => {} });
  return felt.dataset.layout;
}"""

BOXES_JS = """() => {
  const boxes = [];
  const felt = document.querySelector(".felt.drawn");
  const add = (kind, el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return;
    const seat = el.closest("[data-seat]")?.dataset.seat ?? null;
    boxes.push({kind, seat, left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  };
  felt.querySelectorAll(".seat-box:not(.mine) .hole").forEach((e) => add("cards", e));
  felt.querySelectorAll(".seat-box.mine .hole").forEach((e) => add("your cards", e));
  felt.querySelectorAll(".seat-box .plate").forEach((e) => add("seat", e));
  felt.querySelectorAll(".made span").forEach((e) => add("hand name", e));
  felt.querySelectorAll(".chipstack").forEach((e) => add("bet", e));
  felt.querySelectorAll(".pots").forEach((e) => add("pot", e));
  return boxes;
}"""


def _clashes(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    # a hand's names lie over the foot of its own cards (by design): only another seat's
    # box counts against them
    return [
        (a, b)
        for a, b in overlaps(boxes)
        if not (a.split()[-1] == b.split()[-1] and "hand name" in (a[:9], b[:9]))
    ]


@pytest.fixture(scope="module", params=[2, 3, 4, 5, 6, 7, 8], ids=lambda n: f"{n}-max")
def full_table(
    request: pytest.FixtureRequest, server_url: str, browser: Browser, shots_dir: Path
) -> Any:
    seats: int = request.param
    context = browser.new_context(viewport={"width": 1366, "height": 860})
    me = Player(f"fl{secrets.token_hex(3)}", context.new_page(), shots_dir)
    register(me, server_url)
    # the bots wait between acts, so the live hand changes slowly under the drawn copy
    table = create_table(me.page, max_seats=seats, bot_delay_ms=5000, private=True)["table"]
    open_table(me, server_url, table["id"])
    sit(me, 0)
    seat_bots(me, seats - 1)
    me.page.wait_for_function("() => window.studDebug.state.hand !== null")
    yield me, seats
    context.close()


@pytest.mark.parametrize("stage", ["seventh", "showdown"])
@pytest.mark.parametrize("size", SIZES + PHONES, ids=[f"{w}x{h}" for w, h in SIZES + PHONES])
def test_full_seats_cover_nothing(
    full_table: tuple[Player, int], size: tuple[int, int], stage: str
) -> None:
    """Nothing a player reads is covered, at any size: no seat's plate, cards or bet over
    another's, the pots clear, the header clear, and nothing off the sides."""
    me, seats = full_table
    page: Page = me.page
    width, height = size
    page.evaluate(
        "() => { document.querySelectorAll('.felt.drawn').forEach((e) => e.remove());"
        " document.querySelector('.table-page .felt').style.display = ''; }"
    )
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(
        "(tall) => { const f = document.querySelector('.table-page .felt');"
        " return (f.clientWidth < f.clientHeight) === tall; }",
        arg=width < 700,
    )
    names = ["Wilhelmina Wolff", "MMMMMMMMMMMMMMMMMMMM", "Bot Quentin", "Ågot Øvergård-Ødegaard"]
    layout = page.evaluate(DRAW_JS, [stage, names])
    assert layout.startswith(f"{seats}/"), layout
    boxes: list[dict[str, Any]] = page.evaluate(BOXES_JS)
    assert sum(1 for b in boxes if b["kind"] == "seat") == seats
    assert sum(1 for b in boxes if b["kind"] in ("cards", "your cards")) == seats
    if stage == "seventh":
        assert sum(1 for b in boxes if b["kind"] == "bet") == seats
    header = page.evaluate(HEADER_JS)
    clashes = _clashes(boxes + header)
    if clashes:
        me.shot(f"felt-{seats}-{stage}-{width}x{height}")
    assert clashes == [], clashes
    for b in boxes:
        assert b["left"] >= 0 and b["right"] <= width, b
