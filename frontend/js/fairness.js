// The provably fair deal, checked in the browser (docs/fairness.md, sha256-per-card-v1):
// C = SHA-256(L_0 ‖ … ‖ L_51), L_i = SHA-256(s_i ‖ card) for a revealed position, or the
// given leaf for a hidden one; then every visible dealt card must sit at its deck position.

import { concat, dealProblems as positionProblems, fromHex, sha256, toHex } from "./deal-positions.js";
import { t } from "./i18n.js";
import { checkHand, SCHEME as SEEDED, uncheckedText, verdict } from "./seeded.js";

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
export function dealProblems(events, reveal) {
  return positionProblems(events, reveal.positions.map((p) => p.card || null), reveal.reshuffle_seed);
}

/** A verdict on a reveal (and, with the hand's events, on its dealt cards): {ok, text}.
 * A seeded-v2 reveal gets that scheme's check (`record`: what the hand's record also gives,
 * its `deal_committed` and `announce`, when it gives them). */
export async function checkReveal(commitment, reveal, events = null, record = {}) {
  if (!reveal) return { ok: false, text: t("fair.not_revealed") };
  if (!crypto.subtle) return { ok: false, text: t("fair.needs_https") };
  if (reveal.scheme === SEEDED) {
    const committed = record.deal_committed || { commitment };
    const result = verdict(await checkHand({ reveal, events, committed, announce: record.announce || null }));
    if (result.ok && result.unchecked.length) result.text += ` (${result.unchecked.map(uncheckedText).join("; ")})`;
    return result;
  }
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
