// Drawing the table: seats around the oval felt, their cards and bets, the pots in the middle.
// Each part is redrawn only when what it shows changed (keyboard focus survives updates).

import { card, cardBack, studCards } from "../cards.js";
import { h, variantName } from "../dom.js";
import { amount as chips, handName, t } from "../i18n.js";
import { displayPots, mySeat, seatName, streetName } from "./model.js";

/** Replace `el`'s children with `build()` only when `key` differs from last time. */
export function keyed(el, key, build) {
  if (el.dataset.key === key) return false;
  el.dataset.key = key;
  el.replaceChildren(...[build()].flat().filter(Boolean));
  return true;
}

// Each seat's angle (degrees, clockwise from the viewer's at the bottom) and its bet's place
// (% of the felt), for 2 to 8 seats (R1): chosen so that, with 7 cards each, no seat's cards
// reach another's plate and every bet lies between its seat and the pots, at every felt size
// (tests/frontend/test_felt_layout.py draws them full). The viewer's bet lies above their cards.
const SEATING = {
  2: { angles: [90, 270], bets: [[50, 66.5], [50, 28]] },
  3: { angles: [90, 210, 330], bets: [[50, 66.5], [33, 47], [67, 47]] },
  4: { angles: [90, 180, 270, 0], bets: [[50, 66.5], [33, 50], [50, 28], [67, 50]] },
  5: { angles: [90, 162, 234, 306, 18], bets: [[50, 66.5], [34, 57], [38, 36], [62, 36], [66, 57]] },
  6: { angles: [90, 152, 211, 270, 329, 28], bets: [[50, 66.5], [34, 57], [33, 44], [50, 28], [67, 44], [66, 57]] },
  7: { angles: [90, 152, 195, 246, 294, 345, 28], bets: [[50, 66.5], [34, 57], [34, 44], [40, 32], [60, 32], [66, 44], [66, 57]] },
  8: { angles: [90, 145, 188, 233, 270, 307, 352, 35], bets: [[50, 66.5], [34, 57], [25, 47], [37, 36], [50, 28], [63, 36], [75, 47], [66, 57]] },
};

/** Seat positions around the oval: the viewer at the bottom, then clockwise; `bet` is where
 * the seat's bet lies, in % of the felt. */
export function place(seat, anchor, n) {
  const i = (seat - anchor + n) % n;
  const seating = SEATING[n];
  const angle = (seating.angles[i] * Math.PI) / 180;
  return { x: Math.cos(angle), y: Math.sin(angle), i, bet: seating.bets[i] };
}

/** On a portrait (phone) felt there is no room around an oval: three columns. The others
 * stand in the side columns, top-aligned in rows (one more at the top of the middle column
 * when their number is odd); the pots sit in the middle and the viewer at the bottom of it.
 * Each seat carries its own bet below its plate, so nothing reaches into another column.
 * `{col: -1|0|1, top: % from the felt's top, bottom: true for the viewer}`. */
export function placePortrait(seat, anchor, n) {
  const i = (seat - anchor + n) % n;
  if (i === 0) return { col: 0, top: 98, bottom: true, i };
  const others = n - 1;
  const atTop = others % 2 === 1;
  const k = Math.floor(others / 2); // seats in each side column
  // the rows' tops, from the top down: two rows a side close enough that the lower one clears
  // the viewer's cards; three (7 or 8 seats, on a taller felt) a quarter of the felt apart
  const row = (j) => (k > 1 ? 1 + j * Math.min(39, 48 / (k - 1)) : 24);
  if (atTop && i === k + 1) return { col: 0, top: 1, bottom: false, i };
  if (i <= k) return { col: -1, top: row(k - i), bottom: false, i }; // clockwise: up the left
  const j = i - k - (atTop ? 2 : 1);
  return { col: 1, top: row(j), bottom: false, i }; // and down the right
}

function seatView(state, seat, ctx) {
  const info = state.seats.find((s) => s.seat === seat);
  const hand = state.hand;
  const p = hand ? hand.players[seat] : null;
  const me = ctx.me === seat;
  // a player who left is gone from the felt once out of the hand (folded, mucked, or it ended)
  if (!info && (!p || p.folded || p.mucked || hand.over)) {
    const label = t("seat.number", { n: seat + 1 });
    // at a tournament's table the director seats the players: no seat is offered
    if (ctx.me !== null || state.closed || state.table?.tournament) return { key: `empty/${label}`, node: () => h("div.seat-empty", { "aria-label": t("seat.empty", { n: seat + 1 }) }, label) };
    // a seat held for the waiting list's first in line (R44): only they may take it
    if (state.waiting?.offered?.includes(seat) && state.offer?.seat !== seat) {
      return { key: `held/${label}`, node: () => h("div.seat-empty.seat-held", { dataset: { seat } }, label, h("small", t("wait.held"))) };
    }
    return {
      key: `sit/${label}`,
      node: () => h("button.btn.sit-here", { type: "button", dataset: { seat }, "aria-label": t("seat.sit_in", { n: seat + 1 }), onclick: () => ctx.onSit(seat) }, t("seat.sit_here"), h("small", label)),
    };
  }
  const name = info ? info.name : seatName(state, seat);
  const stack = p && !hand.over ? p.stack : p ? p.stack : info.stack;
  const acting = hand && !hand.over && hand.to_act === seat;
  const winner = p && p.won > 0;
  const flags = [];
  if (hand && hand.button === seat) flags.push(h("span.dealer", { title: t("seat.dealer"), "aria-label": t("seat.dealer") }, t("seat.dealer_sign")));
  if (info?.bot && !/^bot\b/i.test(name)) flags.push(h("span.badge", t("badge.bot")));
  if (state.table?.host_user_id && info?.user_id === state.table.host_user_id) flags.push(h("span.badge.host", t("badge.host")));
  const status = [];
  if (info?.away) status.push(t("status.away")); // R40: no socket of theirs is open
  if (info?.sitting_out) status.push(t("status.sitting_out"));
  if (info?.leaving) status.push(t("status.leaving"));
  if (p?.all_in && !p.folded) status.push(t("status.all_in"));
  if (p?.folded) status.push(t("status.folded"));
  if (p?.mucked) status.push(t("status.mucked"));
  const cards = p && !p.folded && !(p.mucked && !me) ? studCards(p.up, p.down, p.down_count, { shown: p.shown || false, small: !me }) : [];
  if (p && p.folded && me && p.down) cards.push(...studCards(p.up, p.down, p.down_count, { small: false }));
  const named = p && (p.high || p.low) ? [p.high, p.low].filter(Boolean).map(handName) : [];
  const bet = ctx.portrait ? wagerOf(state, seat) : 0; // a phone's seat carries its bet
  const key = JSON.stringify([name, stack, acting, winner, p?.won, flags.length, status, p?.up, p?.down, p?.down_count, p?.shown, named, me, hand?.button, p?.folded, bet, acting && hand.bank === seat, !!ctx.portrait]);
  return {
    key,
    node: () => {
      const made = named.length ? h("div.made", named.map((text) => h("span", { title: text }, text))) : null;
      const label = [me ? t("seat.you") : null, name, t("seat.number", { n: seat + 1 }), chips(stack), ...status, acting ? t("seat.to_act") : null].filter(Boolean).join(", ");
      return h(
        `div.seat-box${acting ? ".acting" : ""}${me ? ".mine" : ""}${p?.folded ? ".folded" : ""}${winner ? ".winner" : ""}${info?.sitting_out ? ".out" : ""}${info?.away ? ".away" : ""}`,
        { role: "group", "aria-label": label, dataset: { seat, name } },
        // the hand's name lies over the foot of its own cards (as PokerStars shows it): below
        // the plate it covered the seat under it, on a phone and on an 8-seat desktop felt
        h("div.hole", { "aria-label": t("seat.cards_of", { name }) }, cards, made),
        h(
          "div.plate",
          h("div.plate-name", h("span.name", { title: name }, name), ...flags),
          h("div.plate-stack", chips(stack)),
          // the winnings sit on the plate's last line (never over the winner's cards; beside
          // the stack they widened the plate into its neighbours, under it they heightened it)
          status.length || winner ? h("div.plate-status", winner ? h("span.won", t("seat.won", { amount: chips(p.won) })) : null, status.join(" · ")) : null,
          acting ? h(`div.timer${hand.bank === seat ? ".bank" : ""}`, { "aria-hidden": "true" }, h("div.timer-bar")) : null,
        ),
        bet ? h("div.seat-bet", betChips(state, seat)) : null,
      );
    },
  };
}

export function renderFelt(felt, state, ctx) {
  const n = state.table?.max_seats || 8;
  const me = mySeat(state);
  ctx.me = me;
  const anchor = me ?? 0;
  const portrait = felt.clientWidth > 0 && felt.clientWidth < felt.clientHeight;
  ctx.portrait = portrait;
  const layout = `${n}/${anchor}/${portrait}`;
  if (felt.dataset.layout !== layout) {
    felt.dataset.layout = layout;
    felt.dataset.n = String(n);
    felt.dataset.anchor = String(anchor);
    felt.classList.toggle("portrait", portrait);
    felt.querySelectorAll(".seat, .bet").forEach((el) => el.remove());
    for (let seat = 0; seat < n; seat++) {
      const seatEl = h("div.seat", { dataset: { seat } });
      if (portrait) {
        const pos = placePortrait(seat, anchor, n);
        seatEl.classList.add(pos.col < 0 ? "col-left" : pos.col > 0 ? "col-right" : "col-mid", pos.bottom ? "at-bottom" : "at-top");
        seatEl.style.setProperty("--y", `${pos.top}%`);
        felt.append(seatEl);
        continue;
      }
      const pos = place(seat, anchor, n);
      // a seat near the left or right rail grows inwards (its cards never leave the felt)
      seatEl.style.setProperty("--x", `${50 + pos.x * 47}%`);
      seatEl.style.setProperty("--y", `${50 + pos.y * 41}%`);
      seatEl.style.setProperty("--ax", `${(-50 - pos.x * 50).toFixed(1)}%`);
      if (pos.y > 0.75) seatEl.classList.add("lower"); // only seats near the top and bottom rails are nudged
      if (pos.y < -0.75) seatEl.classList.add("upper");
      if (Math.abs(pos.x) > 0.45) seatEl.classList.add(pos.x < 0 ? "side-left" : "side-right");
      const betEl = h("div.bet", { dataset: { seat } });
      betEl.style.setProperty("--x", `${pos.bet[0]}%`);
      betEl.style.setProperty("--y", `${pos.bet[1]}%`);
      felt.append(seatEl, betEl);
    }
  }
  const ordered = [...felt.querySelectorAll(".seat")].sort(
    (a, b) => place(+a.dataset.seat, anchor, n).i - place(+b.dataset.seat, anchor, n).i,
  );
  for (const seatEl of ordered) {
    const seat = +seatEl.dataset.seat;
    const view = seatView(state, seat, ctx);
    keyed(seatEl, view.key, view.node);
    const bet = felt.querySelector(`.bet[data-seat="${seat}"]`);
    if (bet) keyed(bet, String(wagerOf(state, seat)), () => betChips(state, seat));
  }
  renderCenter(felt.querySelector(".center-info"), state);
}

function wagerOf(state, seat) {
  const p = state.hand?.players[seat];
  return p && !state.hand.over ? p.wager : 0;
}

function betChips(state, seat) {
  const wager = wagerOf(state, seat);
  if (!wager) return null;
  return h("div.chipstack", { "aria-label": t("seat.bets", { name: seatName(state, seat), amount: chips(wager) }) }, h("span.chip", { "aria-hidden": "true" }), chips(wager));
}

function renderCenter(el, state) {
  const hand = state.hand;
  const table = state.table;
  const pots = displayPots(hand);
  const key = JSON.stringify([hand?.number, hand?.count, hand?.commitment, state.commitment?.verdict, hand?.street, hand?.over, pots, hand?.community, table?.paused, table?.closing, state.closed, hand?.variant, table?.variant, hand?.phase, table?.rotation_step]);
  keyed(el, key, () => {
    const parts = [];
    const variant = hand?.variant || table?.variant;
    parts.push(h("div.center-variant", variantName(variant)));
    const rot = table?.rotation_step; // R45: where the rotation stands, and the game that follows
    if (rot) parts.push(h("div.rotation-step", t(rot.of ? "rotation.step" : "rotation.step_orbit", { hand: rot.hand, of: rot.of, next: variantName(rot.next) })));
    // players read the table's own count; the number is the hand's id (history, mail, proof)
    if (hand?.count) parts.push(h("div.hand-number", { title: t("hand.number", { n: hand.number }) }, t("hand.at_table", { count: hand.count }), h("span.hand-id", ` · #${hand.number}`)));
    else if (hand?.number) parts.push(h("div.hand-number", { title: t("hand.number", { n: hand.number }) }, t("hand.number", { n: hand.number })));
    if (state.closed) parts.push(h("div.street", t("center.closed")));
    else if (!hand) parts.push(h("div.street", table?.paused ? t("table.paused") : t("center.waiting")));
    else if (hand.over) parts.push(h("div.street", t("center.over")));
    else if (hand.phase === "uncontested") parts.push(h("div.street", t("center.uncontested")));
    else if (hand.phase !== "betting") parts.push(h("div.street", t("center.showdown")));
    else parts.push(h("div.street", streetName(hand.street)));
    if (pots.length) {
      parts.push(
        h(
          "div.pots",
          { "aria-label": t("center.pots") },
          pots.map((pot, i) => h(`div.pot${i ? ".pot-side" : ""}`, h("span.pot-label", i === 0 ? (pots.length > 1 ? t("pot.main") : t("pot.pot")) : t("pot.side", { n: i })), h("span.pot-amount", chips(pot.amount)))),
        ),
      );
    }
    if (hand?.commitment) {
      const opened = state.commitment?.hand_id === hand.hand_id ? state.commitment.verdict : null;
      const title = t("fair.commitment_title", { commitment: hand.commitment }) + (opened ? `\n${t("fair.after_hand", { verdict: opened.text })}` : "");
      parts.push(h("div.commitment", { title }, t("fair.committed"), " · ", h("code", hand.commitment.slice(0, 12) + "…"), opened ? ` · ${opened.ok ? t("fair.verified_short") : opened.text}` : ""));
    }
    if (hand?.community) parts.push(h("div.community", h("span", t("center.community")), card(hand.community)));
    if (table?.closing && !state.closed) parts.push(h("div.note", t("center.closing")));
    if (table?.paused && hand) parts.push(h("div.note", t("center.paused_after")));
    return parts;
  });
}

export { cardBack };
