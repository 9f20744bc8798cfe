// The player's seeds for scheme seeded-v2 (docs/fairness.md, issue 28): drawn here with
// crypto.getRandomValues, sent ahead of the hands they are for, kept per table in
// sessionStorage (a reload does not break the chain), and what the check after each hand
// needs: the deck announced before it, its `deal_committed`, the previous hand's commits,
// and the seed this browser sent for it.
//
// The chain: each `seed` message carries `commit` = H(the seed sent NEXT time), so every seed
// was fixed before anyone's seed for its hand was sent. The first message of a chain only
// registers `commit` (its `seed` is ignored by the server).

import { fromHex, sha256, toHex } from "./deal-positions.js";

const KEEP = 8; // sealed decks remembered (seeds sent, hands committed)

export const newSeed = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
const hashOf = async (hex) => toHex(await sha256(fromHex(hex)));

function trimmed(map) {
  const keys = Object.keys(map);
  for (const k of keys.slice(0, Math.max(0, keys.length - KEEP))) delete map[k];
  return map;
}

export class SeedKeeper {
  /** `send(msg)` sends a client message and resolves with the server's answer (or rejects
   * with an error carrying `code`). */
  constructor(tableId, send, storage = sessionStorage) {
    this.key = `stud.seeds.${tableId}`;
    this.send = send;
    this.storage = storage;
    this.busy = Promise.resolve();
    let kept = null;
    try {
      kept = JSON.parse(storage.getItem(this.key) || "null");
    } catch {
      kept = null;
    }
    this.s = {
      next: null, // the seed whose hash the server holds as this player's chain head
      sent: {}, // sealed deck -> {seed, seat, status: "sending" | "ok" | "late" | "refused" | "unsure"}
      announce: null, // {sealed, server_seed_hash}: the next hand's deck, as last announced
      committed: {}, // hand_id -> {committed, announce, previous}: what the check needs
      lastCommits: null, // the last deal_committed's `commits`
      ...(kept || {}),
    };
  }

  save() {
    trimmed(this.s.sent);
    trimmed(this.s.committed);
    try {
      this.storage.setItem(this.key, JSON.stringify(this.s));
    } catch {
      // a full or refused storage: the chain restarts after a reload, nothing worse
    }
  }

  /** Messages go out one after another, in the order they were made (a chain's order). */
  queue(job) {
    this.busy = this.busy.then(job, job);
    return this.busy;
  }

  /** A snapshot: its `next_deal` is the deck the next hand will be dealt from. */
  snapshot(snap, seat) {
    // a deal_committed missed (while away) would make the kept commits the wrong hand's:
    // each one announces the next deck, so an unchanged announce means none was missed
    if (snap.next_deal?.sealed !== this.s.announce?.sealed) this.s.lastCommits = null;
    if (snap.next_deal) this.s.announce = snap.next_deal;
    this.save();
    return this.seated(seat);
  }

  /** Called whenever the player's seat may have changed: seated with no chain, it starts
   * one (when the next hand's deck is known); unseated, the chain is dropped (the server
   * keeps seeds only for seated players). */
  seated(seat) {
    if (seat === null || seat === undefined) {
      if (this.s.next !== null) {
        this.s.next = null;
        this.save();
      }
      return this.busy;
    }
    if (this.s.next !== null || !this.s.announce || this.s.scheme === "other") return this.busy;
    return this.queue(() => this.startChain(seat, this.s.announce.sealed));
  }

  async startChain(seat, sealed) {
    if (this.s.next !== null) return;
    const first = newSeed();
    this.s.next = first;
    this.save();
    try {
      await this.send({ type: "seed", seed: newSeed(), commit: await hashOf(first), sealed });
    } catch {
      // refused or lost: the next message restarts the chain (`seed_mismatch` registers it)
    }
  }

  /** A hand's `deal_committed`: kept for the check after the hand, and a seated player's
   * next seed goes out for the deck it announces. */
  dealCommitted(ev, seat) {
    if (ev.scheme !== "seeded-v2") {
      this.s.scheme = "other";
      this.save();
      return this.busy;
    }
    this.s.scheme = "seeded-v2";
    this.s.committed[ev.hand_id] = { committed: ev, announce: this.s.announce, previous: this.s.lastCommits };
    this.s.lastCommits = ev.commits || [];
    if (ev.next) this.s.announce = ev.next;
    this.save();
    if (seat === null || seat === undefined || !ev.next) return this.busy;
    const sealed = ev.next.sealed;
    const head = (ev.commits || []).find((c) => c.seat === seat)?.commit ?? null;
    return this.queue(() => this.advance(seat, sealed, head));
  }

  /** Send the chain's next seed only when this deal_committed shows its hash as our chain's
   * head: every client's check wants each seed used to be the one committed to at the
   * previous deal (a seed committed later could have been picked after seeing the others).
   * A head that is a seed already sent (it arrived late, and waits for the next hand) means
   * wait; anything else twice in a row means the chain broke (a lost message): start anew. */
  async advance(seat, sealed, head) {
    if (this.s.next === null) return this.startChain(seat, sealed);
    if (head !== null && head === (await hashOf(this.s.next))) {
      this.s.skipped = 0;
      return this.sendSeed(seat, sealed);
    }
    for (const sent of Object.values(this.s.sent)) {
      if (head !== null && sent.seat === seat && head === (await hashOf(sent.seed))) return;
    }
    this.s.skipped = (this.s.skipped || 0) + 1;
    if (this.s.skipped < 2) return this.save();
    this.s.skipped = 0;
    this.s.next = null;
    return this.startChain(seat, sealed);
  }

  async sendSeed(seat, sealed) {
    const seed = this.s.next;
    const following = newSeed();
    this.s.next = following;
    this.s.sent[sealed] = { seed, seat, status: "sending" };
    this.save();
    let status;
    try {
      const answer = await this.send({ type: "seed", seed, commit: await hashOf(following), sealed });
      const said = answer?.code || answer?.type;
      // `used: false`: the server took it as the first of a chain (it had none for us)
      status = said === "seed_late" ? "late" : said === "seed_mismatch" ? "refused" : answer?.used === false ? "unused" : "ok";
    } catch (err) {
      // seed_late: kept for the next hand; seed_mismatch: the chain restarts from `following`
      // (the server registered its hash); anything else: unknown, so never claimed missing
      status = err.code === "seed_late" ? "late" : err.code === "seed_mismatch" ? "refused" : "unsure";
    }
    if (this.s.sent[sealed]) this.s.sent[sealed].status = status;
    this.save();
  }

  /** What checkHand needs for hand `hand_id` (revealed with sealed deck `sealed`): the
   * announce, its deal_committed, the previous hand's commits, and this player's seed
   * (`seat`: its seat in that hand, null when it was not dealt in). */
  async inputs(hand_id, sealed, seat) {
    await this.busy; // an answer on its way still says whether the seed counted
    const kept = this.s.committed[hand_id] || {};
    const out = { committed: kept.committed || null, announce: kept.announce || null, previousCommits: kept.previous || null, mine: null };
    if (seat === null || seat === undefined) return out;
    const used = (kept.committed?.seeds || []).find((s) => s.seat === seat);
    for (const sent of Object.values(this.s.sent)) {
      if (used && sent.seat === seat && (await hashOf(sent.seed)) === used.seed_hash) {
        out.mine = { seat, seed: sent.seed, sent: true };
        return out;
      }
    }
    const meant = this.s.sent[sealed];
    if (meant && meant.seat === seat && meant.status === "ok") out.mine = { seat, seed: meant.seed, sent: true };
    return out;
  }
}
