"""R40 in two real browsers: one closes mid-hand; the other sees the seat marked away at once
(the page's DOM, within Playwright's 2 s wait) and, from the table's own events, the absent
player is not dealt into the next hand (sat out after timing out away)."""

from __future__ import annotations

import secrets
from pathlib import Path

from playwright.sync_api import Browser, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.frontend.players import Player, calldown
from tests.frontend.table_kit import create_table, my_turn, open_table, register, seat_bots, sit

CLOCK_MS = 2000

IN_HAND_JS = """(seat) => {
  const h = window.studDebug?.state?.hand;
  return !!h && !h.over && !!h.players[seat];
}"""

NEXT_HAND_JS = """(old) => {
  const h = window.studDebug?.state?.hand;
  return h && h.hand_id !== old && !h.over ? Object.keys(h.players).map(Number) : null;
}"""


def act_in_time(player: Player, turn_id: int, action: str) -> None:
    """Act, unless the short clock played this turn first (a slow machine): the test is about
    the absent player, so a turn of the host's that timed out is passed over, not failed."""
    try:
        player.act(turn_id, action, timeout_ms=2 * CLOCK_MS)
    except (AssertionError, PlaywrightTimeout):
        if player.state("s.hand?.turn_id") == turn_id and not player.state("!!s.hand?.over"):
            raise  # the turn is still there: the button really failed


def test_r40_a_browser_closed_mid_hand_shows_away_to_the_other_and_is_not_dealt_in(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    tag = secrets.token_hex(3)
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    gone_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    host = Player(f"host{tag}", host_ctx.new_page(), shots_dir)
    gone = Player(f"gone{tag}", gone_ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        # a short clock so the hand the absent player is in ends soon (the real server's clock)
        table = create_table(
            host.page, name="Away", max_seats=4, action_timer_ms=CLOCK_MS, timeout_action="fold"
        )
        table_id = table["table"]["id"]
        open_table(host, server_url, table_id)
        sit(host, 0)
        register(gone, server_url)
        open_table(gone, server_url, table_id)
        sit(gone, 1)
        seat_bots(host, 1)
        gone.page.wait_for_function(IN_HAND_JS, arg=1)
        hand_id = host.state("s.hand.hand_id")
        gone_ctx.close()  # the browser closes mid-hand
        plate = host.page.locator('.seat-box.away[data-seat="1"]')
        expect(plate).to_be_visible(timeout=2000)
        expect(plate.locator(".plate-status")).to_contain_text("away")
        last = None
        while True:  # the host plays on; the absent player's turns time out
            turn = my_turn(host, last)
            if turn.get("over") or turn["hand_id"] != hand_id:
                break
            act_in_time(host, turn["turn_id"], calldown(turn["legal"]))
            last = turn["turn_id"]
        dealt = host.page.wait_for_function(NEXT_HAND_JS, arg=hand_id).json_value()
        assert 1 not in dealt and 0 in dealt, dealt
        expect(host.page.locator('.seat-box.out[data-seat="1"]')).to_be_visible()
        assert not host.errors, host.errors
    finally:
        host_ctx.close()
        gone_ctx.close()
