"""The tournament pages as people read them: every text on the tournaments tab, the host form,
a tournament page (registering and running) and a tournament table's bar comes from the
catalogue; the same pages in German; and the host's editor of the levels to come (R26) on a
tournament's page, which only its host is offered."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.frontend.catalogue import TEXTS_JS, marked, unmarked
from tests.frontend.players import Player
from tests.frontend.table_kit import api, register

# English words a German page must not show (each is a catalogue text's own word in English)
ENGLISH = re.compile(
    r"\b(Tournaments|Register|Structure|Payouts|Standings|Players left|Level \d+ of|Host a"
    r"|Average stack|Next level|Edit the levels)\b"
)


def sit_and_go(page: Page, name: str, **spec: Any) -> int:
    """A sit & go for three (two bots and one person): it starts when the person enters.
    Deep stacks on the normal preset (levels by minutes): it runs long after the test looks."""
    body = {
        "name": name,
        "variant": "stud",
        "seats_per_table": 3,
        "max_players": 3,
        "bots": 2,
        "starting_chips": 100_000,
        "buy_in": 100,
        "fee": 10,
        "payouts": "winner_takes_all",
        "structure": {"preset": "normal"},
        "bot_delay_ms": 100,
        **spec,
    }
    return int(api(page, "POST", "/api/tournaments", body)["id"])


def running(page: Page, tid: int) -> dict[str, Any]:
    """The tournament's page data once it runs (with its director's live view). Asked in a
    loop inside the page: wait_for_function does not await an async predicate (a promise is
    truthy, so it would return at once)."""
    found: dict[str, Any] = page.evaluate(
        """async (id) => {
            for (let tries = 0; tries < 300; tries++) {
                const data = await (await fetch(`/api/tournaments/${id}`)).json();
                if (data.status === "running" && data.live) return data;
                await new Promise((next) => setTimeout(next, 100));
            }
            throw new Error(`tournament ${id} is not running after 300 looks`);
        }""",
        tid,
    )
    return found


def test_every_tournament_page_text_is_in_the_catalogue(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/static/i18n/*.json", marked)
    me = Player(f"tcat{secrets.token_hex(3)}", context.new_page(), shots_dir)
    seen: dict[str, list[str]] = {}

    def collect(where: str) -> None:
        seen[where] = me.page.evaluate(TEXTS_JS)

    try:
        register(me, server_url)
        tid = sit_and_go(me.page, "Zondag")
        me.page.goto(server_url + "/tournaments")
        expect(me.page.locator(f'tr[data-tournament="{tid}"]')).to_be_visible()
        expect(me.page.locator("#host-tournament")).to_be_visible()
        collect("the tournaments tab")
        me.page.locator("#host-tournament").click()
        expect(me.page.locator("#host-tournament-dialog")).to_be_visible()
        collect("the host form")
        me.page.keyboard.press("Escape")
        me.page.goto(f"{server_url}/tournaments/{tid}")
        expect(me.page.locator(".tour-title")).to_have_text("Zondag")
        collect("a tournament registering")
        me.page.locator('button[data-tour="edit-levels"]').click()
        expect(me.page.locator("#edit-levels-dialog")).to_be_visible()
        collect("the level editor")
        me.page.keyboard.press("Escape")
        me.page.locator('button[data-tour="register"]').click()
        expect(me.page.locator(".you-line")).to_be_visible()
        running(me.page, tid)
        expect(me.page.locator(".tour-now .tour-stakes")).to_be_visible()
        expect(me.page.locator(".tour-now .tour-clock")).not_to_be_empty()
        collect("a tournament running")
        me.page.locator("a.my-table").click()
        expect(me.page.locator(".tournament-bar .tour-level")).to_be_visible()
        expect(me.page.locator(".seat-box.mine")).to_be_visible()
        collect("a tournament table")
        at_table = me.state("s.seats.map((x) => x.name)")  # names are data, not words
        data = [me.name, "Zondag", *at_table]
        problems = {where: unmarked(texts, data) for where, texts in seen.items()}
        assert all(texts for texts in seen.values())
        assert {where: left for where, left in problems.items() if left} == {}
        assert not me.errors, me.errors
    finally:
        context.close()


def test_the_tournament_pages_in_german(server_url: str, browser: Browser, shots_dir: Path) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 860}, locale="de-DE")
    me = Player(f"tde{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url, language="de")
        tid = sit_and_go(me.page, "Stammtischturnier")
        me.page.goto(server_url + "/tournaments")
        expect(me.page.locator("#host-tournament")).to_have_text("Turnier veranstalten")
        expect(me.page.locator("#tab-tournaments")).to_have_text("Turniere")
        line = me.page.locator(f'tr[data-tournament="{tid}"]')
        expect(line.locator("a.btn")).to_have_text("Ansehen und anmelden")
        me.page.goto(f"{server_url}/tournaments/{tid}")
        page = me.page.locator(".tournament-page")
        expect(page.locator(".tour-structure h2")).to_have_text("Struktur")
        expect(page.locator(".tour-payouts h2")).to_have_text("Auszahlung")
        expect(page.locator(".tour-payouts .sub")).to_contain_text("Der Sieger bekommt alles")
        expect(page.locator('button[data-tour="register"]')).to_have_text("Anmelden")
        expect(page.locator(".tour-host h2")).to_have_text("Veranstalter")
        # German numbers: a point groups thousands
        expect(page.locator(".tour-head .sub")).to_contain_text("100.000")
        page.locator('button[data-tour="register"]').click()
        stakes = running(me.page, tid)["live"]["stakes"]
        expect(page.locator(".tour-now h2")).to_have_text(re.compile(r"^Level 1"))
        keys = ("ante", "bring_in", "small_bet", "big_bet")
        de = [f"{stakes[k]:,}".replace(",", ".") for k in keys]
        said = f"Ante {de[0]} · Bring-in {de[1]} · {de[2]}/{de[3]}"
        expect(page.locator(".tour-now .tour-stakes")).to_have_text(said)
        expect(page.locator(".tour-now .tour-clock")).to_contain_text("Nächstes Level in")
        expect(page.locator(".tour-now")).to_contain_text("Spieler übrig")
        expect(page.locator(".tour-standings h2")).to_have_text("Rangliste")
        texts = "\n".join(me.page.evaluate(TEXTS_JS))
        assert not ENGLISH.search(texts), ENGLISH.search(texts)
        me.shot("tournament-page-german")
        me.page.locator("a.my-table").click()
        bar = me.page.locator(".tournament-bar")
        expect(bar.locator(".tour-level")).to_contain_text("Level 1")
        expect(bar.locator(".tour-stakes")).to_contain_text("Ante")
        assert not ENGLISH.search(bar.inner_text()), bar.inner_text()
        me.shot("tournament-table-german")
        assert not me.errors, me.errors
    finally:
        context.close()


def test_r26_the_host_edits_the_levels_to_come_and_no_one_else_can(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    guest_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    host = Player(f"lvh{secrets.token_hex(3)}", host_ctx.new_page(), shots_dir)
    guest = Player(f"lvg{secrets.token_hex(3)}", guest_ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        register(guest, server_url)
        tid = sit_and_go(host.page, "Level night", max_players=4)
        before = api(host.page, "GET", f"/api/tournaments/{tid}")["structure"]["levels"]
        host.page.goto(f"{server_url}/tournaments/{tid}")
        host.page.locator('button[data-tour="edit-levels"]').click()
        dlg = host.page.locator("#edit-levels-dialog")
        expect(dlg).to_be_visible()
        rows = dlg.locator("tbody tr")
        expect(rows).to_have_count(len(before) - 1)  # level 1 stays as it is
        second = rows.nth(0)
        assert second.get_attribute("data-level") == "2"  # numbered as in the structure

        # a level with no ante is refused in the page, and nothing is sent
        second.locator('input[name="ante"]').fill("")
        dlg.get_by_role("button", name="Save the levels").click()
        expect(dlg.locator(".form-error")).to_contain_text("level 2")
        assert api(host.page, "GET", f"/api/tournaments/{tid}")["structure"]["levels"] == before

        ante, small = before[1]["ante"] + 1, before[1]["small_bet"] + 10
        second.locator('input[name="ante"]').fill(str(ante))
        second.locator('input[name="small_bet"]').fill(str(small))
        second.locator('input[name="small_bet"]').dispatch_event("change")
        dlg.get_by_role("button", name="Save the levels").click()
        expect(dlg).to_be_hidden()
        expect(host.page.locator("#toasts")).to_contain_text("from level 2 on")
        after = api(host.page, "GET", f"/api/tournaments/{tid}")["structure"]["levels"]
        assert after[0] == before[0]
        assert (after[1]["ante"], after[1]["small_bet"], after[1]["big_bet"]) == (
            ante, small, 2 * small,
        )  # fmt: skip
        assert after[2:] == before[2:]
        row = host.page.locator(".tour-structure tbody tr").nth(1)
        expect(row.locator("td").nth(0)).to_have_text(f"{ante:,}")
        expect(row.locator("td").nth(2)).to_have_text(f"{small:,}/{2 * small:,}")
        host.shot("tournament-levels-edited")

        guest.page.goto(f"{server_url}/tournaments/{tid}")
        expect(guest.page.locator(".tour-title")).to_have_text("Level night")
        expect(guest.page.locator('button[data-tour="register"]')).to_be_visible()
        expect(guest.page.locator('button[data-tour="edit-levels"]')).to_have_count(0)
        refused = guest.page.evaluate(
            """async ([id, levels]) => {
                const r = await fetch(`/api/tournaments/${id}/host`, {method: "POST",
                    headers: {"Content-Type": "application/json"},
                    body: JSON.stringify({type: "edit_levels", levels})});
                return r.status;
            }""",
            [tid, after[1:]],
        )
        assert refused in (403, 404), refused
        assert api(host.page, "GET", f"/api/tournaments/{tid}")["structure"]["levels"] == after
        assert not host.errors and not guest.errors, (host.errors, guest.errors)
    finally:
        host_ctx.close()
        guest_ctx.close()
