"""The admin page in Chromium: a chat line reported from the table's context menu reaches the
operators' page with the lines around it; a player who opens the page is refused. The
operator is made by `python -m app admin grant`, as the README says (no page makes one)."""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.frontend.conftest import ROOT, Mailbox, server_env, serving
from tests.frontend.players import Player
from tests.frontend.table_kit import create_table, open_table, register


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, chromium_path: Path, mailbox: Mailbox
) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("admin-data")
    with serving(data, mailbox) as url:
        yield url, data


def chat(page: Page, text: str) -> None:
    expect(page.locator("button.sit-here").first).to_be_visible()  # the snapshot is drawn
    page.locator("#tab-chat").click()
    box = page.locator(".chat-form input")
    box.fill(text)
    box.press("Enter")
    expect(page.locator("ol.chat li", has_text=text)).to_be_visible()


def test_a_reported_line_reaches_the_admin_page(
    site: tuple[str, Path], browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    url, data = site
    tag = secrets.token_hex(3)
    contexts = [browser.new_context() for _ in range(3)]
    try:
        ann, bob, olga = (
            Player(f"{name}{tag}", ctx.new_page(), shots_dir)
            for name, ctx in zip(("ann", "bob", "olga"), contexts, strict=True)
        )
        for player in (ann, bob, olga):
            register(player, url)
        done = subprocess.run(
            [sys.executable, "-m", "app", "admin", "grant", olga.name],
            cwd=ROOT,
            env=server_env(data, url, mailbox),
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        # a player's page: the admin page refuses them, and no link leads there
        ann.page.goto(url + "/admin")
        expect(ann.page.locator(".admin .refused")).to_have_text("Only an operator may do that")
        expect(ann.page.locator('a[href="/admin"]')).to_have_count(0)
        table_id = create_table(ann.page, name=f"Mod {tag}")["table"]["id"]
        for player in (ann, bob):
            open_table(player, url, table_id)
        chat(ann.page, "good luck all")
        chat(bob.page, "you are all idiots")
        chat(ann.page, "be nice")
        line = ann.page.locator("ol.chat li", has_text="you are all idiots")
        line.click(button="right")  # the line's context menu
        ann.page.get_by_role("menuitem", name="Report this line").click()
        expect(ann.page.locator(".toast", has_text="Reported to the operators")).to_be_visible()
        olga.page.reload()
        link = olga.page.locator('a[href="/admin"]')
        expect(link).to_be_visible()
        link.click()
        report = olga.page.locator("#admin-reports article.report")
        expect(report).to_have_count(1)
        expect(report.locator("p").first).to_contain_text(
            f"{ann.name} reported {bob.name} at table #{table_id}"
        )
        expect(report.locator("li")).to_have_text(
            [
                f"{ann.name}: good luck all",
                f"{bob.name}: you are all idiots",
                f"{ann.name}: be nice",
            ]
        )
        expect(report.locator("li.reported")).to_have_text(f"{bob.name}: you are all idiots")
        olga.shot("admin-report")
        # the reported player, found from the report: a mute, logged on the page
        report.get_by_role("button", name=bob.name).click()
        expect(olga.page.locator("#admin-player h2")).to_have_text(bob.name)
        olga.page.locator("#admin-mute button").click()
        expect(olga.page.locator("#admin-player p").first).to_contain_text("muted until")
        expect(olga.page.locator("#admin-player table").last).to_contain_text("mute")
        for player in (ann, bob, olga):
            assert player.errors == []
    finally:
        for ctx in contexts:
            ctx.close()
