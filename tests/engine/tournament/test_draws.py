"""Provably fair draws (docs/rules.md R38): a committed seed, a documented stream, and the
first seat draw. Fixed seeds throughout: every count below is the same on every run."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from itertools import permutations

import pytest

from app.engine.tournament.draws import (
    SCHEME,
    SEAT_DRAW,
    Rng,
    commit,
    mix,
    new_seed,
    seat_draw,
    verify,
)

SEED = bytes(range(32))


def seeds(count: int) -> list[bytes]:
    return [hashlib.sha256(b"test seed %d" % i).digest() for i in range(count)]


def frame(*parts: bytes) -> bytes:
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def test_r38_the_stream_is_the_documented_hmac_blocks_and_rejection() -> None:
    # a verifier's own reading of the module docstring, byte for byte
    stream = b"".join(
        hmac.new(SEED, frame(SCHEME.encode(), b"p", k.to_bytes(8, "big")), "sha256").digest()
        for k in range(8)
    )
    expected: list[int] = []
    pos = 0
    while len(expected) < 50:
        value = stream[pos] & 0b111  # below(6): 3 bits from one byte, 6 and 7 rejected
        pos += 1
        if value < 6:
            expected.append(value)
    rng = Rng(SEED, "p")
    assert [rng.below(6) for _ in range(50)] == expected
    assert b"\x06" in bytes(b & 7 for b in stream[:pos])  # a rejection happened on the way


def test_r38_the_same_seed_and_purpose_draw_the_same_and_another_purpose_differs() -> None:
    a, b, c = Rng(SEED, "balance-1"), Rng(SEED, "balance-1"), Rng(SEED, "balance-2")
    first = [a.below(1000) for _ in range(20)]
    assert first == [b.below(1000) for _ in range(20)]
    assert first != [c.below(1000) for _ in range(20)]
    assert Rng(SEED, "x").below(1) == 0


def test_r38_below_reaches_every_value_evenly_over_many_draws() -> None:
    rng = Rng(SEED, "uniform")
    counts = Counter(rng.below(7) for _ in range(7000))
    assert sorted(counts) == list(range(7))
    assert all(850 <= n <= 1150 for n in counts.values()), counts
    big = Rng(SEED, "big")
    draws = [big.below(10**30) for _ in range(200)]
    assert max(draws) > 9 * 10**29 and min(draws) < 10**29 and len(set(draws)) == 200


def test_r38_shuffle_reaches_every_order_evenly() -> None:
    counts: Counter[tuple[int, ...]] = Counter()
    for seed in seeds(600):
        items = [0, 1, 2]
        Rng(seed, "shuffle").shuffle(items)
        counts[tuple(items)] += 1
    assert set(counts) == set(permutations(range(3)))
    assert all(70 <= n <= 130 for n in counts.values()), counts


def test_r38_choice_and_bad_arguments() -> None:
    rng = Rng(SEED, "choice")
    assert {rng.choice("abc") for _ in range(60)} == {"a", "b", "c"}
    with pytest.raises(ValueError):
        rng.choice([])
    for bad in (0, -1, 2.0):
        with pytest.raises(ValueError):
            rng.below(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="32 bytes"):
        Rng(b"short", "x")


def test_r38_commit_then_verify_and_tampering_is_detected() -> None:
    seed = new_seed()
    assert len(seed) == 32 and seed != new_seed()
    commitment = commit(seed, "seat-draw")
    assert len(commitment) == 64 and int(commitment, 16) >= 0
    assert verify(seed, "seat-draw", commitment)
    assert verify(seed, "seat-draw", commitment.upper())
    other = bytes([seed[0] ^ 1]) + seed[1:]
    assert not verify(other, "seat-draw", commitment)  # another seed
    assert not verify(seed, "balance-1", commitment)  # another purpose
    flipped = ("0" if commitment[0] != "0" else "1") + commitment[1:]
    assert not verify(seed, "seat-draw", flipped)  # another commitment
    assert not verify(b"short", "seat-draw", commitment)


def test_r38_the_commitment_is_the_documented_hash() -> None:
    expected = hashlib.sha256(frame(SCHEME.encode(), b"commit", b"seat-draw", SEED)).hexdigest()
    assert commit(SEED, "seat-draw") == expected


def test_r33_r38_seat_draw_spreads_players_evenly_at_random_seats() -> None:
    entries = list(range(100, 123))  # 23 players at 3 tables of 8: 8, 8, 7
    draw = seat_draw(SEED, entries, 3, 8)
    assert sorted(draw) == entries
    per_table = Counter(table for table, _ in draw.values())
    assert sorted(per_table.values()) == [7, 8, 8]
    assert len(set(draw.values())) == 23  # no seat twice
    assert all(0 <= seat < 8 for _, seat in draw.values())
    assert seat_draw(SEED, list(reversed(entries)), 3, 8) == draw  # the order passed is moot
    assert seat_draw(seeds(1)[0], entries, 3, 8) != draw


def test_r38_seat_draw_gives_every_table_and_seat_a_chance() -> None:
    tables: Counter[int] = Counter()
    seats: Counter[int] = Counter()
    for seed in seeds(400):
        table, seat = seat_draw(seed, [1, 2, 3, 4, 5], 2, 6)[1]
        tables[table] += 1
        seats[seat] += 1
    assert 160 <= tables[0] <= 240 and 160 <= tables[1] <= 240, tables
    assert sorted(seats) == list(range(6)) and min(seats.values()) >= 40, seats


def test_r38_seat_draw_refuses_what_cannot_be_seated() -> None:
    with pytest.raises(ValueError, match="do not fit"):
        seat_draw(SEED, list(range(17)), 2, 8)
    with pytest.raises(ValueError, match="once"):
        seat_draw(SEED, [1, 1], 1, 8)
    with pytest.raises(ValueError):
        seat_draw(SEED, [1, 2], 0, 8)
    assert SEAT_DRAW == "seat-draw"


def test_r38_entrants_seeds_are_mixed_by_the_documented_hmac() -> None:
    seed = SEED
    assert mix(seed, []) == seed  # no entrant gave one: the tournament's own seed
    given = [(7, b"\x07" * 32), (3, b"\x03" * 32)]
    message = b"seeded-v2-draw" + (3).to_bytes(8, "big") + b"\x03" * 32
    message += (7).to_bytes(8, "big") + b"\x07" * 32
    mixed = mix(seed, given)
    assert mixed == hmac.new(seed, message, hashlib.sha256).digest()
    assert mixed == mix(seed, list(reversed(given)))  # by entry, whatever the order
    assert mix(seed, given[:1]) != mixed
    with pytest.raises(ValueError):
        mix(seed, [(1, b"x")])
    with pytest.raises(ValueError):
        mix(seed, [(1, b"\x01" * 32), (1, b"\x02" * 32)])
