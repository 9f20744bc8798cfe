// Playing cards drawn with CSS: "As" → the ace of spades; a back for a hidden card.

import { h } from "./dom.js";

const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_NAMES = {
  A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", 9: "nine", 8: "eight",
  7: "seven", 6: "six", 5: "five", 4: "four", 3: "three", 2: "two",
};
export const SUITS = {
  s: { symbol: "♠", name: "spades", color: "black" },
  h: { symbol: "♥", name: "hearts", color: "red" },
  d: { symbol: "♦", name: "diamonds", color: "red" },
  c: { symbol: "♣", name: "clubs", color: "black" },
};

export function cardName(code) {
  return `${RANK_NAMES[code[0]] || code[0]} of ${SUITS[code[1]]?.name || code[1]}`;
}

/** A face-up card. `down` marks one of the viewer's own face-down cards (shown to them). */
export function card(code, { down = false, small = false, fresh = false } = {}) {
  const rank = RANKS[code[0]] || code[0];
  const suit = SUITS[code[1]] || { symbol: "?", name: "", color: "black" };
  const label = `${cardName(code)}${down ? " (face down, only you see it)" : ""}`;
  return h(
    `div.card.face.${suit.color}${down ? ".own-down" : ""}${small ? ".small" : ""}${fresh ? ".fresh" : ""}`,
    { role: "img", "aria-label": label, title: label, dataset: { card: code } },
    h("span.corner", { "aria-hidden": "true" }, h("span.rank", rank), h("span.suit", suit.symbol)),
    h("span.pip", { "aria-hidden": "true" }, suit.symbol),
  );
}

export function cardBack({ small = false } = {}) {
  return h(`div.card.back${small ? ".small" : ""}`, { role: "img", "aria-label": "face-down card" });
}

/** A seat's cards in stud order: the two first down cards, the up cards, the river card.
 * `down` is the list of down cards when known (own hand, or shown), else `downCount` backs. */
export function studCards(up, down, downCount, opts = {}) {
  const count = down ? down.length : downCount;
  const hidden = (i) => (down ? card(down[i], { down: !opts.shown, small: opts.small }) : cardBack(opts));
  const out = [];
  for (let i = 0; i < Math.min(2, count); i++) out.push(hidden(i));
  for (const c of up) out.push(card(c, { small: opts.small }));
  for (let i = 2; i < count; i++) out.push(hidden(i));
  return out;
}
