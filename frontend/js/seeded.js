// Scheme "seeded-v2" (docs/fairness.md, issue 28), in the browser with Web Crypto: the house
// seals 52 slots before it sees any player seed; the deal order is a permutation of the slots
// drawn from the server seed AND the players' seeds; after the hand the server seed and the
// seeds are revealed, and each audience gets opened the slots of the cards it saw.
// `‖` is concatenation, H = SHA-256, HMAC = HMAC-SHA256(key, message).

import { ascii, concat, dealProblems, fromHex, sha256, toHex } from "./deal-positions.js";
import { t } from "./i18n.js";

export const SCHEME = "seeded-v2";
const TWO32 = 2 ** 32;

export async function hmac(key, message) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, message));
}

/** hex(H(bytes of `hex`)): a seed's or the server seed's published hash. */
export async function hashHex(hex) {
  return toHex(await sha256(fromHex(hex)));
}

/** s_j = H(M ‖ b"card" ‖ bytes([j])). */
export const slotSalt = (masterSalt, j) => sha256(concat(masterSalt, ascii("card"), new Uint8Array([j])));

/** L_j = H(s_j ‖ card_ascii). */
export const leaf = (salt, card) => sha256(concat(salt, ascii(card)));

/** D = hex(H(L_0 ‖ … ‖ L_51)). */
export async function sealedDeck(leaves) {
  return toHex(await sha256(concat(...leaves)));
}

/** The 52 leaves and D of slot cards A[0..51] under master salt M (hex). */
export async function seal(masterSaltHex, slotCards) {
  const m = fromHex(masterSaltHex);
  const leaves = [];
  for (let j = 0; j < 52; j++) leaves.push(await leaf(await slotSalt(m, j), slotCards[j]));
  return { leaves, sealed: await sealedDeck(leaves) };
}

/** seeds_bytes: bytes([seat]) ‖ seed for every seed used, in seat order. */
export function seedsBytes(seeds) {
  const sorted = [...seeds].sort((a, b) => a.seat - b.seat);
  return concat(...sorted.map((s) => concat(new Uint8Array([s.seat]), fromHex(s.seed))));
}

/** K = HMAC(S, b"seeded-v2" ‖ D ‖ seeds_bytes). */
export function dealKey(serverSeedHex, sealedHex, seeds) {
  return hmac(fromHex(serverSeedHex), concat(ascii(SCHEME), fromHex(sealedHex), seedsBytes(seeds)));
}

/** The random stream of key K: a function giving its next uint32 (block k = HMAC(K, b"draw" ‖
 * k as 4 bytes big-endian), read as 8 big-endian words, consumed in order). */
export function stream(key) {
  let block = 0;
  let words = [];
  return async () => {
    if (!words.length) {
      const k = new Uint8Array(4);
      new DataView(k.buffer).setUint32(0, block++);
      const bytes = await hmac(key, concat(ascii("draw"), k));
      const view = new DataView(bytes.buffer);
      words = Array.from({ length: 8 }, (_, i) => view.getUint32(4 * i));
    }
    return words.shift();
  };
}

/** 0 ≤ r < n without bias: words at or past the last whole multiple of n are skipped. */
export async function uniform(next, n) {
  const limit = TWO32 - (TWO32 % n);
  for (;;) {
    const w = await next();
    if (w < limit) return w % n;
  }
}

/** P: Fisher-Yates from the top; deck position p is slot P[p]. */
export async function permutation(key) {
  const next = stream(key);
  const p = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 51; i >= 1; i--) {
    const j = await uniform(next, i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

/** The cards by deck position: position p holds A[P[p]]. */
export const deckFromSlots = (slotCards, perm) => perm.map((slot) => slotCards[slot]);

/** R9's reshuffle seed, hex(H(K ‖ b"reshuffle")). */
export async function reshuffleSeed(key) {
  return toHex(await sha256(concat(key, ascii("reshuffle"))));
}

/** Every derived value of one test-vector case (docs/fairness-vectors.json) from its inputs. */
export async function computeCase({ server_seed, master_salt, slot_cards, seeds }) {
  const cards = slot_cards.match(/../g);
  const { sealed } = await seal(master_salt, cards);
  const key = await dealKey(server_seed, sealed, seeds);
  const perm = await permutation(key);
  return {
    sealed,
    server_seed_hash: await hashHex(server_seed),
    key: toHex(key),
    permutation: perm,
    deck: deckFromSlots(cards, perm).join(""),
    reshuffle_seed: await reshuffleSeed(key),
  };
}

const sameSeeds = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The client's check of one finished hand (the spec's four steps). Everything but `reveal`
 * may be missing; what it needs and lacks is listed in `unchecked`, not in `problems`.
 * - reveal: deal_revealed's `reveal` (server_seed, seeds, slots, reshuffle_seed, commitment)
 * - events: the hand's events as this audience saw them (for step 4)
 * - committed: this hand's `deal_committed` (commitment, server_seed_hash, seeds' hashes)
 * - announce: {sealed, server_seed_hash} announced before the hand (previous `next`, or the
 *   snapshot's `next_deal`)
 * - previousCommits: the previous hand's `deal_committed.commits`
 * - mine: {seat, seed, sent} — the seed this player sent for this sealed deck (`sent`: it was
 *   accepted for it, so it must be used), or null (an observer, or no seed of ours counted)
 * Returns {problems: [{step, text}], unchecked: [{step, text}], shown, hidden, seeds}.
 */
export async function checkHand({ reveal, events = null, committed = null, announce = null, previousCommits = null, mine = null }) {
  const problems = [];
  const unchecked = [];
  const fail = (step, key, params) => problems.push({ step, text: t(key, params) });
  const skip = (step, key) => unchecked.push({ step, text: t(key) });
  const D = reveal.commitment;
  const seeds = [...(reveal.seeds || [])].sort((a, b) => a.seat - b.seat);

  // 1. the server seed and the sealed deck are the ones announced before any seed was sent
  const announcedHash = announce?.server_seed_hash ?? committed?.server_seed_hash ?? null;
  if (!announce) skip(1, "seeded.unchecked.announce");
  if (announce && announce.sealed !== D) fail(1, "seeded.deck_switched", { got: short(D), want: short(announce.sealed) });
  if (committed && committed.commitment !== D) fail(1, "seeded.commitment_differs", { got: short(D), want: short(committed.commitment) });
  if (announcedHash === null) skip(1, "seeded.unchecked.server_hash");
  else if ((await hashHex(reveal.server_seed || "")) !== announcedHash) fail(1, "seeded.server_seed_wrong", { hash: short(announcedHash) });

  // 2. the 52 slots hash to the sealed deck (an opened slot's leaf recomputed from its card)
  const slots = reveal.slots || [];
  const cardOf = new Array(52).fill(null);
  if (slots.length !== 52) fail(2, "seeded.not_52_slots");
  else {
    const leaves = [];
    const seen = new Set();
    for (const [j, s] of slots.entries()) {
      const slot = s.slot ?? j;
      if (s.card) {
        if (seen.has(s.card)) fail(2, "seeded.card_twice", { card: s.card });
        seen.add(s.card);
        cardOf[slot] = s.card;
        leaves[slot] = await leaf(fromHex(s.salt), s.card);
      } else leaves[slot] = fromHex(s.leaf);
    }
    if (leaves.some((l) => !l || l.length !== 32) || (await sealedDeck(leaves)) !== D) fail(2, "seeded.seal_wrong");
  }

  // 3. the players' seeds: ours used, each the one hashed at the deal and committed before
  let mineUsed = false;
  if (mine) {
    const used = seeds.find((s) => s.seat === mine.seat);
    mineUsed = !!used && used.seed === mine.seed;
    if (used && used.seed !== mine.seed) fail(3, "seeded.own_seed_wrong");
    else if (!used && mine.sent) fail(3, "seeded.own_seed_missing");
  }
  for (const s of seeds) if (!/^[0-9a-f]{64}$/.test(s.seed || "")) fail(3, "seeded.seed_malformed", { seat: s.seat + 1 });
  const hashes = await Promise.all(seeds.map(async (s) => ({ seat: s.seat, seed_hash: await hashHex(s.seed || "") })));
  if (committed?.seeds) {
    const announced = [...(committed.seeds || [])].sort((a, b) => a.seat - b.seat).map((s) => ({ seat: s.seat, seed_hash: s.seed_hash }));
    if (!sameSeeds(hashes, announced)) fail(3, "seeded.seeds_differ");
  } else skip(3, "seeded.unchecked.seed_hashes");
  if (previousCommits) {
    for (const h of hashes) {
      // a seat with no commit there could have picked its seed after seeing the others'
      // (the house sees seeds as they arrive): that is the grinding this step stops
      const c = previousCommits.find((x) => x.seat === h.seat);
      if (!c || c.commit !== h.seed_hash) fail(3, "seeded.not_committed", { seat: h.seat + 1 });
    }
  } else if (seeds.length) skip(3, "seeded.unchecked.commits");

  // 4. the permutation from K, then every card seen at its position
  let shown = 0;
  if (slots.length === 52 && reveal.server_seed) {
    const key = await dealKey(reveal.server_seed, D, seeds);
    const perm = await permutation(key);
    if (reveal.reshuffle_seed && reveal.reshuffle_seed !== (await reshuffleSeed(key))) fail(4, "seeded.reshuffle_wrong");
    const cards = perm.map((slot) => cardOf[slot]);
    shown = cards.filter(Boolean).length;
    if (events) for (const p of await dealProblems(events, cards, reveal.reshuffle_seed)) problems.push({ step: 4, text: p });
    else skip(4, "seeded.unchecked.events");
  }
  return { problems, unchecked, shown, hidden: 52 - shown, seeds: seeds.length, mineUsed };
}

function short(hex) {
  return hex ? `${String(hex).slice(0, 12)}…` : "—";
}

/** One line for a problem: "Step 3 (the players' seeds) failed: …". */
export function problemText(p) {
  return t("seeded.problem", { n: p.step, what: t(`seeded.step.${p.step}`), problem: p.text });
}

/** One line for a step not (fully) checked: "step 3 (the players' seeds) not fully checked: …". */
export function uncheckedText(u) {
  return t("seeded.unchecked", { n: u.step, what: t(`seeded.step.${u.step}`), why: u.text });
}

/** A verdict {ok, text, problems, unchecked} on a checked hand, worded for the page. */
export function verdict(result) {
  if (result.problems.length) return { ok: false, text: t("fair.mismatch", { problem: result.problems.map(problemText).join("; ") }), ...result };
  const text = t("seeded.verified", { shown: result.shown, hidden: result.hidden, seeds: result.seeds });
  return { ok: true, text, ...result };
}
