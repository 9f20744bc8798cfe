"""Two people in two browsers: register, a private table through its invite link, buy-ins, and
hands of Stud Hi, Stud Hi/Lo and Razz played to the showdown and to a fold by pressing what
the page offers; a reload and a dropped connection in the middle of hands; a hand replayed and
emailed to the test's own SMTP server once the address is verified by its emailed link."""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from tests.frontend.conftest import Mailbox
from tests.frontend.players import (
    HIGH_NAME,
    LOW_NAME,
    WAIT_MS,
    Game,
    Player,
    Policy,
    calldown,
    complete_and_fold,
)

TABLE_PASSWORD = "green-felt"


def dollars(cents: int) -> str:
    """An amount as the page writes it in English: "$1,234", "$12.50"."""
    whole, rest = divmod(cents, 100)
    return f"${whole:,}" + (f".{rest:02d}" if rest else "")


def settled_balance(player: Player, base_url: str) -> int:
    """The player's balance once it is $1,000 and the net of every hand they played (the
    hand writer stores the hands, then the stack the closed table gave back, a moment after
    the table says it closed)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        listed = player.page.request.get(f"{base_url}/api/hands?limit=100").json()
        assert listed["total"] == len(listed["hands"]) > 0, listed
        expected: int = 100_000 + sum(h["net"] for h in listed["hands"])
        balance = player.page.request.get(f"{base_url}/api/me").json()["balance"]
        if balance == expected:
            return expected
        assert time.monotonic() < deadline, (balance, expected)
        player.page.wait_for_timeout(100)


def create_private_table(host: Player) -> str:
    page = host.page
    page.get_by_role("button", name="Create a table").click()
    dlg = page.locator("#create-dialog")
    dlg.get_by_label("Table name").fill("Friday Stud")
    dlg.get_by_label("Game").select_option("stud")
    dlg.get_by_label("Pause between hands (seconds)").fill("1.5")
    # the clock is not what this test plays: a reload or a dropped socket on a slow machine
    # must not outlast a turn and fold a player out of the hand the test is playing
    dlg.get_by_label("Action timer (seconds)").fill("60")
    dlg.get_by_label("Private table (invite link only)").check()
    dlg.get_by_label("Password (optional, private tables)").fill(TABLE_PASSWORD)
    host.shot("create-table")
    dlg.get_by_role("button", name="Create", exact=True).click()
    invite = page.locator("#invite-dialog input.invite-link")
    expect(invite).to_have_value(re.compile(r"/invite/[A-Za-z0-9_-]{16,}$"))
    link = invite.input_value()
    page.locator("#invite-dialog").get_by_role("button", name="Done").click()
    expect(page.locator(".table-title")).to_have_text("Friday Stud")
    return link


def join_by_invite(player: Player, link: str) -> None:
    page = player.page
    page.goto(link)
    dlg = page.locator("#password-dialog")
    dlg.get_by_label("Table password").fill("not it")
    dlg.get_by_role("button", name="Join").click()
    expect(dlg.locator(".form-error")).to_contain_text("Wrong table password")
    dlg.get_by_label("Table password").fill(TABLE_PASSWORD)
    dlg.get_by_role("button", name="Join").click()
    expect(page.locator(".table-title")).to_have_text("Friday Stud")
    expect(page).to_have_url(re.compile(r"/table/\d+$"))


def change_variant(host: Player, variant: str) -> None:
    page = host.page
    page.locator('button[data-cmd="host"]').click()
    dlg = page.locator("#host-dialog")
    dlg.get_by_label("Game").select_option(variant)
    dlg.get_by_role("button", name="Save settings").click()
    expect(dlg).to_be_hidden()


def play_variant(game: Game, variant: str, policy: Policy, previous: str | None, **kw: Any) -> str:
    """Play `policy` in the first hand of `variant` (hands dealt before the host's change
    took effect are folded quickly)."""
    while True:
        turn = game.next_hand(previous)
        if turn["variant"] == variant:
            return game.play(policy, previous, **kw)
        previous = game.play(complete_and_fold, previous)


def pause_and_close(game: Game, host: Player, last_hand: str) -> None:
    page = host.page
    page.locator('button[data-cmd="host"]').click()
    dlg = page.locator("#host-dialog")
    dlg.locator('button[data-host="pause"]').click()
    dlg.get_by_role("button", name="Done", exact=True).click()
    expect(dlg).to_be_hidden()
    # once the pause is seen, any hand dealt before it is known too: play it out
    page.wait_for_function("() => window.studDebug.state.table.paused === true")
    if host.state("!!(s.hand && !s.hand.over)"):
        game.play(complete_and_fold, last_hand)
    page.locator('button[data-cmd="host"]').click()
    dlg.locator('button[data-host="close"]').click()
    page.locator("#close-dialog").get_by_role("button", name="Close table").click()
    dlg.get_by_role("button", name="Done", exact=True).click()
    expect(dlg).to_be_hidden()


def replay_and_email(player: Player, mailbox: Mailbox) -> None:
    page = player.page.context.new_page()  # the table stays open in the first tab
    page.set_default_timeout(WAIT_MS)
    page.goto(player.page.url.split("/table/")[0] + "/hands")
    first = page.locator("table.hands tbody tr").first
    expect(first).to_be_visible()
    number = first.locator("th").inner_text().removeprefix("#")
    assert re.fullmatch(r"\d+", number), number  # the hand's one number
    first.get_by_role("link", name=re.compile("Replay")).click()
    replayer = page.locator(".replayer")
    expect(replayer.locator("h2")).to_contain_text(f"Hand #{number}")
    hand_url = page.url
    assert hand_url.rsplit("/", 1)[1] == number  # the replayer's address names it too
    expect(replayer.locator(".replay-pos")).to_contain_text("Step")
    replayer.locator('button[data-replay="start"]').click()
    expect(replayer.locator(".replay-pos")).to_contain_text("Step 0")
    replayer.locator('button[data-replay="next"]').click()
    expect(replayer.locator(".replay-pos")).to_contain_text("Step 1")
    expect(replayer.locator(".seat-box").first).to_be_visible()
    expect(replayer.locator(".pots")).to_contain_text("Pot")  # the server's pots: the antes
    replayer.locator('button[data-replay="end"]').click()
    expect(replayer.locator(".replay-log")).to_contain_text("wins")
    expect(replayer.locator(".fairness")).to_contain_text(re.compile(r"verified|R24|hidden"))
    page.screenshot(path=str(player.shots / "replayer.png"))
    replayer.get_by_role("button", name="Email me this hand").click()
    # the address is not verified yet: the refusal says so
    expect(page.locator(".toast-error")).to_contain_text(re.compile("verif", re.IGNORECASE))

    # verify the address by the link in the email that arrives at the SMTP server
    page.locator("#send-verification").click()
    verification = mailbox.wait_for("confirm your email address")
    assert f"{player.name}@example.com" in str(verification["To"])
    body = verification.get_body(preferencelist=("plain",))
    assert body is not None
    link = re.search(r"http://\S+/api/mail/verify\?token=\S+", body.get_content())
    assert link, body.get_content()
    page.goto(link.group(0))
    expect(page.locator("body")).to_contain_text("is verified")
    page.goto(hand_url)
    expect(page.locator(".verify")).to_contain_text("is verified")

    # now "Email me this hand" sends it: the page follows the request until it is sent
    page.locator(".replayer").get_by_role("button", name="Email me this hand").click()
    status = page.locator(".replayer .email-status")
    expect(status).to_have_attribute("data-status", "sent", timeout=30_000)
    sent = mailbox.wait_for(f"hand #{number}")
    assert f"{player.name}@example.com" in str(sent["To"])
    text = sent.get_body(preferencelist=("plain",))
    assert text is not None and f"PokerStars Hand #{number}:" in text.get_content()
    files = [(a.get_filename(), a.get_content()) for a in sent.iter_attachments()]
    assert [name for name, _ in files] == [f"hand-{number}.phh"]
    assert files[0][1].startswith('variant = "')
    request = page.locator(f'table.requests tr[data-status="sent"]:has-text("#{number}")')
    expect(request).to_contain_text("Sent")
    page.screenshot(path=str(player.shots / "emailed.png"))
    page.close()


def test_two_browsers_play_stud_stud8_and_razz(
    server_url: str, browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    tag = secrets.token_hex(3)
    desk = browser.new_context(viewport={"width": 1366, "height": 860})
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    watch = browser.new_context(viewport={"width": 1024, "height": 760})
    ann = Player(f"ann{tag}", desk.new_page(), shots_dir)
    bob = Player(f"bob{tag}", phone.new_page(), shots_dir)
    try:
        ann.register(server_url)
        bob.register(server_url)
        ann.shot("lobby")

        link = create_private_table(ann)
        join_by_invite(bob, link)
        # the watcher arrives before the first hand: the hand deals once bob sits, and its
        # 10 s clock does not wait for a slow machine's sign-up
        carl = Player(f"carl{tag}", watch.new_page(), shots_dir)
        carl.register(server_url)
        join_by_invite(carl, link)
        ann.sit(0, screenshot="buy-in")
        bob.sit(4)
        game = Game([ann, bob])
        expect(carl.page.locator(".action-bar")).to_contain_text("You are watching")
        expect(ann.page.locator(".chip-tag.observers")).to_have_text("1 watching")
        # the host gets the invite link again from the server (no browser storage)
        ann.page.locator('button[data-cmd="invite"]').click()
        expect(ann.page.locator("#invite-dialog input.invite-link")).to_have_value(link)
        ann.page.locator("#invite-dialog").get_by_role("button", name="Done").click()
        expect(bob.page.locator('button[data-cmd="invite"]')).to_have_count(0)

        # -- Stud Hi to the showdown: the hands are named, the pot is awarded ------------------
        mid_hand_shot: dict[str, bool] = {}

        def shoot_late_streets(turn: dict[str, Any]) -> None:
            # a betting turn from fifth street on (at a showdown's turn cards are being shown);
            # each seat then holds two down cards (three on seventh) and up to four up
            street = turn["street"]
            if street >= 5 and turn["phase"] == "betting" and not mid_hand_shot:
                mid_hand_shot["done"] = True
                down, up = (3 if street == 7 else 2), min(street - 2, 4)
                timer = ann.page.locator(".action-bar .countdown, .seat-box.acting .timer")
                expect(timer.first).to_be_visible()
                expect(ann.page.locator(".seat-box.mine .card.own-down")).to_have_count(down)
                expect(ann.page.locator(".seat-box:not(.mine) .card.back")).to_have_count(down)
                expect(ann.page.locator(".hand-number")).to_have_text(
                    re.compile(r"^Hand \d+ at this table · #\d+$")
                )
                ann.shot("table-stud")
                # the observer sees every up card and only the backs of the down cards
                expect(carl.page.locator(".seat-box .card.back")).to_have_count(2 * down)
                expect(carl.page.locator(".card.own-down")).to_have_count(0)
                expect(carl.page.locator(".seat-box .card.face")).to_have_count(2 * up)

        hand = game.play(calldown, None, on_turn=shoot_late_streets)
        expect(ann.page.locator("ol.log")).to_contain_text("wins")
        expect(ann.page.locator("ol.log")).to_contain_text("Showdown")
        ann.shot("showdown-stud")
        expect(ann.page.locator("ol.log")).to_contain_text(HIGH_NAME)
        expect(bob.page.locator("ol.log")).to_contain_text(HIGH_NAME)

        # -- Stud Hi to a fold: the bring-in is completed and the other player folds ----------
        hand = game.play(complete_and_fold, hand)
        expect(ann.page.locator("ol.log")).to_contain_text("folds")
        expect(bob.page.locator("ol.log")).to_contain_text("completes to $1")

        # -- Stud Hi/Lo: the phone player reloads in the middle of the hand and carries on ----
        change_variant(ann, "stud8")
        reloaded: dict[str, bool] = {}

        def reload_bob(turn: dict[str, Any]) -> str | None:
            if reloaded or turn["street"] < 4 or turn["seat"] != bob.seat:
                return None
            reloaded["done"] = True
            up_before = bob.state(f"s.hand.players[{bob.seat}].up")
            bob.page.reload()
            mine = bob.page.locator(".seat-box.mine")
            expect(mine.locator(".card.own-down")).to_have_count(2)
            expect(mine.locator(".card.face:not(.own-down)")).to_have_count(len(up_before))
            bar = bob.page.locator(f'.action-bar[data-turn="{turn["turn_id"]}"]')
            expect(bar.locator("button.act").first).to_be_enabled()
            bob.shot("phone-after-reload")
            return "replay"

        hand = play_variant(game, "stud8", calldown, hand, on_turn=reload_bob)
        assert reloaded, "the reload happened during the Stud Hi/Lo hand"
        expect(ann.page.locator("ol.log")).to_contain_text(HIGH_NAME)
        hand = play_variant(game, "stud8", complete_and_fold, hand)

        # -- Razz with the keyboard; the desktop player's connection drops and catches up -----
        change_variant(ann, "razz")
        dropped: dict[str, bool] = {}

        def drop_ann(turn: dict[str, Any]) -> str | None:
            if dropped or turn["street"] < 4 or turn["seat"] != bob.seat:
                return None
            dropped["done"] = True
            ann.page.evaluate(
                "() => { window.__dropped = window.studDebug.socket.ws; window.studDebug.drop(); }"
            )
            ann.page.wait_for_function(
                "() => { const w = window.studDebug.socket.ws;"
                " return w && w !== window.__dropped && w.readyState === 1; }"
            )
            expect(ann.page.locator(".conn.conn-open")).to_be_visible()
            return "replay"

        hand = play_variant(game, "razz", calldown, hand, on_turn=drop_ann, keys=True)
        assert dropped
        # the page's state says the hand is over a frame before its log shows it: wait
        expect(ann.page.locator("ol.log")).to_contain_text(LOW_NAME)
        ann.shot("showdown-razz")
        hand = play_variant(game, "razz", complete_and_fold, hand, keys=True)

        # -- chat, observers' view of the log, and no script errors anywhere ------------------
        bob.page.get_by_role("tab", name="Chat").click()
        bob.page.get_by_role("textbox", name="Chat message").fill("nice hand")
        bob.page.get_by_role("textbox", name="Chat message").press("Enter")
        ann.page.get_by_role("tab", name="Chat").click()
        expect(ann.page.locator("ol.chat")).to_contain_text("nice hand")
        bob.shot("phone-table")

        # -- the hand history: the replayer steps through a hand; "Email me this hand" -------
        replay_and_email(bob, mailbox)

        # -- the host pauses, then closes the table: the stacks go back to the balances --------
        pause_and_close(game, ann, hand)
        for player in (ann, bob, carl):
            expect(player.page.locator(".action-bar")).to_contain_text("This table is closed")
        ann.page.get_by_role("button", name="Lobby", exact=True).click()
        # her $40 stack came back: $1,000 and what she won or lost in each hand she played
        expected = settled_balance(ann, server_url)
        expect(ann.page.locator(".balance")).to_have_text(dollars(expected), timeout=WAIT_MS)
        assert not ann.errors and not bob.errors and not carl.errors, ann.errors + bob.errors
    finally:
        desk.close()
        phone.close()
        watch.close()
