"""A finished hand's history for one viewer, as JSON, PHH and PokerStars-style text (R24).

`load_hand_history(db, number, viewer_user_id)` is what the history API and the mail worker
call: a hand is found by its number, the one the table, the hand list, the emails, the PHH
`hand` field and the PokerStars header all show. A viewer sees their own down cards and the
cards of every seat that reached the showdown, shown or mucked; never the cards of a seat
that folded before it (nor of an uncalled winner who did not show). A hand the viewer was not
dealt into is None, exactly like a hand that does not exist. `viewer_user_id=None` is the
operators' view: the same R24 view for an observer (`full=True` adds every card: the house's
audit copy).

The JSON's `fairness` opens the deal's per-card commitment for this viewer: every deck
position's card and salt, but only the leaf of the down cards R24 hides from them
(`app.engine.commitment`, docs/fairness.md). The master salt is never shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import Action, ActionKind, Hand, Rules, SeatSpec, Variant, seeded
from app.engine import commitment as fair
from app.engine.phh import to_phh
from app.engine.pokerstars import Finish, HandText, TournamentText, render
from app.engine.views import POT_EVENTS, pots_now
from app.store import hands
from app.store.db import Database
from app.store.hand_models import HandRecord, HandStatus
from app.store.tournament_models import Tournament, TournamentEntry


@dataclass(frozen=True, slots=True)
class HandHistoryView:
    """One hand for one viewer: `json` (a dict), `phh` (TOML text), `pokerstars_text`."""

    number: int
    table_id: int
    variant: str
    viewer_seat: int | None
    json: dict[str, Any]
    phh: str
    pokerstars_text: str


async def load_hand_history(
    db: Database | AsyncSession,
    number: int,
    viewer_user_id: int | None,
    *,
    full: bool = False,
) -> HandHistoryView | None:
    """The finished hand number `number` as `viewer_user_id` may see it, or None if it does
    not exist, is not finished, or the viewer was not dealt into it."""
    if isinstance(db, Database):
        async with db.session() as session:
            return await load_hand_history(session, number, viewer_user_id, full=full)
    row = await hands.hand_by_number(db, number)
    if row is None or row.status != HandStatus.DONE:
        return None
    seat: int | None = None
    if viewer_user_id is not None:
        seat = await hands.dealt_seat(db, row.id, viewer_user_id)
        if seat is None:
            return None
    return history_view(row, seat, full=full, tournament=await tournament_of(db, row))


@dataclass(frozen=True, slots=True)
class TournamentOf:
    """What a tournament hand's history adds: the tournament's buy-in and name, and the
    places the hand decided (R31)."""

    id: int
    name: str
    buy_in: int
    fee: int
    rotation: bool
    finishes: tuple[Finish, ...]


async def tournament_of(session: AsyncSession, row: HandRecord) -> TournamentOf | None:
    """The tournament of a tournament hand (None for a cash hand)."""
    if row.tournament_id is None:
        return None
    t = await session.get(Tournament, row.tournament_id)
    if t is None:
        return None
    seats = {s["user_id"]: s["seat"] for s in row.seats}
    out = await session.execute(
        select(TournamentEntry.user_id, TournamentEntry.place, TournamentEntry.prize).where(
            TournamentEntry.tournament_id == t.id,
            TournamentEntry.place.is_not(None),
            or_(TournamentEntry.bust_hand == row.number, TournamentEntry.place == 1),
        )
    )
    placed = [(u, p, z) for u, p, z in out if u in seats and p is not None]
    decided = {p for _, p, _ in placed}
    finishes = tuple(
        Finish(seats[u], p, int(z or 0))
        for u, p, z in placed
        if p != 1 or 2 in decided  # the winner is named in the hand that decided 2nd place
    )
    return TournamentOf(t.id, t.name, int(t.buy_in), int(t.fee), t.variant == "rotation", finishes)


def revealed_seats(row: HandRecord, viewer_seat: int | None, *, full: bool = False) -> set[int]:
    """The seats whose down cards this viewer may see (R24)."""
    if full:
        return {s["seat"] for s in row.seats}
    result = row.result or {}
    seen = set(result.get("showdown_seats", []))
    if viewer_seat is not None:
        seen.add(viewer_seat)
    return seen


def history_view(
    row: HandRecord,
    viewer_seat: int | None,
    *,
    full: bool = False,
    tournament: TournamentOf | None = None,
) -> HandHistoryView:
    revealed = revealed_seats(row, viewer_seat, full=full)
    names = {s["seat"]: s["name"] for s in row.seats}
    in_tournament = None
    table_name = row.table_name
    if tournament is not None:
        in_tournament = TournamentText(
            tournament.id, tournament.buy_in, tournament.fee, int(row.level or 1),
            rotation=tournament.rotation, finishes=tournament.finishes,
        )  # fmt: skip
        table_name = row.table_name.rsplit(" ", 1)[-1]  # its number in the tournament
    text = render(
        HandText(
            number=row.number,
            variant=row.variant,
            table_name=table_name,
            max_seats=row.max_seats,
            small_bet=row.rules["small_bet"],
            big_bet=row.rules["big_bet"],
            started_at=row.started_at,
            names=names,
            events=row.events or [],
            rake=row.rake,
            tournament=in_tournament,
            mixed=row.rules.get("rotation") is not None,  # R45
        ),
        viewer_seat=viewer_seat,
        revealed=revealed,
    )
    return HandHistoryView(
        number=row.number,
        table_id=row.table_id,
        variant=row.variant,
        viewer_seat=viewer_seat,
        json=_json(row, viewer_seat, revealed),
        phh=_phh(row, revealed, tournament),
        pokerstars_text=text,
    )


def _json(row: HandRecord, viewer_seat: int | None, revealed: set[int]) -> dict[str, Any]:
    events = []
    pots = event_pots(row)
    for index, event in enumerate(row.events or []):
        out = {k: v for k, v in event.items() if k != "audience"}
        if index in pots:
            out["pots"] = pots[index]
        if out["type"] == "card_dealt" and not out["face_up"] and out["seat"] not in revealed:
            out["card"] = None
        events.append(out)
    result = dict(row.result or {})
    result.pop("deltas", None)
    return {
        "number": str(row.number),  # a string, as the table sends it
        "table_id": row.table_id,
        "table_name": row.table_name,
        "max_seats": row.max_seats,
        "variant": row.variant,
        "rules": row.rules,
        "button": row.button,
        "started_at": row.started_at.isoformat(),
        "ended_at": row.ended_at.isoformat() if row.ended_at else None,
        "seats": [
            {"seat": s["seat"], "name": s["name"], "user_id": s["user_id"], "stack": s["stack"]}
            for s in row.seats
        ],
        "viewer_seat": viewer_seat,
        "events": events,
        "result": result,
        "rake": row.rake,
        "fairness": fairness(row, revealed),
    }


def fairness(row: HandRecord, revealed: Collection[int]) -> dict[str, Any]:
    """The deal's commitment and its reveal for a viewer who may see the down cards of the
    `revealed` seats: it opens only the cards this history shows (never a burn, the stub, or
    another seat's down card, which elimination would give away)."""
    assert row.deck is not None and row.salt is not None
    opened = fair.seen_positions(row.deck, row.events or [], revealed)
    if row.deal is not None:  # seeded-v2: the slots of the positions this history shows
        dealt = seeded.RecordedDeal(row.deal, row.salt)
        return {
            "scheme": seeded.SCHEME,
            "commitment": row.commitment,
            "announce": dealt.announce(),
            "deal_committed": dealt.public,
            "reveal": dealt.reveal(opened),
        }
    return {
        "scheme": fair.SCHEME,
        "commitment": row.commitment,
        "reveal": fair.reveal(row.deck, bytes.fromhex(row.salt), opened),
    }


def rules_of(row: HandRecord) -> Rules:
    r = row.rules
    return Rules(
        Variant(row.variant),
        ante=r["ante"],
        bring_in=r["bring_in"],
        small_bet=r["small_bet"],
        big_bet=r["big_bet"],
        rake_bps=r["rake_bps"],
        rake_cap=r["rake_cap"] or None,
        rake_third_street=r["rake_third_street"],
        timeout_action=r["timeout_action"],
        showdown_first_when_checked=r["showdown_first_when_checked"],
        raise_cap=r.get("raise_cap", True),  # absent from hands recorded before R29
        open_pair=r.get("open_pair", "r14"),
    )


def replay(row: HandRecord, on_step: Callable[[Hand, int], None] | None = None) -> Hand:
    """The hand again, from its revealed deck and salt and its recorded inputs. `on_step`
    sees the hand after each step with the index of the step's first event."""
    if row.deck is None or row.salt is None:
        raise ValueError(f"hand #{row.number} is not finished: nothing to replay")
    hand = Hand.start(
        rules_of(row),
        [SeatSpec(s["seat"], s["stack"]) for s in row.seats],
        row.button,
        fair.parse_deck(row.deck),
        seeded.RecordedDeal(row.deal, row.salt).reshuffle_seed()
        if row.deal is not None
        else fair.reshuffle_seed(bytes.fromhex(row.salt)),
    )
    if on_step is not None:
        on_step(hand, 0)
    for kind, seat, *rest in row.inputs or []:
        first = len(hand.events)
        if kind == "act":
            hand.act(seat, Action(ActionKind(rest[0]), rest[1]))
        elif kind == "award":  # R41: the uncalled winner paid at once
            hand.award_uncontested()
        else:
            hand.time_out(seat, all_in_protection=bool(rest[0]))
        if on_step is not None:
            on_step(hand, first)
    return hand


def event_pots(row: HandRecord) -> dict[int, list[dict[str, Any]]]:
    """The engine's pots on the events that carry them at the table (`POT_EVENTS`), by event
    index, from a replay of the hand (they are not stored with its events)."""
    pots: dict[int, list[dict[str, Any]]] = {}

    def step(hand: Hand, first: int) -> None:
        now: list[dict[str, Any]] | None = None
        for i in range(first, len(hand.events)):
            if hand.events[i].type in POT_EVENTS:
                now = now if now is not None else pots_now(hand)
                pots[i] = now

    try:
        replay(row, step)
    except Exception:  # an old or damaged record: its events go without pots
        return {}
    return pots


_DEAL = re.compile(r"^d dh (p\d+) (\S+)(.*)$")


def _phh(row: HandRecord, revealed: Collection[int], tournament: TournamentOf | None) -> str:
    """PHH text; the down cards of seats R24 hides are written ``??``."""
    hand = replay(row)
    names = {s["seat"]: s["name"] for s in row.seats}
    text = to_phh(
        hand,
        hand_number=row.number,
        players=names,
        seat_count=row.max_seats,
        table=row.table_name,
        tournament=None if tournament is None else tournament.id,
        level=None if tournament is None else int(row.level or 1),
        event=None if tournament is None else tournament.name,
    )
    order = list(hand.events[0].to_dict()["seats"])
    hidden = {f"p{i + 1}" for i, seat in enumerate(order) if seat not in revealed}
    if not hidden:
        return text
    return _mask(text, hidden, _down_flags(row))


def _down_flags(row: HandRecord) -> Mapping[str, list[bool]]:
    """Per player label, whether each card dealt to it was face down, in order."""
    started = (row.events or [{}])[0]
    label = {seat: f"p{i + 1}" for i, seat in enumerate(started.get("seats", []))}
    flags: dict[str, list[bool]] = {}
    for e in row.events or []:
        if e["type"] == "card_dealt":
            flags.setdefault(label[e["seat"]], []).append(not e["face_up"])
    return flags


def _mask(text: str, hidden: set[str], down: Mapping[str, list[bool]]) -> str:
    used: dict[str, int] = {}
    out = []
    for line in text.splitlines(keepends=True):
        stripped = line.strip().strip(",").strip('"')
        m = _DEAL.match(stripped)
        if m and m.group(1) in hidden:
            player, cards = m.group(1), m.group(2)
            start = used.get(player, 0)
            count = len(cards) // 2
            used[player] = start + count
            flags = down.get(player, [])
            masked = "".join(
                "??" if start + i < len(flags) and flags[start + i] else cards[2 * i : 2 * i + 2]
                for i in range(count)
            )
            line = line.replace(f"d dh {player} {cards}", f"d dh {player} {masked}", 1)
        out.append(line)
    return "".join(out)


def public_proof(row: HandRecord) -> dict[str, Any]:
    """A finished hand's public record (`GET /api/proof/{number}`, `verify --public`): what
    the table showed everyone, observers too, and no more: the events with every down card
    of a hand not shown hidden (`null`), the deal's announce and `deal_committed`, and the
    table's public reveal (the slots of the up cards and the hands shown). No names, no
    user ids; never the master salt nor a slot it did not show."""
    assert row.deck is not None and row.salt is not None
    events = row.events or []
    shown = fair.shown_seats(events)
    public_events = [
        {
            **{k: v for k, v in e.items() if k != "audience"},
            **(
                {"card": None}
                if e["type"] == "card_dealt" and not e["face_up"] and e["seat"] not in shown
                else {}
            ),
        }
        for e in events
    ]
    opened = fair.seen_positions(row.deck, events, shown)
    if row.deal is None:  # dealt under sha256-per-card-v1: no announce before the hand
        return {
            "number": str(row.number),
            "scheme": fair.SCHEME,
            "announce": None,
            "deal_committed": {"commitment": row.commitment, "scheme": fair.SCHEME},
            "reveal": fair.reveal(row.deck, bytes.fromhex(row.salt), opened),
            "events": public_events,
        }
    dealt = seeded.RecordedDeal(row.deal, row.salt)
    return {
        "number": str(row.number),
        "scheme": seeded.SCHEME,
        "announce": dealt.announce(),
        "deal_committed": dealt.public,
        "reveal": dealt.reveal(opened),
        "events": public_events,
    }
