"""Scheme ``seeded-v2`` (docs/fairness.md, rules.md R39): the house seals a deck before any
player seed is known, and the deal order is a permutation of its slots drawn from the
server seed AND the players' seeds. Standard library only; nothing random here (the table
draws the master salt, the slot cards and the server seed).

Exact bytes; ``‖`` is concatenation, H = SHA-256 (raw 32 bytes), HMAC = HMAC-SHA256:

- slot salt ``s_j = H(M ‖ b"card" ‖ bytes([j]))``, leaf ``L_j = H(s_j ‖ card(A[j]))`` for the
  slot cards ``A[0..51]``; sealed deck ``D = hex(H(L_0 ‖ … ‖ L_51))`` (v1's formulas, by slot).
- ``server_seed_hash = hex(H(S))``.
- ``seeds_bytes`` = ``bytes([seat]) ‖ seed`` for every seed used, in seat order.
- ``K = HMAC(S, b"seeded-v2" ‖ bytes.fromhex(D) ‖ seeds_bytes)``.
- stream block k = ``HMAC(K, b"draw" ‖ k as 4 bytes big-endian)``, 8 uint32 big-endian words.
- ``uniform(n)``: words until one ``w < 2**32 - 2**32 % n``; ``w % n``.
- permutation: ``P = [0..51]``; i from 51 down to 1: ``j = uniform(i + 1)``, swap.
  Deck position p holds slot ``P[p]``: the card dealt from p is ``A[P[p]]``.
- R9's reshuffle seed ``H(K ‖ b"reshuffle")``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from app.engine import commitment
from app.engine.cards import Card

SCHEME = "seeded-v2"
SEED_BYTES = 32
DECK_SIZE = commitment.DECK_SIZE


def _sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def seed_hash(seed: bytes) -> str:
    """``hex(H(seed))``: a server seed's hash, a player seed's hash, a chain's commit."""
    return _sha(seed).hex()


def is_hex64(value: object) -> bool:
    """Whether `value` is 64 lower-case hex digits (32 bytes)."""
    return (
        isinstance(value, str)
        and len(value) == 64
        and all(ch in "0123456789abcdef" for ch in value)
    )


class Sealing:
    """A sealed deck: the slot cards ``A`` under their salts, its leaves and ``D``. A table
    holds two or three of these at all times, so the salts and leaves are each kept as one
    string of 52 x 32 bytes rather than 104 small objects (8.4 KB a deck became 4.1)."""

    __slots__ = ("cards", "leaves", "master", "salts", "sealed")

    def __init__(self, slot_cards: Sequence[Card] | str, master: bytes) -> None:
        self.cards = commitment._cards(slot_cards)
        self.master = commitment._master(master)
        salts = [commitment.position_salt(master, j) for j in range(DECK_SIZE)]
        leaves = [commitment.leaf(salt, card) for salt, card in zip(salts, self.cards, strict=True)]
        self.salts = b"".join(salts)
        self.leaves = b"".join(leaves)
        self.sealed = hashlib.sha256(self.leaves).hexdigest()

    def salt(self, slot: int) -> bytes:
        return self.salts[32 * slot : 32 * slot + 32]

    def leaf(self, slot: int) -> bytes:
        return self.leaves[32 * slot : 32 * slot + 32]

    def reveal(
        self,
        server_seed: bytes,
        seeds: Sequence[tuple[int, bytes]],
        permutation: Sequence[int],
        opened_positions: Collection[int],
    ) -> dict[str, Any]:
        """One audience's reveal: the slots ``P[p]`` of the positions p it saw opened (card
        and salt), every other slot only its leaf; the server seed and the seeds used."""
        opened = {permutation[p] for p in opened_positions}
        slots: list[dict[str, Any]] = [
            {"slot": j, "card": str(self.cards[j]), "salt": self.salt(j).hex()}
            if j in opened
            else {"slot": j, "leaf": self.leaf(j).hex()}
            for j in range(DECK_SIZE)
        ]
        key = deal_key(server_seed, self.sealed, seeds)
        return {
            "scheme": SCHEME,
            "commitment": self.sealed,
            "server_seed": server_seed.hex(),
            "seeds": [{"seat": seat, "seed": seed.hex()} for seat, seed in _ordered(seeds)],
            "slots": slots,
            "reshuffle_seed": reshuffle_seed(key).hex(),
        }


def seal(slot_cards: Sequence[Card] | str, master: bytes) -> str:
    """The sealed deck ``D`` (hex)."""
    return Sealing(slot_cards, master).sealed


def _ordered(seeds: Iterable[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    ordered = sorted(seeds, key=lambda s: s[0])
    seats = [seat for seat, _ in ordered]
    if len(set(seats)) != len(seats):
        raise ValueError("one seed a seat")
    for seat, seed in ordered:
        if not 0 <= seat < 256 or len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, for a seat 0-255")
    return ordered


def seeds_bytes(seeds: Iterable[tuple[int, bytes]]) -> bytes:
    """``bytes([seat]) ‖ seed`` for each seed, in seat order."""
    return b"".join(bytes((seat,)) + seed for seat, seed in _ordered(seeds))


def deal_key(server_seed: bytes, sealed: str, seeds: Iterable[tuple[int, bytes]]) -> bytes:
    """``K = HMAC(S, b"seeded-v2" ‖ D ‖ seeds_bytes)``."""
    if len(server_seed) != SEED_BYTES:
        raise ValueError(f"the server seed is {SEED_BYTES} bytes")
    message = b"seeded-v2" + bytes.fromhex(sealed) + seeds_bytes(seeds)
    return hmac.new(server_seed, message, hashlib.sha256).digest()


class Stream:
    """The HMAC stream of a key: uint32 words, block after block, and `uniform`."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.block = 0
        self.words: list[int] = []

    def word(self) -> int:
        if not self.words:
            data = hmac.new(
                self.key, b"draw" + self.block.to_bytes(4, "big"), hashlib.sha256
            ).digest()
            self.block += 1
            self.words = [int.from_bytes(data[i : i + 4], "big") for i in range(28, -1, -4)]
        return self.words.pop()

    def uniform(self, n: int) -> int:
        """0 ≤ r < n, without modulo bias."""
        if not 0 < n <= 2**32:
            raise ValueError("uniform(n) takes 1 ≤ n ≤ 2**32")
        limit = 2**32 - (2**32 % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n


def permutation(key: bytes, size: int = DECK_SIZE) -> list[int]:
    """``P``: Fisher-Yates from the last index down, ``j = uniform(i + 1)``."""
    stream = Stream(key)
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        j = stream.uniform(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def dealt_deck(slot_cards: Sequence[Card], perm: Sequence[int]) -> list[Card]:
    """The deck in deal order: position p is ``A[P[p]]``."""
    return [slot_cards[j] for j in perm]


def reshuffle_seed(key: bytes) -> bytes:
    """R9's reshuffle seed ``H(K ‖ b"reshuffle")``."""
    return _sha(key + b"reshuffle")


def slots_as_positions(reveal: Mapping[str, Any], perm: Sequence[int]) -> dict[str, Any]:
    """A v2 reveal read by deck position (v1's shape), to check the deal with
    `commitment.check_deal`: position p is slot ``P[p]``."""
    slots = reveal["slots"]
    positions = []
    for p, j in enumerate(perm):
        entry = {k: v for k, v in slots[j].items() if k != "slot"}
        positions.append({"position": p, **entry})
    return {
        "scheme": commitment.SCHEME,
        "commitment": reveal["commitment"],
        "reshuffle_seed": reveal["reshuffle_seed"],
        "positions": positions,
    }


def _slot_root(reveal: Mapping[str, Any]) -> str:
    slots = reveal.get("slots")
    if not isinstance(slots, list) or len(slots) != DECK_SIZE:
        raise ValueError("a reveal has the 52 slots")
    for j, s in enumerate(slots):
        if s.get("slot") != j:
            raise ValueError(f"slot {j} is out of order")
    as_positions = {"positions": [{**s, "position": s["slot"]} for s in slots]}
    return commitment.reveal_root(as_positions)


def _seed_pairs(entries: object, field: str) -> list[tuple[int, str]]:
    if not isinstance(entries, list):
        raise ValueError(f"{field} is a list")
    pairs = []
    for e in entries:
        value = e.get(field) if isinstance(e, Mapping) else None
        if not is_hex64(value) or not isinstance(e.get("seat"), int):
            raise ValueError(f"each of {field} is a seat and 64 hex digits")
        pairs.append((int(e["seat"]), str(value)))
    return pairs


def _step1(
    announce: Mapping[str, Any],
    committed: Mapping[str, Any] | None,
    server_seed: bytes,
    sealed: str,
) -> list[str]:
    """The server seed and the sealed deck are the ones announced before the seeds."""
    problems = []
    if seed_hash(server_seed) != announce.get("server_seed_hash"):
        problems.append("step 1: the server seed does not hash to the announced server_seed_hash")
    if sealed != announce.get("sealed"):
        problems.append("step 1: the commitment is not the announced sealed deck")
    if committed is not None and (
        committed.get("commitment") != sealed
        or committed.get("server_seed_hash") != announce.get("server_seed_hash")
    ):
        problems.append("step 1: deal_committed names another sealed deck or server seed")
    return problems


def _step3(
    seeds: list[tuple[int, bytes]],
    own_seed: tuple[int, str] | None,
    previous_commits: Sequence[Mapping[str, Any]] | None,
    committed: Mapping[str, Any] | None,
) -> list[str]:
    """The seeds: one's own used, each announced by its hash, each its chain's commit."""
    problems = []
    by_seat = {seat: seed.hex() for seat, seed in seeds}
    if own_seed is not None and by_seat.get(own_seed[0]) != own_seed[1].lower():
        problems.append(f"step 3: my seed (seat {own_seed[0]}) was not used")
    if committed is not None:
        try:
            hashes = dict(_seed_pairs(committed.get("seeds"), "seed_hash"))
        except ValueError as exc:
            problems.append(f"step 3: deal_committed's seeds are malformed: {exc}")
            hashes = {}
        if sorted(hashes) != sorted(by_seat):
            problems.append("step 3: the seeds revealed are not the seeds announced")
        for seat, seed in seeds:
            if seat in hashes and hashes[seat] != seed_hash(seed):
                problems.append(f"step 3: seat {seat}'s seed does not hash to its seed_hash")
    if previous_commits is not None:
        heads = {e.get("seat"): e.get("commit") for e in previous_commits}
        for seat, seed in seeds:
            if heads.get(seat) != seed_hash(seed):
                problems.append(
                    f"step 3: seat {seat}'s seed is not the one its chain committed to before"
                )
    return problems


def check_deal_v2(
    events: Iterable[Mapping[str, Any]],
    announce: Mapping[str, Any],
    reveal: Mapping[str, Any],
    own_seed: tuple[int, str] | None = None,
    previous_commits: Sequence[Mapping[str, Any]] | None = None,
    committed: Mapping[str, Any] | None = None,
) -> list[str]:
    """A client's check of a finished hand (docs/fairness.md), its problems (empty: OK),
    each naming its step: `announce` is ``{"sealed", "server_seed_hash"}`` as announced for
    this hand before its seeds were sent; `reveal` this audience's ``deal_revealed.reveal``;
    `own_seed` ``(seat, seed hex)`` if this client sent a seed that counted;
    `previous_commits` the previous hand's ``deal_committed.commits``, if seen (else step 3's
    chain check is skipped); `committed` this hand's ``deal_committed`` (seed hashes)."""
    try:
        server_seed = bytes.fromhex(reveal["server_seed"])
        sealed = str(reveal["commitment"])
        seeds = [(seat, bytes.fromhex(seed)) for seat, seed in _seed_pairs(reveal["seeds"], "seed")]
        root = _slot_root(reveal)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return [f"the reveal is malformed: {exc}"]
    problems = _step1(announce, committed, server_seed, sealed)
    # step 2: the slots hash to the sealed deck
    if not hmac.compare_digest(root, sealed):
        problems.append("step 2: the slots do not hash to the sealed deck")
    problems += _step3(seeds, own_seed, previous_commits, committed)
    # step 4: the key, the permutation, and every card seen at its position
    try:
        key = deal_key(server_seed, sealed, seeds)
    except ValueError as exc:
        return [*problems, f"step 4: {exc}"]
    if reshuffle_seed(key).hex() != reveal.get("reshuffle_seed"):
        problems.append("step 4: the reshuffle seed is not H(K ‖ reshuffle)")
    perm = permutation(key)
    problems.extend(
        f"step 4: {p}" for p in commitment.check_deal(events, slots_as_positions(reveal, perm))
    )
    return problems


def vector(
    server_seed: bytes,
    master: bytes,
    slot_cards: Sequence[Card] | str,
    seeds: Sequence[tuple[int, bytes]],
) -> dict[str, Any]:
    """A test vector (docs/fairness-vectors.json) from its inputs."""
    sealing = Sealing(slot_cards, master)
    key = deal_key(server_seed, sealing.sealed, seeds)
    perm = permutation(key)
    return {
        "server_seed": server_seed.hex(),
        "master_salt": master.hex(),
        "slot_cards": commitment.deck_text(sealing.cards),
        "seeds": [{"seat": seat, "seed": seed.hex()} for seat, seed in _ordered(seeds)],
        "sealed": sealing.sealed,
        "server_seed_hash": seed_hash(server_seed),
        "key": key.hex(),
        "permutation": perm,
        "deck": commitment.deck_text(dealt_deck(sealing.cards, perm)),
        "reshuffle_seed": reshuffle_seed(key).hex(),
    }


# deal_committed's fields a hand record's `deal` keeps in public; the rest of it (the server
# seed and the seeds, revealed after the hand; the slot cards, never) is the operators'
PUBLIC_FIELDS = ("commitment", "scheme", "server_seed_hash", "seeds", "commits", "next")


class RecordedDeal:
    """A finished hand's seeded deal again, from its record's `deal` and master salt."""

    def __init__(self, deal: Mapping[str, Any], master: str) -> None:
        self.sealing = Sealing(deal["slot_cards"], bytes.fromhex(master))
        self.server_seed = bytes.fromhex(deal["server_seed"])
        self.seeds = [(e["seat"], bytes.fromhex(e["seed"])) for e in deal["seed_values"]]
        self.key = deal_key(self.server_seed, self.sealing.sealed, self.seeds)
        self.permutation = permutation(self.key)
        self.public = {k: deal[k] for k in PUBLIC_FIELDS if k in deal}

    def deck(self) -> list[Card]:
        return dealt_deck(self.sealing.cards, self.permutation)

    def reshuffle_seed(self) -> bytes:
        return reshuffle_seed(self.key)

    def announce(self) -> dict[str, str]:
        return {"sealed": self.sealing.sealed, "server_seed_hash": seed_hash(self.server_seed)}

    def reveal(self, opened_positions: Collection[int]) -> dict[str, Any]:
        return self.sealing.reveal(self.server_seed, self.seeds, self.permutation, opened_positions)
