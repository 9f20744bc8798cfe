"""The hand engine: Stud Hi, Stud Hi/Lo and Razz as docs/rules.md states them. Standard
library only, no I/O, no clock, no randomness inside: the same inputs always replay to the
same hand.

Public API (everything below is importable from `app.engine`)::

    rules = Rules(Variant.STUD, ante=10, bring_in=25, small_bet=50, big_bet=100,
                  rake_bps=500, rake_cap=300, rake_third_street=False,
                  timeout_action="all_in", showdown_first_when_checked="first_to_act")
    hand = Hand.start(rules, [SeatSpec(0, 1000), SeatSpec(3, 800)], button=0,
                      deck=shuffled_deck(), reshuffle_seed=b"...")
    # or reshuffle_order=f: R9's gathered cards (burns, then stub) -> the order to deal them
    # in, instead of the seeded order (a replay deals what a history records)
    hand.events          # list[Event]: antes, the third-street deal, BringInDue so far
    hand.to_act          # seat to act (a wager or a show/muck decision); None when over
    hand.legal_actions() # LegalActions: exact amounts ("to" amounts for wagers)
    hand.act(seat, Action(ActionKind.RAISE, 100))   # -> new events, or IllegalAction
    hand.time_out(seat, all_in_protection=True)     # R19 -> new events
    hand.is_over, hand.stacks, hand.rake, hand.result (HandResult once over)
    hand.seats, hand.seat_state(seat), hand.pots(), hand.street, hand.phase, hand.community
    hand.showdown_hands()  # R24: every showdown hand, mucked or not (history only)
    view_for(hand, seat), observer_view(hand)        # JSON-friendly snapshots (views.py)

Modules: rules.py (Rules, SeatSpec), variants.py (the registry), actions.py (Action,
LegalActions, IllegalAction), events.py, hand.py (Hand: inputs and reading), flow.py (deal,
rounds, showdown, settling), betting.py (one betting round, R13-R18), validation.py (refusals
with readable reasons), showdown.py and pots.py (R20-R23, R4), state.py (Player, Dealer,
SeatState, HandResult, Phase), views.py. `app.engine.scripted` builds decks that deal chosen
cards (`scripted_deck`, `scripted_hand`, `dealing_order`) and plays "3: call, 5: raise 40"
scripts, for tests and replays.

Phases (`hand.phase`): BETTING; SHOWDOWN while a seat that can win nothing decides show or
muck (R23); UNCONTESTED while the uncalled winner decides show or don't show; OVER. Pots are
awarded after that last decision.

Amounts: ints in the table's chip unit. `Action.amount` for BRING_IN, COMPLETE, BET and RAISE
is the seat's total wager on the street after the action; it may be omitted when only one
amount is legal (with two, e.g. the R14 option, it must be given). CALL may carry its "to"
amount. `LegalActions.call` is the chips a call adds; `bets`/`raises` list the legal
"to" amounts: two with the R14 fourth-street option (a bet or raise by the small or the big
bet), an all-in amount when the stack is short. `LegalActions.actions()` lists every legal
`Action`.

Events (events.py) are frozen dataclasses with `audience` (None = everyone, else the one seat
that may see it), `public()` (the redacted counterpart: a face-down `CardDealt` without its
card) and `to_dict()` (JSON-friendly, cards as "As"). In order: HandStarted, AntePosted*,
StreetStarted(3), CardDealt* (down, down, up; one at a time from the button's left),
BringInDue, then BroughtIn / Completed / Bet / Raised / Called / Checked / Folded / TimedOut,
UncalledBetReturned, StreetStarted(4..7), BurnsReshuffled, CommunityCardDealt, ShowdownStarted,
HandShown / HandMucked / ShowDeclined, RakeTaken, PotAwarded*, HandEnded.

Readings where a rule leaves room (docs/rules.md states each; see also betting.py for R14
and R18):
- R9: the reshuffle orders burns + stub by sha256(reshuffle_seed + bytes([card])). The
  community card is not part of anyone's showing hand for R12.
- R11/R12: the bring-in and the best showing hand are found among all seats still in,
  all-in ones included; if that seat is all-in, the next seat clockwise who can act starts.
  No betting round opens when fewer than two seats can act (the cards are dealt on).
- R13/R19: a timed-out bring-in seat folds (or, protected, is all-in) and the bring-in passes
  to its left as in R11. A protected timeout always uses the protection, even when a check
  was possible. Folding is not offered when checking is.
- R18: see betting.py. A bet/raise is offered only if another seat could still call it.
  Uncalled chips (antes included) go back when a round closes.
- R22: "the last round" is the last street on which anyone acted; the bring-in and an all-in
  short of a full raise count as bets. With no betting round at all the first-to-act seat is
  the first still in after the button.
- R23: "can win" compares with the hands already shown, pot by pot (pots with one eligible
  seat do not count); a seat in no contested pot it could win is asked show or muck. Such a
  one-seat pot goes to its seat even if it mucks.
- R21: the odd-chip card is the highest of the five used: for a high hand aces high (a wheel's
  ace), for a low aces low; ties of rank go by suit.
- R14: an all-in more than a small bet over the last full wager goes big, as a big bet or
  raise does; small and big raises count alike toward the cap.
- R4: a hand "ends on third street" when fourth street was never dealt (an all-in run-out
  did not). Rake is a percentage of all pots together, capped (a cap of 0 is no cap), taken
  from the main pot first.
- PHH import (phh.py, phh_unknown.py): a card recorded as ``??`` decides nothing; unknown
  door cards follow the recorded bring-in, else the history is refused naming them.
"""

from app.engine.actions import Action, ActionKind, IllegalAction, LegalActions
from app.engine.events import (
    AntePosted,
    Bet,
    BringInDue,
    BroughtIn,
    BurnsReshuffled,
    Called,
    CardDealt,
    Checked,
    CommunityCardDealt,
    Completed,
    Event,
    Folded,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    PotAwarded,
    Raised,
    RakeTaken,
    ShowDeclined,
    ShowdownStarted,
    StreetStarted,
    TimedOut,
    UncalledBetReturned,
)
from app.engine.hand import Hand
from app.engine.pots import Pot
from app.engine.rules import MAX_SEATS, Rules, SeatSpec
from app.engine.state import HandResult, Phase, ReshuffleOrder, SeatState
from app.engine.variants import VARIANTS, Variant, VariantSpec, spec_of
from app.engine.views import observer_view, view_for

__all__ = [
    "MAX_SEATS",
    "VARIANTS",
    "Action",
    "ActionKind",
    "AntePosted",
    "Bet",
    "BringInDue",
    "BroughtIn",
    "BurnsReshuffled",
    "Called",
    "CardDealt",
    "Checked",
    "CommunityCardDealt",
    "Completed",
    "Event",
    "Folded",
    "Hand",
    "HandEnded",
    "HandMucked",
    "HandResult",
    "HandShown",
    "HandStarted",
    "IllegalAction",
    "LegalActions",
    "Phase",
    "Pot",
    "PotAwarded",
    "Raised",
    "RakeTaken",
    "ReshuffleOrder",
    "Rules",
    "SeatSpec",
    "SeatState",
    "ShowDeclined",
    "ShowdownStarted",
    "StreetStarted",
    "TimedOut",
    "UncalledBetReturned",
    "Variant",
    "VariantSpec",
    "observer_view",
    "spec_of",
    "view_for",
]
