"""Issue 24's waiting list (R44) and game rotation tables (R45) as players meet them in
Chromium, in en, nl and de: a full table's list joined from the lobby and from the table, the
seat offered to the first in line alone (its buy-in opened for them, the seat held for them on
the others' felt); the rotation's game on the felt and in the lobby, and each hand's game in
the replayer."""

from __future__ import annotations

import secrets
from pathlib import Path

from playwright.sync_api import Browser, ViewportSize, expect

from tests.frontend.players import Game, Player, calldown
from tests.frontend.table_kit import api, create_table, open_table, register, sit

VIEW: ViewportSize = {"width": 1280, "height": 860}


def test_r44_the_first_in_line_is_offered_the_freed_seat_in_each_language(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    tag = secrets.token_hex(3)
    locales = ("en-US", "en-US", "nl-NL", "de-DE")
    contexts = [browser.new_context(viewport=VIEW, locale=loc) for loc in locales]
    ann, bob, carl, dan = (
        Player(f"{name}{tag}", ctx.new_page(), shots_dir)
        for name, ctx in zip(("ann", "bob", "carl", "dan"), contexts, strict=True)
    )
    try:
        for player, lang in ((ann, None), (bob, None), (carl, "nl"), (dan, "de")):
            register(player, server_url, language=lang)
        # a long pause: no hand starts while the test runs, so a seat frees at once
        made = create_table(ann.page, name=f"Full {tag}", max_seats=2, hand_pause_ms=60_000)
        table_id = made["table"]["id"]
        for player, seat in ((ann, 0), (bob, 1)):
            open_table(player, server_url, table_id)
            sit(player, seat)
        # carl (nl) joins from the lobby's row of the full table
        carl.page.reload()
        row = carl.page.locator(f'tr[data-table="{table_id}"]')
        row.locator("button.wait-join").click()
        expect(carl.page.locator(".toast").last).to_contain_text("nummer 1 op de wachtlijst")
        expect(row.locator("td").nth(5)).to_have_text("1")  # the lobby's "waiting"
        mine = carl.page.locator(f'.your-tables li[data-table="{table_id}"]')
        expect(mine.locator(".you-wait")).to_have_text("Je bent #1 in de rij")
        mine.get_by_role("link").first.click()
        expect(carl.page.locator(".table-title")).to_be_visible()
        # dan (de) joins at the table
        open_table(dan, server_url, table_id)
        dan.page.locator('button[data-cmd="wait-join"]').click()
        expect(dan.page.locator('button[data-cmd="wait-leave"]')).to_have_text(
            "Warteliste verlassen (#2)"
        )
        # bob leaves: carl alone is offered seat 2, his buy-in opens; dan sees it held
        bob.page.locator('button[data-cmd="leave"]').click()
        dialog = carl.page.locator("#buy-in-dialog")
        expect(dialog).to_be_visible()
        expect(carl.page.locator(".log")).to_contain_text("Stoel 2 is voor jou")
        held = dan.page.locator('.seat-held[data-seat="1"]')
        expect(held).to_contain_text("Für die Warteliste freigehalten")
        expect(dan.page.locator("#buy-in-dialog")).to_have_count(0)
        assert dan.state("s.offer") is None
        dialog.locator('input[name="amount"]').fill("40")
        dialog.locator("button[type=submit]").click()
        expect(dialog).to_be_hidden()
        expect(carl.page.locator(".seat-box.mine")).to_have_attribute("data-seat", "1")
        # the table is full again: dan is now first in line
        expect(dan.page.locator('button[data-cmd="wait-leave"]')).to_have_text(
            "Warteliste verlassen (#1)"
        )
        dan.page.locator('button[data-cmd="wait-leave"]').click()
        expect(dan.page.locator('button[data-cmd="wait-join"]')).to_have_text("Auf die Warteliste")
        for p in (ann, bob, carl, dan):
            assert not p.errors, p.errors
    finally:
        for ctx in contexts:
            ctx.close()


def test_r45_the_felt_the_lobby_and_the_replayer_name_each_hands_game(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    tag = secrets.token_hex(3)
    locales = ("en-US", "en-US", "nl-NL")
    contexts = [browser.new_context(viewport=VIEW, locale=loc) for loc in locales]
    eva, fin, gus = (
        Player(f"{name}{tag}", ctx.new_page(), shots_dir)
        for name, ctx in zip(("eva", "fin", "gus"), contexts, strict=True)
    )
    try:
        register(eva, server_url)
        register(fin, server_url)
        register(gus, server_url, language="nl")
        made = create_table(eva.page, name=f"Mixed {tag}", rotation="hands", rotation_hands=1)
        table_id = made["table"]["id"]
        for player, seat in ((eva, 0), (fin, 3)):
            open_table(player, server_url, table_id)
            sit(player, seat)
        page = eva.page
        expect(page.locator(".chip-tag.game")).to_have_text("Rotation: Stud Hi")
        first = Game([eva, fin]).play(calldown, None)
        number = eva.state("s.lastHandNumber")
        # one hand a game: the next hand is Stud Hi/Lo, the one after it Razz
        expect(page.locator(".chip-tag.game")).to_have_text("Rotation: Stud Hi/Lo 8 or better")
        expect(page.locator(".rotation-step")).to_have_text("Hand 1 of 1 · next: Razz")
        Game([eva, fin]).play(calldown, first)
        assert eva.state("s.hand.variant") == "stud8"
        # the lobby (nl) names the rotation and the game now played
        gus.page.reload()
        cell = gus.page.locator(f'tr[data-table="{table_id}"] td').first
        expect(cell).to_have_text("Rotatie: Razz")
        # the record and the replayer say the first hand's game, in en, nl and de
        record = api(page, "GET", f"/api/hands/{number}")
        assert record["variant"] == "stud" and record["rules"]["rotation"]["hand"] == 1
        page.goto(f"{server_url}/hands/{number}")
        expect(page.locator(".replay-game")).to_have_text("Rotation: Stud Hi, hand 1 of 1")
        page.locator("#language").select_option("nl")
        expect(page.locator(".replay-game")).to_have_text("Rotatie: Stud Hi, hand 1 van 1")
        page.locator("#language").select_option("de")
        expect(page.locator(".replay-game")).to_have_text("Rotation: Stud Hi, Hand 1 von 1")
        for p in (eva, fin, gus):
            assert not p.errors, p.errors
    finally:
        for ctx in contexts:
            ctx.close()
