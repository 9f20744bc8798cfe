"""Shared steps of the round-two browser tests: a player and a table made through the site's
own API from the logged-in page (its cookie), bots seated by the host dialog, and the boxes the
phone layout must keep apart."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from tests.frontend.players import PASSWORD, WAIT_MS, Player

Box = dict[str, Any]


def register(player: Player, base_url: str, *, language: str | None = None) -> None:
    """Register through the form, whatever the page's language (the fields by their names)."""
    page = player.page
    page.goto(base_url + "/register")
    form = page.locator("form.auth-form")
    expect(form).to_be_visible()
    form.locator('input[name="name"]').fill(player.name)
    form.locator('input[name="email"]').fill(f"{player.name}@example.com")
    form.locator('input[name="password"]').fill(PASSWORD)
    form.locator('button[type="submit"]').click()
    expect(page.locator("section.lobby")).to_be_visible()
    if language is not None:
        expect(page.locator("html")).to_have_attribute("lang", language)


def api(page: Page, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """Call the server's API from the page (its session cookie); the JSON answer."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                         body: body === null ? undefined : JSON.stringify(body)});
            const data = await r.json();
            if (!r.ok) throw new Error(JSON.stringify(data));
            return data;
        }""",
        [method, path, body],
    )


def create_table(page: Page, **settings: Any) -> dict[str, Any]:
    body = {"name": "Round two", "small_bet": 100, "hand_pause_ms": 1000, **settings}
    created: dict[str, Any] = api(page, "POST", "/api/tables", body)
    return created


def open_table(player: Player, base_url: str, table_id: int) -> None:
    player.page.goto(f"{base_url}/table/{table_id}")
    expect(player.page.locator(".table-title")).to_be_visible()
    # the table is drawn before its socket opens, and a command given before that is refused
    expect(player.page.locator("[data-connection]").first).to_have_attribute(
        "data-connection", "open"
    )


def sit(player: Player, seat: int, amount: str = "40") -> None:
    """Take a seat through the buy-in dialog (any language: the dialog's own elements)."""
    page = player.page
    page.locator(f'.seat[data-seat="{seat}"] button.sit-here').click()
    dialog = page.locator("#buy-in-dialog")
    expect(dialog).to_be_visible()
    dialog.locator('input[name="amount"]').fill(amount)
    dialog.locator("button[type=submit]").click()
    expect(dialog).to_be_hidden()
    expect(page.locator(".seat-box.mine")).to_have_attribute("data-seat", str(seat))
    player.seat = seat


def seated(
    contexts: list[BrowserContext],
    names: tuple[str, ...],
    seats: tuple[int, ...],
    server_url: str,
    shots_dir: Path,
    **settings: Any,
) -> list[Player]:
    """New players (one per context, their names made unique) at `seats` of a new table the
    first made with `settings`; each has the table open before anyone sits."""
    tag = secrets.token_hex(3)
    players = [
        Player(f"{name}{tag}", ctx.new_page(), shots_dir)
        for name, ctx in zip(names, contexts, strict=True)
    ]
    for player in players:
        register(player, server_url)
    table_id = create_table(players[0].page, **{"hand_pause_ms": 1000, **settings})["table"]["id"]
    for player in players:
        open_table(player, server_url, table_id)
    for player, seat in zip(players, seats, strict=True):
        sit(player, seat)
    return players


def seat_bots(player: Player, count: int) -> list[str]:
    """The host seats `count` bots from the host dialog; returns the bots' seat names."""
    page = player.page
    page.locator('button[data-cmd="host"]').click()
    dlg = page.locator("#host-dialog")
    expect(dlg).to_be_visible()
    dlg.locator('select[name="bots"]').select_option(str(count))
    dlg.locator('button[data-host="bots"]').click()
    page.wait_for_function(
        "(n) => window.studDebug.state.seats.filter((s) => s.bot).length >= n", arg=count
    )
    dlg.locator(".dialog-buttons button:not([type=submit])").click()
    expect(dlg).to_be_hidden()
    names: list[str] = player.state("s.seats.filter((x) => x.bot).map((x) => x.name)")
    return names


MY_TURN_JS = """([seat, last]) => {
  const h = window.studDebug?.state?.hand;
  if (!h) return null;
  if (h.over) return {over: true, hand_id: h.hand_id, number: h.number};
  if (h.to_act === seat && h.turn_id !== last && h.legal && h.legal.seat === seat)
    return {hand_id: h.hand_id, turn_id: h.turn_id, street: h.street, phase: h.phase,
            legal: h.legal};
  return null;
}"""


def my_turn(player: Player, last: int | None) -> dict[str, Any]:
    """Wait for this player's next turn (bots act by themselves), or the hand's end."""
    handle = player.page.wait_for_function(MY_TURN_JS, arg=[player.seat, last], timeout=WAIT_MS)
    value: dict[str, Any] = handle.json_value()
    return value


BOXES_JS = """() => {
  const boxes = [];
  const add = (kind, el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return;
    const seat = el.closest("[data-seat]")?.dataset.seat ?? null;
    boxes.push({kind, seat, left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  };
  const felt = document.querySelector(".table-page .felt");
  felt.querySelectorAll(".seat-box:not(.mine) .hole").forEach((e) => add("cards", e));
  felt.querySelectorAll(".seat-box.mine .hole").forEach((e) => add("your cards", e));
  felt.querySelectorAll(".seat-box .plate").forEach((e) => add("seat", e));
  felt.querySelectorAll(".chipstack").forEach((e) => add("bet", e));
  felt.querySelectorAll(".pots").forEach((e) => add("pot", e));
  add("action bar", document.querySelector(".action-bar"));
  return boxes;
}"""


HEADER_JS = """() => [...document.querySelectorAll(
    ".topbar a, .topbar button, .topbar select, .table-head button, .table-head label")]
  .map((el) => el.getBoundingClientRect())
  .filter((r) => r.width >= 1 && r.height >= 1 && r.bottom > 0 && r.top < window.innerHeight)
  .map((r) => ({kind: "header", seat: null, left: r.left, top: r.top, right: r.right,
                bottom: r.bottom}))"""

# a toast as the page raises one (the page's own module), measured where it was placed
TOAST_JS = """async (message) => {
  const { toast } = await import("/static/js/dom.js");
  const el = toast(message, "info", 60000);
  const r = document.getElementById("toasts").getBoundingClientRect();
  el.remove();
  return {kind: "toast", seat: null, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
}"""


def overlaps(boxes: list[Box]) -> list[tuple[str, str]]:
    """Every pair of boxes that overlap by more than a pixel each way."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
            high = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if wide > 1 and high > 1:
                found.append((f"{a['kind']} {a['seat']}", f"{b['kind']} {b['seat']}"))
    return found


SEP = re.compile(r"\s+")
