"""A table that flows (issue 24): pre-actions set before your turn and played the instant it
comes, the turn noticed from another tab (title, icon, tone, vibration), the table's own hand
count, names kept after a reload, and the invite's login page naming the host."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from tests.frontend.players import Game, Player, calldown
from tests.frontend.table_kit import create_table, register, seated

VIEW: ViewportSize = {"width": 1280, "height": 860}


def turn_of(game: Game, hand_id: str | None, last: int | None) -> dict[str, Any]:
    turn = game.turn(hand_id, last)
    assert turn is not None, "the hand ended"
    return turn


def play_out(game: Game, turn: dict[str, Any]) -> None:
    """Call this hand down to its end."""
    hand_id = turn["hand_id"]
    for _ in range(60):
        game.by_seat(turn["seat"]).act(turn["turn_id"], calldown(turn["legal"]))
        nxt = game.turn(hand_id, turn["turn_id"])
        if nxt is None:
            return
        turn = nxt
    raise AssertionError("the hand did not end in 60 turns")


def hand_of_all(game: Game) -> dict[str, Any]:
    """The first turn of a hand every player is dealt into (the first hand may start before
    the last player sits down)."""
    previous = None
    for _ in range(5):
        turn = game.next_hand(previous)
        dealt = game.watcher.state("Object.keys(s.hand.players).length")
        if dealt == len(game.players):
            return turn
        play_out(game, turn)
        previous = turn["hand_id"]
    raise AssertionError("no hand dealt everyone in")


# -- pre-actions: the rules, on the model's own state (third street's bring-in and its
#    completion, fourth street's big bet on an open pair) ---------------------------------

PRE_RULES_JS = """async () => {
  const i18n = await import("/static/js/i18n.js");
  const m = await import("/static/js/table/model.js");
  const pre = await import("/static/js/table/preactions.js");
  await i18n.setLanguage("en");
  const s = m.emptyState(3);  // this page is Cy's, at seat 5; Ann brings in, Bob acts next
  s.seats = [{ seat: 0, user_id: 1, name: "Ann" }, { seat: 3, user_id: 2, name: "Bob" },
             { seat: 5, user_id: 3, name: "Cy" }];
  let v = 0;
  const apply = (ev) => m.applyEvent(s, { v: ++v, hand_id: "h1", ...ev });
  const legal = (seat, over) => ({ seat, fold: true, check: false, call: null, bring_in: null,
                                   complete: null, bets: [], raises: [], show: false,
                                   muck: false, ...over });
  const turn = (seat, id, over) => apply({ type: "turn", seat, turn_id: id, phase: "betting",
                                           timer_ms: 10000, legal: legal(seat, over) });
  const kinds = (held = null) =>
    pre.offered(s, held).map((o) => o.kind + (o.amount ? ":" + o.amount : ""));
  const out = {};
  apply({ type: "hand_started", seats: [0, 3, 5], stacks: [1000, 1000, 1000], button: 0,
          variant: "stud", number: "21", count: 1, names: { 0: "Ann", 3: "Bob", 5: "Cy" } });
  apply({ type: "street_started", street: 3, pots: [] });
  apply({ type: "bring_in_due", seat: 0 });
  turn(0, 1, { fold: false, bring_in: 50, complete: 100 });
  out.before_bring_in = kinds();
  apply({ type: "brought_in", seat: 0, amount: 50, all_in: false });
  turn(3, 2, { call: 50, complete: 100 });
  out.after_bring_in = kinds();
  let call50 = pre.choose(s, "call", 50), checkFold = pre.choose(s, "check_fold"),
      any = pre.choose(s, "call_any");
  apply({ type: "completed", seat: 3, amount: 100, all_in: false });  // a raise in between
  [call50, checkFold, any] = [call50, checkFold, any].map((c) => pre.kept(s, c));
  out.after_completion = [call50, checkFold, any].map((c) => c && c.kind);
  out.offered_after_completion = kinds();
  turn(5, 3, { call: 100, raises: [200] });
  out.third_turn = [pre.decide(checkFold, s.hand.legal), pre.decide(any, s.hand.legal),
                    pre.decide({ kind: "call", amount: 50 }, s.hand.legal)];
  // the bring-in seat decides its bring-in itself, whatever it chose
  out.bring_in_turn = pre.decide({ kind: "check_fold" }, legal(0, { bring_in: 50 }));
  apply({ type: "called", seat: 5, amount: 100, all_in: false });
  apply({ type: "called", seat: 0, amount: 50, all_in: false });
  apply({ type: "street_started", street: 4, pots: [{ amount: 300, eligible: [0, 3, 5] }] });
  out.street_ended = pre.kept(s, any);
  turn(0, 4, { fold: false, check: true, bets: [100, 200] });  // Ann's open pair: big bet too
  out.fourth_offered = kinds();
  let check = pre.choose(s, "check"), foldAny = pre.choose(s, "fold_any");
  checkFold = pre.choose(s, "check_fold");
  any = pre.choose(s, "call_any");
  apply({ type: "bet", seat: 0, amount: 200, all_in: false });  // the big bet arrives
  [check, checkFold, foldAny, any] = [check, checkFold, foldAny, any].map((c) => pre.kept(s, c));
  out.after_big_bet = [check, checkFold, foldAny, any].map((c) => c && c.kind);
  out.fourth_offered_after_bet = kinds(foldAny);
  const facingBet = legal(5, { call: 200, raises: [400] });
  out.fourth_turn = [checkFold, foldAny, any, pre.choose(s, "call", 200)].map(
    (c) => pre.decide(c, facingBet));
  const checkedTo = legal(5, { check: true, bets: [100, 200] });
  out.checked_to = ["check", "check_fold", "fold_any", "call_any"].map(
    (k) => pre.decide({ kind: k }, checkedTo));
  out.fold_any_stays = !!pre.afterPlayed({ kind: "fold_any" }, "check");
  out.check_used = pre.afterPlayed({ kind: "check" }, "check");
  return out;
}"""


def test_pre_actions_are_kept_and_cleared_as_the_action_changes_on_stud_streets(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    ctx = browser.new_context(viewport=VIEW)
    me = Player(f"pr{secrets.token_hex(3)}", ctx.new_page(), shots_dir)
    try:
        register(me, server_url)
        got = me.page.evaluate(PRE_RULES_JS)
        assert got["before_bring_in"] == []  # third street: the bring-in comes first
        assert got["after_bring_in"] == ["check_fold", "call:50", "call_any"]
        # the completion changes the amount to call: "call 50" is gone, the others hold
        assert got["after_completion"] == [None, "check_fold", "call_any"]
        assert got["offered_after_completion"] == ["check_fold", "call:100", "call_any"]
        assert got["third_turn"] == ["fold", "call", None]
        assert got["bring_in_turn"] is None
        assert got["street_ended"] is None  # every choice ends with its street
        assert got["fourth_offered"] == ["check_fold", "check", "call_any", "fold_any"]
        # a bet arrives: "check" is cleared; check/fold, fold to any bet, call any hold
        assert got["after_big_bet"] == [None, "check_fold", "fold_any", "call_any"]
        assert got["fourth_offered_after_bet"] == [
            "check_fold", "call:200", "call_any", "fold_any"
        ]  # fmt: skip
        assert got["fourth_turn"] == ["fold", "fold", "call", "call"]
        assert got["checked_to"] == ["check", "check", "check", "check"]
        assert got["fold_any_stays"] is True and got["check_used"] is None
        assert not me.errors, me.errors
    finally:
        ctx.close()


# -- pre-actions in two (and three) real browsers -------------------------------------------


def fourth_street(game: Game, previous: str | None) -> tuple[dict[str, Any], str]:
    """Play third street by calling; the first turn of fourth street and the hand's id."""
    turn = game.next_hand(previous)
    hand_id: str = turn["hand_id"]
    while turn["street"] < 4:
        game.by_seat(turn["seat"]).act(turn["turn_id"], calldown(turn["legal"]))
        turn = turn_of(game, hand_id, turn["turn_id"])
    return turn, hand_id


def set_pre(player: Player, kind: str, turn_id: int) -> None:
    """Choose a pre-action once this player's page has the turn `turn_id` (another's)."""
    player.page.wait_for_function(
        "(id) => window.studDebug.state.hand?.turn_id === id", arg=turn_id
    )
    button = player.page.locator(f'.pre-actions button[data-pre="{kind}"]')
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    player.shot(f"pre-action-{kind}")


def test_check_fold_set_before_a_bet_folds_and_check_set_before_a_check_checks(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    contexts = [browser.new_context(viewport=VIEW) for _ in range(2)]
    try:
        players = seated(contexts, ("cara", "dov"), (0, 3), server_url, shots_dir, name="Pre")
        game = Game(players)
        # hand 1: the one to act second on fourth street chose check/fold; a bet arrives
        turn, hand_id = fourth_street(game, None)
        first = game.by_seat(turn["seat"])
        second = next(p for p in players if p is not first)
        expect(second.page.locator(".pre-actions")).to_be_visible()
        set_pre(second, "check_fold", turn["turn_id"])
        first.act(turn["turn_id"], "bet")
        second.page.wait_for_function(
            "(seat) => window.studDebug.state.hand.players[seat].folded", arg=second.seat
        )
        assert second.page.evaluate("() => window.studDebug.preplayed.map((p) => p.action)") == [
            "fold"
        ]
        log = first.page.locator("ol.log li")
        expect(log.filter(has_text=f"{second.name} folds")).to_have_count(1)
        texts = log.all_inner_texts()
        bet = next(i for i, x in enumerate(texts) if x.startswith(f"{first.name} bets"))
        assert texts[bet + 1] == f"{second.name} folds", texts[bet:]
        # hand 2: check set before a check checks
        turn, hand_id = fourth_street(game, hand_id)
        first = game.by_seat(turn["seat"])
        second = next(p for p in players if p is not first)
        set_pre(second, "check", turn["turn_id"])
        first.act(turn["turn_id"], "check")
        log = first.page.locator("ol.log li")
        expect(log.filter(has_text=f"{second.name} checks")).not_to_have_count(0)
        played = second.page.evaluate("() => window.studDebug.preplayed.map((p) => p.action)")
        assert played[-1] == "check", played
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_completion_in_between_clears_call_this_amount(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    contexts = [browser.new_context(viewport=VIEW) for _ in range(3)]
    try:
        players = seated(
            contexts, ("eva", "fay", "gus"), (0, 3, 5), server_url, shots_dir, name="Three"
        )
        game = Game(players)
        turn = hand_of_all(game)
        hand_id = turn["hand_id"]
        assert turn["legal"]["bring_in"] is not None  # the hand's first turn: the bring-in
        seats = sorted(p.seat for p in players if p.seat is not None)
        order = seats[seats.index(turn["seat"]) :] + seats[: seats.index(turn["seat"])]
        bringer, between, last = (game.by_seat(s) for s in order)
        expect(last.page.locator(".pre-actions")).to_have_count(0)  # not before the bring-in
        bringer.act(turn["turn_id"], "bring_in")
        turn = turn_of(game, hand_id, turn["turn_id"])
        assert turn["seat"] == between.seat
        set_pre(last, "call", turn["turn_id"])
        call = last.page.locator('.pre-actions button[data-pre="call"]')
        expect(call).to_have_text(re.compile(r"^Call \$"))
        between.act(turn["turn_id"], "complete")
        turn = turn_of(game, hand_id, turn["turn_id"])
        assert turn["seat"] == last.seat  # the turn came, and nothing was played for it
        assert last.page.evaluate("() => window.studDebug.preplayed") == []
        assert last.page.evaluate("() => window.studDebug.chosen()") is None
        last.act(turn["turn_id"], "fold")
        bringer.page.wait_for_function(  # the line after the completion has arrived
            """(first) => {
                const lines = [...document.querySelectorAll("ol.log li")].map((l) => l.innerText);
                const i = lines.findIndex((x) => x.startsWith(first));
                return i >= 0 && lines.length > i + 1;
            }""",
            arg=f"{between.name} completes",
        )
        texts = bringer.page.locator("ol.log li").all_inner_texts()
        done = next(i for i, x in enumerate(texts) if x.startswith(f"{between.name} completes"))
        assert texts[done + 1] == f"{last.name} folds", texts[done:]
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


# -- your turn, noticed ----------------------------------------------------------------------

VIBRATIONS = """window.__vibrations = [];
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };"""

TURN_SIGNS_JS = """() => ({
  title: document.title,
  icon: document.querySelector('link[rel="icon"]').getAttribute("href"),
  mine: window.studDebug.state.hand?.to_act === window.studDebug.state.seats.find(
    (s) => s.user_id === window.studDebug.state.userId)?.seat,
  tones: window.studDebug.notice.tones,
  vibrations: window.__vibrations.length,
})"""


def test_your_turn_changes_the_tab_title_and_icon_and_the_sound_switch_is_remembered(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    contexts = [browser.new_context(viewport=VIEW) for _ in range(2)]
    for ctx in contexts:
        # a desktop cannot vibrate: the calls the page makes are counted
        ctx.add_init_script(VIBRATIONS)
    try:
        players = seated(contexts, ("hed", "ivo"), (0, 3), server_url, shots_dir, name="Noticed")
        me = players[1]
        sound = me.page.locator('input[name="turn-sound"]')
        expect(sound).not_to_be_checked()  # off by default
        sound.check()
        me.page.reload()
        expect(me.page.locator('input[name="turn-sound"]')).to_be_checked()
        base = "Table · Stud"  # the table page's own title (a turn may have come already)
        game = Game(players)
        turn = game.next_hand(None)
        hand_id = turn["hand_id"]
        seen_mine = seen_theirs = False
        while not (seen_mine and seen_theirs):
            mine = turn["seat"] == me.seat
            me.page.wait_for_function(
                "([seat, id]) => { const h = window.studDebug.state.hand;"
                " return !!h && h.turn_id === id && h.to_act === seat; }",  # (no hand yet)
                arg=[turn["seat"], turn["turn_id"]],
            )
            signs = me.page.evaluate(TURN_SIGNS_JS)
            assert signs["mine"] == mine
            if mine:
                assert signs["title"] == f"Your turn · {base}", signs
                assert signs["icon"].startswith("data:image/svg+xml"), signs
                assert signs["tones"] >= 1 and signs["vibrations"] >= 1, signs
                seen_mine = True
            else:
                assert signs["title"] == base and signs["icon"] == "data:,", signs
                seen_theirs = seen_mine  # back to the page's own after one of mine
            game.by_seat(turn["seat"]).act(turn["turn_id"], calldown(turn["legal"]))
            nxt = game.turn(hand_id, turn["turn_id"])
            if nxt is None:
                turn = game.next_hand(hand_id)
                hand_id = turn["hand_id"]
            else:
                turn = nxt
        assert me.page.evaluate("() => localStorage.getItem('stud.turnSound')") == "on"
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


# -- the table's own hand count, and names after a reload -----------------------------------


def test_the_first_hand_is_hand_1_at_this_table_and_names_survive_reloads(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    """A new table's first hand reads "Hand 1 at this table" (its number is a block's, e.g.
    #21), after a reload too; mid-hand a reload names every seat, and after the hand a
    player who left is still named in its log."""
    contexts = [browser.new_context(viewport=VIEW) for _ in range(3)]
    try:
        # an earlier table holds a block of numbers, so this one's first is not #1
        other = Player(f"opa{secrets.token_hex(3)}", contexts[2].new_page(), shots_dir)
        register(other, server_url)
        create_table(other.page, name="Earlier")
        # the turns wait for the checks and the reload, however slow the machine (no timeout)
        players = seated(
            contexts[:2], ("jan", "kit"), (0, 3), server_url, shots_dir, name="New",
            action_timer_ms=300_000,
        )  # fmt: skip
        stay, leaver = players
        game = Game(players)
        turn = game.next_hand(None)
        hand_id = turn["hand_id"]
        page = stay.page
        expect(page.locator(".hand-number")).to_contain_text("Hand 1 at this table")
        number = page.evaluate("() => window.studDebug.state.hand.number")
        new_hand = page.locator("ol.log li.log-hand")
        expect(new_hand).to_have_text(re.compile(rf"^Hand 1 at this table \(#{number}\)"))
        page.reload()  # mid-hand
        expect(page.locator(".hand-number")).to_contain_text("Hand 1 at this table")
        expect(page.locator("ol.log li.log-hand")).to_have_text(
            re.compile(rf"^Hand 1 at this table \(#{number}\)")
        )
        for player in players:
            plate = page.locator(f'.seat-box[data-seat="{player.seat}"] .plate-name')
            expect(plate).to_contain_text(player.name)
        assert "Seat " not in " ".join(page.locator("ol.log li").all_inner_texts())
        # a leaver's turns are played by the clock at once (which may end a heads-up hand),
        # so the leave comes after the mid-hand reload, on the other player's turn
        turn, left = turn_of(game, hand_id, None), False
        for _ in range(60):
            if not (left and turn["seat"] == leaver.seat):
                if not left and turn["seat"] == stay.seat:
                    leaver.page.locator('button[data-cmd="leave"]').click()  # at the hand's end
                    page.wait_for_function(
                        "(s) => window.studDebug.state.seats.some((x) => x.seat === s && x.leaving)",  # noqa: E501
                        arg=leaver.seat,
                    )
                    left = True
                game.by_seat(turn["seat"]).act(turn["turn_id"], calldown(turn["legal"]))
            nxt = game.turn(hand_id, turn["turn_id"])
            if nxt is None:
                break
            turn = nxt
        else:
            raise AssertionError("the hand did not end in 60 turns")
        assert left, "the leaver never saw the other player's turn"
        page.wait_for_function(
            "(seat) => !window.studDebug.state.seats.some((s) => s.seat === seat)",
            arg=leaver.seat,
        )
        page.reload()  # between hands: the last hand's log, its leaver gone from the seats
        lines = page.locator("ol.log li")
        expect(lines.filter(has_text=leaver.name).first).to_be_visible()
        assert not [x for x in lines.all_inner_texts() if "Seat 4" in x], lines.all_inner_texts()
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


# -- the invite's login page names the host ---------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        ("en-US", "{host} invited you to {table}"),
        ("nl-NL", "{host} heeft je uitgenodigd aan {table}"),
        ("de-DE", "{host} hat dich an den Tisch {table} eingeladen"),
    ],
    ids=["en", "nl", "de"],
)
def test_an_invite_opened_logged_out_names_its_host_and_table(
    server_url: str, browser: Browser, shots_dir: Path, locale: str, words: str
) -> None:
    host_ctx = browser.new_context(viewport=VIEW)
    friend_ctx = browser.new_context(viewport=VIEW, locale=locale)
    host = Player(f"anna{secrets.token_hex(3)}", host_ctx.new_page(), shots_dir)
    try:
        register(host, server_url)
        created = create_table(host.page, name="Friday", private=True)
        page = friend_ctx.new_page()
        page.goto(f"{server_url}/invite/{created['invite']}")
        expect(page.locator("form.auth-form")).to_be_visible()
        note = page.locator(".invite-note")
        expect(note).to_contain_text(words.format(host=host.name, table="Friday"))
        page.goto(f"{server_url}/invite/{created['invite']}x")  # not an invite
        expect(page.locator(".invite-note.invite-invalid")).to_be_visible()
        expect(page.locator(".invite-note")).not_to_contain_text("Friday")
    finally:
        host_ctx.close()
        friend_ctx.close()
