// The lobby: public tables with filters, your tables (where you sit or host), creating a table;
// beside the cash tables, the Tournaments tab (/tournaments).

import { del, get, me, post } from "./api.js";
import { chips, clear, dialog, h, stakes, toast, VARIANT_CODES, variantName, variantShort } from "./dom.js";
import { t } from "./i18n.js";
import { settingsFields } from "./settings-form.js";
import { showInvite } from "./table/page.js";
import { tournamentsTab } from "./tournaments/list.js";

const TABS = { cash: "/lobby", tournaments: "/tournaments" };

export async function lobbyPage(root, user, { go, tab = "cash" }) {
  const filters = { variant: "", stakes: "", free: false };
  let tables = [];
  let yours = []; // where I sit or that I host, private ones too (GET /api/tables/yours)
  const variantSel = h("select", { id: "filter-variant", onchange: (ev) => ((filters.variant = ev.target.value), draw()) }, h("option", { value: "" }, t("lobby.all_games")), VARIANT_CODES.map((v) => h("option", { value: v }, variantName(v))));
  const stakesSel = h("select", { id: "filter-stakes", onchange: (ev) => ((filters.stakes = ev.target.value), draw()) });
  const freeBox = h("input", { type: "checkbox", id: "filter-free", onchange: (ev) => ((filters.free = ev.target.checked), draw()) });
  const body = h("tbody");
  const empty = h("p.empty");
  const mine = h("div.my-tables");
  const balance = h("span.balance", chips(user.balance));
  const tournaments = tournamentsTab(user, { go });
  const createButton = h("button.btn.primary", { type: "button", id: "create-table", onclick: createTable }, t("lobby.create"));
  const cashPanel = h("div.lobby-panel", { role: "tabpanel", id: "panel-cash", "aria-labelledby": "tab-cash" });
  const tourPanel = h("div.lobby-panel", { role: "tabpanel", id: "panel-tournaments", "aria-labelledby": "tab-tournaments" }, tournaments.el);
  const tabButtons = Object.keys(TABS).map((id) =>
    h("button.tab", { type: "button", role: "tab", id: `tab-${id}`, "aria-controls": `panel-${id}`, onclick: () => choose(id, true), onkeydown: (ev) => arrows(ev, id) }, t(`lobby.tab.${id}`)),
  );

  /** One tab shown; its address kept (a reload, or the back link of a tournament, finds it). */
  function choose(id, byHand = false) {
    tab = id;
    tabButtons.forEach((b) => {
      const on = b.id === `tab-${id}`;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
    });
    cashPanel.hidden = id !== "cash";
    tourPanel.hidden = id !== "tournaments";
    createButton.hidden = id !== "cash";
    if (byHand && location.pathname !== TABS[id]) history.replaceState(null, "", TABS[id]);
    document.title = t("title.page", { page: id === "cash" ? t("nav.lobby") : t("lobby.tab.tournaments") });
  }

  function arrows(ev, id) {
    if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft") return;
    const next = id === "cash" ? "tournaments" : "cash";
    choose(next, true);
    document.getElementById(`tab-${next}`).focus();
  }

  clear(
    root,
    h(
      "section.lobby",
      h(
        "div.lobby-head",
        h("div", h("h1", t("lobby.title")), h("p.sub", t("lobby.hello"), " ", h("strong", user.name), " · ", t("lobby.balance"), " ", balance)),
        createButton,
      ),
      h("div.tabs.lobby-tabs", { role: "tablist", "aria-label": t("lobby.tabs") }, tabButtons),
      cashPanel,
      tourPanel,
    ),
  );
  clear(
    cashPanel,
    h(
      "div.filters",
      { role: "search", "aria-label": t("lobby.filter") },
      h("label", { for: "filter-variant" }, t("lobby.game")), variantSel,
      h("label", { for: "filter-stakes" }, t("lobby.stakes")), stakesSel,
      h("label.check", freeBox, " ", t("lobby.seats_free")),
    ),
    h(
      "div.panel.table-list",
      h(
        "table.tables",
        h("caption.sr-only", t("lobby.public_tables")),
        h("thead", h("tr", ["table", "game", "stakes", "ante", "min_buy_in", "seats", "waiting"].map((c) => h("th", { scope: "col" }, t(`lobby.col.${c}`))), h("th", { scope: "col" }))),
        body,
      ),
      empty,
    ),
    mine,
  );
  choose(tab);

  function draw() {
    const allStakes = [...new Set(tables.map(stakes))];
    const keep = filters.stakes;
    clear(stakesSel, h("option", { value: "" }, t("lobby.any_stakes")), allStakes.map((s) => h("option", { value: s, selected: s === keep }, s)));
    const shown = tables.filter(
      (t) => (!filters.variant || t.variant === filters.variant) && (!filters.stakes || stakes(t) === filters.stakes) && (!filters.free || t.seats_taken < t.max_seats),
    );
    clear(
      body,
      shown.map((x) =>
        h(
          "tr",
          { dataset: { table: x.id } },
          // the name is a way in too: on a phone the Join column is not shown
          h("th", { scope: "row" }, h("a.table-name", { href: `/table/${x.id}`, "data-link": "" }, x.name), x.paused ? h("span.badge", t("badge.paused")) : null),
          h("td", x.rotation && x.rotation !== "none" ? `${t("variant.rotation.short")}: ${variantShort(x.variant)}` : variantShort(x.variant)),
          h("td", stakes(x)),
          h("td", chips(x.ante)),
          h("td", chips(x.min_buy_in)),
          h("td", `${x.seats_taken}/${x.max_seats}`),
          h("td", String(x.waiting)),
          h(
            "td",
            h("a.btn.small", { href: `/table/${x.id}`, "data-link": "", "aria-label": t("lobby.open_table", { name: x.name }) }, x.seats_taken < x.max_seats ? t("lobby.join") : t("lobby.watch")),
            // R44: a full public table's waiting list, joined from here
            x.seats_taken >= x.max_seats && !x.private && !waitingAt(x.id) ? h("button.btn.small.ghost.wait-join", { type: "button", "aria-label": t("lobby.wait_label", { name: x.name }), onclick: () => joinList(x) }, t("lobby.wait")) : null,
          ),
        ),
      ),
    );
    empty.textContent = shown.length ? "" : tables.length ? t("lobby.no_match") : t("lobby.none_yet");
    clear(
      mine,
      yours.length
        ? [
            h("h2", t("lobby.yours")),
            h(
              "ul.private-list.your-tables",
              yours.map((x) =>
                h(
                  "li",
                  { dataset: { table: x.id } },
                  h("a", { href: `/table/${x.id}`, "data-link": "" }, x.name),
                  x.private ? h("span.badge", t("badge.private")) : null,
                  x.host ? h("span.badge.host", t("badge.host")) : null,
                  " ",
                  variantShort(x.variant),
                  " · ",
                  x.seat !== null && x.seat !== undefined ? t("lobby.you_sit", { n: x.seat + 1 }) : t("lobby.seated", { n: x.seats_taken, max: x.max_seats }),
                  " ",
                  x.waiting_place ? h("span.you-wait", t("lobby.you_wait", { n: x.waiting_place }), " ") : null,
                  x.offer !== null && x.offer !== undefined ? h("a.btn.small.primary.take-offer", { href: `/table/${x.id}`, "data-link": "" }, t("lobby.offer")) : null,
                  x.waiting_place ? h("button.btn.small.ghost.wait-leave", { type: "button", onclick: () => leaveList(x) }, t("wait.leave", { n: x.waiting_place })) : null,
                  x.invite ? h("button.btn.small.ghost", { type: "button", onclick: () => showInvite(x.invite, x.name) }, t("table.invite_link")) : null,
                ),
              ),
            ),
          ]
        : null,
    );
  }

  const waitingAt = (id) => yours.some((y) => y.id === id && y.waiting_place);

  async function joinList(x) {
    try {
      const r = await post(`/api/tables/${x.id}/waiting`, {});
      toast(t("wait.joined", { n: r.result.waiting }));
    } catch (err) {
      toast(err.message, "error");
    }
    await refresh();
  }

  async function leaveList(x) {
    try {
      await del(`/api/tables/${x.id}/waiting`);
      toast(t("wait.left"));
    } catch (err) {
      toast(err.message, "error");
    }
    await refresh();
  }

  async function refresh() {
    try {
      const [r, m, fresh] = await Promise.all([get("/api/tables"), get("/api/tables/yours"), me(), tournaments.refresh()]);
      tables = r.tables;
      yours = m.tables;
      // the balance changes at the tables (buy-ins, stacks back): not the one from logging in
      if (fresh) {
        user.balance = fresh.balance;
        balance.textContent = chips(fresh.balance);
      }
      draw();
    } catch (err) {
      empty.textContent = err.message;
    }
  }

  async function createTable() {
    const form = settingsFields({ name: t("lobby.default_name", { name: user.name }) });
    const created = await dialog(
      t("lobby.create"),
      form.el,
      [
        { label: t("button.cancel"), value: null },
        { label: t("button.create"), primary: true, action: async () => await post("/api/tables", form.read()) },
      ],
      { id: "create-dialog", wide: true },
    );
    if (!created) return;
    const made = created.table;
    toast(t("lobby.created", { name: made.name }));
    await go(`/table/${made.id}`);
    if (made.private && created.invite) showInvite(created.invite, made.name);
  }

  await refresh();
  const timer = setInterval(refresh, 5000);
  return () => clearInterval(timer);
}

/** /invite/<token>: join the private table (asking for its password when it has one). */
export async function invitePage(root, token, { go }) {
  clear(root, h("section.panel.narrow", h("h1", t("invite.joining"))));
  const join = async (password) => post("/api/tables/join", password === undefined ? { invite: token } : { invite: token, password });
  try {
    const r = await join();
    go(`/table/${r.table.id}`, { replace: true });
    return;
  } catch (err) {
    if (err.code !== "bad_password") {
      clear(root, h("section.panel.narrow", h("h1", t("invite.broken")), h("p", err.status === 404 ? t("invite.gone") : err.message), h("a.btn", { href: "/lobby", "data-link": "" }, t("nav.to_lobby"))));
      return;
    }
  }
  const password = h("input", { type: "password", name: "table-password", autocomplete: "off" });
  const joined = await dialog(
    t("invite.password_title"),
    h("div.field", h("label", { for: "table-password" }, t("invite.password")), Object.assign(password, { id: "table-password" })),
    [
      { label: t("button.cancel"), value: null },
      { label: t("lobby.join"), primary: true, action: async () => await join(password.value) },
    ],
    { id: "password-dialog" },
  );
  if (!joined) return go("/lobby");
  go(`/table/${joined.table.id}`, { replace: true });
}
