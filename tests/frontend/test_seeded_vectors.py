"""Scheme seeded-v2 (docs/fairness.md) in the browser's own code: Chromium loads
frontend/js/seeded.js and recomputes every case of docs/fairness-vectors.json (written by the
Python reference) field by field; and the client's four-step check catches a tampered
reveal, naming the step that failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

VECTORS = Path(__file__).resolve().parents[2] / "docs" / "fairness-vectors.json"
FIELDS = ("sealed", "server_seed_hash", "key", "permutation", "deck", "reshuffle_seed")


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Any:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server_url}/login")  # the client's catalogue is loaded for the check's words
    page.wait_for_function(
        "() => document.documentElement.lang === 'en' && !!document.querySelector('form')"
    )
    yield page
    context.close()


def test_the_browser_reproduces_every_test_vector(page: Page) -> None:
    cases = json.loads(VECTORS.read_text("utf-8"))
    assert len(cases) >= 3
    assert sorted({len(c["seeds"]) for c in cases})[:2] == [0, 1]  # no seeds, one seed, more
    assert max(len(c["seeds"]) for c in cases) >= 3
    got = page.evaluate(
        """async (cases) => {
          const m = await import("/static/js/seeded.js");
          return Promise.all(cases.map((c) => m.computeCase(c)));
        }""",
        cases,
    )
    for n, (case, mine) in enumerate(zip(cases, got, strict=True)):
        for name in FIELDS:
            assert mine[name] == case[name], (n, name)


# A hand seen from seat 1 of two (seats 1 and 4), seat 4 folding on fourth street: third
# street is positions 0-5 in dealing order (seat 4's down cards hidden from seat 1), a burn
# at 6, fourth street at 7 and 8. The reveal opens the slots of the positions seat 1 saw.
HAND_JS = (Path(__file__).parent / "seeded_hand.js").read_text("utf-8")

CHECK_JS = """async (hand) => {
  const m = await import("/static/js/seeded.js");
  const r = await m.checkHand(hand);
  return { ...r, verdict: m.verdict(r) };
}"""


@pytest.fixture(scope="module")
def hand(page: Page) -> dict[str, Any]:
    made: dict[str, Any] = page.evaluate(HAND_JS)
    return made


def check(page: Page, hand: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(CHECK_JS, hand)
    return result


def steps(result: dict[str, Any]) -> set[int]:
    return {p["step"] for p in result["problems"]}


def test_an_honest_hand_passes_every_step(page: Page, hand: dict[str, Any]) -> None:
    result = check(page, hand)
    assert result["problems"] == [] and result["unchecked"] == []
    assert result["verdict"]["ok"]
    assert (result["shown"], result["hidden"], result["seeds"]) == (6, 46, 2)
    assert "2 player seeds" in result["verdict"]["text"]


def test_two_opened_cards_swapped_fail_the_sealed_deck(page: Page, hand: dict[str, Any]) -> None:
    slots = [dict(s) for s in hand["reveal"]["slots"]]
    a, b = [s for s in slots if "card" in s][:2]
    a["card"], b["card"] = b["card"], a["card"]
    result = check(page, {**hand, "reveal": {**hand["reveal"], "slots": slots}})
    assert 2 in steps(result)
    assert not result["verdict"]["ok"]
    assert "step 2 (the sealed deck) failed" in result["verdict"]["text"]


def test_a_card_dealt_that_is_not_its_positions_fails_step_four(
    page: Page, hand: dict[str, Any]
) -> None:
    events = [dict(e) for e in hand["events"]]
    ups = [e for e in events if e.get("face_up")]
    ups[0]["card"], ups[1]["card"] = ups[1]["card"], ups[0]["card"]
    result = check(page, {**hand, "events": events})
    assert steps(result) == {4}
    assert "step 4 (the cards dealt from their positions) failed" in result["verdict"]["text"]


def test_a_wrong_server_seed_fails_step_one(page: Page, hand: dict[str, Any]) -> None:
    reveal = {**hand["reveal"], "server_seed": "ab" * 32}
    result = check(page, {**hand, "reveal": reveal})
    assert 1 in steps(result)
    assert (
        "step 1 (the server seed and the sealed deck announced before the hand) failed"
        in result["verdict"]["text"]
    )


def test_a_deck_other_than_the_announced_one_fails_step_one(
    page: Page, hand: dict[str, Any]
) -> None:
    announce = {**hand["announce"], "sealed": "cd" * 32}
    result = check(page, {**hand, "announce": announce})
    assert steps(result) == {1}


def test_a_missing_own_seed_fails_step_three(page: Page, hand: dict[str, Any]) -> None:
    seeds = [s for s in hand["reveal"]["seeds"] if s["seat"] != 1]
    result = check(page, {**hand, "reveal": {**hand["reveal"], "seeds": seeds}})
    assert 3 in steps(result)
    texts = [p["text"] for p in result["problems"] if p["step"] == 3]
    assert "your seed, sent in time, was not used" in texts
    assert "step 3 (the players' seeds) failed" in result["verdict"]["text"]


def test_a_seed_other_than_the_one_committed_before_fails_step_three(
    page: Page, hand: dict[str, Any]
) -> None:
    previous = [{"seat": 1, "commit": "00" * 32}, hand["previousCommits"][1]]
    result = check(page, {**hand, "previousCommits": previous})
    assert steps(result) == {3}
    assert [p["text"] for p in result["problems"]] == [
        "seat 2's seed is not the one it committed to before the hand"
    ]


def test_an_observer_checks_without_a_seed_of_its_own(page: Page, hand: dict[str, Any]) -> None:
    seeds = [s for s in hand["reveal"]["seeds"] if s["seat"] != 1]
    committed = {
        **hand["committed"],
        "seeds": [s for s in hand["committed"]["seeds"] if s["seat"] != 1],
    }
    reveal = {**hand["reveal"], "seeds": seeds}
    # another key: the permutation differs, so the cards seen no longer follow from it
    result = check(page, {**hand, "reveal": reveal, "committed": committed, "mine": None})
    assert steps(result) == {4}
    result = check(page, {**hand, "mine": None})
    assert result["problems"] == []


def test_a_seed_with_no_commit_at_the_previous_deal_fails_step_three(
    page: Page, hand: dict[str, Any]
) -> None:
    # a seat whose chain began after the previous deal could have picked its seed after
    # seeing the others' (the house sees seeds as they arrive)
    previous = [c for c in hand["previousCommits"] if c["seat"] != 4]
    result = check(page, {**hand, "previousCommits": previous})
    assert [p["text"] for p in result["problems"]] == [
        "seat 5's seed is not the one it committed to before the hand"
    ]
