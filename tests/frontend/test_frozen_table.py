"""A table that could not reach its players (R19: its lease in doubt, Redis away, or the
database unable to count all-in protections) stops its clock, refuses commands
(`table_frozen`) and then says `resumed`, followed by a new `turn` with the whole clock. The
browser's table model, in each language: the log says how long the table stood still and
why, a refusal stops the countdown where it stood, and the turn after `resumed` starts a
whole new one; and the same with a real server whose Redis goes away at the player's turn."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import PgServer
from tests.frontend.players import Player, calldown
from tests.frontend.table_kit import create_table, my_turn, open_table, register, seat_bots
from tests.process.test_cluster_redis import own_redis
from tests.serverproc import free_port, server, server_env

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
    "en": "The table is waiting for its connection to come back, so your action was not taken:"
    " try again in a moment",
    "nl": "De tafel wacht tot de verbinding terug is, dus je actie is niet uitgevoerd: probeer"
    " het zo weer",
    "de": "Der Tisch wartet, bis seine Verbindung zurück ist; deine Aktion wurde nicht"
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


# taken this time: the turn moved on (or the hand ended)
MOVED_ON_JS = "(t) => { const h = window.studDebug.state.hand; return !h || h.turn_id !== t; }"


def _until_logged(log: Path, text: str, timeout: float = 30.0) -> None:
    """Wait until the server's log says `text` (the server noticing, not a guess of when)."""
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"the server never logged {text!r}"
        time.sleep(0.1)


@pytest.mark.postgresql
def test_r19_redis_away_at_my_turn_refuses_my_action_then_resumes_with_a_whole_clock(
    tmp_path: Path, pg_server: PgServer, browser: Browser, shots_dir: Path
) -> None:
    """A real server whose Redis (the fan-out) is stopped at this player's turn: the click is
    refused (`table_frozen`, said in words) and the countdown stops; when Redis is back the
    log says the table could not reach the player, and a new turn has the whole clock."""
    name = pg_server.new_database(template=pg_server.template)
    redis_port, port = free_port(), free_port()
    redis_log, log = tmp_path / "redis.log", tmp_path / "server.log"
    env = server_env(
        tmp_path / "data", DATABASE_URL=pg_server.url_for(name),
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        REDIS_NAMESPACE=f"test-{uuid.uuid4().hex[:12]}", LEASE_SECONDS="3", HEARTBEAT_SECONDS="0.5",
    )  # fmt: skip
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        with own_redis(redis_port, redis_log) as first_redis, server(tmp_path, port, log, env):
            base = f"http://127.0.0.1:{port}"
            me = Player(f"fz{uuid.uuid4().hex[:6]}", context.new_page(), shots_dir)
            register(me, base)
            # a long clock: the click below comes well inside this turn
            table = create_table(me.page, max_seats=4, bot_delay_ms=100, action_timer_ms=60_000)
            open_table(me, base, table["table"]["id"])
            me.sit(0)
            seat_bots(me, 1)
            turn = my_turn(me, None)
            assert not turn.get("over")
            first_redis.terminate()
            first_redis.wait()
            _until_logged(log, "fan-out: Redis unreachable")
            bar = me.page.locator(f'.action-bar[data-turn="{turn["turn_id"]}"]')
            bar.locator(f'button.act[data-action="{calldown(turn["legal"])}"]').first.click()
            expect(me.page.locator(".toast-error")).to_have_text(REFUSALS["en"])
            expect(bar.locator(".countdown")).to_have_text(re.compile(r"^stopped at \d+s$"))
            me.shot("frozen-refused")
            assert me.state("s.hand.turn_id") == turn["turn_id"]  # nothing was taken
            with own_redis(redis_port, redis_log):
                said = me.page.locator("ol.log li.log-warn").filter(has_text="could not reach")
                expect(said).to_have_count(1, timeout=60_000)
                expect(said).to_have_text(
                    re.compile(
                        r"^The table could not reach you for \d+ s \(the server's messaging was"
                        r" down\); play resumes with a full clock\.$"
                    )
                )
                again = my_turn(me, turn["turn_id"])
                assert again["hand_id"] == turn["hand_id"] and again["turn_id"] > turn["turn_id"]
                fresh = me.page.locator(f'.action-bar[data-turn="{again["turn_id"]}"] .countdown')
                expect(fresh).to_have_text(re.compile(r"^\d+s$"))
                expect(fresh).not_to_have_class(re.compile(r"\bstopped\b"))
                me.shot("frozen-resumed")
                me.act(again["turn_id"], calldown(again["legal"]))
                me.page.wait_for_function(MOVED_ON_JS, arg=again["turn_id"])
            assert not me.errors, me.errors
    finally:
        context.close()
        pg_server.drop(name)
