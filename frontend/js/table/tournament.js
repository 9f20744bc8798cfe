// A tournament table's strip above the felt: the level, its stakes (tournament chips), the
// time to the next level, the way back to the tournament's page, hand-for-hand waiting, and
// the notices that matter to this player (moved to another table, finished in a place).
// The level clock is the tournament's (its page's `live`), asked for every few seconds.

import { get } from "../api.js";
import { h } from "../dom.js";
import { number, t } from "../i18n.js";
import { finishedText, levelLeft, stakesText } from "../tournaments/words.js";
import { keyed } from "./view.js";

const ASK_EVERY = 3000;

export function tournamentStrip() {
  const el = h("div.tournament-bar", { role: "region", "aria-label": t("tour.at_table") });
  const clockEl = h("span.tour-clock", { role: "timer" });
  let id = null; // the tournament asked about
  let page = null; // its page, as last fetched
  let fetchedAt = 0;
  let timer = null;
  let stopped = false;
  let state = null;

  async function ask() {
    clearTimeout(timer);
    const asked = id;
    try {
      const found = await get(`/api/tournaments/${asked}`, { timeoutMs: ASK_EVERY * 3 });
      if (asked !== id) return;
      page = found;
      fetchedAt = performance.now();
      if (state) render(state);
    } catch {
      // a private tournament this watcher was not invited to: the table's own words only
    }
    if (!stopped && asked === id && (!page || ["registering", "running"].includes(page.status))) timer = setTimeout(ask, ASK_EVERY);
  }

  function follow(tid) {
    if (tid === id) return;
    id = tid;
    page = null;
    clearTimeout(timer);
    if (tid !== null) ask();
  }

  function render(s) {
    state = s;
    const tour = s.table?.tournament || null;
    follow(tour ? tour.tournament_id : null);
    el.hidden = !tour && !s.finished;
    const live = page?.live || null;
    const you = page?.you || null;
    const key = JSON.stringify([tour, s.table?.id, s.table?.name, s.moved, s.finished, page?.name, live && { ...live, level_left_ms: null }, you?.table_id]);
    keyed(el, key, () => parts(s, tour, live, you));
    tick();
  }

  function parts(s, tour, live, you) {
    const tid = tour?.tournament_id ?? s.finished?.tournament_id;
    const link = tid ? h("a.tour-link", { href: `/tournaments/${tid}`, "data-link": "" }, page ? t("tour.back_to", { name: page.name }) : t("tour.page")) : null;
    const out = [h("div.tour-line", link, ...(tour ? levelTags(tour, live) : []))];
    if (tour && tour.waiting && tour.round !== null && tour.round !== undefined) out.push(h("p.notice.waiting-h4h", { role: "status" }, t("tour.waiting_h4h")));
    if (s.moved) out.push(h("p.notice.moved", { role: "status" }, t("tour.moved_you", { table: s.moved.to_table === s.table?.id ? s.table.name : t("tour.table_n", { n: s.moved.to_table }), n: number(s.moved.seat + 1) })));
    if (s.finished) out.push(h("p.notice.finished", { role: "status" }, finishedText(s.finished.place, s.finished.of, s.finished.prize), " ", h("a", { href: `/tournaments/${s.finished.tournament_id ?? tid}`, "data-link": "" }, t("tour.see_results"))));
    else if (you?.table_id && s.table && you.table_id !== s.table.id) out.push(h("p.notice.elsewhere", h("a.btn.small", { href: `/table/${you.table_id}`, "data-link": "" }, t("tour.my_table"))));
    return out;
  }

  function levelTags(tour, live) {
    const tags = [h("span.chip-tag.tour-level", t("tour.level_n", { n: number(tour.level) })), h("span.chip-tag.tour-stakes", stakesText(tour.stakes))];
    if (live) {
      tags.push(clockEl);
      if (live.hand_for_hand) tags.push(h("span.chip-tag.warn", t("badge.hand_for_hand")));
      if (live.is_break) tags.push(h("span.chip-tag.warn", t("badge.break")));
      if (live.frozen) tags.push(h("span.chip-tag.warn", t("badge.frozen")));
      tags.push(h("span.chip-tag", t("tour.left_of", { n: number(live.players_left), max: number(page.entrants) })));
    }
    return tags;
  }

  function tick() {
    const live = page?.live;
    if (!live) return;
    const leftMs = live.level_left_ms === null ? null : live.frozen ? live.level_left_ms : live.level_left_ms - (performance.now() - fetchedAt);
    const text = levelLeft(live, leftMs);
    if (clockEl.textContent !== text) clockEl.textContent = text;
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
  }

  return { el, render, tick, stop };
}
