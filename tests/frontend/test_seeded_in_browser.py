"""Scheme seeded-v2 end to end against the real server (issue 28): two players in Chromium
sit at a table and play hands to the showdown; their browsers make seeds, send them ahead of
the hands, and after each hand check the deal with their own seed (four steps); an observer
checks the public reveal; and anyone, logged in or not, opens the hand's public proof
(/proof/NUMBER) and sees it check out. No part of the server is stubbed."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from tests.frontend.catalogue import TEXTS_JS, marked, unmarked
from tests.frontend.players import WAIT_MS, Game, Player, calldown
from tests.frontend.table_kit import create_table, open_table, register, sit

VERDICT_JS = "(hid) => window.studDebug?.verdicts?.[hid] ?? null"
FELT_JS = """(hid) => window.studDebug.state.hand?.hand_id !== hid
  || document.querySelector(".commitment")?.textContent.includes("verified")"""


def verdict(player: Player, hand_id: str) -> dict[str, Any]:
    """This page's check of hand `hand_id` (waiting for its reveal and check)."""
    handle = player.page.wait_for_function(VERDICT_JS, arg=hand_id, timeout=WAIT_MS)
    value: dict[str, Any] = handle.json_value()
    return value


def test_players_seeds_shuffle_the_deal_and_every_browser_checks_it(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    tag = secrets.token_hex(3)
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(4)]
    ann = Player(f"ann{tag}", contexts[0].new_page(), shots_dir)
    bob = Player(f"bob{tag}", contexts[1].new_page(), shots_dir)
    carl = Player(f"carl{tag}", contexts[2].new_page(), shots_dir)
    try:
        for p in (ann, bob, carl):
            register(p, server_url)
        # a long clock: bob's reload on a slow machine must not time him out of the hand
        made = create_table(ann.page, name=f"Seeded {tag}", action_timer_ms=60_000)
        table_id = made["table"]["id"]
        for p in (ann, bob, carl):
            open_table(p, server_url, table_id)
        sit(ann, 0)
        sit(bob, 3)
        game = Game([ann, bob])

        hand = None
        numbers = []
        for n in range(5):
            if n == 2:
                # a reload between hands keeps the chain (sessionStorage): ann's seeds go on
                ann.page.reload()
                expect(ann.page.locator(".seat-box.mine")).to_have_attribute("data-seat", "0")
            reloaded: list[bool] = []

            def reload_bob(
                turn: dict[str, Any], n: int = n, reloaded: list[bool] = reloaded
            ) -> str | None:
                # in the fourth hand bob reloads mid-hand: his page checks that hand from
                # its record's events (the snapshot's log lacks the other seat's down cards)
                if n != 3 or reloaded or turn["street"] < 4 or turn["seat"] != bob.seat:
                    return None
                reloaded.append(True)
                bob.page.reload()
                bar = bob.page.locator(f'.action-bar[data-turn="{turn["turn_id"]}"]')
                expect(bar.locator("button.act").first).to_be_enabled()
                return "replay"

            hand = game.play(calldown, hand, on_turn=reload_bob)
            assert reloaded or n != 3
            mine = [verdict(p, hand) for p in (ann, bob)]
            seen = verdict(carl, hand)
            for v in (*mine, seen):
                assert v["ok"], v["text"]
                assert v["problems"] == []
            numbers.append(ann.state("s.lastHandNumber"))
            # a seed is sent once the chain's head shows in a deal_committed: from the third
            # hand on at the latest each player's own seed shuffled the deck, and each browser
            # saw it used (step 3 with its own seed), every step checked in full; the observer
            # has no seed of its own
            settled = [bob, carl] if n in (2, 3) else [ann, bob, carl] if n == 4 else []
            for p, v in zip((ann, bob, carl), (*mine, seen), strict=True):
                if p is bob and n == 3:  # what bob's reload lost: the deal_committed
                    assert v["shown"] > 0 and 4 not in {u["step"] for u in v["unchecked"]}, v
                elif p in settled:
                    assert v["mineUsed"] == (p is not carl), (p.name, v)
                    assert v["seeds"] == 2 or n < 4, (p.name, v)
                    assert v["unchecked"] == [], (p.name, v)
            # OK is said discreetly on the felt (until the next hand is dealt); nothing loud
            for p in (ann, bob, carl):
                p.page.wait_for_function(FELT_JS, arg=hand)
                expect(p.page.locator(".fair-alarm")).to_have_count(0)
        ann.shot("seeded-verified")

        # the seeds were kept per table in the tab's storage (a reload keeps the chain)
        kept = ann.page.evaluate(
            f"() => JSON.parse(sessionStorage.getItem('stud.seeds.{table_id}'))"
        )
        assert re.fullmatch(r"[0-9a-f]{64}", kept["next"])
        assert any(s["status"] == "ok" for s in kept["sent"].values())

        # anyone opens a hand's public proof: no account needed
        stranger = contexts[3].new_page()
        stranger.goto(f"{server_url}/proof/{numbers[-1]}")
        proof = stranger.locator("section.proof")
        expect(proof).to_have_attribute("data-verdict", "ok", timeout=WAIT_MS)
        expect(proof.locator(".verdict")).to_contain_text("The check passed")
        expect(proof.locator("ol.steps li.failed")).to_have_count(0)
        expect(proof).to_contain_text("What this check proves")
        expect(proof).to_contain_text("What it cannot prove")
        expect(proof.locator("dl.facts li")).to_have_count(2)  # the two players' seeds
        # every word on it comes from the catalogue, in each language
        stranger.route("**/static/i18n/*.json", marked)
        stranger.reload()
        expect(proof).to_have_attribute("data-verdict", "ok", timeout=WAIT_MS)
        assert unmarked(stranger.evaluate(TEXTS_JS), []) == []
        stranger.unroute("**/static/i18n/*.json")
        last = numbers[-1]
        for code, heading in (
            ("nl", f"Bewijs van het delen van hand #{last}"),
            ("de", f"Beweis des Gebens von Hand #{last}"),
        ):
            stranger.evaluate("(code) => localStorage.setItem('stud.language', code)", code)
            stranger.reload()
            expect(proof.locator("h1")).to_have_text(heading)
            expect(proof).to_have_attribute("data-verdict", "ok", timeout=WAIT_MS)
        # the player's own history checks the hand too, and links to its public proof
        ann.page.goto(f"{server_url}/hands/{last}")
        expect(ann.page.locator(".replayer .fairness")).to_contain_text("verified", timeout=WAIT_MS)
        ann.page.locator(".replayer a.proof-link").click()
        expect(ann.page.locator("section.proof")).to_have_attribute("data-verdict", "ok")
        for p in (ann, bob, carl):
            assert p.errors == []
    finally:
        for c in contexts:
            c.close()
