// The lobby: public tables with filters, my private tables, and creating a table.

import { get, post } from "./api.js";
import { chips, clear, dialog, h, stakes, toast, VARIANT_SHORT, VARIANTS } from "./dom.js";
import { settingsFields } from "./settings-form.js";
import { showInvite } from "./table/page.js";

export async function lobbyPage(root, user, { go }) {
  const filters = { variant: "", stakes: "", free: false };
  let tables = [];
  let hosted = []; // the tables I host, private ones with their invites (GET /api/tables/mine)
  const variantSel = h("select", { id: "filter-variant", onchange: (ev) => ((filters.variant = ev.target.value), draw()) }, h("option", { value: "" }, "All games"), Object.entries(VARIANTS).map(([v, l]) => h("option", { value: v }, l)));
  const stakesSel = h("select", { id: "filter-stakes", onchange: (ev) => ((filters.stakes = ev.target.value), draw()) });
  const freeBox = h("input", { type: "checkbox", id: "filter-free", onchange: (ev) => ((filters.free = ev.target.checked), draw()) });
  const body = h("tbody");
  const empty = h("p.empty");
  const mine = h("div.my-tables");
  const balance = h("span.balance", chips(user.balance));

  clear(
    root,
    h(
      "section.lobby",
      h(
        "div.lobby-head",
        h("div", h("h1", "Lobby"), h("p.sub", "Hello ", h("strong", user.name), " · balance ", balance)),
        h("button.btn.primary", { type: "button", id: "create-table", onclick: createTable }, "Create a table"),
      ),
      h(
        "div.filters",
        { role: "search", "aria-label": "Filter tables" },
        h("label", { for: "filter-variant" }, "Game"), variantSel,
        h("label", { for: "filter-stakes" }, "Stakes"), stakesSel,
        h("label.check", freeBox, " Seats free"),
      ),
      h(
        "div.panel.table-list",
        h(
          "table.tables",
          h("caption.sr-only", "Public tables"),
          h("thead", h("tr", ["Table", "Game", "Stakes", "Ante", "Min buy-in", "Seats", "Waiting", ""].map((t) => h("th", { scope: "col" }, t)))),
          body,
        ),
        empty,
      ),
      mine,
    ),
  );

  function draw() {
    const allStakes = [...new Set(tables.map(stakes))];
    const keep = filters.stakes;
    clear(stakesSel, h("option", { value: "" }, "Any stakes"), allStakes.map((s) => h("option", { value: s, selected: s === keep }, s)));
    const shown = tables.filter(
      (t) => (!filters.variant || t.variant === filters.variant) && (!filters.stakes || stakes(t) === filters.stakes) && (!filters.free || t.seats_taken < t.max_seats),
    );
    clear(
      body,
      shown.map((t) =>
        h(
          "tr",
          { dataset: { table: t.id } },
          h("th", { scope: "row" }, t.name, t.paused ? h("span.badge", "paused") : null),
          h("td", VARIANT_SHORT[t.variant]),
          h("td", stakes(t)),
          h("td", chips(t.ante)),
          h("td", chips(t.min_buy_in)),
          h("td", `${t.seats_taken}/${t.max_seats}`),
          h("td", String(t.waiting)),
          h("td", h("a.btn.small", { href: `/table/${t.id}`, "data-link": "", "aria-label": `Open table ${t.name}` }, t.seats_taken < t.max_seats ? "Join" : "Watch")),
        ),
      ),
    );
    empty.textContent = shown.length ? "" : tables.length ? "No table matches these filters." : "No public tables yet: create one.";
    clear(
      mine,
      hosted.length
        ? [
            h("h2", "Tables you host"),
            h(
              "ul.private-list",
              hosted.map((t) =>
                h(
                  "li",
                  { dataset: { table: t.id } },
                  h("a", { href: `/table/${t.id}`, "data-link": "" }, t.name),
                  t.private ? h("span.badge", "private") : null,
                  ` ${VARIANT_SHORT[t.variant]} · ${t.seats_taken}/${t.max_seats} seated `,
                  t.invite ? h("button.btn.small.ghost", { type: "button", onclick: () => showInvite(t.invite, t.name) }, "Invite link") : null,
                ),
              ),
            ),
          ]
        : null,
    );
  }

  async function refresh() {
    try {
      const [r, m] = await Promise.all([get("/api/tables"), get("/api/tables/mine")]);
      tables = r.tables;
      hosted = m.tables;
      draw();
    } catch (err) {
      empty.textContent = err.message;
    }
  }

  async function createTable() {
    const form = settingsFields({ name: `${user.name}'s table` });
    const created = await dialog(
      "Create a table",
      form.el,
      [
        { label: "Cancel", value: null },
        { label: "Create", primary: true, action: async () => await post("/api/tables", form.read()) },
      ],
      { id: "create-dialog", wide: true },
    );
    if (!created) return;
    const t = created.table;
    toast(`Table “${t.name}” created`);
    await go(`/table/${t.id}`);
    if (t.private && created.invite) showInvite(created.invite, t.name);
  }

  await refresh();
  const timer = setInterval(refresh, 5000);
  return () => clearInterval(timer);
}

/** /invite/<token>: join the private table (asking for its password when it has one). */
export async function invitePage(root, token, { go }) {
  clear(root, h("section.panel.narrow", h("h1", "Joining the table…")));
  const join = async (password) => post("/api/tables/join", password === undefined ? { invite: token } : { invite: token, password });
  try {
    const r = await join();
    go(`/table/${r.table.id}`, { replace: true });
    return;
  } catch (err) {
    if (err.code !== "bad_password") {
      clear(root, h("section.panel.narrow", h("h1", "This invite does not work"), h("p", err.status === 404 ? "The table is closed or the link is wrong." : err.message), h("a.btn", { href: "/lobby", "data-link": "" }, "Go to the lobby")));
      return;
    }
  }
  const password = h("input", { type: "password", name: "table-password", autocomplete: "off" });
  const joined = await dialog(
    "This table has a password",
    h("div.field", h("label", { for: "table-password" }, "Table password"), Object.assign(password, { id: "table-password" })),
    [
      { label: "Cancel", value: null },
      { label: "Join", primary: true, action: async () => await join(password.value) },
    ],
    { id: "password-dialog" },
  );
  if (!joined) return go("/lobby");
  go(`/table/${joined.table.id}`, { replace: true });
}
