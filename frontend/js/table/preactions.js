// Pre-actions: what this player chose before their turn (check/fold, check, call this amount,
// call any, fold to any bet), kept, cleared and played here in the browser the instant the
// turn arrives, as PokerStars does (docs/design.md, "The browser client": why not the server).
// Pure functions over the table's state (model.js): the page holds the choice.

import { mySeat } from "./model.js";

/** What this seat would add to call now (0: nothing to call; a short stack calls all-in), or
 * null when no pre-action may be set: no hand, a showdown, the seat folded or all-in, the
 * cards still being dealt, or third street before its bring-in (the bring-in and its
 * completion are what the others answer). */
export function facing(state) {
  const hand = state.hand;
  const seat = mySeat(state);
  if (!hand || hand.over || hand.phase !== "betting" || seat === null || hand.street < 3) return null;
  const me = hand.players[seat];
  if (!me || me.folded || me.all_in || me.stack <= 0) return null;
  const top = Math.max(0, ...Object.values(hand.players).map((p) => p.wager));
  if (hand.street === 3 && top === 0) return null;
  return Math.min(top - me.wager, me.stack);
}

/** The pre-actions to offer now (not on this player's turn): [{kind, amount}]. The one chosen
 * stays listed while it holds, even where it would not be offered afresh. */
export function offered(state, chosen) {
  const owed = facing(state);
  const hand = state.hand;
  if (owed === null || hand.to_act === mySeat(state)) return [];
  const list =
    owed === 0
      ? [{ kind: "check_fold" }, { kind: "check" }, { kind: "call_any" }, { kind: "fold_any" }]
      : [{ kind: "check_fold" }, { kind: "call", amount: owed }, { kind: "call_any" }];
  if (chosen && !list.some((o) => o.kind === chosen.kind)) list.push({ kind: chosen.kind, amount: chosen.amount });
  return list.map((o) => ({ ...o, owed }));
}

/** A choice as set now, tied to this hand and street. */
export function choose(state, kind, amount) {
  return { kind, amount: amount ?? null, hand_id: state.hand.hand_id, street: state.hand.street };
}

/** The choice after an event, or null once the action changed under it: every choice ends
 * with its street (and hand); "check" ends when a bet arrives; "call this amount" when the
 * amount to call changes (a raise, a completion); check/fold, call any and fold to any bet
 * hold through bets (that is what they are for). */
export function kept(state, chosen) {
  if (!chosen) return null;
  const hand = state.hand;
  if (!hand || hand.hand_id !== chosen.hand_id || hand.street !== chosen.street) return null;
  const owed = facing(state);
  if (owed === null) return null;
  if (chosen.kind === "check" && owed > 0) return null;
  if (chosen.kind === "call" && owed !== chosen.amount) return null;
  return chosen;
}

/** The action the choice plays on this player's turn (`legal`: the server's), or null. A
 * bring-in is always the player's own decision (bring in or complete). */
export function decide(chosen, legal) {
  if (!chosen || !legal || legal.bring_in !== null) return null;
  switch (chosen.kind) {
    case "check_fold":
    case "fold_any":
      return legal.check ? "check" : legal.fold ? "fold" : null;
    case "check":
      return legal.check ? "check" : null;
    case "call":
      return legal.call !== null && legal.call === chosen.amount ? "call" : null;
    case "call_any":
      return legal.call !== null ? "call" : legal.check ? "check" : null;
    default:
      return null;
  }
}

/** What is left of the choice once played: fold to any bet stays for the street (it checks
 * while it may and folds to the first bet); every other choice is used up. */
export function afterPlayed(chosen, action) {
  return chosen && chosen.kind === "fold_any" && action === "check" ? chosen : null;
}
