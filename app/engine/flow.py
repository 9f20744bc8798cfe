"""The flow of a hand: antes and deal, betting rounds, later streets, showdown, settling.

`HandFlow` holds a hand's whole state; `Hand` (hand.py) adds the public inputs and reading.
"""

from __future__ import annotations

from app.engine.actions import LegalActions
from app.engine.betting import BettingRound
from app.engine.cards import Card
from app.engine.evaluate import bring_in_key, showing_key
from app.engine.events import (
    AntePosted,
    BringInDue,
    BurnsReshuffled,
    CardDealt,
    CommunityCardDealt,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    RakeTaken,
    ShowDeclined,
    ShowdownStarted,
    StreetStarted,
    UncalledBetReturned,
)
from app.engine.pots import Pot, build_pots, rake_amount, take_rake
from app.engine.rules import Rules
from app.engine.showdown import award_pots, can_win, describe, evaluate, showdown_order
from app.engine.state import Dealer, HandResult, Phase, Player
from app.engine.streets import BRING_IN, STREETS, Street

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


class HandFlow:
    """A hand's state and the transitions between its phases; see `Hand`."""

    __slots__ = (
        "_index",
        "_lead",
        "_legal",
        "_may_show",
        "_order",
        "_sd_index",
        "_street",
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
        self._street: Street = STREETS[0]
        self.street = self._street.number  # public: what events and results carry
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
        self._may_show: int | None = None  # the uncalled winner awarded at once (R41)

    @property
    def stacks(self) -> dict[int, int]:
        return {p.seat: p.stack for p in self.players}

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats in the hand in dealing order (left of the button first)."""
        return tuple(p.seat for p in self.players)

    def pots(self) -> list[Pot]:
        """The pots formed by the chips put in before this street's wagers."""
        return build_pots([(p.seat, p.put - p.wager, p.folded) for p in self.players])

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
        events.append(StreetStarted(self.street))
        self._deal(self.players)
        self._open_round()

    def _deal(self, players: list[Player]) -> None:
        """Deal the street's cards round the table one at a time, each card to every player
        in turn (R7, R8)."""
        street, dealer = self._street, self.dealer
        number, tell = street.number, self.events.append  # the hot loop of a hand
        cards, pos = dealer.cards, dealer.pos
        for face_up in street.faces:
            for p in players:
                card = cards[pos]
                pos += 1
                p.cards.append(card)
                if face_up:
                    p.up.append(card)
                tell(CardDealt(p.seat, card, face_up, number))
        dealer.pos = pos

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
        street, players = self._street, self.players
        active = [p for p in players if not p.folded]
        can_bet = 0
        for p in active:  # a plain loop: a generator costs more, five times a hand
            if not p.all_in:
                can_bet += 1
        if can_bet < 2:
            self.round = None  # nobody left to bet against: deal on
            self._close_round()
            return
        razz = self.spec.razz
        if street.opener is BRING_IN:
            first = min(players, key=lambda p: bring_in_key(p.up[0], razz=razz))  # R10
        else:  # R12; max() keeps the first of equal keys: the earliest after the button
            first = max(active, key=lambda p: _showing(p.up, razz))
        open_pair = (  # R14, unless the table plays TDA RP-10-F (R30)
            street.open_pair_option
            and self.spec.open_pair_option
            and self.rules.open_pair == "r14"
            and any(p.up[0] >> 2 == p.up[1] >> 2 for p in active)
        )
        self.round = BettingRound(self.rules, street, players, open_pair)
        if first.all_in:  # R11; on later streets the next seat who can act starts
            nxt = self._next_clockwise(players.index(first))
            assert nxt is not None
            first = nxt
        if street.opener is BRING_IN:
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
        elif self._street.last or self.community is not None:
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
        street = self._street = STREETS[STREETS.index(self._street) + 1]
        self.street = street.number
        events, dealer = self.events, self.dealer
        events.append(StreetStarted(street.number))
        if street.burn:  # R8
            dealer.burn()
        active = [p for p in self.players if not p.folded]
        needed = len(active) * len(street.faces)
        if dealer.left < needed:  # R9
            events.append(BurnsReshuffled(dealer.reshuffle()))
            if dealer.left < needed:
                assert street.last, "a 52-card deck runs short only on seventh street"
                self.community = dealer.draw()
                events.append(CommunityCardDealt(self.community, street.number))
                self._open_round()
                return
        self._deal(active)
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
        if self._street.raked or rules.rake_third_street:  # R4
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
