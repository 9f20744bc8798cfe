"""What a new player tripped over: a phone table where nothing a player needs is
covered (8 seats at 360x640 and 390x844), the hand log kept across a reload, "Your tables",
the host dialog (Done, a confirmation before closing, the bot count that follows) and bots'
short names."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.frontend.players import Player, calldown
from tests.frontend.table_kit import (
    BOXES_JS,
    HEADER_JS,
    TOAST_JS,
    api,
    create_table,
    my_turn,
    open_table,
    overlaps,
    register,
    seat_bots,
    sit,
)

# as long as the longest toasts the table raises (a request for a hand's history by email)
TOAST = "Hand #1234567 will be emailed to you: request 42 is queued"


REPLAY_BOXES_JS = """() => {
  const boxes = [];
  const felt = document.querySelector(".replay-felt");
  const add = (kind, el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return;
    const seat = el.closest("[data-seat]")?.dataset.seat ?? null;
    boxes.push({kind, seat, left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  };
  felt.querySelectorAll(".seat-box .hole").forEach((e) => add("cards", e));
  felt.querySelectorAll(".seat-box .plate").forEach((e) => add("seat", e));
  felt.querySelectorAll(".pots").forEach((e) => add("pot", e));
  // the hands' names at the showdown ("Two pair, …") covered the neighbours' cards (issue 24)
  felt.querySelectorAll(".made span").forEach((e) => add("hand name", e));
  // the winner's label sits in its seat's plate: measured against the other seats' boxes
  felt.querySelectorAll(".won").forEach((e) => add("won", e));
  return boxes.filter((b) => b.kind !== "seat" || !boxes.some(
    (w) => w.kind === "won" && w.seat === b.seat));
}"""


@pytest.mark.parametrize(
    "size", [(360, 640), (390, 844), (1366, 860)], ids=["360x640", "390x844", "desktop"]
)
def test_phone_table_with_8_seats_covers_nothing(
    server_url: str, browser: Browser, shots_dir: Path, size: tuple[int, int]
) -> None:
    """On a phone (and a desktop), at every turn of a hand with 8 seats, no two of these
    overlap: the seats (name and stack), their cards, the bet chips, the pot, your cards, the
    action bar, the header's buttons and a toast raised at that moment."""
    width, height = size
    phone = width < 700
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    me = Player(f"ph{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url)
        table = create_table(me.page, max_seats=8, bot_delay_ms=100, private=True)["table"]
        open_table(me, server_url, table["id"])
        sit(me, 0)
        names = seat_bots(me, 7)
        assert len(set(names)) == 7 and all(re.fullmatch(r"Bot [A-Z][a-z]+", n) for n in names)
        checked: set[int] = set()
        bets_seen = False
        previous = None
        # bets are on the felt at your turn unless you are the bring-in: a few hands at most
        for _ in range(6):
            if {3, 4, 5} <= checked and bets_seen:
                break
            me.page.wait_for_function(
                "(prev) => { const h = window.studDebug.state.hand;"
                " return h && h.hand_id !== prev && !h.over; }",
                arg=previous,
            )
            last: int | None = None
            for _ in range(40):
                turn = my_turn(me, last)
                if turn.get("over"):
                    previous = turn["hand_id"]
                    break
                last = turn["turn_id"]
                bar = me.page.locator(f'.action-bar[data-turn="{last}"] button.act')
                expect(bar.first).to_be_visible()
                me.page.wait_for_function(
                    "([v, tall]) => document.querySelector('.felt').dataset.layout"
                    ".endsWith(String(tall)) && window.studDebug.v === v",
                    arg=[me.state("s.v"), phone],
                )
                # on your turn the page brings the bar into view, your cards with it
                me.page.wait_for_function(
                    """() => { const inView = (q) => { const r = document.querySelector(q)
                                 .getBoundingClientRect();
                               // (scrolled by whole pixels, a box may end a fraction below)
                               return r.top >= -1 && r.bottom <= window.innerHeight + 1; };
                               return inView('.action-bar') && inView('.seat-box.mine .hole'); }"""
                )
                boxes: list[dict[str, Any]] = me.page.evaluate(BOXES_JS)
                boxes += me.page.evaluate(HEADER_JS)
                boxes.append(me.page.evaluate(TOAST_JS, TOAST))
                kinds = {b["kind"] for b in boxes}
                assert {"seat", "your cards", "action bar", "toast"} <= kinds, kinds
                assert sum(1 for b in boxes if b["kind"] == "seat") == 8
                bets_seen = bets_seen or "bet" in kinds
                assert overlaps(boxes) == [], (turn["street"], overlaps(boxes))
                for b in boxes:  # and nothing runs off the side of the screen
                    assert b["left"] >= 0 and b["right"] <= width, b
                if turn["street"] >= 5 and turn["street"] not in checked:
                    me.shot(f"phone-{width}x{height}-street{turn['street']}")
                checked.add(turn["street"])
                action = calldown(turn["legal"])
                button = bar.and_(me.page.locator(f'[data-action="{action}"]')).first
                if phone:
                    button.tap()
                else:
                    button.click()
        assert {3, 4, 5} <= checked, checked  # the widest hands as well as third street
        assert bets_seen, "some turn had bet chips on the felt"
        # issue 24: the replayer on a phone, at the hand's end: nothing covers the winner's
        # label (or any seat's plate or cards), and nothing needs sideways scrolling
        number = me.state("s.lastHandNumber")
        me.page.goto(f"{server_url}/hands/{number}")
        expect(me.page.locator(".replayer .replay-felt .seat-box").first).to_be_visible()
        expect(me.page.locator(".replay-felt .won").first).to_be_visible()
        me.page.locator(".replay-felt").scroll_into_view_if_needed()
        me.shot(f"replayer-{width}x{height}")
        felt: list[dict[str, Any]] = me.page.evaluate(REPLAY_BOXES_JS)
        assert any(b["kind"] == "won" for b in felt), felt
        assert any(b["kind"] == "hand name" for b in felt), felt  # bots call to the showdown
        # on a phone a hand's name lies over its own cards (as PokerStars shows it): only
        # another seat's box counts
        clash = [
            (a, b)
            for a, b in overlaps(felt)
            if {a.split()[0], b.split()[0]} != {"cards", "hand"} or a.split()[-1] != b.split()[-1]
        ]
        assert clash == [], clash
        for b in felt:
            assert b["left"] >= 0 and b["right"] <= width, b
        wide = me.page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= width, wide
        assert not me.errors, me.errors
    finally:
        context.close()


def test_reload_mid_hand_keeps_the_hand_log(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"rl{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url)
        table = create_table(me.page, max_seats=4, bot_delay_ms=100, private=True)["table"]
        open_table(me, server_url, table["id"])
        sit(me, 0)
        seat_bots(me, 2)
        last = None
        for _ in range(20):
            turn = my_turn(me, last)
            assert not turn.get("over")
            if turn["street"] >= 4:
                break
            last = turn["turn_id"]
            bar = me.page.locator(f'.action-bar[data-turn="{last}"]')
            bar.locator(f'button.act[data-action="{calldown(turn["legal"])}"]').first.click()
        log = me.page.locator("ol.log li")
        expect(log.filter(has_text="Fourth street")).to_have_count(1)  # drawn by now
        lines = log.all_text_contents()
        start = max(i for i, line in enumerate(lines) if line.startswith("Hand "))
        hand_lines = lines[start:]
        assert "Fourth street" in hand_lines and len(hand_lines) > 6, hand_lines
        me.page.reload()
        expect(me.page.locator(".seat-box.mine .card.own-down")).to_have_count(2)
        expect(log.first).to_have_text(hand_lines[0])
        expect(log).to_have_count(len(hand_lines))
        assert log.all_text_contents() == hand_lines
        assert not any("Joined the table" in line for line in hand_lines)
        assert not me.errors, me.errors
    finally:
        context.close()


def test_your_tables_lists_a_private_table_one_sits_at(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    tag = secrets.token_hex(3)
    host = Player(f"ho{tag}", context.new_page(), shots_dir)
    guest_context = browser.new_context(viewport={"width": 1280, "height": 860})
    guest = Player(f"gu{tag}", guest_context.new_page(), shots_dir)
    try:
        register(host, server_url)
        register(guest, server_url)
        created = create_table(host.page, name=f"Kitchen {tag}", private=True)
        table_id = created["table"]["id"]
        api(guest.page, "POST", "/api/tables/join", {"invite": created["invite"]})
        open_table(guest, server_url, table_id)
        sit(guest, 2)
        guest.page.get_by_role("button", name="Lobby", exact=True).click()
        yours = guest.page.locator("ul.your-tables li")
        expect(yours).to_have_count(1)
        expect(yours).to_contain_text(f"Kitchen {tag}")
        expect(yours).to_contain_text("you sit in seat 3")
        expect(guest.page.locator("table.tables tbody")).not_to_contain_text(f"Kitchen {tag}")
        yours.get_by_role("link", name=f"Kitchen {tag}").click()
        expect(guest.page.locator(".seat-box.mine")).to_have_attribute("data-seat", "2")
        host.page.goto(server_url + "/lobby")
        mine = host.page.locator(f'ul.your-tables li[data-table="{table_id}"]')
        expect(mine).to_contain_text("host")
        expect(mine.get_by_role("button", name="Invite link")).to_be_visible()
    finally:
        context.close()
        guest_context.close()


def test_host_dialog_done_confirms_closing_and_counts_bots(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    host = Player(f"hd{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(host, server_url)
        table = create_table(host.page, max_seats=6, private=True)["table"]
        open_table(host, server_url, table["id"])
        sit(host, 0)
        page = host.page
        page.locator('button[data-cmd="host"]').click()
        dlg = page.locator("#host-dialog")
        bots = dlg.locator('select[name="bots"] option')
        expect(bots).to_have_count(5)
        buttons = dlg.locator(".dialog-buttons button")
        expect(buttons).to_have_text(["Done", "Save settings"])
        # the red button is apart, in its own section, not beside Done
        expect(dlg.locator(".dialog-buttons .danger")).to_have_count(0)
        expect(dlg.locator(".host-danger button.danger")).to_have_text("Close table")
        dlg.locator('select[name="bots"]').select_option("2")
        dlg.locator('button[data-host="bots"]').click()
        expect(bots).to_have_count(3)  # the count follows the seats just filled
        expect(page.locator(".plate-name .name")).to_contain_text(["Bot Ada", "Bot Bram"])
        host.shot("host-dialog")
        dlg.locator(".host-danger button.danger").click()
        confirm = page.locator("#close-dialog")
        expect(confirm).to_be_visible()
        confirm.get_by_role("button", name="Keep it open").click()
        expect(confirm).to_be_hidden()
        assert host.state("s.closed") is False and host.state("s.table.closing") is False
        # during a hand the table closes at its end (between hands it would close at once)
        page.wait_for_function(
            "() => { const h = window.studDebug.state.hand; return !!h && !h.over; }"
        )
        dlg.locator(".host-danger button.danger").click()
        confirm.get_by_role("button", name="Close table").click()
        page.wait_for_function("() => window.studDebug.state.table.closing === true")
        dlg.get_by_role("button", name="Done", exact=True).click()
        expect(dlg).to_be_hidden()
        assert not host.errors, host.errors
    finally:
        context.close()


FELT_JS = """async ([events, seats, userId]) => {
  const model = await import("/static/js/table/model.js");
  const view = await import("/static/js/table/view.js");
  const { h } = await import("/static/js/dom.js");
  const state = model.emptyState(userId);
  state.table = {max_seats: 6, action_timer_ms: 10000, variant: "stud", host_user_id: null};
  state.seats = seats;
  events.forEach((e, i) => model.applyEvent(state, {v: i + 1, ...e}));
  document.querySelector("main").replaceChildren();
  const felt = h("div.felt", h("div.rail"), h("div.center", h("div.center-info")));
  document.querySelector("main").append(h("div.felt-wrap", felt));
  view.renderFelt(felt, state, {me: null, onSit: () => {}});
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const lines = (el) => {
    if (!el) return 0;
    const line = parseFloat(getComputedStyle(el).lineHeight);
    return Math.round(el.getBoundingClientRect().height / line);
  };
  const one = (q) => felt.querySelector(q);
  return {
    boxes: [...felt.querySelectorAll(".seat")].map((s) => ({
      seat: +s.dataset.seat, box: !!s.querySelector(".seat-box"),
      empty: s.querySelector(".seat-empty, .sit-here")?.textContent ?? null,
      label_lines: lines(s.querySelector(".seat-empty, .sit-here small")),
    })),
    street: one(".center .street")?.textContent,
    won: one(".won") ? box(one(".won")) : null,
    winner_cards: one(".seat-box.winner .hole") ? box(one(".seat-box.winner .hole")) : null,
    won_in_plate: !!one(".plate .won"),
  };
}"""
SEATS = [
    {"seat": 0, "user_id": 1, "name": "ann", "stack": 1000, "bot": False},
    {"seat": 1, "user_id": 2, "name": "bob", "stack": 1000, "bot": False},
]
DEALT = [
    {"type": "hand_started", "hand_id": "h1", "variant": "stud", "button": 0,
     "seats": [0, 1, 3], "stacks": [1000, 1000, 5000]},
    {"type": "card_dealt", "seat": 3, "card": "Kd", "face_up": True},
    {"type": "card_dealt", "seat": 0, "card": "2c", "face_up": True},
    {"type": "card_dealt", "seat": 1, "card": "9h", "face_up": True},
]  # fmt: skip


def test_the_felt_after_a_fold_a_win_and_a_player_who_left(
    server_url: str, browser: Browser
) -> None:
    """A player who left is gone from the felt once out of the hand ("Seat 4" again, on one
    line); an uncontested pot's prompt is not called a showdown; the win badge sits on the
    plate, clear of the winner's cards."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server_url + "/login")
        expect(page.locator("form.auth-form")).to_be_visible()
        left = [*DEALT, {"type": "folded", "seat": 3},
                {"type": "turn", "hand_id": "h1", "turn_id": 2, "seat": 0, "phase": "betting",
                 "timer_ms": 10000, "legal": None}]  # fmt: skip
        got = page.evaluate(FELT_JS, [left, SEATS, 9])  # seat 3 has left: not in `seats`
        seat3 = next(s for s in got["boxes"] if s["seat"] == 3)
        assert not seat3["box"] and seat3["empty"] is not None and "Seat 4" in seat3["empty"]
        assert all(s["label_lines"] <= 1 for s in got["boxes"]), got["boxes"]
        asked = [*DEALT, {"type": "folded", "seat": 3}, {"type": "folded", "seat": 1},
                 {"type": "turn", "hand_id": "h1", "turn_id": 3, "seat": 0,
                  "phase": "uncontested", "timer_ms": 10000, "legal": None}]  # fmt: skip
        got = page.evaluate(FELT_JS, [asked, SEATS, 9])
        assert got["street"] == "Everyone else folded"
        won = [*asked, {"type": "show_declined", "seat": 0},
               {"type": "pot_awarded", "pot": 0, "seat": 0, "amount": 130, "share": "whole"},
               {"type": "hand_ended", "hand_id": "h1", "seats": [0, 1, 3],
                "stacks": [1130, 1000, 5000], "pots": []}]  # fmt: skip
        got = page.evaluate(FELT_JS, [won, SEATS, 9])
        assert got["won_in_plate"]
        (l1, t1, r1, b1), (l2, t2, r2, b2) = got["won"], got["winner_cards"]
        assert min(r1, r2) <= max(l1, l2) or min(b1, b2) <= max(t1, t2), got
    finally:
        page.close()


# the lobby's parts a player reads or taps, each its own box (issue 24: the phone overlap
# tests cover the lobby too)
LOBBY_BOXES_JS = """() => {
  const boxes = [];
  const add = (kind, el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return;
    boxes.push({kind, seat: null, left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  };
  const lobby = document.querySelector("section.lobby");
  lobby.querySelectorAll(".lobby-head h1, .lobby-head .sub").forEach((e) => add("heading", e));
  lobby.querySelectorAll("#create-table").forEach((e) => add("create", e));
  lobby.querySelectorAll(".lobby-tabs .tab").forEach((e) => add("tab", e));
  lobby.querySelectorAll(".filters label, .filters select").forEach((e) => add("filter", e));
  lobby.querySelectorAll(".tables th, .tables td").forEach((e) => add("cell", e));
  lobby.querySelectorAll(".your-tables li > *").forEach((e) => add("your table", e));
  return boxes;
}"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_phone_lobby_fits_and_a_tables_name_is_the_way_in(
    server_url: str, browser: Browser, shots_dir: Path, size: tuple[int, int]
) -> None:
    """Issue 24: the lobby's Join was off-screen on a phone (a 703 px table in a 372 px box)."""
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
    )
    me = Player(f"lb{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url)
        name = f"Public {secrets.token_hex(2)}"
        table = create_table(me.page, name=name)["table"]
        create_table(me.page, name="Mine, private", private=True)  # "Your tables" too
        me.page.reload()
        row = me.page.locator(f'.tables tr[data-table="{table["id"]}"]')
        expect(row).to_be_visible()
        wide = me.page.evaluate(
            "() => [document.documentElement.scrollWidth, window.innerWidth,"
            " document.querySelector('.table-list').scrollWidth,"
            " document.querySelector('.table-list').clientWidth]"
        )
        assert wide[0] <= wide[1] and wide[2] <= wide[3], wide
        boxes: list[dict[str, Any]] = me.page.evaluate(LOBBY_BOXES_JS)
        kinds = {b["kind"] for b in boxes}
        assert {"heading", "create", "tab", "filter", "cell", "your table"} <= kinds, kinds
        boxes += me.page.evaluate(HEADER_JS)
        assert overlaps(boxes) == [], overlaps(boxes)
        for b in boxes:  # and nothing runs off the side of the screen
            assert b["left"] >= 0 and b["right"] <= width, b
        me.shot(f"lobby-{width}x{height}")
        way_in = row.get_by_role("link", name=name)
        expect(way_in).to_be_in_viewport()
        way_in.click()
        expect(me.page).to_have_url(re.compile(rf"/table/{table['id']}$"))
        assert not me.errors, me.errors
    finally:
        context.close()
