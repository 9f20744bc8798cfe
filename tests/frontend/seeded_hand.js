// A hand for test_seeded_vectors.py, made with seeded.js itself: see the comment there.
(async () => {
  const m = await import("/static/js/seeded.js");
  const d = await import("/static/js/deal-positions.js");
  const hex = (byte) => d.toHex(new Uint8Array(32).fill(byte));
  const ranks = "23456789TJQKA", suits = "cdhs";
  const all = [...ranks].flatMap((r) => [...suits].map((s) => r + s));
  const slotCards = all.map((_, j) => all[(j * 7) % 52]);  // 7 and 52 share no factor
  const server = hex(0x5e), master = hex(0xa1);
  const seeds = [{ seat: 4, seed: hex(0x44) }, { seat: 1, seed: hex(0x11) }];
  const { sealed } = await m.seal(master, slotCards);
  const key = await m.dealKey(server, sealed, seeds);
  const perm = await m.permutation(key);
  const deck = m.deckFromSlots(slotCards, perm);
  const who = [1, 4, 1, 4, 1, 4];
  const events = [{ type: "hand_started", seats: [1, 4], stacks: [1000, 1000] }, { type: "street_started", street: 3 }];
  who.forEach((seat, p) => events.push({ type: "card_dealt", seat, face_up: p >= 4, card: seat === 1 || p >= 4 ? deck[p] : null }));
  events.push({ type: "street_started", street: 4 });
  events.push({ type: "card_dealt", seat: 1, face_up: true, card: deck[7] }, { type: "card_dealt", seat: 4, face_up: true, card: deck[8] });
  events.push({ type: "folded", seat: 4 });
  const seen = new Set([0, 2, 4, 5, 7, 8].map((p) => perm[p]));
  const m8 = d.fromHex(master);
  const slots = [];
  for (let j = 0; j < 52; j++) {
    const salt = await m.slotSalt(m8, j);
    slots.push(seen.has(j) ? { slot: j, card: slotCards[j], salt: d.toHex(salt) } : { slot: j, leaf: d.toHex(await m.leaf(salt, slotCards[j])) });
  }
  const sorted = [...seeds].sort((a, b) => a.seat - b.seat);
  const hashes = await Promise.all(sorted.map(async (s) => ({ seat: s.seat, seed_hash: await m.hashHex(s.seed) })));
  const serverHash = await m.hashHex(server);
  return {
    reveal: { scheme: "seeded-v2", commitment: sealed, server_seed: server, seeds: sorted, slots, reshuffle_seed: await m.reshuffleSeed(key) },
    events,
    committed: { type: "deal_committed", scheme: "seeded-v2", commitment: sealed, server_seed_hash: serverHash, seeds: hashes,
                 commits: [{ seat: 1, commit: hex(0x99) }, { seat: 4, commit: hex(0x98) }] },
    announce: { sealed, server_seed_hash: serverHash },
    previousCommits: hashes.map((h) => ({ seat: h.seat, commit: h.seed_hash })),
    mine: { seat: 1, seed: hex(0x11), sent: true },
  };
})
