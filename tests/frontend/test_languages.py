"""Nederlands, Deutsch, English: no text on any page that is not in the catalogue,
a whole hand played in Dutch and one in German (buttons, log lines, amounts and the showdown's
hand names in that language), the choice kept with the account, the verification email in the
player's language; and the log's wording fixes (a timeout said once, R19; Razz lows in upper
case)."""

from __future__ import annotations

import math
import re
import secrets
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.frontend.catalogue import TEXTS_JS, marked, unmarked
from tests.frontend.conftest import Mailbox
from tests.frontend.players import WAIT_MS, Player, calldown
from tests.frontend.table_kit import (
    api,
    create_table,
    my_turn,
    open_table,
    register,
    seat_bots,
    sit,
)


def play_out(me: Player) -> str:
    """Play the current hand to its end by `easy` (bots play the other seats)."""
    last = None
    for _ in range(40):
        turn = my_turn(me, last)
        if turn.get("over"):
            number: str = turn["number"]  # hands are found by their number
            return number
        last = turn["turn_id"]
        bar = me.page.locator(f'.action-bar[data-turn="{last}"]')
        bar.locator(f'button.act[data-action="{calldown(turn["legal"])}"]').first.click()
    raise AssertionError("the hand did not end")


def test_no_page_shows_a_text_that_is_not_in_the_catalogue(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/static/i18n/*.json", marked)
    me = Player(f"cat{secrets.token_hex(3)}", context.new_page(), shots_dir)
    seen: dict[str, list[str]] = {}

    def collect(where: str, page: Page | None = None) -> None:
        seen[where] = (page or me.page).evaluate(TEXTS_JS)

    try:
        me.page.goto(server_url + "/login")
        expect(me.page.locator("form.auth-form")).to_be_visible()
        collect("log in")
        me.page.goto(server_url + "/register")
        expect(me.page.locator('form.auth-form input[name="email"]')).to_be_visible()
        collect("register")
        register(me, server_url)
        me.page.goto(server_url + "/invite/not-a-real-invite")
        expect(me.page.locator("section.panel.narrow a.btn")).to_be_visible()
        collect("a broken invite")
        me.page.goto(server_url + "/lobby")
        expect(me.page.locator("section.lobby")).to_be_visible()
        collect("lobby")
        me.page.locator("#create-table").click()
        expect(me.page.locator("#create-dialog")).to_be_visible()
        collect("create a table")
        me.page.keyboard.press("Escape")
        table = create_table(me.page, name="Tafel", max_seats=4, bot_delay_ms=100, private=True)
        open_table(me, server_url, table["table"]["id"])
        me.page.locator('.seat[data-seat="0"] button.sit-here').click()
        expect(me.page.locator("#buy-in-dialog")).to_be_visible()
        collect("buy-in")
        me.page.keyboard.press("Escape")
        sit(me, 0)
        me.page.locator('button[data-cmd="host"]').click()
        expect(me.page.locator("#host-dialog")).to_be_visible()
        collect("host dialog")
        me.page.keyboard.press("Escape")
        me.page.locator('button[data-cmd="invite"]').click()
        expect(me.page.locator("#invite-dialog")).to_be_visible()
        collect("invite dialog")
        me.page.keyboard.press("Escape")
        me.page.locator('button[data-cmd="top-up"]').click()
        expect(me.page.locator("#top-up-dialog")).to_be_visible()
        collect("top-up dialog")
        me.page.keyboard.press("Escape")
        bots = seat_bots(me, 2)
        turn = my_turn(me, None)
        bar = me.page.locator(f'.action-bar[data-turn="{turn["turn_id"]}"] button.act')
        expect(bar.first).to_be_visible()
        collect("table, my turn")
        hand_id = play_out(me)
        expect(me.page.locator("ol.log li.log-win").first).to_be_visible()
        collect("table, hand over")
        me.page.goto(f"{server_url}/hands/{hand_id}")
        expect(me.page.locator(".replayer .replay-pos")).to_be_visible()
        me.page.wait_for_function(
            "() => !document.querySelector('.fairness').textContent.includes('…⟧')"
        )
        collect("my hands and the replayer")
        data = [me.name, f"{me.name}@example.com", "Tafel", *bots]
        problems = {where: unmarked(texts, data) for where, texts in seen.items()}
        assert all(texts for texts in seen.values())
        assert {where: left for where, left in problems.items() if left} == {}
        assert not me.errors, me.errors
    finally:
        context.close()


DUTCH_HANDS = re.compile(
    r"\((Hoge kaart|Eén paar|Twee paar|Drie gelijke|Straat|Flush|Full house|Carré"
    r"|Straight flush|Royal flush), "
)
GERMAN_HANDS = re.compile(
    r"\((Höchste Karte|Ein Paar|Zwei Paare|Drilling|Straße|Flush|Full House|Vierling"
    r"|Straight Flush|Royal Flush)[,)]"
)
DUTCH_BUTTONS = re.compile(
    r"(Bring-in|Passen|Checken|Meegaan|Aanvullen tot|Inzetten|Verhogen|Tonen|Hand tonen"
    r"|Niet tonen|Weggooien)\b"
)
GERMAN_BUTTONS = re.compile(
    r"(Bring-in|Aussteigen|Checken|Mitgehen|Komplettieren auf|Setzen|Erhöhen auf|Zeigen"
    r"|Hand zeigen|Nicht zeigen|Verwerfen)\b"
)
ENGLISH_WORDS = re.compile(r"\b(pair|of a kind|high card|full of|calls|checks|folds|wins)\b")


def whole_hand(me: Player) -> tuple[list[str], list[str]]:
    """A hand against a bot to the showdown: the action buttons offered, the hand's log."""
    seat_bots(me, 1)
    labels: list[str] = []
    last = None
    for _ in range(40):
        turn = my_turn(me, last)
        if turn.get("over"):
            break
        last = turn["turn_id"]
        bar = me.page.locator(f'.action-bar[data-turn="{last}"]')
        expect(bar.locator("button.act").first).to_be_visible()
        labels += bar.locator("button.act .act-label").all_text_contents()
        bar.locator(f'button.act[data-action="{calldown(turn["legal"])}"]').first.click()
    log = me.page.locator("ol.log")
    expect(log.locator("li.log-win").first).to_be_visible(timeout=WAIT_MS)
    lines = log.locator("li").all_text_contents()
    return labels, lines[max(i for i, x in enumerate(lines) if "·" in x and x.endswith(".")) :]


def test_a_whole_hand_in_dutch_from_the_browsers_language(
    server_url: str, browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 860}, locale="nl-NL")
    me = Player(f"nl{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url, language="nl")
        expect(me.page.locator("section.lobby h1")).to_have_text("Lobby")
        expect(me.page.locator("#create-table")).to_have_text("Tafel openen")
        expect(me.page.locator(".balance")).to_have_text("$ 1.000")
        assert api(me.page, "GET", "/api/me")["language"] == "nl"
        api(me.page, "POST", "/api/mail/verification")
        mail = mailbox.wait_for("bevestig je e-mailadres")
        body = mail.get_body(preferencelist=("plain",))
        assert body is not None and "Open deze link binnen" in body.get_content()
        table = create_table(me.page, name="Donderdag", max_seats=4, bot_delay_ms=100, private=True)
        open_table(me, server_url, table["table"]["id"])
        sit(me, 0)
        labels, lines = whole_hand(me)
        assert set(labels) & {"Meegaan $ 0,50", "Bring-in $ 0,50", "Checken"}, labels
        assert all(DUTCH_BUTTONS.match(x) for x in labels), labels
        text = "\n".join(lines)
        assert re.match(r"Hand \d+ aan deze tafel \(#\d+\) · ", lines[0]), lines
        assert "Derde straat" in lines and "Vierde straat" in lines, lines
        assert re.search(r"(doet de bring-in van|gaat mee met) \$ 0,50", text), text
        assert re.search(r"\b(checkt|gaat mee met)\b", text), text
        assert DUTCH_HANDS.search(text), text
        assert re.search(r"wint \$ \d+(,\d\d)?", text), text
        assert not ENGLISH_WORDS.search(text), text
        expect(me.page.locator(".center .street")).to_have_text(re.compile("Hand voorbij|Wachten"))
        me.shot("table-dutch")
        assert not me.errors, me.errors
    finally:
        context.close()


def test_a_whole_hand_in_german_chosen_in_the_header_and_kept(
    server_url: str, browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 860}, locale="en-US")
    me = Player(f"de{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url, language="en")
        me.page.locator("#language").select_option("de")
        expect(me.page.locator("#create-table")).to_have_text("Tisch eröffnen")
        expect(me.page.locator(".balance")).to_have_text("1.000 $")
        assert api(me.page, "GET", "/api/me")["language"] == "de"
        context.clear_cookies()  # a new visit: the account's choice comes back on log-in
        me.page.evaluate("() => localStorage.clear()")
        me.page.goto(server_url + "/login")
        expect(me.page.locator("form.auth-form button[type=submit]")).to_have_text("Log in")
        me.page.locator('input[name="name"]').fill(me.name)
        me.page.locator('input[name="password"]').fill("felt and chips 42")
        me.page.locator("form.auth-form button[type=submit]").click()
        expect(me.page.locator("#create-table")).to_have_text("Tisch eröffnen")
        me.page.reload()
        expect(me.page.locator("#create-table")).to_have_text("Tisch eröffnen")
        expect(me.page.locator("html")).to_have_attribute("lang", "de")
        api(me.page, "POST", "/api/mail/verification")
        mail = mailbox.wait_for("Bestätige deine E-Mail-Adresse")
        assert me.name in str(mail["To"])
        table = create_table(
            me.page, name="Stammtisch", max_seats=4, bot_delay_ms=100, private=True
        )
        open_table(me, server_url, table["table"]["id"])
        sit(me, 0)
        labels, lines = whole_hand(me)
        assert set(labels) & {"Mitgehen 0,50 $", "Bring-in 0,50 $", "Checken"}, labels
        assert all(GERMAN_BUTTONS.match(x) for x in labels), labels
        text = "\n".join(lines)
        assert re.match(r"Hand \d+ an diesem Tisch \(#\d+\) · ", lines[0]), lines
        assert "Dritte Straße" in lines and "Vierte Straße" in lines, lines
        assert re.search(r"(bringt den Bring-in von|geht mit) 0,50 \$", text), text
        assert GERMAN_HANDS.search(text), text
        assert re.search(r"gewinnt \d+(,\d\d)? \$", text), text
        assert not ENGLISH_WORDS.search(text), text
        me.shot("table-german")
        assert not me.errors, me.errors
    finally:
        context.close()


LOG_JS = """async ([events, lang]) => {
  const i18n = await import("/static/js/i18n.js");
  const model = await import("/static/js/table/model.js");
  await i18n.setLanguage(lang);
  const state = model.emptyState(1);
  state.table = {max_seats: 2, action_timer_ms: 10000, variant: "razz"};
  state.seats = [{seat: 0, user_id: 1, name: "ann"}, {seat: 1, user_id: 2, name: "bob"}];
  events.forEach((e, i) => model.applyEvent(state, {v: i + 1, ...e}));
  const lines = state.log.map((l) => l.text);
  await i18n.setLanguage("en");
  return lines;
}"""
STARTED = {"type": "hand_started", "hand_id": "h1", "variant": "razz", "button": 0,
           "seats": [0, 1], "stacks": [1000, 1000]}  # fmt: skip


def test_log_says_a_timeout_once_r19_and_writes_lows_in_upper_case(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    """R19: a timed-out seat's default action is one line ("ran out of time and folds", not
    then "folds"); an uncontested winner who times out "does not show" (not "mucks"); a Razz
    low is "Q-9-8-3-A" in English and with each language's card signs elsewhere."""
    page = browser.new_page()
    try:
        page.goto(server_url + "/login")
        expect(page.locator("form.auth-form")).to_be_visible()
        fold = [STARTED, {"type": "timed_out", "seat": 1, "outcome": "fold"},
                {"type": "folded", "seat": 1}]  # fmt: skip
        assert page.evaluate(LOG_JS, [fold, "en"])[1:] == ["bob ran out of time and folds"]
        no_show = [STARTED, {"type": "timed_out", "seat": 0, "outcome": "muck"},
                   {"type": "show_declined", "seat": 0}]  # fmt: skip
        said = page.evaluate(LOG_JS, [no_show, "en"])[1:]
        assert said == ["ann ran out of time and does not show"]
        said = page.evaluate(LOG_JS, [no_show, "nl"])[1:]
        assert said == ["ann had geen tijd meer en toont niet"]
        muck = [STARTED, {"type": "timed_out", "seat": 0, "outcome": "muck"},
                {"type": "hand_mucked", "seat": 0}]  # fmt: skip
        assert page.evaluate(LOG_JS, [muck, "de"])[1:] == ["ann hat keine Zeit mehr und verwirft"]
        protected = [STARTED, {"type": "timed_out", "seat": 1, "outcome": "all_in"},
                     {"type": "checked", "seat": 0}]  # fmt: skip
        lines = page.evaluate(LOG_JS, [protected, "en"])[1:]
        assert lines[0].startswith("bob ran out of time and is all-in") and lines[1] == "ann checks"
        shown = [STARTED, {"type": "hand_shown", "seat": 1, "cards": ["Qs", "9h", "8d", "3c", "Ah"],
                           "high": None, "low": "Q-9-8-3-A low"}]  # fmt: skip
        assert page.evaluate(LOG_JS, [shown, "en"])[1].endswith("(Q-9-8-3-A low)")
        assert page.evaluate(LOG_JS, [shown, "nl"])[1].endswith("(V-9-8-3-A laag)")
        assert page.evaluate(LOG_JS, [shown, "de"])[1].endswith("(D-9-8-3-A Low)")
        pair = [STARTED, {"type": "hand_shown", "seat": 0, "cards": ["Kh", "Kd", "4s", "4c", "4h"],
                          "high": "Full house, fours full of kings", "low": None}]  # fmt: skip
        assert page.evaluate(LOG_JS, [pair, "nl"])[1].endswith("(Full house, vieren over koningen)")
        assert page.evaluate(LOG_JS, [pair, "de"])[1].endswith("(Full House, Vieren über Könige)")
    finally:
        page.close()


MONEY_JS = """async (lang) => {
  const i18n = await import("/static/js/i18n.js");
  await i18n.setLanguage(lang);
  const out = {
    written: [130, 1500, 123456, -15].map(i18n.money),
    read: ["0.50", "0,50", "1.234,50", "1.000", "12", "20,5", "abc"].map(i18n.parseMoney),
  };
  await i18n.setLanguage("en");
  return out;
}"""


def test_amounts_are_written_and_read_the_languages_way(server_url: str, browser: Browser) -> None:
    page = browser.new_page()
    try:
        page.goto(server_url + "/login")
        expect(page.locator("form.auth-form")).to_be_visible()
        en, nl, de = (page.evaluate(MONEY_JS, code) for code in ("en", "nl", "de"))
        assert en["written"] == ["$1.30", "$15", "$1,234.56", "-$0.15"]
        assert nl["written"] == ["$ 1,30", "$ 15", "$ 1.234,56", "-$ 0,15"]
        assert de["written"] == ["1,30 $", "15 $", "1.234,56 $", "-0,15 $"]
        # a lone point is a decimal point in every language: never a hundredfold amount
        assert nl["read"][:6] == de["read"][:6] == [50, 50, 123450, 100000, 1200, 2050]
        assert en["read"][0] == 50 and en["read"][4] == 1200
        assert all(math.isnan(r[6]) for r in (en["read"], nl["read"], de["read"]))
    finally:
        page.close()
