"""A player in a browser tab, driven only through what the page offers (links, buttons, keys).

The page's own state (`window.studDebug.state`, what the client drew from) tells the test
whose turn it is; every wait is one of Playwright's auto-waiting expectations or
`wait_for_function`, never a sleep.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

Legal = dict[str, Any]
Policy = Callable[[Legal], str]
PASSWORD = "felt and chips 42"
WAIT_MS = 15_000


@dataclass
class Player:
    name: str
    page: Page
    shots: Path
    seat: int | None = None
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.set_default_timeout(WAIT_MS)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    # -- accounts and lobby ------------------------------------------------------------------

    def register(self, base_url: str) -> None:
        page = self.page
        page.goto(base_url + "/")
        expect(page.get_by_role("heading", name="Log in")).to_be_visible()
        page.get_by_role("link", name="Create an account").click()
        expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
        page.get_by_label("Name").fill(self.name)
        page.get_by_label("Email").fill(f"{self.name}@example.com")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Create account").click()
        expect(page.get_by_role("heading", name="Lobby")).to_be_visible()
        expect(page.locator(".balance")).to_have_text("$1,000")

    # -- the table ---------------------------------------------------------------------------

    def state(self, expression: str) -> Any:
        script = f"() => {{ const s = window.studDebug.state; return {expression}; }}"
        return self.page.evaluate(script)

    def sit(self, seat: int, *, screenshot: str | None = None) -> None:
        page = self.page
        page.locator(f'.seat[data-seat="{seat}"] button.sit-here').click()
        dialog = page.locator("#buy-in-dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator(".min-buy-in")).to_contain_text("$10")
        expect(dialog.locator(".balance")).to_have_text("$1,000")
        if screenshot:
            self.shot(screenshot)
        dialog.get_by_label("Buy-in ($)").fill("40")
        dialog.get_by_role("button", name="Take the seat").click()
        expect(dialog).to_be_hidden()
        mine = page.locator(".seat-box.mine")
        expect(mine).to_be_visible()
        expect(mine).to_have_attribute("data-seat", str(seat))
        self.seat = seat

    def act(
        self, turn_id: int, action: str, *, key: str | None = None, timeout_ms: int = WAIT_MS
    ) -> None:
        """Press the offered button for `action` in turn `turn_id` (or its keyboard key)."""
        bar = self.page.locator(f'.action-bar[data-turn="{turn_id}"]')
        button = bar.locator(f'button.act[data-action="{action}"]').first
        expect(button).to_be_enabled(timeout=timeout_ms)
        if key:
            expect(button).to_have_attribute("aria-keyshortcuts", key.upper())
            self.page.locator("body").press(key)
        else:
            button.click(timeout=timeout_ms)


def calldown(legal: Legal) -> str:
    """Go to the showdown: bring in, check, call; show when asked."""
    if legal["bring_in"] is not None:
        return "bring_in"
    if legal["show"]:
        return "show"
    if legal["check"]:
        return "check"
    return "call"


def complete_and_fold(legal: Legal) -> str:
    """The bring-in is completed and the other player folds; the winner does not show."""
    if legal["muck"] and legal["show"] and not legal["fold"]:
        return "muck"
    if legal["complete"] is not None:
        return "complete"
    if legal["fold"]:
        return "fold"
    return calldown(legal)


TURN_JS = """([hid, last]) => {
  const s = window.studDebug && window.studDebug.state;
  const h = s && s.hand;
  if (!h) return null;
  if (hid !== null && h.hand_id !== hid) return {over: true};
  if (h.over) return {over: true, hand_id: h.hand_id};
  if (h.to_act !== null && h.turn_id !== last && h.legal && h.legal.seat === h.to_act)
    return {hand_id: h.hand_id, seat: h.to_act, turn_id: h.turn_id, phase: h.phase,
            street: h.street, legal: h.legal, variant: h.variant};
  return null;
}"""


@dataclass
class Game:
    """Two (or more) players at one table; `watcher` is the page whose view drives the test."""

    players: list[Player]

    @property
    def watcher(self) -> Player:
        return self.players[0]

    def by_seat(self, seat: int) -> Player:
        return next(p for p in self.players if p.seat == seat)

    def next_hand(self, previous: str | None) -> dict[str, Any]:
        """Wait for a hand other than `previous` to be dealt; returns its first turn."""
        page = self.watcher.page
        page.wait_for_function(
            """(prev) => { const h = window.studDebug?.state?.hand;
                return h && h.hand_id !== prev && !h.over && h.to_act !== null; }""",
            arg=previous,
            timeout=WAIT_MS,
        )
        turn = self.turn(None, None)
        assert turn is not None
        return turn

    def turn(self, hand_id: str | None, last: int | None) -> dict[str, Any] | None:
        handle = self.watcher.page.wait_for_function(TURN_JS, arg=[hand_id, last], timeout=WAIT_MS)
        value: dict[str, Any] = handle.json_value()
        return None if value.get("over") else value

    def play(
        self,
        policy: Policy,
        previous: str | None,
        *,
        on_turn: Callable[[dict[str, Any]], str | None] | None = None,
        keys: bool = False,
    ) -> str:
        """Play one hand by `policy`; returns its id. `on_turn` may interrupt before a turn
        (reload, drop the connection…) and return "replay" to look at the turn again."""
        turn = self.next_hand(previous)
        hand_id: str = turn["hand_id"]
        for _ in range(60):
            if on_turn is not None and on_turn(turn) == "replay":
                again = self.turn(hand_id, None)
                if again is None:
                    return hand_id
                turn = again
            action = policy(turn["legal"])
            key = KEYS.get(action) if keys else None
            self.by_seat(turn["seat"]).act(turn["turn_id"], action, key=key)
            nxt = self.turn(hand_id, turn["turn_id"])
            if nxt is None:
                return hand_id
            turn = nxt
        raise AssertionError("the hand did not end in 60 turns")


KEYS = {
    "fold": "f",
    "check": "k",
    "call": "c",
    "bring_in": "i",
    "complete": "o",
    "bet": "b",
    "raise": "r",
    "show": "s",
    "muck": "m",
}

HIGH_NAME = re.compile(
    r"(High card|One pair|Two pair|Three of a kind|Straight|Flush|Full house|Four of a kind"
    r"|Straight flush|Royal flush)",
    re.IGNORECASE,  # the log lower-cases the names in its sentences ("shows … (one pair, …)")
)
LOW_NAME = re.compile(r"\blow\b")  # "8-6-4-2-A low", "Pair of sevens, K-8-2 (low)"
