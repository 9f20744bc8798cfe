// The provably fair deal, checked in the browser (docs/fairness.md, sha256-per-card-v1):
// C = SHA-256(L_0 ‖ … ‖ L_51), L_i = SHA-256(s_i ‖ card) for a revealed position, or the
// given leaf for a hidden one; then every visible dealt card must sit at its deck position.

import { t } from "./i18n.js";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";

const fromHex = (hex) => new Uint8Array(hex.match(/../g).map((x) => parseInt(x, 16)));
const toHex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const cardNumber = (card) => RANKS.indexOf(card[0]) * 4 + SUITS.indexOf(card[1]);
const less = (a, b) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
};

/** C recomputed from a reveal, as hex. */
export async function revealRoot(reveal) {
  const positions = reveal.positions || [];
  if (positions.length !== 52) throw new Error(t("fair.not_52"));
  const leaves = [];
  for (const p of positions) {
    leaves.push(p.leaf ? fromHex(p.leaf) : await sha256(concat(fromHex(p.salt), new TextEncoder().encode(p.card))));
  }
  return toHex(await sha256(concat(...leaves)));
}

/** Problems between the hand's visible dealt cards and the reveal's positions (the engine's
 * order: third street from 0, a burn before each later street, R9's reshuffle). */
export async function dealProblems(events, reveal) {
  const cards = reveal.positions.map((p) => p.card || null);
  const seed = fromHex(reveal.reshuffle_seed || "");
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

/** A verdict on a reveal (and, with the hand's events, on its dealt cards): {ok, text}. */
export async function checkReveal(commitment, reveal, events = null) {
  if (!reveal) return { ok: false, text: t("fair.not_revealed") };
  if (!crypto.subtle) return { ok: false, text: t("fair.needs_https") };
  let root;
  try {
    root = await revealRoot(reveal);
  } catch (err) {
    return { ok: false, text: t("fair.mismatch", { problem: err.message }) };
  }
  if (root !== commitment) return { ok: false, text: t("fair.mismatch", { problem: t("fair.no_match") }) };
  const hidden = reveal.positions.filter((p) => p.leaf).length;
  if (events) {
    const problems = await dealProblems(events, reveal);
    if (problems.length) return { ok: false, text: t("fair.mismatch", { problem: problems[0] }) };
  }
  const shown = 52 - hidden;
  const key = `fair.verified${hidden ? ".hidden" : ""}${events ? ".dealt" : ""}`;
  return { ok: true, text: t(key, { shown, hidden }) };
}
