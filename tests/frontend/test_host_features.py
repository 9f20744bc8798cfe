"""The host's features at a private table (issue 24), in Chromium: a seat request waits for
the host, who sees it arrive in the open host dialog and lets the player sit (R43); the
session ledger on the table page with its CSV download, refused to a player until the host
shares it."""

from __future__ import annotations

import csv
import io
import secrets
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.frontend.players import Player
from tests.frontend.table_kit import create_table, open_table, register, sit

STATUS_JS = "async (path) => (await fetch(path)).status"


def test_r43_a_seat_waits_for_the_host_and_the_ledger_is_the_hosts_until_shared(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    friend_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    tag = secrets.token_hex(3)
    host = Player(f"hana{tag}", host_ctx.new_page(), shots_dir)
    friend = Player(f"finn{tag}", friend_ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        register(friend, server_url)
        created = create_table(host.page, name="Home game", private=True, seat_approval=True)
        table_id = created["table"]["id"]
        open_table(host, server_url, table_id)
        sit(host, 0)  # the host sits without asking anyone
        page = host.page
        page.locator('button[data-cmd="host"]').click()
        dlg = page.locator("#host-dialog")
        expect(dlg).to_be_visible()
        dlg.locator('button[data-host="pause"]').click()  # no hand while we look
        page.wait_for_function("() => window.studDebug.state.table.paused === true")
        expect(dlg.locator(".seat-request")).to_have_count(0)

        # the friend follows the invite and asks for seat 3
        friend.page.goto(f"{server_url}/invite/{created['invite']}")
        expect(friend.page.locator(".table-title")).to_have_text("Home game")
        friend.page.locator('.seat[data-seat="3"] button.sit-here').click()
        buy = friend.page.locator("#buy-in-dialog")
        buy.locator('input[name="amount"]').fill("25")
        buy.locator("button[type=submit]").click()
        expect(buy).to_be_hidden()
        waiting = friend.page.locator(".waiting-host")
        expect(waiting).to_contain_text("Waiting for the host")
        expect(friend.page.locator(".seat-box.mine")).to_have_count(0)

        # it arrives in the host's open dialog, and the host lets them sit
        request = dlg.locator(".seat-request")
        expect(request).to_have_count(1)
        expect(request).to_contain_text(friend.name)
        expect(request).to_contain_text("seat 4")
        host.shot("host-seat-request")
        request.locator('button[data-answer="yes"]').click()
        expect(dlg.locator(".seat-request")).to_have_count(0)
        expect(friend.page.locator(".seat-box.mine")).to_have_attribute("data-seat", "3")
        expect(waiting).to_have_count(0)

        # the friend has no ledger button, and the route refuses them
        expect(friend.page.locator('button[data-cmd="ledger"]')).to_have_count(0)
        path = f"/api/tables/{table_id}/ledger.csv"
        assert friend.page.evaluate(STATUS_JS, path) == 403

        # the host's session ledger, and its CSV
        dlg.locator(".dialog-buttons button:not([type=submit])").click()
        expect(dlg).to_be_hidden()
        page.locator('button[data-cmd="ledger"]').click()
        ledger = page.locator("#ledger-dialog")
        row = ledger.locator(f'tr:has(th:text-is("{friend.name}"))')
        expect(row.locator("td")).to_have_text(["$25", "$0", "$0", "$25", "$0"])
        expect(ledger.locator("tfoot td").first).to_have_text("$65")  # $40 and $25 bought in
        host.shot("host-session-ledger")
        with page.expect_download() as download:
            ledger.locator('a[data-cmd="ledger-csv"]').click()
        lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
        assert lines[0] == ["player", "buy_ins", "top_ups", "cash_outs", "stack_now", "net"]
        assert [friend.name, "25.00", "0.00", "0.00", "25.00", "0.00"] in lines
        ledger.get_by_role("button", name="Done").click()

        # the host shares it: the friend gets the button and reads the same lines
        page.locator('button[data-cmd="host"]').click()
        dlg.locator('input[name="ledger_shared"]').check()
        dlg.get_by_role("button", name="Save settings").click()
        expect(dlg).to_be_hidden()
        shared = friend.page.locator('button[data-cmd="ledger"]')
        expect(shared).to_be_visible()
        shared.click()
        mine = friend.page.locator("#ledger-dialog")
        expect(mine.locator(f'tr:has(th:text-is("{host.name}")) td').first).to_have_text("$40")
        assert friend.page.evaluate(STATUS_JS, path) == 200
        assert not host.errors and not friend.errors, host.errors + friend.errors
    finally:
        host_ctx.close()
        friend_ctx.close()
