// Playing cards drawn with CSS: "As" → the ace of spades; a back for a hidden card.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_ORDER = "23456789TJQKA"; // the catalogue's rank.<i>
export const SUITS = {
  s: { symbol: "♠", color: "black" },
  h: { symbol: "♥", color: "red" },
  d: { symbol: "♦", color: "red" },
  c: { symbol: "♣", color: "black" },
};

export function cardName(code) {
  const i = RANK_ORDER.indexOf(code[0]);
  return t("card.name", { rank: i >= 0 ? t(`rank.${i}`) : code[0], suit: SUITS[code[1]] ? t(`suit.${code[1]}`) : code[1] });
}

/** A face-up card. `down` marks one of the viewer's own face-down cards (shown to them). */
export function card(code, { down = false, small = false, fresh = false } = {}) {
  const rank = RANKS[code[0]] || code[0];
  const suit = SUITS[code[1]] || { symbol: "?", name: "", color: "black" };
  const label = down ? t("card.own_down", { card: cardName(code) }) : cardName(code);
  return h(
    `div.card.face.${suit.color}${down ? ".own-down" : ""}${small ? ".small" : ""}${fresh ? ".fresh" : ""}`,
    { role: "img", "aria-label": label, title: label, dataset: { card: code } },
    h("span.corner", { "aria-hidden": "true" }, h("span.rank", rank), h("span.suit", suit.symbol)),
    h("span.pip", { "aria-hidden": "true" }, suit.symbol),
  );
}

export function cardBack({ small = false } = {}) {
  return h(`div.card.back${small ? ".small" : ""}`, { role: "img", "aria-label": t("card.back") });
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
