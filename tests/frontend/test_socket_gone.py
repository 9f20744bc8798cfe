"""A table socket that cannot come back says so instead of trying for ever. A browser sees a
refused handshake as close code 1006 whatever the reason (docs/protocol.md), so the page asks
the table's address why: a session gone (401) or a table gone (404) ends the retrying with a
notice; a table merely moving would be tried again."""

from __future__ import annotations

import secrets
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.frontend.players import Player
from tests.frontend.table_kit import create_table, open_table, register

COUNT_SOCKETS_JS = """() => {
  window.__sockets = 0;
  const Real = window.WebSocket;
  window.WebSocket = function (...args) { window.__sockets += 1; return new Real(...args); };
  window.WebSocket.prototype = Real.prototype;
}"""


def test_a_socket_whose_session_is_gone_stops_retrying_and_says_so(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"gone{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url)
        table = create_table(me.page, name="Gone", max_seats=4, private=True)
        open_table(me, server_url, table["table"]["id"])
        page = me.page.locator(".table-page, [data-connection]").first
        expect(page).to_have_attribute("data-connection", "open")
        me.page.evaluate(COUNT_SOCKETS_JS)
        context.clear_cookies()  # the session is gone: every handshake from now is refused
        me.page.evaluate("() => window.studDebug.drop()")
        expect(page).to_have_attribute("data-connection", "gone")
        expect(me.page.locator("#toasts .toast-error")).to_be_visible()
        # one try after the drop, refused; then the answer, and no retry scheduled after it
        tried = me.page.evaluate("() => [window.__sockets, window.studDebug.socket.attempt]")
        assert tried == [1, 1], tried
        assert not me.errors, me.errors
    finally:
        context.close()
