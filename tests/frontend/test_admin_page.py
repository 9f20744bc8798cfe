"""The admin page in Chromium: a chat line reported from the table's context menu reaches the
operators' page with the lines around it; a player who opens the page is refused. The
operator is made by `python -m app admin grant`, as the README says (no page makes one)."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.frontend.catalogue import TEXTS_JS, marked, unmarked
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


def grant(player: Player, data: Path, url: str, mailbox: Mailbox) -> None:
    """`python -m app admin grant NAME` on the server's database, as the README says."""
    done = subprocess.run(
        [sys.executable, "-m", "app", "admin", "grant", player.name],
        cwd=ROOT,
        env=server_env(data, url, mailbox),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def stamps_of(cells: list[str]) -> list[str]:
    """The cells that are a date and time (data, written in the page's language)."""
    return [cell for cell in cells if re.search(r"\d:\d\d", cell)]


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
        grant(olga, data, url, mailbox)
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


def test_the_admin_page_shows_no_text_that_is_not_in_the_catalogue(
    tmp_path: Path, browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    """The operators' page, its search and a player's page, under a marked catalogue (as
    tests/frontend/test_languages.py walks the players' pages). A server of its own: the
    other test's chat lines and names would be data on this page."""
    with serving(tmp_path, mailbox) as url:
        walk_the_admin_page(url, tmp_path, browser, shots_dir, mailbox)


def walk_the_admin_page(
    url: str, data: Path, browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    tag = secrets.token_hex(3)
    contexts = [browser.new_context() for _ in range(2)]
    contexts[0].route("**/static/i18n/*.json", marked)
    try:
        olga, pia = (
            Player(f"{name}{tag}", ctx.new_page(), shots_dir)
            for name, ctx in zip(("olga", "pia"), contexts, strict=True)
        )
        for player in (olga, pia):
            register(player, url)
        grant(olga, data, url, mailbox)
        page = olga.page
        page.goto(url + "/admin")
        search = page.locator("#admin-search")
        expect(search).to_be_visible()
        seen = {"admin": page.evaluate(TEXTS_JS)}
        search.locator('input[name="q"]').fill(pia.name)
        search.locator("button[type=submit]").click()
        page.locator("#admin-found").get_by_role("button", name=pia.name).click()
        expect(page.locator("#admin-player h2")).to_have_text(pia.name)
        expect(page.locator("#admin-player table").first).to_be_visible()
        seen["a player"] = page.evaluate(TEXTS_JS)
        cells = page.evaluate(
            "() => [...document.querySelectorAll('#admin-player td')].map((td) => td.textContent)"
        )
        memos = page.locator("#admin-player table").first.locator("tbody td:nth-child(4)")
        facts = [olga.name, pia.name, f"{olga.name}@example.com", f"{pia.name}@example.com"]
        facts += stamps_of(cells) + memos.all_text_contents()  # the ledger's memos are data
        problems = {where: unmarked(texts, facts) for where, texts in seen.items()}
        assert all(seen.values())
        assert {where: left for where, left in problems.items() if left} == {}
        assert olga.errors == []
    finally:
        for ctx in contexts:
            ctx.close()
