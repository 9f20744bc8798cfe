// R38, checked in the browser: a tournament's draws come from a seed whose commitment was
// published before the first draw; once the seed is revealed anyone recomputes it:
// commitment = SHA-256(frame("hmac-sha256-draw-v1", "commit", purpose, seed)), each part of
// the frame as its 4-byte big-endian length and then its bytes (text in UTF-8).

const SCHEME = "hmac-sha256-draw-v1";

const fromHex = (hex) => new Uint8Array((hex.match(/../g) || []).map((x) => parseInt(x, 16)));
const toHex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

function frame(...parts) {
  const encoded = parts.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : p));
  const out = new Uint8Array(encoded.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of encoded) {
    view.setUint32(at, p.length);
    out.set(p, at + 4);
    at += 4 + p.length;
  }
  return out;
}

/** Whether the revealed `seed` (hex) is the one `commitment` promised for `purpose`; null
 * when this browser cannot hash (crypto.subtle needs a secure page). */
export async function seedMatches(draw) {
  if (!crypto.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", frame(SCHEME, "commit", draw.purpose, fromHex(draw.seed)));
  return toHex(new Uint8Array(digest)) === String(draw.commitment).toLowerCase();
}
