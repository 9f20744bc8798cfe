"""A table that could not reach its players (R19: its lease in doubt, Redis away, or the
database unable to count all-in protections) stops its clock, refuses commands
(`table_frozen`) and then says `resumed`, followed by a new `turn` with the whole clock. The
browser's table model, in each language: the log says how long the table stood still and
why, a refusal stops the countdown where it stood, and the turn after `resumed` starts a
whole new one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.xdist_group("browser")

# the model as the table page drives it: events applied in order, a refusal's code handed on
FROZEN_JS = """async ([lang, reason, pausedMs]) => {
  const i18n = await import("/static/js/i18n.js");
  const api = await import("/static/js/api.js");
  const model = await import("/static/js/table/model.js");
  await i18n.setLanguage(lang);
  const state = model.emptyState(1);
  state.table = {max_seats: 2, action_timer_ms: 10000, variant: "stud"};
  state.seats = [{seat: 0, user_id: 1, name: "ann"}, {seat: 1, user_id: 2, name: "bob"}];
  let v = 0;
  const apply = (e) => model.applyEvent(state, {v: ++v, ...e});
  const legal = {seat: 0, fold: true, check: true};
  const turn = (id) => ({type: "turn", hand_id: "h1", turn_id: id, seat: 0, phase: "betting",
                         timer_ms: 10000, legal});
  apply({type: "hand_started", hand_id: "h1", number: "7", variant: "stud", button: 1,
         seats: [0, 1], stacks: [1000, 1000]});
  apply(turn(1));
  const running = model.timeLeft(state);
  model.clockStopped(state);  // the page does this when a command comes back `table_frozen`
  const stopped = [model.timeLeft(state), model.timeLeft(state)];
  const logged = state.log.length;
  const resumed = {type: "resumed", paused_ms: pausedMs};
  if (reason !== null) resumed.reason = reason;
  apply(resumed);
  const between = model.timeLeft(state);
  apply(turn(2));
  const after = model.timeLeft(state);
  const out = {
    lines: state.log.slice(logged).map((l) => [l.kind, l.text]),
    running, stopped, between, after, turnId: state.hand.turn_id,
    legal: model.myLegal(state) !== null,
    refusal: api.errorText("table_frozen", "the server's English"),
  };
  await i18n.setLanguage("en");
  return out;
}"""

RESUMED_LINES = {
    ("en", "fanout", 12_400): "The table could not reach you for 12 s (the server's messaging"
    " was down); play resumes with a full clock.",
    ("en", "lease", 400): "The table could not reach you for 1 s (its server could not confirm"
    " it still runs this table); play resumes with a full clock.",
    ("en", "database", 754_000): "The table's clock stood still for 13 min (the server's"
    " database was away); play resumes with a full clock.",
    ("en", None, 3_600): "The table could not reach you for 4 s; play resumes with a full clock.",
    ("nl", "fanout", 12_400): "De tafel kon je 12 s niet bereiken (de berichtendienst van de"
    " server lag eruit); het spel gaat verder met een volle klok.",
    ("nl", "database", 1_500): "De klok van de tafel stond 2 s stil (de database van de server"
    " was weg); het spel gaat verder met een volle klok.",
    ("de", "lease", 65_000): "Der Tisch konnte dich 65 s lang nicht erreichen (sein Server"
    " konnte nicht bestätigen, dass er diesen Tisch noch führt); es geht mit voller Bedenkzeit"
    " weiter.",
    ("de", "database", 1_234_000): "Die Uhr des Tisches stand 21 Min. lang still (die Datenbank"
    " des Servers war nicht erreichbar); es geht mit voller Bedenkzeit weiter.",
}
REFUSALS = {
    "en": "the table is waiting for its connection to come back, so your action was not taken:"
    " try again in a moment",
    "nl": "de tafel wacht tot de verbinding terug is, dus je actie is niet uitgevoerd: probeer"
    " het zo weer",
    "de": "der Tisch wartet, bis seine Verbindung zurück ist; deine Aktion wurde nicht"
    " ausgeführt: versuch es gleich noch einmal",
}


def test_r19_resumed_is_logged_in_each_language_and_the_next_turn_has_the_whole_clock(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    page = browser.new_page()
    try:
        page.goto(server_url + "/login")
        expect(page.locator("form.auth-form")).to_be_visible()
        for (lang, reason, paused_ms), line in RESUMED_LINES.items():
            out: dict[str, Any] = page.evaluate(FROZEN_JS, [lang, reason, paused_ms])
            assert out["lines"] == [["warn", line]], (lang, reason)
            assert out["refusal"] == REFUSALS[lang]
            # a refusal stops the countdown where it stood: it reads the same however late
            assert out["running"]["stopped"] is False and out["running"]["left"] is not None
            first, second = out["stopped"]
            assert first["stopped"] is second["stopped"] is True
            assert first["left"] == second["left"] <= out["running"]["left"]
            # `resumed` voids the old turn's clock; the turn after it starts a whole one
            assert out["between"] == {"left": None, "stopped": False}
            assert out["after"]["stopped"] is False and 0 < out["after"]["left"] <= 10_000
            assert out["turnId"] == 2 and out["legal"] is True
    finally:
        page.close()
