"""One fixed-limit betting round: who may do what, for how much (R13–R18).

R14, Stud Hi's fourth street with an open pair: every bet or raise may be by the small or the
big bet until one goes more than a small bet over the last full wager (a big one, or an all-in
toward it); from then on the unit is the big bet.

R29: with `Rules.raise_cap` off there is no cap: raises go on while anyone can call them.

Terms: `level` is the highest wager on the street; a *full* bet or raise (the completion on
third street) counts toward the cap of a bet and three raises and reopens the betting: every
seat that acted before it may raise again. `base` is the level of the last full wager and the
next full raise goes to ``base + unit``.

R18, the half-bet rule, measured from `base`: an all-in that raises the level by at least half
a unit is a full raise (``base`` becomes the all-in amount). Less is not a raise: seats that
already acted since the last full wager may only call or fold; seats still to act may call or
raise to ``base + unit``. Third street, before the completion: an all-in between the bring-in
and the small bet is never the completion (the next full wager is still "complete to the small
bet" and it does not count toward the cap); it reopens the betting for the seats that already
acted (the bring-in player and callers may then complete) only when it exceeds the bring-in
by at least half of (small bet - bring-in), else those seats may only call or fold.
"""

from __future__ import annotations

from app.engine.actions import ActionKind, LegalActions
from app.engine.events import Bet, BroughtIn, Called, Checked, Completed, Event, Folded, Raised
from app.engine.rules import Rules
from app.engine.state import Player
from app.engine.streets import BRING_IN, Street

CAP = 4
"""A bet (on third street: the completion) and three raises (R16)."""

_LEGAL: dict[tuple[object, ...], LegalActions] = {}


class BettingRound:
    __slots__ = (
        "aggressor",
        "base",
        "big",
        "bring_in_due",
        "completed",
        "count",
        "first_actor",
        "level",
        "open_pair",
        "players",
        "rules",
        "seq",
        "street",
        "unit",
    )

    def __init__(
        self, rules: Rules, street: Street, players: list[Player], open_pair: bool
    ) -> None:
        self.rules = rules
        self.street = street
        self.players = players
        self.open_pair = open_pair  # R14: small or big wagers (stud, fourth street)
        # R13: the street the bring-in opens is not complete until someone completes it
        self.bring_in_due = street.opener is BRING_IN
        self.completed = not self.bring_in_due
        self.unit = rules.big_bet if street.big_bet else rules.small_bet
        self.big = False  # R14: once a wager is big, every later one is
        self.level = 0
        self.base = 0
        self.count = 0  # full bets and raises so far (R16)
        self.seq = 0  # bumped whenever the betting reopens
        self.aggressor: int | None = None  # the seat of the last bet or raise (R22)
        self.first_actor: int | None = None  # the first seat that acted (R22)

    # -- whose turn --------------------------------------------------------------------

    def next_actor(self, index: int) -> Player | None:
        """The next seat clockwise after `index` that must act, or None: the round is over
        (R17). A seat must act if it owes chips, or has not acted while someone else can still
        act."""
        players = self.players
        n = len(players)
        many = 0
        for q in players:
            if not q.folded and not q.all_in:
                many += 1
        many_left = many >= 2
        level = self.level
        for k in range(1, n + 1):
            q = players[(index + k) % n]
            if q.folded or q.all_in:
                continue
            if q.wager < level or (many_left and q.acted < 0):
                return q
        return None

    # -- what the seat may do ----------------------------------------------------------

    def legal(self, p: Player) -> LegalActions:
        rules = self.rules
        stack = p.stack
        if self.bring_in_due:  # R13: must bring in or complete, never fold or check
            bring_in = rules.bring_in if stack > rules.bring_in else stack
            complete = None
            if stack > rules.bring_in and rules.bring_in < rules.small_bet:
                complete = rules.small_bet if stack > rules.small_bet else stack
            return LegalActions(p.seat, bring_in=bring_in, complete=complete)
        owe = self.level - p.wager
        call = None if owe <= 0 else (owe if owe < stack else stack)
        complete = None
        bets: tuple[int, ...] = ()
        raises: tuple[int, ...] = ()
        all_in_to = p.wager + stack
        if all_in_to > self.level and self.why_no_raise(p) is None:
            if not self.completed:
                complete = rules.small_bet if all_in_to > rules.small_bet else all_in_to
            else:
                targets = self.targets()
                amounts: tuple[int, ...]
                if len(targets) == 1:
                    amounts = (targets[0] if targets[0] < all_in_to else all_in_to,)
                else:
                    amounts = tuple(sorted({t if t < all_in_to else all_in_to for t in targets}))
                if self.level == 0:
                    bets = amounts
                else:
                    raises = amounts
        key = (p.seat, call, complete, bets, raises)
        legal = _LEGAL.get(key)
        if legal is None:  # LegalActions is immutable: equal ones are shared
            if len(_LEGAL) >= 4096:
                _LEGAL.clear()
            legal = _LEGAL[key] = LegalActions(
                p.seat, call is not None, call is None, call, None, complete, bets, raises
            )
        return legal

    def targets(self) -> tuple[int, ...]:
        """The full "to" amounts of the next bet or raise: with the R14 option, by the small
        or the big bet until someone has gone big."""
        if self.open_pair and not self.big:
            return (self.base + self.rules.small_bet, self.base + self.rules.big_bet)
        return (self.base + self.unit,)

    def why_no_raise(self, p: Player) -> str | None:
        """Why `p` may not bet, complete or raise now (ignoring the stack), or None."""
        if self.count >= CAP and self.rules.raise_cap:
            return "The betting is capped (a bet and three raises): you may only call or fold"
        if p.acted >= self.seq:
            return "The betting was not reopened to you: you may only call or fold"
        level = self.level
        for q in self.players:
            if q is not p and not q.folded and not q.all_in and q.wager + q.stack > level:
                return None
        return "Everyone else is all-in: you may not bet or raise"

    # -- doing it ----------------------------------------------------------------------

    def apply(self, p: Player, kind: ActionKind, to: int) -> Event:
        """Apply an already validated action; `to` is the "to" amount of a wager."""
        rules = self.rules
        seat = p.seat
        ev: Event
        if self.first_actor is None:
            self.first_actor = seat
        if kind is ActionKind.FOLD:
            p.folded = True
            ev = Folded(seat)
        elif kind is ActionKind.CHECK:
            ev = Checked(seat)
        elif kind is ActionKind.CALL:
            owe = self.level - p.wager
            ev = Called(seat, self._put(p, owe if owe < p.stack else p.stack), p.all_in)
        elif kind is ActionKind.BRING_IN:
            self._put(p, to - p.wager)
            self.bring_in_due = False
            self.level = to
            self.aggressor = seat
            if to >= rules.small_bet:  # a bring-in of a full small bet is the completion
                self._full(rules.small_bet)
                self.completed = True
            ev = BroughtIn(seat, to, p.all_in)
        else:
            level = self.level
            self._put(p, to - p.wager)
            self.bring_in_due = False
            if not self.completed:
                full = to >= rules.small_bet
                if full:
                    self.completed = True
                    self._full(rules.small_bet)
                elif 2 * (to - rules.bring_in) >= rules.small_bet - rules.bring_in:
                    self.seq += 1  # reopens, but is not the completion
                ev = Completed(seat, to, p.all_in, full)
            else:
                # R14: more than a small bet over the last full wager is the big bet (or an
                # all-in toward it): from now on the street's unit is the big bet
                if self.open_pair and not self.big and to - self.base > rules.small_bet:
                    self.big = True
                    self.unit = rules.big_bet
                full = 2 * (to - self.base) >= self.unit
                if full:
                    self._full(to)
                ev = (Bet if level == 0 else Raised)(seat, to, p.all_in, full)
            if to > level:
                self.level = to
            self.aggressor = seat
        p.acted = self.seq
        return ev

    def _full(self, to: int) -> None:
        self.count += 1
        self.base = to
        self.seq += 1

    @staticmethod
    def _put(p: Player, chips: int) -> int:
        p.stack -= chips
        p.wager += chips
        p.put += chips
        if not p.stack:
            p.all_in = True
        return chips
