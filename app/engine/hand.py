"""One hand of stud, stud8 or razz as a state machine: deal, bet, show, settle.

Deterministic: the same rules, seats, button, deck, seed and inputs replay to the same events.
`act` and `time_out` either apply a legal input and return the events it caused, or raise
`IllegalAction` and change nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.actions import Action, ActionKind, IllegalAction, LegalActions
from app.engine.cards import DECK, Card
from app.engine.events import Event, Folded, TimedOut
from app.engine.flow import HandFlow
from app.engine.rules import MAX_SEATS, Rules, SeatSpec
from app.engine.state import Dealer, Phase, Player, ReshuffleOrder, SeatState
from app.engine.validation import validate


class Hand(HandFlow):
    """A hand in progress. Start one with `Hand.start`; read `events`, `to_act`,
    `legal_actions()`; drive it with `act` and `time_out`."""

    __slots__ = ()

    @classmethod
    def start(
        cls,
        rules: Rules,
        seats: Sequence[SeatSpec],
        button: int,
        deck: Sequence[Card],
        reshuffle_seed: bytes = b"",
        reshuffle_order: ReshuffleOrder | None = None,
    ) -> Hand:
        """Post the antes (R6), deal third street (R7) and prompt the bring-in (R10, R11).

        `deck` is the 52-card order, dealt from index 0; `reshuffle_seed` orders R9's
        reshuffle (see `Dealer.reshuffle`), unless `reshuffle_order` is given: it gets the
        gathered cards (burns, then stub) and returns the order to deal them in."""
        if not 2 <= len(seats) <= MAX_SEATS:
            raise ValueError("a hand needs 2 to 8 players (R1)")
        if len({s.seat for s in seats}) != len(seats):
            raise ValueError("two players in one seat")
        if type(button) is not int or not 0 <= button < MAX_SEATS:
            raise ValueError(f"the button must be a seat number 0..{MAX_SEATS - 1}")
        if sorted(deck) != list(range(52)):
            raise ValueError("the deck must hold each of the 52 cards once")
        order = sorted(seats, key=lambda s: (s.seat - button - 1) % MAX_SEATS)
        players = [Player(s.seat, s.stack) for s in order]
        dealer = Dealer([DECK[c] for c in deck], bytes(reshuffle_seed), reshuffle_order)
        hand = cls(rules, players, button, dealer)
        hand._begin()
        return hand

    # -- reading -----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def rake(self) -> int:
        return self.result.rake if self.result else 0

    def seat_state(self, seat: int) -> SeatState:
        p = self.by_seat[seat]
        return SeatState(
            p.seat,
            p.stack,
            p.wager,
            p.put,
            p.folded,
            p.all_in,
            tuple(p.up),
            tuple(p.down),
            p.shown,
            p.mucked,
        )

    def showdown_hands(self) -> dict[int, tuple[Card, ...]]:
        """R24: the cards of every seat that reached the showdown, shown or mucked (for the
        hand history; never for views). Folded hands are not included."""
        if self.phase is Phase.BETTING or (self.result is not None and not self.result.showdown):
            return {}
        return {p.seat: tuple(p.cards) for p in self.players if not p.folded}

    def legal_actions(self) -> LegalActions:
        if self.to_act is None:
            raise IllegalAction("The hand is over")
        if self._legal is None:
            p = self.players[self._index]
            if self.phase is Phase.BETTING:
                assert self.round is not None
                self._legal = self.round.legal(p)
            else:
                self._legal = LegalActions(p.seat, show=True, muck=True)
        return self._legal

    def beyond_forced(self) -> bool:
        """R42: whether chips beyond the ante and the bring-in are at stake: some player has
        put more than the ante and the bring-in into this hand (a completion, a bet or a
        raise, on any street). Until then (third street facing only the bring-in, and a
        limped pot checked along) nothing but the forced bets is at stake."""
        forced = self.rules.ante + self.rules.bring_in
        return any(p.put > forced for p in self.players)

    # -- inputs ------------------------------------------------------------------------

    def award_uncontested(self) -> list[Event]:
        """R41: the uncalled winner (phase UNCONTESTED) is awarded the pot at once, without
        being asked to show first; they may still show once, after it
        (`show_after_award`). The hand is over."""
        if self.phase is not Phase.UNCONTESTED:
            raise IllegalAction("Nobody has won without being called")
        mark = len(self.events)
        self._may_show = self.players[self._index].seat
        self._settle(showdown=False)
        return self.events[mark:]

    def show_after_award(self, seat: int) -> list[Event]:
        """R41: the uncalled winner awarded at once shows their cards (once)."""
        if self._may_show is None or seat != self._may_show:
            raise IllegalAction("Only the uncalled winner may show, once, after the pot is won")
        self._may_show = None
        self._show(self.by_seat[seat])
        return self.events[-1:]

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply the action of the seat to act; returns the events it caused."""
        if self.to_act is None:
            raise IllegalAction("The hand is over")
        if seat != self.to_act:
            raise IllegalAction("It is not your turn")
        legal = self.legal_actions()
        kind, to = validate(action, legal, self.round, self.players[self._index])
        mark = len(self.events)
        p = self.players[self._index]
        if self.phase is Phase.BETTING:
            assert self.round is not None
            self.events.append(self.round.apply(p, kind, to))
            self._after_action(p)
        else:
            self._decide(p, kind is ActionKind.SHOW)
        return self.events[mark:]

    def time_out(self, seat: int, *, all_in_protection: bool) -> list[Event]:
        """R19: the seat to act ran out of time. With the table's ``all_in`` policy and
        protection left, the seat is all-in for the chips it has put in (it keeps the rest,
        stays in, and can win only what it matched); otherwise it checks if it may, else
        folds. A timed-out bring-in folds or is protected and the bring-in passes left. At a
        show/muck decision the default applies: muck, or don't show."""
        if self.to_act is None:
            raise IllegalAction("The hand is over")
        if seat != self.to_act:
            raise IllegalAction("It is not your turn")
        mark = len(self.events)
        p = self.players[self._index]
        if self.phase is not Phase.BETTING:
            self.events.append(TimedOut(seat, "muck"))
            self._decide(p, False)
            return self.events[mark:]
        rnd = self.round
        assert rnd is not None
        legal = self.legal_actions()
        if self.rules.timeout_action == "all_in" and all_in_protection:
            self.events.append(TimedOut(seat, "all_in"))
            p.all_in = p.protected = True
            p.acted = rnd.seq
        else:
            kind = ActionKind.CHECK if legal.check else ActionKind.FOLD
            self.events.append(TimedOut(seat, kind.value))
            if rnd.bring_in_due:
                p.folded = True
                self.events.append(Folded(seat))
            else:
                self.events.append(rnd.apply(p, kind, 0))
        if rnd.bring_in_due:
            self._pass_bring_in(self._index)
        else:
            self._after_action(p)
        return self.events[mark:]
