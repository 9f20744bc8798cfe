// The lobby's Tournaments tab: one line per tournament, and hosting a new one.

import { get } from "../api.js";
import { clear, h, variantShort } from "../dom.js";
import { number, t } from "../i18n.js";
import { hostTournament } from "./form.js";
import { buyIn, speedName, statusName, when } from "./words.js";

const COLUMNS = ["tournament", "state", "game", "buy_in", "entrants", "start", "speed"];

/** `{el, refresh()}`: the tab's panel; `refresh` reads the list again (the lobby's timer). */
export function tournamentsTab(user, { go }) {
  const body = h("tbody");
  const empty = h("p.empty");
  const el = h(
    "div.tournaments-tab",
    h(
      "div.tab-head",
      h("p.sub", t("tour.lobby_intro")),
      h("button.btn.primary", { type: "button", id: "host-tournament", onclick: () => hostTournament(user, { go }) }, t("tour.host")),
    ),
    h(
      "div.panel.table-list",
      h(
        "table.tour-table.tournament-list",
        h("caption.sr-only", t("tour.list")),
        h("thead", h("tr", COLUMNS.map((c) => h("th", { scope: "col" }, t(`tour.col.${c}`))), h("th", { scope: "col" }))),
        body,
      ),
      empty,
    ),
  );

  function starts(x) {
    if (x.status === "registering" && x.seats_left !== null) return t("tour.seats_left", { n: number(x.seats_left) });
    if (x.starts_at) return when(x.starts_at);
    return "";
  }

  function line(x) {
    const href = `/tournaments/${x.id}`;
    return h(
      `tr.status-${x.status}`,
      { dataset: { tournament: x.id } },
      h(
        "th",
        { scope: "row" },
        h("a", { href, "data-link": "" }, x.name),
        x.private ? h("span.badge", t("badge.private")) : null,
        x.frozen ? h("span.badge.warn", t("badge.frozen")) : null,
      ),
      h("td", h(`span.state.state-${x.status}`, statusName(x.status))),
      h("td", variantShort(x.variant)),
      h("td", buyIn(x)),
      h("td", t("tour.entrants_of", { n: number(x.entrants), max: number(x.max_players) })),
      h("td", starts(x)),
      h("td", speedName(x.speed)),
      h("td", h("a.btn.small", { href, "data-link": "", "aria-label": t("tour.open", { name: x.name }) }, x.status === "registering" ? t("tour.view_register") : t("tour.view"))),
    );
  }

  async function refresh() {
    try {
      const r = await get("/api/tournaments");
      const order = { running: 0, registering: 1, finished: 2, cancelled: 3 };
      const rows = [...r.tournaments].sort((a, b) => (order[a.status] ?? 4) - (order[b.status] ?? 4) || b.id - a.id);
      clear(body, rows.map(line));
      empty.textContent = rows.length ? "" : t("tour.none_yet");
    } catch (err) {
      empty.textContent = err.message;
    }
  }

  return { el, refresh };
}
