// What both deal schemes share (docs/fairness.md): the bytes helpers, and which deck position
// each dealt card comes from (third street from position 0 in dealing order, a burn before
// each later street, R9's reshuffle of the burns and the stub).

import { t } from "./i18n.js";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";

export const fromHex = (hex) => new Uint8Array((hex || "").match(/../g)?.map((x) => parseInt(x, 16)) ?? []);
export const toHex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
export const ascii = (text) => new TextEncoder().encode(text);
export const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
export const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
export const cardNumber = (card) => RANKS.indexOf(card[0]) * 4 + SUITS.indexOf(card[1]);
const less = (a, b) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
};

/** Problems between the hand's visible dealt cards and the card at each deck position
 * (`cards[p]`: the opened card at position p, or null where it stays hidden). */
export async function dealProblems(events, cards, reshuffleSeedHex) {
  const seed = fromHex(reshuffleSeedHex || "");
  const key = (card) => sha256(concat(seed, new Uint8Array([cardNumber(card)])));
  let order = cards.map((_, i) => i);
  let pos = 0;
  let burns = [];
  let gathered = null; // after a reshuffle that gathered a hidden card
  let lastKey = new Uint8Array(0);
  const problems = [];
  for (const e of events) {
    if (e.type === "street_started" && e.street >= 4 && pos < order.length) burns.push(order[pos++]);
    else if (e.type === "burns_reshuffled") {
      const all = [...burns, ...order.slice(pos)];
      burns = [];
      pos = 0;
      if (all.every((i) => cards[i])) {
        const keyed = await Promise.all(all.map(async (i) => [await key(cards[i]), i]));
        keyed.sort((a, b) => (less(a[0], b[0]) ? -1 : less(b[0], a[0]) ? 1 : 0));
        order = keyed.map(([, i]) => i);
      } else gathered = all;
    } else if (e.type === "card_dealt" || e.type === "community_card_dealt") {
      if (gathered) {
        const at = e.card ? gathered.findIndex((i) => cards[i] === e.card) : gathered.findIndex((i) => !cards[i]);
        if (at < 0) problems.push(t("fair.not_reshuffled", { card: e.card || t("fair.hidden_card") }));
        else gathered.splice(at, 1);
        if (e.card) {
          const k = await key(e.card);
          if (less(k, lastKey)) problems.push(t("fair.out_of_order", { card: e.card }));
          lastKey = k;
        }
        continue;
      }
      const i = order[pos++];
      if (i === undefined) problems.push(t("fair.past_end"));
      else if (e.card && cards[i] !== e.card) problems.push(t("fair.wrong_position", { card: e.card, n: i }));
    }
  }
  return problems;
}
