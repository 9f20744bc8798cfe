"""Test helpers for mail: a real SMTP server on loopback (aiosmtpd), a fake clock, users, and
a real engine hand stored in the database as the table server stores it (what the mail's real
history source, `StoredHistory`, reads and renders for each recipient)."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from sqlalchemy import select, update

from app.engine import Action, ActionKind, Hand, Rules, SeatSpec, Variant, commitment
from app.engine.events import StreetStarted
from app.engine.scripted import dealing_order, scripted_deck
from app.store import hands, ledger
from app.store.db import Database
from app.store.hands import HandFinish, HandStart
from app.store.models import User
from tests.store.cards_seen import Deal
from tests.store.factories import make_table, make_user


def free_port() -> int:
    """A loopback port nothing listens on (for "the SMTP server is down")."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes

    @property
    def message(self) -> EmailMessage:
        parsed = message_from_bytes(self.data, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


class SmtpSink:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 that keeps what it receives. `refuse` makes
    it answer RCPT with that reply (e.g. "550 no such user")."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.received: list[Received] = []
        self.refuse: str | None = None
        self._loop = asyncio.get_running_loop()
        self._arrived = asyncio.Event()
        self._controller: Controller | None = None

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if self.refuse:
            return self.refuse
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append(
            Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content))
        )
        self._loop.call_soon_threadsafe(self._arrived.set)
        return "250 Message accepted for delivery"

    async def start(self) -> None:
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        await asyncio.to_thread(self._controller.start)

    async def stop(self) -> None:
        if self._controller is not None:
            await asyncio.to_thread(self._controller.stop)
            self._controller = None

    async def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Until `count` messages have arrived (fails after `timeout` seconds)."""
        async with asyncio.timeout(timeout):
            while len(self.received) < count:
                self._arrived.clear()
                if len(self.received) >= count:
                    break
                await self._arrived.wait()
        return self.received

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


async def make_player(db: Database, name: str, *, verified: bool = True) -> User:
    async with db.transaction() as session:
        user = await make_user(session, name)
        if verified:
            await session.execute(
                update(User).where(User.id == user.id).values(email_verified=True)
            )
            user.email_verified = True
    return user


# -- a real hand, stored as the table server stores it ----------------------------------------

RULES = Rules(Variant.STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
BUTTON = 2
STACK = 1000
# seat 0 folds on fifth street; seat 1 calls down and mucks; seat 2 wins with kings and tens
CARDS = {0: "7h 7d 4d 2c 3c", 1: "As Ah 9c Jc 4s 8s 6h", 2: "Ks Kd Tc 5h 5d Qh Ts"}
FOLDED_DOWN = ("7h", "7d")
MUCKED = ("As", "Ah", "6h")


def play_showdown(hand: Hand) -> tuple[Hand, list[list[Any]]]:
    """Play the hand out; returns it and its inputs as the table records them."""
    inputs: list[list[Any]] = []
    while hand.to_act is not None:
        legal = hand.legal_actions()
        streets = [e.street for e in hand.events if isinstance(e, StreetStarted)]
        street = streets[-1] if streets else 3
        if legal.show:
            action = Action(ActionKind.SHOW if legal.seat == 2 else ActionKind.MUCK)
        elif street == 5 and legal.seat == 0 and legal.call is not None:
            action = Action(ActionKind.FOLD)
        elif street == 5 and legal.bets:
            action = Action(ActionKind.BET, legal.bets[0])
        elif legal.bring_in is not None:
            action = Action(ActionKind.BRING_IN, legal.bring_in)
        else:
            action = Action(ActionKind.CHECK if legal.check else ActionKind.CALL)
        inputs.append(["act", legal.seat, action.kind.value, action.amount])
        hand.act(legal.seat, action)
    return hand, inputs


async def store_showdown_hand(db: Database, users: Mapping[int, int]) -> int:
    """Play the showdown hand at a new table with `users` seated (seat -> user id, every seat
    of `CARDS`) and store it as the table server does, under a hand number reserved as the
    tables reserve theirs: the record and its ledger settlement in one transaction. Returns
    the hand's number."""
    assert set(users) == set(CARDS)
    hand_id = secrets.token_hex(8)
    salt = secrets.token_bytes(commitment.SALT_BYTES)
    order = dealing_order(list(CARDS), BUTTON)
    deck_cards = scripted_deck(order, CARDS, last_street={0: 5})
    start_hand = Hand.start(
        RULES,
        [SeatSpec(s, STACK) for s in CARDS],
        BUTTON,
        deck_cards,
        commitment.reshuffle_seed(salt),
    )
    hand, inputs = play_showdown(start_hand)
    async with db.transaction() as session:
        [number] = await hands.reserve_numbers(session, 1)
        names = {
            user.id: user.name
            for user in await session.scalars(select(User).where(User.id.in_(users.values())))
        }
        table = await make_table(session, small_bet=RULES.small_bet, ante=RULES.ante)
        for seat, user_id in users.items():
            await ledger.buy_in(
                session,
                user_id=user_id,
                table_id=table.id,
                amount=STACK,
                key=f"{hand_id}:{seat}",
                seat_no=seat,
            )
    result = hand.result
    assert result is not None
    deltas = {users[s]: result.stacks[s] - STACK for s in hand.seats}
    start = HandStart(
        hand_id=hand_id,
        number=number,
        table_id=table.id,
        table_name=table.name,
        max_seats=table.max_seats,
        variant=str(RULES.variant),
        rules={
            "ante": RULES.ante,
            "bring_in": RULES.bring_in,
            "small_bet": RULES.small_bet,
            "big_bet": RULES.big_bet,
            "rake_bps": 0,
            "rake_cap": 0,
            "rake_third_street": False,
            "timeout_action": "all_in",
            "showdown_first_when_checked": "first_to_act",
        },
        button=BUTTON,
        seats=[
            {"seat": s, "user_id": u, "name": names[u], "stack": STACK} for s, u in users.items()
        ],
        commitment=commitment.commit(deck_cards, salt),
    )
    finish = HandFinish.from_hand(
        start, hand, deck=deck_cards, salt=salt, inputs=inputs, deltas=deltas
    )
    async with db.transaction() as session:
        await hands.record_start(session, start)
        assert await hands.record_finished(session, finish)
    return number


async def stored_deal(db: Database, number: int) -> Deal:
    """The stored hand's cards: what each viewer of it may see (R24)."""
    async with db.session() as session:
        row = await hands.hand_by_number(session, number)
    assert row is not None
    return Deal.of(row)
