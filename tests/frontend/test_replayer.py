"""The hand replayer against the hand's record: three people play two hands in Chromium (one
to the showdown, one won by a fold), then each of them opens both hands in the replayer and
steps through them. At every step the seats, the cards drawn (faces and backs), the stacks,
the winnings and the pots are what the record's events say up to that step, worked out here
from the stored record itself (GET /api/hands/{number}, as that player may see it: R24), not
by the page's code."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.frontend.players import WAIT_MS, Game, Player, calldown, complete_and_fold
from tests.frontend.table_kit import api, create_table, open_table, register, sit

# the replayer's steps: the hand before anything happened, then each street (and the
# showdown) as it starts, then the hand's end
STEP_EVENTS = ("street_started", "showdown_started")
WAGERS_TO = ("brought_in", "completed", "bet", "raised")  # `amount`: the wager it comes to


def dollars(cents: int) -> str:
    """An amount as the page writes it in English: "$1,234", "$12.50"."""
    whole, rest = divmod(cents, 100)
    return f"${whole:,}" + (f".{rest:02d}" if rest else "")


@dataclass
class InHand:
    stack: int
    wager: int = 0  # this betting round's
    put_in: int = 0  # into the pot, this hand
    up: list[str] = field(default_factory=list)
    down: list[str | None] = field(default_factory=list)  # None: a card the record hides
    folded: bool = False
    mucked: bool = False
    won: int = 0


def hand_after(record: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The table as the record's first `len(events)` events leave it, as a viewer in
    `record["viewer_seat"]` may see it: each seat's name, stack, winnings and cards in stud
    order (the first two down cards, the up cards, the river; "??" a card face down), and
    the pots as the last finished betting round left them."""
    viewer = record["viewer_seat"]
    players: dict[int, InHand] = {}
    pots: list[int] = []
    rake = 0
    for e in events:
        kind = e["type"]
        p: InHand | None = players.get(e["seat"]) if "seat" in e else None
        if kind == "hand_started":
            players = {s: InHand(n) for s, n in zip(e["seats"], e["stacks"], strict=True)}
        elif kind == "ante_posted":
            assert p is not None
            p.stack -= e["amount"]
            p.put_in += e["amount"]
        elif kind in WAGERS_TO or kind in ("called", "uncalled_bet_returned"):
            assert p is not None
            more = {
                "called": e["amount"],
                "uncalled_bet_returned": -e["amount"],
            }.get(kind, e["amount"] - p.wager)
            p.stack -= more
            p.put_in += more
            p.wager += more
        elif kind == "card_dealt":
            assert p is not None
            (p.up if e["face_up"] else p.down).append(e["card"])
        elif kind == "folded":
            assert p is not None
            p.folded = True
        elif kind == "hand_mucked":
            assert p is not None
            p.mucked = True
        elif kind == "hand_shown":
            assert p is not None
            p.down = [c for c in e["cards"] if c not in p.up]
        elif kind == "rake_taken":
            rake += e["amount"]
        elif kind == "pot_awarded":
            assert p is not None
            p.stack += e["amount"]
            p.won += e["amount"]
        if kind in (*STEP_EVENTS, "hand_ended"):  # the round's wagers are in the pots now
            for q in players.values():
                q.wager = 0
            pots = [pot["amount"] for pot in e["pots"]]
            assert sum(pots) == sum(q.put_in for q in players.values()), e  # before the rake
        if kind == "hand_ended":
            assert sum(q.won for q in players.values()) + rake == sum(pots), e
            assert dict(zip(e["seats"], e["stacks"], strict=True)) == {
                s: q.stack for s, q in players.items()
            }
    seats = []
    for s in sorted(record["seats"], key=lambda x: x["seat"]):
        seen = players.get(s["seat"])
        cards: list[str] = []
        if seen is not None and (s["seat"] == viewer or not (seen.folded or seen.mucked)):
            order = seen.down[:2] + list(seen.up) + seen.down[2:]
            cards = [c if c is not None else "??" for c in order]
        seats.append(
            {
                "seat": s["seat"],
                "name": s["name"],
                "stack": dollars(seen.stack if seen is not None else s["stack"]),
                "won": f"+{dollars(seen.won)}" if seen is not None and seen.won else None,
                "cards": cards,
            }
        )
    return {"seats": seats, "pots": [dollars(n) for n in pots]}


FELT_JS = """() => {
  const felt = document.querySelector(".replayer .felt");
  const seats = [...felt.querySelectorAll(".seat-box")].map((box) => ({
    seat: Number(box.dataset.seat),
    name: box.dataset.name,
    stack: box.querySelector(".plate-stack").firstChild.textContent,
    won: box.querySelector(".plate .won")?.textContent ?? null,
    cards: [...box.querySelectorAll(".hole .card")].map((c) =>
      c.classList.contains("back") ? "??" : c.dataset.card),
  })).sort((a, b) => a.seat - b.seat);
  const pots = [...felt.querySelectorAll(".pots .pot-amount")].map((p) => p.textContent);
  return {seats, pots};
}"""


def step_through(page: Page, record: dict[str, Any]) -> int:
    """Step the open replayer from its start to its end, comparing each step with the
    record; the number of steps."""
    events = record["events"]
    marks = [0, *[i + 1 for i, e in enumerate(events) if e["type"] in STEP_EVENTS], len(events)]
    replayer = page.locator(".replayer")
    position = replayer.locator(".replay-pos")
    last = len(marks) - 1
    expect(position).to_have_text(f"Step {last} of {last}")  # it opens at the hand's end
    replayer.locator('button[data-replay="start"]').click()
    for step, mark in enumerate(marks):
        if step:
            replayer.locator('button[data-replay="next"]').click()
        expect(position).to_have_text(f"Step {step} of {last}")
        want = hand_after(record, events[:mark])
        got = page.evaluate(FELT_JS)
        assert got == want, (step, events[:mark])
    return last


ACT_EVENTS = {
    "ante_posted", "brought_in", "completed", "bet", "raised", "called", "checked", "folded",
    "hand_shown", "hand_mucked", "show_declined", "pot_awarded",
}  # fmt: skip


def step_by_action(page: Page, record: dict[str, Any]) -> int:
    """Step the open replayer action by action (issue 24: it stepped by street only),
    comparing each step with the record; the number of actions."""
    events = record["events"]
    acts = [i + 1 for i, e in enumerate(events) if e["type"] in ACT_EVENTS]
    replayer = page.locator(".replayer")
    position = replayer.locator(".replay-act")
    replayer.locator('button[data-replay="start"]').click()
    expect(position).to_have_text(f"Action 0 of {len(acts)}")
    for n, mark in enumerate(acts, start=1):
        replayer.locator('button[data-replay="next_action"]').click()
        expect(position).to_have_text(f"Action {n} of {len(acts)}")
        got = page.evaluate(FELT_JS)
        assert got == hand_after(record, events[:mark]), (n, events[:mark])
    replayer.locator('button[data-replay="back_action"]').click()
    expect(position).to_have_text(f"Action {len(acts) - 1} of {len(acts)}")
    return len(acts)


def test_r24_replayer_shows_each_step_as_the_hands_record_says(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    tag = secrets.token_hex(3)
    contexts = [browser.new_context(viewport={"width": 1366, "height": 860}) for _ in range(3)]
    players = [
        Player(f"{name}{tag}", ctx.new_page(), shots_dir)
        for name, ctx in zip(("rita", "sam", "tess"), contexts, strict=True)
    ]
    try:
        for player in players:
            register(player, server_url)
        created = create_table(
            players[0].page,
            name="Replayed",
            hand_pause_ms=1000,
            rake_bps=500,
            rake_cap=100,
            max_seats=6,
        )
        table_id = created["table"]["id"]
        for player in players:
            open_table(player, server_url, table_id)
        # the first hand waits for the third player: the host pauses until all are seated
        host_pause(players[0], table_id, True)
        for seat, player in zip((0, 3, 5), players, strict=True):
            sit(player, seat)
        host_pause(players[0], table_id, False)
        game = Game(players)
        first = game.play(calldown, None)
        game.play(complete_and_fold, first)
        host_pause(players[0], table_id, True)

        listed = stored_hands(players[0].page, table_id, 2)
        numbers = sorted((h["number"] for h in listed["hands"]), key=int)[:2]  # the first two
        assert len(numbers) == 2, listed
        backs = 0
        for viewer in players:  # each sees their own down cards, and the others' backs
            page = viewer.page
            kinds = []
            for number in numbers:
                record = api(page, "GET", f"/api/hands/{number}")
                assert record["viewer_seat"] == viewer.seat
                assert {s["seat"] for s in record["seats"]} == {0, 3, 5}
                events = record["events"]
                shown = {e["seat"] for e in events if e["type"] == "hand_shown"}
                hidden = [
                    e["card"]
                    for e in events
                    if e["type"] == "card_dealt"
                    and not e["face_up"]
                    and e["seat"] not in shown | {viewer.seat}
                ]
                assert hidden == [None] * len(hidden)  # R24: no card the table never saw
                kinds.append((bool(shown), bool(hidden)))
                page.goto(f"{server_url}/hands/{number}")
                expect(page.locator(".replayer h2")).to_contain_text(f"Hand #{number}")
                steps = step_through(page, record)
                assert step_by_action(page, record) > steps
                # issue 24: the table as it was (6 seats, not 8), and the hand's number said
                expect(page.locator(".replay-felt .seat")).to_have_count(6)
                expect(page.locator(".replay-log li").first).to_contain_text(f"#{number} ·")
                assert steps >= 2  # before the deal, third street, the end: at the least
                end = hand_after(record, events)["seats"]
                backs += sum(seat["cards"].count("??") for seat in end)
                page.screenshot(path=str(shots_dir / f"replayer-{number}-{viewer.seat}.png"))
            # one hand went to the showdown (every hand shown), the other was won by a fold
            assert kinds == [(True, False), (False, True)], (viewer.name, kinds)
        # the fold's winner kept their two down cards: the two who folded saw their backs
        assert backs == 2 * 2
        assert not any(p.errors for p in players), [p.errors for p in players]
    finally:
        for ctx in contexts:
            ctx.close()


def stored_hands(page: Page, table_id: int, count: int) -> dict[str, Any]:
    """The table's hands in the history once `count` are there: the hand writer stores a
    hand a moment after it ends (a predicate of `wait_for_function` cannot await a fetch)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        listed: dict[str, Any] = api(page, "GET", f"/api/hands?table_id={table_id}&limit=100")
        if listed["total"] >= count:
            return listed
        assert time.monotonic() < deadline, listed
        page.wait_for_timeout(100)


def host_pause(host: Player, table_id: int, paused: bool) -> None:
    command = {"type": "host_pause", "paused": paused}
    api(host.page, "POST", f"/api/tables/{table_id}/host", command)
    host.page.wait_for_function(
        "(p) => window.studDebug.state.table.paused === p", arg=paused, timeout=WAIT_MS
    )
