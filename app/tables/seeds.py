"""The players' seeds and the house's announces of a table (scheme seeded-v2, rules.md R39,
docs/fairness.md): plain data and functions over it, no I/O.

The table always holds the NEXT hand's announce (its sealed deck and server seed, made
before any seed for it can be sent), and per seated player the head of their seed chain
(the hash their next seed must have) and at most one pending seed. At a hand's start the
pending seeds of the players dealt in are used and consumed, in seat order; the deal never
waits for a seed.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine import seeded
from app.engine.cards import Card, shuffled_deck

KEPT_STARTED = 64  # the sealed decks of the hands started last, to answer `seed_late`


@dataclass(slots=True)
class Announce:
    """The house's part of one hand, fixed before any player seed for it is known: the
    master salt, the slot cards, the server seed. Secret until the hand's end."""

    master: bytes
    slots: list[Card]
    server_seed: bytes
    sealing: seeded.Sealing = field(init=False)

    def __post_init__(self) -> None:
        self.sealing = seeded.Sealing(self.slots, self.master)

    @property
    def sealed(self) -> str:
        return self.sealing.sealed

    @property
    def server_seed_hash(self) -> str:
        return seeded.seed_hash(self.server_seed)

    def public(self) -> dict[str, str]:
        """``{"sealed", "server_seed_hash"}``: what is announced."""
        return {"sealed": self.sealed, "server_seed_hash": self.server_seed_hash}


def new_announce(
    random_bytes: Callable[[int], bytes] = secrets.token_bytes,
    deck: Callable[[], Iterable[Card]] = shuffled_deck,
) -> Announce:
    """A fresh announce from the CSPRNG."""
    return Announce(random_bytes(32), list(deck()), random_bytes(32))


@dataclass(slots=True)
class Chain:
    head: str | None = None  # the hash the player's next seed must have
    pending: bytes | None = None  # a valid seed waiting for the next hand


@dataclass(slots=True)
class TableSeeds:
    next: Announce = field(default_factory=new_announce)
    # the announce after `next`, made between hands (`make_ahead`) so that a hand's start
    # only draws its permutation; made at the start if it is missing
    after: Announce | None = None
    started: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_STARTED))
    chains: dict[int, Chain] = field(default_factory=dict)  # user id -> chain


class SeedRefused(Exception):
    """A seed message refused: `code`, words, and whether anything was kept."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _sha_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def receive(state: TableSeeds, user_id: int, seed: str, commit: str, sealed: str) -> dict[str, Any]:
    """A seated player's `seed` message (64 hex digits each, checked by the catalog). The
    answer (``seed_ok``), or `SeedRefused`: ``unknown_deal`` (nothing changes),
    ``seed_mismatch`` (the new commit restarts the chain), ``seed_late`` (the seed is kept for
    the next hand)."""
    late = sealed != state.next.sealed
    if late and sealed not in state.started:
        raise SeedRefused("unknown_deal", "that sealed deck is not one of this table's hands")
    chain = state.chains.setdefault(user_id, Chain())
    if chain.head is None:
        chain.head = commit
        return {
            "seed_ok": True,
            "used": False,
            "pending": False,
            "reason": "first of a chain",
            "sealed": state.next.sealed,
        }
    if _sha_hex(bytes.fromhex(seed)) != chain.head:
        chain.head = commit
        raise SeedRefused(
            "seed_mismatch",
            "the seed does not hash to your chain's last commit: the chain restarts at the "
            "new commit, and this seed is not used",
        )
    chain.head = commit
    chain.pending = bytes.fromhex(seed)
    if late:
        raise SeedRefused(
            "seed_late",
            "that hand has started: the seed is kept for the next hand, "
            f"sealed {state.next.sealed}",
        )
    return {"seed_ok": True, "used": True, "pending": True, "sealed": state.next.sealed}


@dataclass(slots=True)
class HandSeeds:
    """What a hand's start took: its announce, the seeds used, the chain heads then."""

    announce: Announce
    seeds: list[tuple[int, bytes]]  # (seat, seed), seat order
    commits: list[tuple[int, str]]  # (seat, head) of every seated player with a chain
    next: dict[str, str]  # the following hand's announce, public
    key: bytes = b""
    permutation: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.key = seeded.deal_key(self.announce.server_seed, self.announce.sealed, self.seeds)
        self.permutation = seeded.permutation(self.key)

    def deck(self) -> list[Card]:
        return seeded.dealt_deck(self.announce.slots, self.permutation)

    def reshuffle_seed(self) -> bytes:
        return seeded.reshuffle_seed(self.key)

    def committed(self) -> dict[str, Any]:
        """`deal_committed`'s seeded-v2 fields (public)."""
        return {
            "commitment": self.announce.sealed,
            "scheme": seeded.SCHEME,
            "server_seed_hash": self.announce.server_seed_hash,
            "seeds": [{"seat": s, "seed_hash": seeded.seed_hash(v)} for s, v in self.seeds],
            "commits": [{"seat": s, "commit": c} for s, c in self.commits],
            "next": dict(self.next),
        }

    def reveal(self, opened_positions: Iterable[int]) -> dict[str, Any]:
        return self.announce.sealing.reveal(
            self.announce.server_seed, self.seeds, self.permutation, set(opened_positions)
        )

    def record(self) -> dict[str, Any]:
        """The hand record's `deal`: the public fields and what operators need (the server
        seed, the seeds, the slot cards); written only when the hand has ended."""
        return {
            **self.committed(),
            "server_seed": self.announce.server_seed.hex(),
            "seed_values": [{"seat": s, "seed": v.hex()} for s, v in self.seeds],
            "slot_cards": "".join(str(c) for c in self.announce.slots),
        }


def take(
    state: TableSeeds,
    dealt: Mapping[int, int],
    seated: Mapping[int, int],
    announce: Callable[[], Announce] = new_announce,
) -> HandSeeds:
    """A hand starts for `dealt` (seat -> user): the announced deck, the pending seeds of
    the players dealt in (consumed), every `seated` (seat -> user) player's chain head, and
    the next hand's announce in place (made ahead, or now); the chains of players no
    longer seated are dropped."""
    current = state.next
    seeds = []
    for seat in sorted(dealt):
        chain = state.chains.get(dealt[seat])
        if chain is not None and chain.pending is not None:
            seeds.append((seat, chain.pending))
            chain.pending = None
    commits = [
        (seat, head)
        for seat in sorted(seated)
        if (chain := state.chains.get(seated[seat])) is not None and (head := chain.head)
    ]
    here = set(seated.values())
    for user in [u for u in state.chains if u not in here]:  # left the table: chain gone
        del state.chains[user]
    state.started.append(current.sealed)
    state.next = state.after if state.after is not None else announce()
    state.after = None
    return HandSeeds(current, seeds, commits, state.next.public())


def make_ahead(state: TableSeeds, announce: Callable[[], Announce] = new_announce) -> None:
    """Between hands: the announce after the next one, off the deal's path."""
    if state.after is None:
        state.after = announce()
