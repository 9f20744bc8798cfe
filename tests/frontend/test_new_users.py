"""What new users tripped over (issue 24), as a person meets it in the browser."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.frontend.players import PASSWORD, Game, Player, calldown
from tests.frontend.table_kit import create_table, open_table, register, seated


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


def test_the_muck_button_says_mucked_cards_reach_the_others_histories(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 860}) for _ in range(2)]
    try:
        players = seated(contexts, ("mia", "ned"), (0, 3), server_url, shots_dir, name="Mucked")
        seen: list[str] = []

        def at_turn(turn: dict[str, object]) -> None:
            legal = turn["legal"]
            assert isinstance(legal, dict)
            page = next(p for p in players if p.seat == turn["seat"]).page
            note = page.locator(".action-bar .muck-note")
            if legal["muck"] and turn["phase"] != "uncontested":
                expect(note).to_contain_text("other players' hand histories")
                muck = page.locator('.action-bar button.act[data-action="muck"]')
                expect(muck).to_have_attribute("aria-describedby", "muck-note")
                seen.append(str(turn["phase"]))
            else:
                expect(note).to_have_count(0)

        game = Game(players)
        previous = None
        # R23: only a loser who shows second is offered the muck, about one hand in two
        # heads up; a hand without one deals another (4 hands missed it 1 time in 16)
        for _ in range(12):
            previous = game.play(calldown, previous, on_turn=lambda turn: at_turn(turn))
            if seen:
                break
        assert seen, "no showdown offered a muck"
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


def test_key_hints_use_a_face_where_the_letter_o_is_not_a_zero(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    """The completion key `O` read as `0` in the monospace face of the buttons' key hints."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"kay{secrets.token_hex(3)}", ctx.new_page(), shots_dir)
    try:
        register(me, server_url)
        face = me.page.evaluate(
            """() => { const k = document.createElement("kbd"); k.textContent = "O";
                 document.body.append(k); const f = getComputedStyle(k).fontFamily;
                 k.remove(); return f; }"""
        )
        assert "monospace" not in face and "ui-monospace" not in face, face
    finally:
        ctx.close()


def test_the_host_dialog_offers_resume_once_the_table_is_paused(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    host = Player(f"hal{secrets.token_hex(3)}", ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        table_id = create_table(host.page, name="Paused", private=True)["table"]["id"]
        open_table(host, server_url, table_id)
        page = host.page
        page.locator('button[data-cmd="host"]').click()
        dlg = page.locator("#host-dialog")
        pause = dlg.locator('button[data-host="pause"]')
        expect(pause).to_have_text("Pause after this hand")
        pause.click()
        expect(pause).to_have_text("Resume dealing")
        page.wait_for_function("() => window.studDebug.state.table.paused === true")
        dlg.get_by_role("button", name="Done").click()
        expect(dlg).to_be_hidden()
        page.locator('button[data-cmd="host"]').click()
        expect(dlg.locator('button[data-host="pause"]')).to_have_text("Resume dealing")
        assert not host.errors, host.errors
    finally:
        ctx.close()


ERROR_TEXT_JS = """async ([code, message, lang]) => {
  const i18n = await import("/static/js/i18n.js");
  const { errorText } = await import("/static/js/api.js");
  await i18n.setLanguage(lang);
  return errorText(code, message);
}"""


def test_engine_refusals_reach_each_player_in_their_language(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"lex{secrets.token_hex(3)}", ctx.new_page(), shots_dir)
    try:
        register(me, server_url)
        why = "You cannot check: $1 to call"
        said = {
            lang: me.page.evaluate(ERROR_TEXT_JS, ["illegal_action", why, lang])
            for lang in ("nl", "de", "en")
        }
        assert said == {
            "nl": "Die zet mag nu niet",
            "de": "Dieser Zug ist jetzt nicht erlaubt",
            "en": why,
        }, said
    finally:
        ctx.close()


HILO_LOG_JS = """async (awards) => {
  const i18n = await import("/static/js/i18n.js");
  const m = await import("/static/js/table/model.js");
  await i18n.setLanguage("en");
  const s = m.emptyState(null);
  s.seats = [{ seat: 0, name: "Ann" }, { seat: 3, name: "Bob" }, { seat: 5, name: "Cy" }];
  let v = 0;
  const apply = (ev) => m.applyEvent(s, { v: ++v, hand_id: "h1", ...ev });
  apply({ type: "hand_started", seats: [0, 3, 5], stacks: [1000, 1000, 1000], button: 0,
          variant: "stud8", number: "7" });
  const low = awards.some((a) => a[2] === "low") ? "8-6-5-3-2" : null;
  apply({ type: "hand_shown", seat: 0, cards: ["Ah", "2h"], high: "Flush", low });
  apply({ type: "hand_shown", seat: 3, cards: ["Kd", "Kc"], high: "One pair", low: null });
  for (const [seat, amount, share] of awards)
    apply({ type: "pot_awarded", pot: 0, seat, amount, share });
  return s.log.filter((e) => e.kind === "win" || e.kind === "info").map((e) => e.text);
}"""


def test_the_log_says_a_hi_lo_scoop_once_and_says_when_there_is_no_low(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"sky{secrets.token_hex(3)}", ctx.new_page(), shots_dir)
    try:
        register(me, server_url)
        scoop = me.page.evaluate(HILO_LOG_JS, [[0, 300, "high"], [0, 300, "low"]])
        assert scoop == ["Ann scoops $6 (high and low)"], scoop
        split = me.page.evaluate(HILO_LOG_JS, [[0, 300, "high"], [3, 300, "low"]])
        assert split == ["Ann wins $3 (high half)", "Bob wins $3 (low half)"], split
        tied_low = me.page.evaluate(
            HILO_LOG_JS, [[0, 300, "high"], [0, 150, "low"], [3, 150, "low"]]
        )
        assert tied_low == [
            "Ann wins $3 (high half)",
            "Ann wins $1.50 (low half)",
            "Bob wins $1.50 (low half)",
        ], tied_low
        no_low = me.page.evaluate(HILO_LOG_JS, [[3, 600, "whole"]])
        assert no_low[0] == "Bob wins $6", no_low
        assert no_low[1].startswith("No low"), no_low
        assert not me.errors, me.errors
    finally:
        ctx.close()


def test_the_last_hand_stays_after_a_reload_and_the_last_hands_open_in_the_replayer(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 860}) for _ in range(2)]
    try:
        players = seated(contexts, ("ola", "pia"), (0, 3), server_url, shots_dir, name="Reloaded")
        Game(players).play(calldown, None)
        page = players[1].page
        expect(page.locator('button[data-cmd="email-hand"]')).to_be_visible()
        number = page.evaluate("() => window.studDebug.state.lastHandNumber")
        page.reload()
        expect(page.locator(".table-title")).to_be_visible()
        expect(page.locator('button[data-cmd="email-hand"]')).to_be_visible()
        page.locator('button[data-cmd="last-hands"]').click()
        dlg = page.locator("#last-hands-dialog")
        expect(dlg).to_be_visible()
        link = dlg.get_by_role("link", name=f"Hand #{number}")
        expect(link).to_be_visible()
        link.click()
        expect(page.locator(".replayer h2")).to_contain_text(f"Hand #{number}")
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


def test_an_invite_opened_logged_out_is_said_on_the_login_page_and_followed_after_it(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    friend_ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    host = Player(f"anna{secrets.token_hex(3)}", host_ctx.new_page(), shots_dir)
    friend = Player(f"fred{secrets.token_hex(3)}", friend_ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        created = create_table(host.page, name="Invited", private=True)
        register(friend, server_url)
        friend.page.locator("#logout").click()
        page = friend.page
        page.goto(f"{server_url}/invite/{created['invite']}")
        form = page.locator("form.auth-form")
        expect(form).to_be_visible()
        expect(page.locator(".invite-note")).to_contain_text(f"{host.name} invited you to Invited")
        form.locator('input[name="name"]').fill(friend.name)
        form.locator('input[name="password"]').fill(PASSWORD)
        form.locator('button[type="submit"]').click()
        expect(page).to_have_url(re.compile(rf"/table/{created['table']['id']}$"))
        expect(page.locator(".table-title")).to_have_text("Invited")
        assert not friend.errors, friend.errors
    finally:
        host_ctx.close()
        friend_ctx.close()


LEFT_JS = """async () => {
  const i18n = await import("/static/js/i18n.js");
  const m = await import("/static/js/table/model.js");
  await i18n.setLanguage("en");
  const s = m.emptyState(null);
  s.seats = [{ seat: 0, name: "Ann" }, { seat: 3, name: "Bob" }];
  let v = 0;
  const apply = (ev) => m.applyEvent(s, { v: ++v, hand_id: "h1", ...ev });
  apply({ type: "hand_started", seats: [0, 3], stacks: [1000, 1000], button: 0,
          variant: "stud", number: "7" });
  apply({ type: "seats", seats: [{ seat: 0, name: "Ann" }] });  // Bob left mid-hand
  apply({ type: "pot_awarded", pot: 0, seat: 3, amount: 300, share: "whole" });
  return s.log.filter((e) => e.kind === "win").map((e) => e.text);
}"""


def test_a_player_who_left_mid_hand_is_still_named_in_its_result(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    me = Player(f"ren{secrets.token_hex(3)}", ctx.new_page(), shots_dir)
    try:
        register(me, server_url)
        said = me.page.evaluate(LEFT_JS)
        assert said == ["Bob wins $3"], said
    finally:
        ctx.close()
