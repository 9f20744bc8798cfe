// Drawing the table: seats around the oval felt, their cards and bets, the pots in the middle.
// Each part is redrawn only when what it shows changed (keyboard focus survives updates).

import { card, cardBack, studCards } from "../cards.js";
import { chips, h, VARIANTS } from "../dom.js";
import { displayPots, mySeat, STREETS, seatName } from "./model.js";

/** Replace `el`'s children with `build()` only when `key` differs from last time. */
export function keyed(el, key, build) {
  if (el.dataset.key === key) return false;
  el.dataset.key = key;
  el.replaceChildren(...[build()].flat().filter(Boolean));
  return true;
}

/** Seat positions around the oval: the viewer at the bottom, then clockwise. On a portrait
 * (phone) felt the others stand in two columns along the rails, with one at the top when their
 * number is odd: around a narrow oval they would cover each other. */
export function place(seat, anchor, n, portrait = false) {
  const i = (seat - anchor + n) % n;
  if (portrait && n > 2 && i > 0) {
    const others = n - 1;
    const top = others % 2 === 1;
    const k = Math.floor(others / 2); // seats in each column
    const row = (j) => (k > 1 ? 0.38 - (j * 1.12) / (k - 1) : -0.15); // from low to high
    if (top && i === k + 1) return { x: 0, y: -1.05, i };
    if (i <= k) return { x: -1, y: row(i - 1), i };
    const j = i - k - (top ? 2 : 1); // the right column, from the top down
    return { x: 1, y: row(k - 1 - j), i };
  }
  const step = (2 * Math.PI) / n;
  // the viewer's seat (bottom) gets a wider gap on each side for its larger cards; the
  // others share the rest of the oval evenly
  const gap = n > 3 ? Math.max(step, Math.min(1.4 * step, (62 * Math.PI) / 180)) : step;
  const angle = i === 0 ? Math.PI / 2 : Math.PI / 2 + gap + ((i - 1) * (2 * Math.PI - 2 * gap)) / Math.max(1, n - 2);
  return { x: Math.cos(angle), y: Math.sin(angle), i };
}

function seatView(state, seat, ctx) {
  const info = state.seats.find((s) => s.seat === seat);
  const hand = state.hand;
  const p = hand ? hand.players[seat] : null;
  const me = ctx.me === seat;
  if (!info && !p) {
    if (ctx.me !== null || state.closed) return { key: "empty", node: () => h("div.seat-empty", { "aria-label": `Seat ${seat + 1}, empty` }, `Seat ${seat + 1}`) };
    return {
      key: "sit",
      node: () => h("button.btn.sit-here", { type: "button", dataset: { seat }, "aria-label": `Sit in seat ${seat + 1}`, onclick: () => ctx.onSit(seat) }, `Sit here`, h("small", `Seat ${seat + 1}`)),
    };
  }
  const name = info ? info.name : seatName(state, seat);
  const stack = p && !hand.over ? p.stack : p ? p.stack : info.stack;
  const acting = hand && !hand.over && hand.to_act === seat;
  const winner = p && p.won > 0;
  const flags = [];
  if (hand && hand.button === seat) flags.push(h("span.dealer", { title: "Dealer button", "aria-label": "dealer button" }, "D"));
  if (info?.bot) flags.push(h("span.badge", "bot"));
  if (state.table?.host_user_id && info?.user_id === state.table.host_user_id) flags.push(h("span.badge.host", "host"));
  const status = [];
  if (info?.sitting_out) status.push("sitting out");
  if (info?.leaving) status.push("leaving");
  if (p?.all_in && !p.folded) status.push("all-in");
  if (p?.folded) status.push("folded");
  if (p?.mucked) status.push("mucked");
  const cards = p && !p.folded && !(p.mucked && !me) ? studCards(p.up, p.down, p.down_count, { shown: p.shown || false, small: !me }) : [];
  if (p && p.folded && me && p.down) cards.push(...studCards(p.up, p.down, p.down_count, { small: false }));
  const named = p && (p.high || p.low) ? [p.high, p.low].filter(Boolean) : [];
  const key = JSON.stringify([name, stack, acting, winner, p?.won, flags.length, status, p?.up, p?.down, p?.down_count, p?.shown, named, me, hand?.button, p?.folded]);
  return {
    key,
    node: () => {
      const label = `${me ? "You, " : ""}${name}, seat ${seat + 1}, ${chips(stack)}${status.length ? ", " + status.join(", ") : ""}${acting ? ", to act" : ""}`;
      return h(
        `div.seat-box${acting ? ".acting" : ""}${me ? ".mine" : ""}${p?.folded ? ".folded" : ""}${winner ? ".winner" : ""}${info?.sitting_out ? ".out" : ""}`,
        { role: "group", "aria-label": label, dataset: { seat, name } },
        h("div.hole", { "aria-label": `${name}'s cards` }, cards),
        h(
          "div.plate",
          h("div.plate-name", h("span.name", name), ...flags),
          h("div.plate-stack", chips(stack)),
          status.length ? h("div.plate-status", status.join(" · ")) : null,
          acting ? h("div.timer", { "aria-hidden": "true" }, h("div.timer-bar")) : null,
        ),
        named.length ? h("div.made", named.map((t) => h("span", t))) : null,
        winner ? h("div.won", `+${chips(p.won)}`) : null,
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
  const layout = `${n}/${anchor}/${portrait}`;
  if (felt.dataset.layout !== layout) {
    felt.dataset.layout = layout;
    felt.dataset.n = String(n);
    felt.dataset.anchor = String(anchor);
    felt.querySelectorAll(".seat, .bet").forEach((el) => el.remove());
    for (let seat = 0; seat < n; seat++) {
      const pos = place(seat, anchor, n, portrait);
      const seatEl = h("div.seat", { dataset: { seat } });
      // a seat near the left or right rail grows inwards (its cards never leave the felt)
      seatEl.style.setProperty("--x", `${50 + pos.x * 47}%`);
      seatEl.style.setProperty("--y", `${50 + pos.y * 41}%`);
      seatEl.style.setProperty("--ax", `${(-50 - pos.x * 50).toFixed(1)}%`);
      const edge = portrait ? 0.3 : 0.75; // only seats near the top and bottom rails are nudged
      if (pos.y > edge) seatEl.classList.add("lower");
      if (pos.y < -edge) seatEl.classList.add("upper");
      if (Math.abs(pos.x) > 0.45) seatEl.classList.add(pos.x < 0 ? "side-left" : "side-right");
      const betEl = h("div.bet", { dataset: { seat } });
      betEl.style.setProperty("--x", `${50 + pos.x * 26}%`);
      betEl.style.setProperty("--y", `${50 + pos.y * 21}%`);
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
    const p = state.hand?.players[seat];
    const bet = felt.querySelector(`.bet[data-seat="${seat}"]`);
    const wager = p && !state.hand.over ? p.wager : 0;
    keyed(bet, String(wager), () => (wager ? h("div.chipstack", { "aria-label": `${seatName(state, seat)} bets ${chips(wager)}` }, h("span.chip", { "aria-hidden": "true" }), chips(wager)) : null));
  }
  renderCenter(felt.querySelector(".center-info"), state);
}

function renderCenter(el, state) {
  const hand = state.hand;
  const table = state.table;
  const pots = displayPots(hand);
  const key = JSON.stringify([hand?.number, hand?.commitment, state.commitment?.verdict, hand?.street, hand?.over, pots, hand?.community, table?.paused, table?.closing, state.closed, hand?.variant, table?.variant, hand?.phase]);
  keyed(el, key, () => {
    const parts = [];
    const variant = hand?.variant || table?.variant;
    parts.push(h("div.center-variant", VARIANTS[variant] || ""));
    if (hand?.number) parts.push(h("div.hand-number", { title: `Hand #${hand.number}` }, `Hand #${hand.number}`));
    if (state.closed) parts.push(h("div.street", "Table closed"));
    else if (!hand) parts.push(h("div.street", table?.paused ? "Paused by the host" : "Waiting for players…"));
    else if (hand.over) parts.push(h("div.street", "Hand over"));
    else if (hand.phase !== "betting") parts.push(h("div.street", "Showdown"));
    else parts.push(h("div.street", STREETS[hand.street] || "Dealing…"));
    if (pots.length) {
      parts.push(
        h(
          "div.pots",
          { "aria-label": "Pots" },
          pots.map((pot, i) => h(`div.pot${i ? ".pot-side" : ""}`, h("span.pot-label", i === 0 ? (pots.length > 1 ? "Main pot" : "Pot") : `Side pot ${i}`), h("span.pot-amount", chips(pot.amount)))),
        ),
      );
    }
    if (hand?.commitment) {
      const opened = state.commitment?.hand_id === hand.hand_id ? state.commitment.verdict : null;
      parts.push(h("div.commitment", { title: `SHA-256 over the 52 per-card leaves, announced before the first card: ${hand.commitment}${opened ? `\nAfter the hand: ${opened}` : ""}` }, "Deal committed · ", h("code", hand.commitment.slice(0, 12) + "…"), opened ? ` · ${opened.startsWith("verified") ? "verified ✓" : opened}` : ""));
    }
    if (hand?.community) parts.push(h("div.community", h("span", "Community card"), card(hand.community)));
    if (table?.closing && !state.closed) parts.push(h("div.note", "Closing after this hand"));
    if (table?.paused && hand) parts.push(h("div.note", "Paused after this hand"));
    return parts;
  });
}

export { cardBack };
