// One hand's history by email: the table, the history page and the hand list all offer it.

import { post } from "./api.js";

/** Ask for one hand by email; resolves with the request, or rejects with a readable error. */
export async function emailHand(number) {
  const r = await post("/api/mail/hands", { hand_number: number });
  return r.request;
}
