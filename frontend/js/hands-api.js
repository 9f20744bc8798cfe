// Hand histories (issue 6): the list of hands a player was dealt into, a street-by-street
// replayer and the downloads. The server's history API has not landed yet: this probes for it
// and says so; the list and the replayer go here once `/api/hands` exists.

import { get } from "./api.js";
import { clear, h } from "./dom.js";

export async function handsSection(box) {
  try {
    await get("/api/hands?limit=1");
  } catch (err) {
    clear(
      box,
      h("div.panel", h("h2", "Hand histories"), h("p.sub", err.status === 404 || err.status === 405 ? "This server does not keep a browsable hand history yet; ask for hands by email above." : err.message)),
    );
    return () => {};
  }
  clear(box, h("div.panel", h("h2", "Hand histories"), h("p.sub", "Available from the API: /api/hands")));
  return () => {};
}
