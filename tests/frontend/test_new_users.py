"""What new users tripped over (issue 24), as a person meets it in the browser."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.frontend.players import PASSWORD, Player
from tests.frontend.table_kit import create_table, register

pytestmark = pytest.mark.xdist_group("browser")


def test_a_deep_link_opened_logged_out_leads_to_the_table_after_logging_in(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    friend_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    host = Player(f"host{secrets.token_hex(3)}", host_ctx.new_page(), shots_dir)
    friend = Player(f"friend{secrets.token_hex(3)}", friend_ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        table_id = create_table(host.page, name="Deep link")["table"]["id"]
        register(friend, server_url)  # an existing account, then logged out
        friend.page.locator("#logout").click()
        expect(friend.page.locator("form.auth-form")).to_be_visible()
        page = friend.page
        page.goto(f"{server_url}/table/{table_id}")
        form = page.locator("form.auth-form")
        expect(form).to_be_visible()
        form.locator('input[name="name"]').fill(friend.name)
        form.locator('input[name="password"]').fill(PASSWORD)
        form.locator('button[type="submit"]').click()
        expect(page).to_have_url(re.compile(rf"/table/{table_id}$"))
        expect(page.locator(".table-title")).to_be_visible()
        assert not friend.errors, friend.errors
    finally:
        host_ctx.close()
        friend_ctx.close()
