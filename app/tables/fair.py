"""The seeded-v2 deal at a table (rules.md R39, docs/fairness.md): the `seed` command, the
deal prepared from the announced sealed deck and the players' seeds, and the per-audience
reveals after the hand. The plain data and its rules are `app.tables.seeds`."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine import commitment, seeded
from app.engine.cards import Card
from app.tables import messages as m
from app.tables import seeds
from app.tables.effects import Effects, Outcome, Said
from app.tables.errors import TableError
from app.tables.seeds import HandSeeds, TableSeeds
from app.tables.state import Io, Recording, SeatInfo, TableState, seat_of, user_in
from app.wire import client as c
from app.wire.events import DealCommitted, DealRevealed, SeatDealRevealed

__all__ = ["Prepared", "TableSeeds", "committed", "prepare", "reveal", "seed"]


async def seed(table: TableState, ask: m.Ask[c.SeedMsg], io: Io) -> Outcome:
    """A seated player's seed for a coming hand (`seeds.receive`); a refusal is a
    `TableError` with the spec's code."""
    seat_of(table, ask.user_id)  # only a seated player's seeds count
    msg = ask.msg
    try:
        return Outcome(seeds.receive(table.fair, ask.user_id, msg.seed, msg.commit, msg.sealed))
    except seeds.SeedRefused as exc:
        raise TableError(exc.code, exc.message) from None


@dataclass(slots=True)
class Prepared:
    """A hand's deck, ready to deal: what the engine takes and what the record keeps."""

    deck: list[Card]
    master: bytes
    reshuffle_seed: bytes
    commitment: str
    seeds: HandSeeds | None  # None: a deck a test chose (`deck_source`), sha256-per-card-v1


def prepare(
    table: TableState, players: Sequence[SeatInfo], rigged: Callable[[], Sequence[Card] | None]
) -> Prepared:
    """The deck of the hand starting now for `players`: the announced sealed deck dealt in
    the order the server seed and the pending seeds of those players draw (consumed), and
    the next hand's announce made. A table given another `deck_source` (tests rig decks)
    deals that deck under sha256-per-card-v1: no seeded deal can be chosen."""
    chosen = rigged()
    if chosen is not None:
        deck = list(chosen)
        master = secrets.token_bytes(commitment.SALT_BYTES)  # in memory until the hand ends
        return Prepared(
            deck, master, commitment.reshuffle_seed(master), commitment.commit(deck, master), None
        )
    dealt = {info.seat: info.user_id for info in players}
    seated = {seat: info.user_id for seat, info in table.seats.items() if not info.bot}
    taken = seeds.take(table.fair, dealt, seated)
    return Prepared(
        taken.deck(), taken.announce.master, taken.reshuffle_seed(), taken.announce.sealed, taken
    )


def committed(hand_id: str, prepared: Prepared) -> DealCommitted:
    """`deal_committed`, before the hand's first event."""
    if prepared.seeds is None:
        return DealCommitted(hand_id, prepared.commitment, commitment.SCHEME)
    fields = prepared.seeds.committed()
    return DealCommitted(
        hand_id,
        prepared.commitment,
        seeded.SCHEME,
        fields["server_seed_hash"],
        fields["seeds"],
        fields["commits"],
        fields["next"],
    )


def reveal(table: TableState, recording: Recording, events: list[dict[str, Any]]) -> Effects | None:
    """The seeded-v2 reveals (None: the hand was not seeded): to the table (observers too)
    the slots of the up cards and the hands shown; to each player dealt in whose hand was
    not shown, also the slots of their own down cards. The server seed and the seeds go to
    everyone: they give the permutation, never a slot's card."""
    taken = recording.seeds
    if taken is None:
        return None
    shown = commitment.shown_seats(events)
    deck = recording.deck
    hand_id = recording.start.hand_id
    dealt = commitment.Dealt(deck, events)
    public = taken.reveal(dealt.seen_by(shown))
    out: Effects = [Said(DealRevealed(hand_id, public))]
    for seat in table.hand_users:
        if seat not in shown:  # a shown hand is open in the table's reveal already
            own = dealt.seen_by(shown | {seat})
            revealed = SeatDealRevealed(hand_id, taken.reveal(own), seat=seat)
            out.append(Said(revealed, user_in(table, seat)))
    seeds.make_ahead(table.fair)  # the hand after next's announce, between hands
    return out
