"""Scheme seeded-v2 (docs/fairness.md, rules.md R39): the test vectors reproduce, the check
passes for an honest deal for every audience, and names the step a dishonest one fails."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine import Hand, SeatSpec, commitment, seeded
from app.engine.cards import DECK, Card
from tests.engine import fairness_vectors
from tests.engine.test_commitment import RULES, events, masked, passive

SEATS = 4


def _independent_perm(server_seed: bytes, sealed: str, seeds: list[tuple[int, bytes]]) -> list[int]:
    """The spec's bytes, written out again without `seeded`'s helpers."""
    message = b"seeded-v2" + bytes.fromhex(sealed)
    for seat, seed in sorted(seeds):
        message += bytes([seat]) + seed
    key = hmac.new(server_seed, message, hashlib.sha256).digest()
    words: list[int] = []
    for k in range(64):
        block = hmac.new(key, b"draw" + k.to_bytes(4, "big"), hashlib.sha256).digest()
        words += [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]
    it = iter(words)
    perm = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        while (w := next(it)) >= limit:
            pass
        j = w % n
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def test_r39_the_vectors_file_is_what_the_reference_computes() -> None:
    stored = json.loads(fairness_vectors.PATH.read_text())
    assert stored == json.loads(fairness_vectors.text())
    assert [len(case["seeds"]) for case in stored] == [0, 1, 3]


@pytest.mark.parametrize("case", json.loads(fairness_vectors.PATH.read_text()))
def test_r39_each_vector_reproduces_from_its_inputs(case: dict[str, Any]) -> None:
    server_seed = bytes.fromhex(case["server_seed"])
    master = bytes.fromhex(case["master_salt"])
    seeds = [(s["seat"], bytes.fromhex(s["seed"])) for s in case["seeds"]]
    slots = commitment.parse_deck(case["slot_cards"])
    leaves = [
        hashlib.sha256(
            hashlib.sha256(master + b"card" + bytes([j])).digest() + str(card).encode()
        ).digest()
        for j, card in enumerate(slots)
    ]
    assert hashlib.sha256(b"".join(leaves)).hexdigest() == case["sealed"]
    assert hashlib.sha256(server_seed).hexdigest() == case["server_seed_hash"]
    perm = _independent_perm(server_seed, case["sealed"], seeds)
    assert perm == case["permutation"]
    assert "".join(str(slots[j]) for j in perm) == case["deck"]
    key = seeded.deal_key(server_seed, case["sealed"], seeds)
    assert key.hex() == case["key"]
    assert hashlib.sha256(key + b"reshuffle").hexdigest() == case["reshuffle_seed"]
    assert seeded.vector(server_seed, master, slots, seeds) == {
        k: v for k, v in case.items() if k != "name"
    }


def test_r39_uniform_rejects_the_biased_tail() -> None:
    stream = seeded.Stream(b"k" * 32)
    stream.words = [2**32 - 1, 7]  # popped from the end: 7 first
    assert stream.uniform(3) == 7 % 3
    stream.words = [5, 2**32 - 1]  # 2**32 - 1 >= limit for n = 3: rejected
    assert stream.uniform(3) == 5 % 3


class Deal:
    """A hand dealt the seeded-v2 way, as the table does it."""

    def __init__(
        self, seed: int, seeds: list[tuple[int, bytes]], fold: int | None = 1, seats: int = SEATS
    ) -> None:
        self.seats = seats
        rng = random.Random(seed)
        self.slots = list(DECK)
        rng.shuffle(self.slots)
        self.master = rng.randbytes(32)
        self.server_seed = rng.randbytes(32)
        self.seeds = seeds
        self.sealing = seeded.Sealing(self.slots, self.master)
        self.announce = {
            "sealed": self.sealing.sealed,
            "server_seed_hash": seeded.seed_hash(self.server_seed),
        }
        self.key = seeded.deal_key(self.server_seed, self.sealing.sealed, seeds)
        self.perm = seeded.permutation(self.key)
        self.deck: list[Card] = seeded.dealt_deck(self.slots, self.perm)
        self.hand = Hand.start(
            RULES, [SeatSpec(s, 1000) for s in range(seats)], seats - 1, self.deck,
            seeded.reshuffle_seed(self.key),
        )  # fmt: skip
        choose = passive(lambda h, s: s == fold)
        while not self.hand.is_over:
            assert self.hand.to_act is not None
            self.hand.act(self.hand.to_act, choose(self.hand))
        self.events = events(self.hand)
        self.committed = {
            "commitment": self.sealing.sealed,
            "server_seed_hash": self.announce["server_seed_hash"],
            "seeds": [{"seat": s, "seed_hash": seeded.seed_hash(v)} for s, v in sorted(seeds)],
        }

    def seen_by(self, seat: int | None) -> list[dict[str, Any]]:
        """The events as seat `seat` (None: an observer) saw them."""
        shown = commitment.shown_seats(self.events)
        return masked(self.events, set(range(self.seats)) - shown - {seat})

    def own(self, seat: int, server_seed: bytes | None = None) -> dict[str, Any]:
        """The reveal seat `seat` receives."""
        return self.reveal(commitment.shown_seats(self.events) | {seat}, server_seed)

    def reveal(self, seats: set[int], server_seed: bytes | None = None) -> dict[str, Any]:
        seen = commitment.seen_positions(self.deck, self.events, seats)
        return self.sealing.reveal(server_seed or self.server_seed, self.seeds, self.perm, seen)


def seed_of(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def test_r39_an_honest_deal_checks_for_every_audience() -> None:
    deal = Deal(1, [(0, seed_of("a")), (2, seed_of("b"))])
    shown = commitment.shown_seats(deal.events)
    public = deal.reveal(shown)
    assert seeded.check_deal_v2(
        masked(deal.events, set(range(SEATS)) - shown), deal.announce, public,
        committed=deal.committed,
    ) == []  # fmt: skip
    heads = [{"seat": s, "commit": seeded.seed_hash(v)} for s, v in deal.seeds]
    for seat in range(SEATS):
        own = deal.reveal(shown | {seat})
        hidden = set(range(SEATS)) - shown - {seat}
        mine = next(((s, v.hex()) for s, v in deal.seeds if s == seat), None)
        assert (
            seeded.check_deal_v2(
                masked(deal.events, hidden), deal.announce, own, own_seed=mine,
                previous_commits=heads,
                committed=deal.committed,
            )
            == []
        ), seat  # fmt: skip


def test_r39_a_server_that_chooses_its_seed_after_the_announce_is_caught_at_step_1() -> None:
    deal = Deal(2, [(0, seed_of("honest"))])
    # the patched server announced one seed, then deals with another it picked afterwards
    chosen = seed_of("picked after the seeds were seen")
    deal.key = seeded.deal_key(chosen, deal.sealing.sealed, deal.seeds)
    deal.perm = seeded.permutation(deal.key)
    problems = seeded.check_deal_v2(
        deal.seen_by(0), deal.announce, deal.own(0, server_seed=chosen),
        own_seed=(0, deal.seeds[0][1].hex()), committed=deal.committed,
    )  # fmt: skip
    assert any(p.startswith("step 1:") for p in problems), problems


def test_r39_a_server_that_ignores_a_players_seed_is_caught_at_step_3() -> None:
    mine = seed_of("mine")
    deal = Deal(3, [])  # my seed was sent, the server dealt without it
    problems = seeded.check_deal_v2(
        deal.seen_by(0), deal.announce, deal.own(0), own_seed=(0, mine.hex()),
        committed=deal.committed,
    )  # fmt: skip
    assert problems == ["step 3: my seed (seat 0) was not used"]


def test_r39_a_deck_other_than_the_permutation_is_caught_at_step_4() -> None:
    # the events claim up cards the permutation did not put there
    forged = Deal(4, [(1, seed_of("x"))])
    forged_events = [
        {**e, "card": "As" if e.get("card") and e["card"] != "As" else "Kd"}
        if e["type"] == "card_dealt" and e.get("face_up")
        else e
        for e in forged.events
    ]
    problems = seeded.check_deal_v2(
        forged_events, forged.announce, forged.reveal(set(range(SEATS)))
    )
    assert problems and all(p.startswith("step 4:") for p in problems)


def test_r39_a_seat_that_grinds_its_seed_after_its_commit_is_caught_by_the_chain() -> None:
    committed_seed = seed_of("fixed before")
    ground = seed_of("ground after seeing the others")
    deal = Deal(5, [(0, seed_of("honest")), (1, ground)])
    problems = seeded.check_deal_v2(
        deal.seen_by(0), deal.announce, deal.own(0),
        own_seed=(0, seed_of("honest").hex()),
        previous_commits=[
            {"seat": 0, "commit": seeded.seed_hash(seed_of("honest"))},
            {"seat": 1, "commit": seeded.seed_hash(committed_seed)},
        ],
        committed=deal.committed,
    )  # fmt: skip
    assert problems == ["step 3: seat 1's seed is not the one its chain committed to before"]


def test_r39_a_tampered_slot_is_caught_at_step_2() -> None:
    deal = Deal(6, [])
    public = deal.own(0)
    opened = next(s for s in public["slots"] if "card" in s)
    opened["salt"] = "00" * 32
    problems = seeded.check_deal_v2(deal.seen_by(0), deal.announce, public)
    assert any(p.startswith("step 2:") for p in problems), problems


def test_r39_no_seeds_still_deals_and_checks() -> None:
    deal = Deal(7, [])
    assert deal.reveal(set())["seeds"] == []
    public = deal.reveal(commitment.shown_seats(deal.events))
    assert seeded.check_deal_v2(
        deal.seen_by(None), deal.announce, public, committed=deal.committed
    ) == []  # fmt: skip


def test_r39_the_documented_one_line_check_prints_the_sealed_deck() -> None:
    deal = Deal(8, [(2, seed_of("z"))])
    line = (
        "import hashlib,json,sys;r=json.load(sys.stdin);print(hashlib.sha256(b''.join("
        "bytes.fromhex(s['leaf']) if 'leaf' in s else hashlib.sha256(bytes.fromhex(s['salt'])"
        "+s['card'].encode()).digest() for s in r['slots'])).hexdigest())"
    )
    assert line in (Path(__file__).parents[2] / "docs" / "fairness.md").read_text("utf-8")
    out = subprocess.run(
        [sys.executable, "-c", line],
        input=json.dumps(deal.own(2)),
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == deal.announce["sealed"]


def test_r39_an_eight_handed_hand_with_the_r9_reshuffle_checks_for_every_audience() -> None:
    deal = Deal(9, [(s, seed_of(f"p{s}")) for s in range(0, 8, 2)], fold=None, seats=8)
    assert any(e["type"] == "burns_reshuffled" for e in deal.events)
    shown = commitment.shown_seats(deal.events)
    assert seeded.check_deal_v2(deal.seen_by(None), deal.announce, deal.reveal(shown)) == []
    for seat in range(8):
        mine = (seat, seed_of(f"p{seat}").hex()) if seat % 2 == 0 else None
        assert seeded.check_deal_v2(
            deal.seen_by(seat), deal.announce, deal.own(seat), own_seed=mine,
            committed=deal.committed,
        ) == [], seat  # fmt: skip
