"""A table socket that cannot come back says so instead of trying for ever. A browser sees a
refused handshake as close code 1006 whatever the reason (docs/protocol.md), so the page asks
the table's address why: a session gone (401) or a table gone (404) ends the retrying with a
notice; a table merely moving would be tried again. And a command given while the socket is
still connecting waits for it to open rather than failing."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.frontend.players import Player
from tests.frontend.table_kit import create_table, open_table, register

pytestmark = pytest.mark.xdist_group("browser")

COUNT_SOCKETS_JS = """() => {
  window.__sockets = 0;
  const Real = window.WebSocket;
  window.WebSocket = function (...args) { window.__sockets += 1; return new Real(...args); };
  window.WebSocket.prototype = Real.prototype;
}"""


PING_UNTIL_REFUSED_JS = """() => window.studDebug.socket.request({type: "ping"}, 300).then(
  () => null, (err) => ({code: err.code, message: err.message}))"""


def at_my_own_table(me: Player, server_url: str, name: str) -> Locator:
    """Sign up, make a private table and open it: the page's element that carries its
    socket's state (`data-connection`)."""
    register(me, server_url)
    table = create_table(me.page, name=name, max_seats=4, private=True)
    open_table(me, server_url, table["table"]["id"])
    return me.page.locator(".table-page, [data-connection]").first


# Holds every table socket made while `window.__hold` is set in the connecting state: a stand-in
# with what the page uses of a WebSocket, whose real socket is only made by `__release()`.
HOLD_SOCKETS_JS = """(() => {
  const Real = window.WebSocket;
  const held = [];
  window.__hold = true;
  window.__release = () => { window.__hold = false; held.splice(0).forEach((open) => open()); };
  function Held(url, protocols) {
    if (!window.__hold) return new Real(url, protocols);
    let real = null;
    const self = {
      onopen: null, onmessage: null, onclose: null, onerror: null,
      get readyState() { return real ? real.readyState : Real.CONNECTING; },
      send(data) {
        if (!real) throw new DOMException("still connecting", "InvalidStateError");
        real.send(data);
      },
      close(code, reason) { if (real) real.close(code, reason); },
    };
    held.push(() => {
      real = new Real(url, protocols);
      for (const name of ["onopen", "onmessage", "onclose", "onerror"]) {
        real[name] = (ev) => self[name] && self[name](ev);
      }
    });
    return self;
  }
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Held[k] = Real[k];
  window.WebSocket = Held;
})();"""


def test_a_seat_taken_while_the_socket_is_still_connecting_is_sent_when_it_opens(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script(HOLD_SOCKETS_JS)
    me = Player(f"early{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        connection = at_my_own_table(me, server_url, "Early")
        expect(connection).to_have_attribute("data-connection", "connecting")
        me.page.locator('.seat[data-seat="2"] button.sit-here').click()
        dialog = me.page.locator("#buy-in-dialog")
        dialog.locator('input[name="amount"]').fill("40")
        dialog.locator("button[type=submit]").click()
        # the buy-in waits for the socket: no refusal, the dialog still open, no seat yet
        expect(dialog.locator("button[type=submit]")).to_be_disabled()
        assert me.page.evaluate("() => window.studDebug.socket.unsent.size") == 1
        expect(me.page.locator("#toasts .toast-error")).to_have_count(0)
        # a command whose time runs out before the socket opens is refused, and not kept
        refused = me.page.evaluate(PING_UNTIL_REFUSED_JS)
        assert refused == {"code": "offline", "message": "Not connected: reconnecting…"}
        assert me.page.evaluate("() => window.studDebug.socket.unsent.size") == 1
        me.page.evaluate("() => window.__release()")
        expect(connection).to_have_attribute("data-connection", "open")
        expect(dialog).to_be_hidden()
        expect(me.page.locator(".seat-box.mine")).to_have_attribute("data-seat", "2")
        expect(me.page.locator("#toasts .toast-error")).to_have_count(0)
        assert not me.errors, me.errors
    finally:
        context.close()


def test_a_socket_whose_session_is_gone_stops_retrying_and_says_so(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"gone{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        page = at_my_own_table(me, server_url, "Gone")
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
