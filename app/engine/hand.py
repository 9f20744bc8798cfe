"""One hand of stud, stud8 or razz as a state machine: deal, bet, show, settle.

Deterministic: the same rules, seats, button, deck, seed and inputs replay to the same events.
`act` and `time_out` either apply a legal input and return the events it caused, or raise
`IllegalAction` and change nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.actions import WAGERS, Action, ActionKind, IllegalAction, LegalActions
from app.engine.betting import BettingRound
from app.engine.cards import DECK, Card
from app.engine.evaluate import bring_in_key, showing_key
from app.engine.events import (
    AntePosted,
    BringInDue,
    BurnsReshuffled,
    CardDealt,
    CommunityCardDealt,
    Event,
    Folded,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    RakeTaken,
    ShowDeclined,
    ShowdownStarted,
    StreetStarted,
    TimedOut,
    UncalledBetReturned,
)
from app.engine.pots import Pot, build_pots, rake_amount, take_rake
from app.engine.rules import MAX_SEATS, Rules, SeatSpec
from app.engine.showdown import award_pots, can_win, describe, evaluate, showdown_order
from app.engine.state import Dealer, HandResult, Phase, Player, SeatState

_DECIDE = frozenset({ActionKind.SHOW, ActionKind.MUCK})
_SHOWING: dict[tuple[bool, int], int] = {}


def _showing(up: list[Card], razz: bool) -> int:
    """`showing_key`, memoised by the multiset of ranks (it ignores suits)."""
    ranks = 0
    for c in up:
        ranks += 1 << 3 * (c >> 2)
    key = (razz, ranks)
    value = _SHOWING.get(key)
    if value is None:
        value = _SHOWING[key] = showing_key(up, razz=razz)
    return value


class Hand:
    """A hand in progress. Start one with `Hand.start`; read `events`, `to_act`,
    `legal_actions()`; drive it with `act` and `time_out`."""

    __slots__ = (
        "_index",
        "_lead",
        "_legal",
        "_order",
        "_sd_index",
        "button",
        "by_seat",
        "community",
        "dealer",
        "events",
        "phase",
        "players",
        "pots_at_showdown",
        "result",
        "round",
        "rules",
        "spec",
        "street",
        "to_act",
    )

    def __init__(self, rules: Rules, players: list[Player], button: int, dealer: Dealer) -> None:
        self.rules = rules
        self.spec = rules.spec
        self.button = button
        self.players = players  # dealing order: left of the button first
        self.by_seat = {p.seat: p for p in players}
        self.dealer = dealer
        self.community: Card | None = None
        self.street = 3
        self.phase = Phase.BETTING
        self.events: list[Event] = []
        self.to_act: int | None = None
        self.round: BettingRound | None = None
        self.result: HandResult | None = None
        self.pots_at_showdown: list[Pot] = []
        self._index = 0
        self._legal: LegalActions | None = None
        self._lead: tuple[int | None, int] | None = None  # (aggressor, first actor), R22
        self._order: list[Player] = []
        self._sd_index = 0

    @classmethod
    def start(
        cls,
        rules: Rules,
        seats: Sequence[SeatSpec],
        button: int,
        deck: Sequence[Card],
        reshuffle_seed: bytes = b"",
    ) -> Hand:
        """Post the antes (R6), deal third street (R7) and prompt the bring-in (R10, R11).

        `deck` is the 52-card order, dealt from index 0; `reshuffle_seed` orders R9's
        reshuffle (see `Dealer.reshuffle`)."""
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
        hand = cls(rules, players, button, Dealer([DECK[c] for c in deck], bytes(reshuffle_seed)))
        hand._begin()
        return hand

    # -- reading -----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def stacks(self) -> dict[int, int]:
        return {p.seat: p.stack for p in self.players}

    @property
    def rake(self) -> int:
        return self.result.rake if self.result else 0

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats in the hand in dealing order (left of the button first)."""
        return tuple(p.seat for p in self.players)

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

    def pots(self) -> list[Pot]:
        """The pots formed by the chips put in before this street's wagers."""
        return build_pots([(p.seat, p.put - p.wager, p.folded) for p in self.players])

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

    # -- inputs ------------------------------------------------------------------------

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply the action of the seat to act; returns the events it caused."""
        if self.to_act is None:
            raise IllegalAction("The hand is over")
        if seat != self.to_act:
            raise IllegalAction("It is not your turn")
        legal = self.legal_actions()
        kind, to = self._validate(action, legal)
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

    def _validate(self, action: Action, legal: LegalActions) -> tuple[ActionKind, int]:
        kind = action.kind
        if action.amount is None and (  # the common cases first
            (kind is ActionKind.CALL and legal.call is not None)
            or (kind is ActionKind.CHECK and legal.check)
            or (kind is ActionKind.FOLD and legal.fold)
        ):
            return kind, 0
        if type(kind) is not ActionKind:
            try:
                kind = ActionKind(kind)
            except ValueError:
                raise IllegalAction(f"Unknown action {action.kind!r}") from None
        amount = action.amount
        if amount is not None and type(amount) is not int:
            raise IllegalAction("The amount must be a whole number of chips")
        if kind in _DECIDE:
            if not (legal.show if kind is ActionKind.SHOW else legal.muck):
                raise IllegalAction("There is no show or muck decision now")
            if amount is not None:
                raise IllegalAction(f"{kind.value} takes no amount")
            return kind, 0
        if legal.show:
            raise IllegalAction("The betting is over: show or muck")
        p = self.players[self._index]
        if kind is ActionKind.FOLD or kind is ActionKind.CHECK:
            if amount is not None:
                raise IllegalAction(f"{kind.value} takes no amount")
            if legal.bring_in is not None:
                raise IllegalAction("You must bring in or complete; you may not fold or check")
            if kind is ActionKind.FOLD and not legal.fold:
                raise IllegalAction("Nothing to call: check instead of folding")
            if kind is ActionKind.CHECK and not legal.check:
                raise IllegalAction(f"You cannot check: {legal.call} to call")
            return kind, 0
        if kind is ActionKind.CALL:
            if legal.call is None:
                if legal.bring_in is not None:
                    raise IllegalAction("You must bring in or complete")
                raise IllegalAction("Nothing to call: check or bet")
            if amount is not None and amount != p.wager + legal.call:
                raise IllegalAction(f"A call is to {p.wager + legal.call}")
            return kind, p.wager + legal.call
        assert kind in WAGERS
        allowed: tuple[int, ...]
        if kind is ActionKind.BRING_IN:
            allowed = () if legal.bring_in is None else (legal.bring_in,)
            missing = "Only the bring-in player brings in, before anyone else acts"
            wrong = "The bring-in is {}"
        elif kind is ActionKind.COMPLETE:
            allowed = () if legal.complete is None else (legal.complete,)
            missing = self._why_not(legal, "complete")
            wrong = "Complete to {}"
        elif kind is ActionKind.BET:
            allowed, missing, wrong = legal.bets, self._why_not(legal, "bet"), "Bet to {}"
        else:
            allowed, missing, wrong = legal.raises, self._why_not(legal, "raise"), "Raise to {}"
        if not allowed:
            raise IllegalAction(missing)
        if amount is None:
            if len(allowed) > 1:
                raise IllegalAction(wrong.format(" or ".join(str(a) for a in allowed)))
            return kind, allowed[0]
        if amount not in allowed:
            raise IllegalAction(wrong.format(" or ".join(str(a) for a in allowed)))
        return kind, amount

    def _why_not(self, legal: LegalActions, what: str) -> str:
        if legal.bring_in is not None:
            return "You must bring in or complete"
        if legal.complete is not None:
            return "Third street is not completed yet: complete to the small bet"
        if legal.bets and what == "raise":
            return "There is no bet to raise: bet"
        if legal.raises and what == "bet":
            return "There is a bet already: raise"
        if what == "complete" and self.round is not None and self.round.completed:
            return "There is nothing to complete"
        assert self.round is not None
        p = self.players[self._index]
        reason = self.round.why_no_raise(p)
        if reason:
            return reason
        return "You have no chips beyond the call: you may only call or fold"

    # -- the flow of the hand -----------------------------------------------------------

    def _begin(self) -> None:
        rules, events = self.rules, self.events
        events.append(
            HandStarted(
                self.rules.variant.value,
                self.button,
                tuple(p.seat for p in self.players),
                tuple(p.stack for p in self.players),
            )
        )
        if rules.ante:
            for p in self.players:
                amount = rules.ante if p.stack > rules.ante else p.stack
                p.stack -= amount
                p.put += amount
                p.all_in = not p.stack
                events.append(AntePosted(p.seat, amount, p.all_in))
        events.append(StreetStarted(3))
        cards, pos = self.dealer.cards, 0
        for face_up in (False, False, True):
            for p in self.players:
                card = cards[pos]
                pos += 1
                p.cards.append(card)
                if face_up:
                    p.up.append(card)
                events.append(CardDealt(p.seat, card, face_up, 3))
        self.dealer.pos = pos
        self._open_round()

    def _set_turn(self, p: Player) -> None:
        self._index = self.players.index(p)
        self.to_act = p.seat
        self._legal = None

    def _next_clockwise(self, index: int) -> Player | None:
        """The next seat after `index` still in and not all-in."""
        n = len(self.players)
        for k in range(1, n + 1):
            q = self.players[(index + k) % n]
            if not q.folded and not q.all_in:
                return q
        return None

    def _open_round(self) -> None:
        street, players = self.street, self.players
        active = [p for p in players if not p.folded]
        if sum(1 for p in active if not p.all_in) < 2:
            self.round = None  # nobody left to bet against: deal on
            self._close_round()
            return
        razz = self.spec.razz
        if street == 3:
            first = min(players, key=lambda p: bring_in_key(p.up[0], razz=razz))  # R10
        else:  # R12; max() keeps the first of equal keys: the earliest after the button
            first = max(active, key=lambda p: _showing(p.up, razz))
        open_pair = (
            street == 4
            and self.spec.open_pair_option
            and any(p.up[0] >> 2 == p.up[1] >> 2 for p in active)
        )
        self.round = BettingRound(self.rules, street, players, open_pair)
        if first.all_in:  # R11; on later streets the next seat who can act starts
            nxt = self._next_clockwise(players.index(first))
            assert nxt is not None
            first = nxt
        if street == 3:
            self.events.append(BringInDue(first.seat))
        self._set_turn(first)

    def _pass_bring_in(self, index: int) -> None:
        """The bring-in seat folded or went all-in on a timeout: pass it left (as R11)."""
        active = [p for p in self.players if not p.folded]
        if len(active) < 2 or sum(1 for p in active if not p.all_in) < 2:
            self._close_round()
            return
        nxt = self._next_clockwise(index)
        assert nxt is not None
        self.events.append(BringInDue(nxt.seat))
        self._set_turn(nxt)

    def _after_action(self, p: Player) -> None:
        rnd = self.round
        assert rnd is not None
        if p.folded and sum(1 for q in self.players if not q.folded) == 1:
            self._close_round()
            return
        nxt = rnd.next_actor(self._index)
        if nxt is None:
            self._close_round()
        else:
            self._set_turn(nxt)

    def _close_round(self) -> None:
        rnd = self.round
        if rnd is not None and rnd.first_actor is not None:
            self._lead = (rnd.aggressor, rnd.first_actor)
        self.round = None
        self.to_act = None
        self._legal = None
        self._return_uncalled()
        for p in self.players:
            p.wager = 0
            p.acted = -1
        still_in = [p for p in self.players if not p.folded]
        if len(still_in) == 1:
            self.phase = Phase.UNCONTESTED
            self._set_turn(still_in[0])
        elif self.street == 7 or self.community is not None:
            self._showdown(still_in)
        else:
            self._deal_street()

    def _return_uncalled(self) -> None:
        top = second = None
        for p in self.players:
            if top is None or p.put > top.put:
                top, second = p, top
            elif second is None or p.put > second.put:
                second = p
        assert top is not None and second is not None
        if top.put > second.put:
            excess = top.put - second.put
            top.put -= excess
            top.stack += excess
            top.wager = max(0, top.wager - excess)
            if not top.protected:
                top.all_in = False
            self.events.append(UncalledBetReturned(top.seat, excess))

    def _deal_street(self) -> None:
        self.street += 1
        street, events, dealer = self.street, self.events, self.dealer
        events.append(StreetStarted(street))
        dealer.burn()  # R8
        active = [p for p in self.players if not p.folded]
        if dealer.left < len(active):  # R9
            events.append(BurnsReshuffled(dealer.reshuffle()))
            if dealer.left < len(active):
                assert street == 7, "a 52-card deck runs short only on seventh street"
                self.community = dealer.draw()
                events.append(CommunityCardDealt(self.community, street))
                self._open_round()
                return
        face_up = street < 7
        cards, pos = dealer.cards, dealer.pos
        dealer.pos += len(active)
        for p in active:
            card = cards[pos]
            pos += 1
            p.cards.append(card)
            if face_up:
                p.up.append(card)
            events.append(CardDealt(p.seat, card, face_up, street))
        self._open_round()

    # -- showdown and settling ---------------------------------------------------------

    def _seven(self, p: Player) -> list[Card]:
        return p.cards if self.community is None else [*p.cards, self.community]

    def _showdown(self, still_in: list[Player]) -> None:
        self.phase = Phase.SHOWDOWN
        for p in still_in:
            evaluate(self.spec, p, self._seven(p))
        self.pots_at_showdown = self.pots()
        aggressor, first_actor = self._lead if self._lead else (None, still_in[0].seat)
        if aggressor is not None:
            first = aggressor
        elif self.rules.showdown_first_when_checked == "lowest_seat":
            first = min(p.seat for p in still_in)
        else:
            first = first_actor
        self._order = showdown_order(first, still_in)
        self._sd_index = 0
        self.events.append(ShowdownStarted(tuple(p.seat for p in self._order)))
        self._advance_showdown()

    def _advance_showdown(self) -> None:
        order = self._order
        while self._sd_index < len(order):
            p = order[self._sd_index]
            if self._sd_index and not can_win(self.spec, p, self.pots_at_showdown, self.by_seat):
                self._set_turn(p)  # R23: may show or muck
                return
            self._show(p)
            self._sd_index += 1
        self._settle(showdown=True)

    def _show(self, p: Player) -> None:
        p.shown = True
        hi, lo = describe(self.spec, self._seven(p))
        self.events.append(HandShown(p.seat, tuple(p.cards), hi, lo))

    def _decide(self, p: Player, show: bool) -> None:
        if self.phase is Phase.UNCONTESTED:
            if show:
                self._show(p)
            else:
                self.events.append(ShowDeclined(p.seat))
            self._settle(showdown=False)
            return
        if show:
            self._show(p)
        else:
            p.mucked = True
            self.events.append(HandMucked(p.seat))
        self._sd_index += 1
        self._advance_showdown()

    def _settle(self, *, showdown: bool) -> None:
        rules, events = self.rules, self.events
        pots = self.pots()
        rake = 0
        if self.street > 3 or rules.rake_third_street:  # R4
            rake = rake_amount(sum(p.amount for p in pots), rules.rake_bps, rules.rake_cap)
        raked = take_rake(pots, rake) if rake else pots
        if rake:
            events.append(RakeTaken(rake))
        if showdown:
            seven = {p.seat: self._seven(p) for p in self.players if not p.folded}
            awards = award_pots(self.spec, raked, self.by_seat, seven)
        else:
            awards = award_pots(self.spec, raked, self.by_seat, {})
        for award in awards:
            self.by_seat[award.seat].stack += award.amount
        events.extend(awards)
        events.append(HandEnded(self.seats, tuple(p.stack for p in self.players)))
        for p in self.players:
            p.put = 0
        self.phase = Phase.OVER
        self.to_act = None
        self._legal = None
        self.result = HandResult(
            tuple(pots), rake, tuple(awards), self.stacks, showdown, self.street
        )
