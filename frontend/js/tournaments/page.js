// A tournament's page (/tournaments/<id>, `?invite=` kept for a private one): its clock and
// stakes while it runs, the structure, the payouts, the standings, the tables to watch, the
// seed's commitment (R38), registering, and the host's controls. It asks again every 2 s
// while the tournament registers or runs.

import { get, post } from "../api.js";
import { clear, dialog, field, h, toast, variantName } from "../dom.js";
import { chipCount, money, number, ordinal, t } from "../i18n.js";
import { keyed } from "../table/view.js";
import { seedMatches } from "./draws.js";
import { hostTournament, showTournamentInvite, tournamentLink } from "./form.js";
import { levelEditor, levelsTable } from "./levels.js";
import { buyIn, levelLeft, payoutName, requestId, stakesText, statusName, when } from "./words.js";

const POLL_MS = 2000;
const ASK_MS = 8000; // an answer later than this is given up: the next poll asks again

export async function tournamentPage(root, id, user, { go, invite = null }) {
  const path = `/api/tournaments/${id}`;
  const query = invite ? `?invite=${encodeURIComponent(invite)}` : "";
  let data = null;
  let fetchedAt = 0;
  let timer = null;
  let left = false;
  const verdicts = new Map(); // seed → true/false/null, checked once

  const parts = {
    head: h("div.tour-head"),
    actions: h("div.tour-actions.row"),
    host: h("div.tour-host"),
    now: h("section.panel.tour-now", { "aria-live": "polite" }),
    payouts: h("section.panel.tour-payouts"),
    standings: h("section.panel.tour-standings"),
    structure: h("section.panel.tour-structure"),
    fairness: h("section.panel.tour-fairness"),
  };
  const clockEl = h("span.tour-clock", { role: "timer" });
  clear(
    root,
    h(
      "section.tournament-page",
      h("a.back", { href: "/tournaments", "data-link": "" }, t("tour.back")),
      parts.head,
      parts.actions,
      parts.host,
      h("div.tour-grid", parts.now, parts.payouts, parts.standings, parts.structure, parts.fairness),
    ),
  );

  const running = () => data.status === "running";
  // this player's latest entry (a re-entry after a bust is a new one)
  const mine = () => data.standings.filter((s) => s.user_id === user.id).sort((a, b) => b.entry - a.entry)[0] || null;

  function draw() {
    keyed(parts.head, JSON.stringify([data.name, data.status, data.frozen, data.note, data.live?.frozen, data.live?.hand_for_hand, data.live?.is_break]), head);
    keyed(parts.actions, JSON.stringify([data.status, data.you, data.live?.level, mine()]), actions);
    keyed(parts.host, JSON.stringify([data.host, data.status, data.live?.frozen, data.invite, data.standings.filter((s) => s.status === "playing").map((s) => s.user_id)]), host);
    keyed(parts.now, JSON.stringify([data.status, data.entrants, data.seats_left, data.starts_at, data.live && { ...data.live, level_left_ms: null }, data.finished_at]), now);
    keyed(parts.payouts, JSON.stringify([data.prize_pool, data.prizes, data.payouts]), payouts);
    keyed(parts.standings, JSON.stringify(data.standings), standings);
    keyed(parts.structure, JSON.stringify([data.structure, data.live?.level]), () => [h("h2", t("tour.structure")), h("div.table-list", levelsTable(data.structure, data.live ? data.live.level - 1 : null, { rotation: data.variant === "rotation" }))]);
    keyed(parts.fairness, JSON.stringify([data.draws, [...verdicts]]), fairness);
    tick();
  }

  function head() {
    const live = data.live;
    return [
      h(
        "div.table-title-row",
        h("h1.tour-title", data.name),
        h(`span.chip-tag.state.state-${data.status}`, statusName(data.status)),
        data.private ? h("span.chip-tag.private", t("badge.private")) : null,
        live?.frozen || data.frozen ? h("span.chip-tag.warn.frozen", t("badge.frozen")) : null,
        live?.hand_for_hand ? h("span.chip-tag.warn.hand-for-hand", t("badge.hand_for_hand")) : null,
        live?.is_break ? h("span.chip-tag.warn.break", t("badge.break")) : null,
      ),
      h(
        "p.sub",
        [variantName(data.variant), t("tour.buy_in_is", { amount: buyIn(data) }), t("tour.starting_chips_are", { n: chipCount(data.starting_chips) }), t("tour.seats_per_table_are", { n: number(data.seats_per_table) }), t("tour.clock_is", { n: number(Math.round(data.action_timer_ms / 1000)) })].join(" · "),
      ),
      data.note ? h("p.tour-note", data.note) : null,
    ];
  }

  function actions() {
    const you = data.you;
    const out = [];
    const live = data.live;
    const lateOpen = running() && live && live.level <= (data.late_levels || 0);
    if (!you && (data.status === "registering" || lateOpen)) out.push(button(t("tour.register"), "register", register, true));
    if (you && data.status === "registering") out.push(button(t("tour.unregister"), "unregister", unregister));
    const rebuys = data.rebuys;
    if (you && running() && live && rebuys) {
      if (live.level <= rebuys.levels) out.push(button(t("tour.rebuy", { amount: money(rebuys.price + (rebuys.fee || 0)) }), "rebuy", () => buy("rebuy")));
      if (rebuys.addon_price !== null && rebuys.addon_price !== undefined && live.level === rebuys.levels + 1) out.push(button(t("tour.addon", { amount: money(rebuys.addon_price + (rebuys.addon_fee || 0)) }), "addon", () => buy("addon")));
    }
    if (you?.table_id) out.push(h("a.btn.primary.my-table", { href: `/table/${you.table_id}`, "data-link": "" }, t("tour.my_table")));
    if (data.status === "finished") out.push(h("a.btn.summary", { href: `${path}/summary`, download: `tournament-${id}-summary.txt` }, t("tour.summary")));
    out.push(button(t("tour.host_like"), "like", () => hostTournament(user, { go }, data), false, true));
    return [yourLine(), ...out];
  }

  function yourLine() {
    const entry = mine();
    const you = data.you;
    let text = null;
    if (entry && entry.place) text = t("tour.you_placed", { place: ordinal(entry.place), prize: entry.prize ? ` (${money(entry.prize)})` : "" });
    else if (you && you.status === "registered") text = t("tour.you_registered");
    else if (you && you.status === "playing") text = t("tour.you_play", { chips: chipCount(you.chips) });
    return text ? h("p.you-line", { role: "status" }, text) : null;
  }

  function button(label, name, onclick, primary = false, ghost = false) {
    return h(`button.btn${primary ? ".primary" : ""}${ghost ? ".ghost" : ""}`, { type: "button", dataset: { tour: name }, onclick }, label);
  }

  function host() {
    if (!data.host || data.status === "finished" || data.status === "cancelled") return data.host && data.invite && data.private ? inviteRow() : null;
    const out = [h("h2", t("tour.host_controls"))];
    const row = [];
    if (data.status === "registering") row.push(button(t("tour.start_now"), "start", () => command({ type: "start" }, t("tour.started"))));
    if (running()) {
      const frozen = !!data.live?.frozen;
      row.push(button(frozen ? t("tour.resume") : t("tour.freeze"), frozen ? "resume" : "freeze", () => command({ type: frozen ? "resume" : "freeze" }, frozen ? t("tour.resumed") : t("tour.frozen"))));
    }
    row.push(h("button.btn.danger", { type: "button", dataset: { tour: "cancel" }, onclick: cancel }, t("tour.cancel")));
    out.push(h("div.row", row));
    if (running()) out.push(pauseRow());
    out.push(h("div.row.levels-row", button(t("tour.edit_levels"), "edit-levels", editLevels)));
    if (data.private && data.invite) out.push(inviteRow());
    return out;
  }

  function pauseRow() {
    const playing = data.standings.filter((s) => s.status === "playing");
    const who = h("select", { name: "pause-player" }, playing.map((s) => h("option", { value: s.user_id }, s.name)));
    const secs = h("input", { type: "number", name: "pause-seconds", min: 1, max: 3600, step: 1, value: 60 });
    const give = () => command({ type: "pause_for_me", user_id: Number(who.value), seconds: Number(secs.value) }, null).then((r) => r && toast(t("tour.paused_for", { time: number(Math.round(r.pause_left_ms / 1000)) })));
    return h("div.row.pause-row", field(t("tour.pause_player"), who), field(t("tour.pause_seconds"), secs), button(t("tour.pause_give"), "pause", give, false, false));
  }

  function inviteRow() {
    const link = tournamentLink(id, data.invite);
    return h("div.row.invite-row", h("input.invite-link", { type: "text", readonly: true, value: link, "aria-label": t("table.invite_link") }), button(t("table.invite_link"), "invite", () => showTournamentInvite(id, data.invite, data.name)));
  }

  function now() {
    const live = data.live;
    if (running() && live) return liveView(live);
    const facts = [[t("tour.entrants"), t("tour.entrants_of", { n: number(data.entrants), max: number(data.max_players) })]];
    if (data.status === "registering") facts.push([t("tour.starts"), data.seats_left !== null ? t("tour.starts_full", { n: number(data.seats_left) }) : when(data.starts_at)]);
    if (data.started_at) facts.push([t("tour.started_at"), when(data.started_at)]);
    if (data.finished_at) facts.push([data.status === "cancelled" ? t("tour.cancelled_at") : t("tour.finished_at"), when(data.finished_at)]);
    if (data.late_levels) facts.push([t("tour.late"), t("tour.late_levels", { n: number(data.late_levels) })]);
    return [h("h2", statusName(data.status)), facts_(facts)];
  }

  function liveView(live) {
    const s = live.stakes;
    return [
      h("h2", t("tour.level_n", { n: number(live.level) }), live.is_break ? h("span.badge.warn", t("badge.break")) : null),
      h("p.tour-clock-line", clockEl),
      h("p.tour-stakes", stakesText(s), data.variant === "rotation" ? ` · ${variantName(s.variant)}` : ""),
      facts_([
        [t("tour.players_left"), t("tour.entrants_of", { n: number(live.players_left), max: number(data.entrants) })],
        [t("tour.average"), chipCount(live.average_stack)],
        [t("tour.hands"), number(live.hands)],
        [t("tour.prize_pool"), money(data.prize_pool)],
      ]),
      h("h3", t("tour.tables")),
      h("ul.tour-tables", live.tables.map((x) => h("li", { dataset: { table: x.id } }, h("a", { href: `/table/${x.id}`, "data-link": "" }, t("tour.table_n", { n: x.id })), " · ", t("tour.players_n", { n: number(x.players) }), data.you?.table_id === x.id ? h("span.badge.host", t("tour.yours")) : null))),
    ];
  }

  const facts_ = (rows) => h("dl.facts", rows.flatMap(([k, v]) => [h("dt", k), h("dd", v)]));

  function payouts() {
    const prizes = data.prizes || [];
    return [
      h("h2", t("tour.payouts")),
      h("p.sub", payoutName(data.payouts), " · ", t("tour.pool_is", { amount: money(data.prize_pool) })),
      prizes.length
        ? h("table.tour-table.prizes", h("caption.sr-only", t("tour.payouts")), h("thead", h("tr", h("th", { scope: "col" }, t("tour.col.place")), h("th", { scope: "col" }, t("tour.col.prize")))), h("tbody", prizes.map((p, i) => h("tr", h("th", { scope: "row" }, ordinal(i + 1)), h("td", money(p))))))
        : h("p.empty", t("tour.no_prizes_yet")),
    ];
  }

  function standings() {
    const rows = data.standings.map((s) =>
      h(
        `tr${s.user_id === user.id ? ".mine" : ""}`,
        { dataset: { user: s.user_id } },
        h("td", s.place ? ordinal(s.place) : ""),
        h("th", { scope: "row" }, s.name, s.entry > 1 ? h("span.badge", t("tour.reentry_n", { n: s.entry })) : null),
        h("td", s.place ? "" : chipCount(s.chips)),
        h("td", t(`tour.entry.${s.status}`)),
        h("td", s.prize ? money(s.prize) : ""),
        h("td", s.table_id ? h("a", { href: `/table/${s.table_id}`, "data-link": "" }, t("tour.table_n", { n: s.table_id })) : ""),
      ),
    );
    return [
      h("h2", t("tour.standings")),
      rows.length
        ? h("div.table-list", h("table.tour-table.standings", h("caption.sr-only", t("tour.standings")), h("thead", h("tr", ["place", "player", "chips", "state", "prize", "table"].map((c) => h("th", { scope: "col" }, t(`tour.col.${c}`))))), h("tbody", rows)))
        : h("p.empty", t("tour.nobody_yet")),
    ];
  }

  function fairness() {
    return [
      h("h2", t("tour.fairness")),
      h("p.hint", t("tour.fairness_text")),
      ...data.draws.map((d) => {
        if (d.seed && !verdicts.has(d.seed)) {
          verdicts.set(d.seed, "checking");
          seedMatches(d).then((ok) => (verdicts.set(d.seed, ok === null ? "unchecked" : ok ? "ok" : "bad"), draw()));
        }
        const said = d.seed ? verdicts.get(d.seed) : "checking";
        const verdict = said === "checking" ? null : h(`span.seed-verdict.seed-${said}`, " ", t(`tour.seed_${said}`));
        return h(
          "dl.facts.draw",
          { dataset: { purpose: d.purpose } },
          h("dt", t("tour.commitment")), h("dd", h("code", d.commitment)),
          h("dt", t("tour.seed")), h("dd", d.seed ? [h("code", d.seed), verdict] : t("tour.seed_later")),
        );
      }),
    ];
  }

  function tick() {
    const live = data?.live;
    if (!live || !running()) return;
    const leftMs = live.level_left_ms === null ? null : live.frozen ? live.level_left_ms : live.level_left_ms - (performance.now() - fetchedAt);
    const text = levelLeft(live, leftMs);
    if (clockEl.textContent !== text) clockEl.textContent = text;
  }

  async function load() {
    clearTimeout(timer);
    try {
      data = await get(path + query, { timeoutMs: ASK_MS });
      fetchedAt = performance.now();
      document.title = t("title.page", { page: data.name });
      draw();
    } catch (err) {
      if (!data) {
        clear(root, h("section.panel.narrow", h("h1", t("tour.not_found")), h("p", err.status === 404 ? t("tour.not_found_text") : err.message), h("a.btn", { href: "/tournaments", "data-link": "" }, t("tour.back"))));
        return;
      }
    }
    if (!left && ["registering", "running"].includes(data.status)) timer = setTimeout(load, POLL_MS);
  }

  async function act(call, done) {
    try {
      const r = await call();
      if (done) toast(done);
      await load();
      return r;
    } catch (err) {
      toast(err.message, "error", 6000);
      return null;
    }
  }

  const command = (body, done) => act(() => post(`${path}/host`, body), done);
  const unregister = () => act(() => post(`${path}/unregister`, { request_id: requestId() }), t("tour.unregistered"));
  const buy = (kind) => act(() => post(`${path}/${kind}`, { request_id: requestId() }), kind === "rebuy" ? t("tour.rebought") : t("tour.added_on"));

  async function register() {
    const body = { request_id: requestId(), ...(invite ? { invite } : {}) };
    try {
      await post(`${path}/register`, body);
      toast(t("tour.registered"));
      return load();
    } catch (err) {
      if (err.code !== "bad_password") return toast(err.message, "error", 6000);
    }
    const password = h("input", { type: "password", name: "tournament-password", autocomplete: "off" });
    const done = await dialog(
      t("tour.password_title"),
      field(t("tour.password"), password),
      [
        { label: t("button.cancel"), value: null },
        {
          label: t("tour.register"),
          primary: true,
          action: async () => {
            try {
              return await post(`${path}/register`, { ...body, password: password.value });
            } catch (err) {
              throw err.code === "bad_password" ? new Error(t("tour.bad_password")) : err;
            }
          },
        },
      ],
      { id: "tournament-password-dialog" },
    );
    if (done) toast(t("tour.registered"));
    return load();
  }

  // R26: the host edits the levels after the one in play (before the start, after the
  // first); the server checks them as the host form's and answers from which level on
  async function editLevels() {
    const current = data.live ? data.live.level - 1 : 0;
    const levels = data.structure.levels;
    const editor = levelEditor(levels.slice(current + 1), { rotation: () => data.variant === "rotation", first: current + 2, previous: levels[current] });
    const saved = await dialog(
      t("tour.edit_levels_title"),
      [h("p.hint", t("tour.edit_levels_text", { n: number(current + 1) })), editor.el],
      [
        { label: t("button.cancel"), value: null },
        { label: t("tour.edit_levels_save"), primary: true, action: () => post(`${path}/host`, { type: "edit_levels", levels: editor.read() }) },
      ],
      { id: "edit-levels-dialog", wide: true },
    );
    if (saved) toast(t("tour.levels_saved", { n: number(saved.from_level) }));
    return load();
  }

  async function cancel() {
    const sure = await dialog(
      t("tour.cancel_title"),
      h("p", t("tour.cancel_text")),
      [
        { label: t("tour.keep"), value: false },
        { label: t("tour.cancel"), value: true, primary: true },
      ],
      { id: "cancel-tournament-dialog" },
    );
    if (sure) await command({ type: "cancel" }, t("tour.cancelled"));
  }

  await load();
  const ticker = setInterval(tick, 250);
  return () => {
    left = true;
    clearTimeout(timer);
    clearInterval(ticker);
  };
}
