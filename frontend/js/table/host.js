// The host's controls on a private table: settings, pause, remove a player, bots, close;
// seat requests to answer and a player's buy-in limits (R43), followed live.

import { chips, dialog, dollars, field, h, toast, toCents } from "../dom.js";
import { t } from "../i18n.js";
import { settingsFields } from "../settings-form.js";

export async function hostDialog(table, state, command, { follow = () => () => {} } = {}) {
  const form = settingsFields(table, { forHost: true });
  const removeSel = h("select", { name: "remove" });
  const bots = h("select", { name: "bots" });
  const botsRow = h("div.row.bots-row");
  const noBots = h("p.hint", t("host.no_free_seat"));
  const taken = new Set(); // seats filled since the dialog opened (their `seats` event may lag)

  /** The players and free seats as they are now: after seating bots the count follows. */
  function drawPlayers() {
    const seated = state.seats.filter((s) => s.user_id !== state.userId);
    const keep = removeSel.value;
    removeSel.replaceChildren(
      h("option", { value: "" }, t("host.choose_player")),
      ...seated.map((s) => h("option", { value: s.seat, selected: String(s.seat) === keep }, t("host.player_line", { name: s.name, n: s.seat + 1, amount: chips(s.stack) }))),
    );
    const occupied = new Set([...state.seats.map((s) => s.seat), ...taken]);
    const free = Math.max(0, (table.max_seats || 8) - occupied.size);
    bots.replaceChildren(...Array.from({ length: Math.min(7, free) }, (_, i) => h("option", { value: i + 1 }, String(i + 1))));
    botsRow.hidden = free === 0;
    noBots.hidden = free > 0;
  }

  // R43: the seat requests waiting for an answer, as they come and go
  const requestList = h("ul.seat-requests", { "aria-live": "polite" });
  const noRequests = h("p.hint", t("approval.none"));
  function drawRequests() {
    const waiting = state.seatRequests || [];
    requestList.replaceChildren(
      ...waiting.map((r) =>
        h(
          "li.seat-request",
          { dataset: { request: r.request } },
          h("span", t("approval.request_line", { name: r.name, n: r.seat + 1, amount: chips(r.amount) })),
          " ",
          h("button.btn.small.primary", { type: "button", dataset: { answer: "yes" }, onclick: () => answer(r, true) }, t("approval.approve")),
          " ",
          h("button.btn.small.ghost", { type: "button", dataset: { answer: "no" }, onclick: () => answer(r, false) }, t("approval.decline")),
        ),
      ),
    );
    noRequests.hidden = waiting.length > 0;
  }
  async function answer(r, approve) {
    const done = await run({ type: "host_seat_answer", request: r.request, approve }, (x) =>
      x.approved ? t("approval.seated", { name: r.name, n: r.seat + 1 }) : x.reason ? x.message : t("approval.declined", { name: r.name }),
    );
    if (done) drawRequests();
  }

  // R43: one player's buy-in limits, inside the table's
  const limitsWho = h("select", { name: "limits_player" });
  const limitsMin = h("input", { name: "limits_min", type: "text", inputmode: "decimal", autocomplete: "off", placeholder: dollars(table.min_buy_in) });
  const limitsMax = h("input", { name: "limits_max", type: "text", inputmode: "decimal", autocomplete: "off", placeholder: table.max_buy_in ? dollars(table.max_buy_in) : "" });
  function drawLimitsPlayers() {
    const people = new Map();
    for (const s of state.seats) if (s.user_id !== state.userId && !s.bot) people.set(s.user_id, s.name);
    for (const r of state.seatRequests || []) people.set(r.user_id, r.name);
    const keep = limitsWho.value;
    limitsWho.replaceChildren(
      h("option", { value: "" }, t("host.choose_player")),
      ...[...people].map(([id, name]) => h("option", { value: id, selected: String(id) === keep }, name)),
    );
  }
  const optionalCents = (input) => {
    if (input.value.trim() === "") return null;
    const v = toCents(input.value);
    if (!Number.isFinite(v) || v <= 0) throw new Error(t("form.bad_amount", { field: t("limits.title") }));
    return v;
  };
  async function setLimits() {
    if (limitsWho.value === "") return;
    let low, high;
    try {
      low = optionalCents(limitsMin);
      high = optionalCents(limitsMax);
    } catch (err) {
      toast(err.message, "error");
      return;
    }
    await run({ type: "host_limits", user_id: Number(limitsWho.value), min_buy_in: low, max_buy_in: high }, (x) =>
      t("limits.set", { min: chips(x.min_buy_in), max: x.max_buy_in ? chips(x.max_buy_in) : t("buy.no_maximum") }),
    );
  }
  const stopFollowing = follow(() => {
    drawPlayers();
    drawRequests();
    drawLimitsPlayers();
  });

  const run = async (msg, done) => {
    try {
      const r = await command(msg);
      toast(done(r));
      return r;
    } catch {
      return null; // shown by command()
    }
  };
  const seatBots = async () => {
    const r = await run({ type: "host_bots", count: Number(bots.value) }, (x) => t("host.bots_seated", { n: x.seats.length }));
    if (r) r.seats.forEach((seat) => taken.add(seat));
    drawPlayers();
  };
  const closeTable = async () => {
    const sure = await dialog(
      t("host.close_confirm_title"),
      h("p", t("host.close_confirm_text")),
      [
        { label: t("host.keep_open"), value: false },
        { label: t("host.close_table"), value: true, primary: true },
      ],
      { id: "close-dialog" },
    );
    if (!sure) return;
    await run({ type: "host_close" }, (r) => (r.closed ? t("host.closed") : t("host.closes_after")));
  };
  botsRow.append(
    field(t("host.seat_bots"), bots),
    h("button.btn.small", { type: "button", dataset: { host: "bots" }, onclick: seatBots }, t("host.seat_bots")),
  );
  drawPlayers();
  // the label follows the table as it is now (a pause answered, or one set elsewhere)
  let paused = !!(state.table?.paused ?? table.paused);
  const pauseButton = h("button.btn.small", {
    type: "button",
    dataset: { host: "pause" },
    onclick: async () => {
      const r = await run({ type: "host_pause", paused: !paused }, (x) => (x.paused ? t("host.paused") : t("host.resumed")));
      if (r) {
        paused = !!r.paused;
        pauseButton.textContent = paused ? t("host.resume") : t("host.pause");
      }
    },
  }, paused ? t("host.resume") : t("host.pause"));
  const quick = h(
    "div.host-quick",
    h("h3", t("host.table")),
    h(
      "div.row",
      pauseButton,
    ),
    h("h3", t("host.players")),
    h("div.row", field(t("host.remove"), removeSel), h("button.btn.small", {
      type: "button",
      dataset: { host: "remove" },
      onclick: async () => {
        if (removeSel.value === "") return;
        await run({ type: "host_remove", seat: Number(removeSel.value) }, (r) => (r.removed ? t("host.removed") : t("host.leaves_after")));
        drawPlayers();
      },
    }, t("host.remove"))),
    botsRow,
    noBots,
    h("h3", t("approval.title")),
    noRequests,
    requestList,
    h("h3", t("limits.title")),
    h("p.hint", t("limits.hint", { min: chips(table.min_buy_in), max: table.max_buy_in ? chips(table.max_buy_in) : t("buy.no_maximum") })),
    h(
      "div.row.limits-row",
      field(t("limits.player"), limitsWho),
      field(t("limits.min"), limitsMin),
      field(t("limits.max"), limitsMax),
      h("button.btn.small", { type: "button", dataset: { host: "limits" }, onclick: setLimits }, t("limits.save")),
    ),
    h("h3", t("host.settings")),
  );
  drawRequests();
  drawLimitsPlayers();
  // closing the table is apart from the everyday controls, at the end, and asks first
  const danger = h(
    "div.host-danger",
    h("h3", t("host.close_title")),
    h("p.hint", t("host.close_hint")),
    h("button.btn.small.danger", { type: "button", dataset: { host: "close" }, onclick: closeTable }, t("host.close_table")),
  );
  await dialog(
    t("host.title"),
    [quick, form.el, danger],
    [
      { label: t("button.done"), value: null },
      {
        label: t("host.save"),
        primary: true,
        action: async () => {
          const values = form.read();
          const changes = {};
          for (const [k, v] of Object.entries(values)) if (v !== table[k] && k !== "private" && k !== "password") changes[k] = v;
          if (!Object.keys(changes).length) return true;
          const r = await command({ type: "host_settings", changes });
          toast(r.applied ? t("host.changed") : t("host.change_later"));
          return true;
        },
      },
    ],
    { id: "host-dialog", wide: true },
  );
  stopFollowing();
}
