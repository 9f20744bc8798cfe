// The host form: a new tournament, every choice the server takes (POST /api/tournaments).
// Money is typed in dollars and sent in cents; chips, levels and players are whole numbers;
// times are typed in seconds and sent in milliseconds.

import { post } from "../api.js";
import { dialog, dollars, field, h, toast, toCents, variantName } from "../dom.js";
import { t } from "../i18n.js";
import { inviteDialog } from "../invite-dialog.js";
import { levelEditor, suggestedLevels } from "./levels.js";
import { PAYOUTS, payoutName, SPEEDS, speedName, TOURNAMENT_VARIANTS } from "./words.js";

const DEFAULTS = {
  name: "",
  note: "",
  variant: "stud",
  seats_per_table: 8,
  buy_in: 1000,
  fee: 100,
  starting_chips: 1500,
  structure: { preset: "normal", by_hands: null },
  payouts: "top15",
  min_players: 2,
  max_players: 8,
  start: "full",
  late_levels: 0,
  reentry: false,
  rebuys: null,
  action_timer_ms: 10000,
  time_bank_ms: 30000,
  time_bank_refill_ms: 5000,
  pause_allowance_ms: 120000,
  hand_pause_ms: 3000,
  bot_delay_ms: 800,
  bots: 0,
  private: false,
};

/** The tournament page's link; a private one's carries its invite. */
export function tournamentLink(id, invite) {
  return `${location.origin}/tournaments/${id}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`;
}

export function showTournamentInvite(id, invite, name) {
  return inviteDialog(tournamentLink(id, invite), name, { text: t("tour.invite_anyone") });
}

const select = (name, options, value) => h("select", { name }, Object.entries(options).map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)));
const money = (name, cents) => h("input", { name, type: "text", inputmode: "decimal", value: cents === null || cents === undefined ? "" : dollars(cents), autocomplete: "off" });
const num = (name, value, attrs = {}) => h("input", { name, type: "number", value: value ?? "", step: 1, ...attrs });
const secs = (name, ms, attrs = {}) => num(name, ms / 1000, { min: 0, step: 0.1, ...attrs });
const check = (name, on) => h("input", { name, type: "checkbox", checked: !!on });
const fieldset = (legend, ...children) => h("fieldset.form-part", h("legend", legend), h("div.settings-grid", children));

/** A `datetime-local` value (the browser's own time) as ISO 8601 with its UTC offset. */
export function isoWithOffset(local) {
  const d = new Date(local);
  if (Number.isNaN(d.getTime())) return null;
  const off = -d.getTimezoneOffset();
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, "0");
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:00`;
  return `${day}T${time}${off < 0 ? "-" : "+"}${pad(off / 60)}:${pad(off % 60)}`;
}

function inputsFor(s) {
  const structure = s.structure;
  const kind = structure.levels ? "levels" : structure.hours ? "planner" : "preset";
  const rebuys = s.rebuys || {};
  return {
    name: h("input", { name: "name", type: "text", maxlength: 64, value: s.name, required: true, autocomplete: "off" }),
    note: h("textarea", { name: "note", maxlength: 500, rows: 2 }, s.note || ""),
    variant: select("variant", Object.fromEntries(TOURNAMENT_VARIANTS.map((v) => [v, variantName(v)])), s.variant),
    seats_per_table: select("seats_per_table", Object.fromEntries([2, 3, 4, 5, 6, 7, 8].map((n) => [n, t("form.n_seats", { n })])), s.seats_per_table),
    buy_in: money("buy_in", s.buy_in),
    fee: money("fee", s.fee),
    starting_chips: num("starting_chips", s.starting_chips, { min: 100 }),
    kind: select("structure", { preset: t("tour.form.kind.preset"), planner: t("tour.form.kind.planner"), levels: t("tour.form.kind.levels") }, kind),
    speed: select("speed", Object.fromEntries(SPEEDS.map((v) => [v, speedName(v)])), structure.preset || structure.speed || "normal"),
    by_hands: num("by_hands", structure.by_hands ?? "", { min: 1 }),
    hours: num("hours", structure.hours ?? 2, { min: 0.25, step: 0.25 }),
    open_pair: select("open_pair", { r14: t("tour.form.open_pair.r14"), rp10f: t("tour.form.open_pair.rp10f") }, structure.open_pair || "r14"),
    payouts: select("payouts", Object.fromEntries(PAYOUTS.map((p) => [p, payoutName(p)])), s.payouts),
    min_players: num("min_players", s.min_players, { min: 2 }),
    max_players: num("max_players", s.max_players, { min: 2 }),
    start: select("start", { full: t("tour.form.start.full"), scheduled: t("tour.form.start.scheduled") }, s.start),
    starts_at: h("input", { name: "starts_at", type: "datetime-local" }),
    opens_at: h("input", { name: "opens_at", type: "datetime-local" }),
    late_levels: num("late_levels", s.late_levels, { min: 0 }),
    reentry: check("reentry", s.reentry),
    rebuys: check("rebuys", s.rebuys),
    rebuy_levels: num("rebuy_levels", rebuys.levels ?? 3, { min: 1 }),
    rebuy_price: money("rebuy_price", rebuys.price ?? s.buy_in),
    rebuy_fee: money("rebuy_fee", rebuys.fee ?? 0),
    rebuy_chips: num("rebuy_chips", rebuys.chips ?? "", { min: 1 }),
    addon_price: money("addon_price", rebuys.addon_price ?? null),
    addon_fee: money("addon_fee", rebuys.addon_fee ?? 0),
    addon_chips: num("addon_chips", rebuys.addon_chips ?? "", { min: 1 }),
    action_timer: secs("action_timer", s.action_timer_ms, { min: 1, step: 1 }),
    time_bank: secs("time_bank", s.time_bank_ms, { step: 1 }),
    time_bank_refill: secs("time_bank_refill", s.time_bank_refill_ms, { step: 1 }),
    pause_allowance: secs("pause_allowance", s.pause_allowance_ms, { step: 1 }),
    hand_pause: secs("hand_pause", s.hand_pause_ms, { min: 0.5 }),
    bot_delay: secs("bot_delay", s.bot_delay_ms),
    bots: num("bots", s.bots, { min: 0 }),
    private: check("private", s.private),
    password: h("input", { name: "password", type: "password", maxlength: 128, autocomplete: "new-password" }),
  };
}

/** `{el, read()}`: the form, and its values in the server's units (or an Error to show). */
export function tournamentFields(current = {}) {
  const s = { ...DEFAULTS, ...current };
  const i = inputsFor(s);
  const levels = levelEditor(s.structure.levels || suggestedLevels(s.starting_chips), { rotation: () => i.variant.value === "rotation" });
  const only = (el, when) => ((el.dataset.when = when), el);
  const presetPart = h(
    "div.settings-grid.sub-part",
    only(field(t("tour.form.speed"), i.speed), "preset planner"),
    only(field(t("tour.form.by_hands"), i.by_hands, t("tour.form.by_hands_hint")), "preset"),
    only(field(t("tour.form.hours"), i.hours, t("tour.form.hours_hint")), "planner"),
  );
  const levelsPart = only(h("div.sub-part", levels.el, field(t("tour.form.open_pair"), i.open_pair)), "levels");
  const timePart = only(h("div.settings-grid.sub-part", field(t("tour.form.starts_at"), i.starts_at), field(t("tour.form.opens_at"), i.opens_at, t("tour.form.opens_at_hint")), field(t("tour.form.late_levels"), i.late_levels, t("tour.form.late_levels_hint")), h("div.field.checks", h("label.check", i.reentry, " ", t("tour.form.reentry")))), "scheduled");
  const rebuyPart = only(
    h(
      "div.settings-grid.sub-part",
      field(t("tour.form.rebuy_levels"), i.rebuy_levels),
      field(t("tour.form.rebuy_price"), i.rebuy_price),
      field(t("tour.form.rebuy_fee"), i.rebuy_fee),
      field(t("tour.form.rebuy_chips"), i.rebuy_chips, t("tour.form.chips_hint")),
      field(t("tour.form.addon_price"), i.addon_price, t("tour.form.addon_price_hint")),
      field(t("tour.form.addon_fee"), i.addon_fee),
      field(t("tour.form.addon_chips"), i.addon_chips, t("tour.form.chips_hint")),
    ),
    "rebuys",
  );
  const el = h(
    "div.tournament-form",
    fieldset(t("tour.form.part.game"), field(t("tour.form.name"), i.name), field(t("lobby.game"), i.variant), h("div.field.wide", h("label", { for: "t-note" }, t("tour.form.note")), Object.assign(i.note, { id: "t-note" })), field(t("tour.form.seats_per_table"), i.seats_per_table)),
    fieldset(t("tour.form.part.money"), field(t("tour.form.buy_in"), i.buy_in, t("tour.form.buy_in_hint")), field(t("tour.form.fee"), i.fee), field(t("tour.form.starting_chips"), i.starting_chips), field(t("tour.form.payouts"), i.payouts)),
    h("fieldset.form-part", h("legend", t("tour.form.part.structure")), h("div.settings-grid", field(t("tour.form.structure"), i.kind)), presetPart, levelsPart),
    h(
      "fieldset.form-part",
      h("legend", t("tour.form.part.players")),
      h("div.settings-grid", field(t("tour.form.min_players"), i.min_players), field(t("tour.form.max_players"), i.max_players), field(t("tour.form.bots"), i.bots, t("tour.form.bots_hint")), field(t("tour.form.start"), i.start)),
      timePart,
    ),
    h("fieldset.form-part", h("legend", t("tour.form.part.rebuys")), h("div.field.checks", h("label.check", i.rebuys, " ", t("tour.form.rebuys"))), rebuyPart),
    fieldset(
      t("tour.form.part.clock"),
      field(t("tour.form.action_timer"), i.action_timer),
      field(t("tour.form.time_bank"), i.time_bank),
      field(t("tour.form.time_bank_refill"), i.time_bank_refill),
      field(t("tour.form.pause_allowance"), i.pause_allowance, t("tour.form.pause_allowance_hint")),
      field(t("form.pause"), i.hand_pause),
      field(t("tour.form.bot_delay"), i.bot_delay),
    ),
    fieldset(t("tour.form.part.door"), h("div.field.checks", h("label.check", i.private, " ", t("tour.form.private"))), field(t("tour.form.password"), i.password)),
  );
  const shown = () => {
    const on = new Set([i.kind.value, i.start.value, i.rebuys.checked ? "rebuys" : ""]);
    for (const part of el.querySelectorAll("[data-when]")) part.hidden = !part.dataset.when.split(" ").some((w) => on.has(w));
    levels.redraw();
  };
  for (const input of [i.kind, i.start, i.rebuys, i.variant]) input.addEventListener("change", shown);
  shown();
  return { el, read: () => readForm(i, levels), inputs: i };
}

const whole = (input, label, { optional = false, min = 0 } = {}) => {
  if (optional && input.value.trim() === "") return null;
  const v = Number(input.value);
  if (input.value.trim() === "" || !Number.isInteger(v) || v < min) throw new Error(t("tour.form.bad_number", { field: label }));
  return v;
};
const cents = (input, label, { optional = false } = {}) => {
  if (optional && input.value.trim() === "") return null;
  const v = toCents(input.value);
  if (!Number.isFinite(v)) throw new Error(t("form.bad_amount", { field: label }));
  return v;
};
const ms = (input, label, min = 0) => {
  const v = Number(input.value);
  if (input.value.trim() === "" || !Number.isFinite(v) || v < min) throw new Error(t("tour.form.bad_number", { field: label }));
  return Math.round(v * 1000);
};

function readStructure(i, levels) {
  if (i.kind.value === "levels") return { levels: levels.read(), open_pair: i.open_pair.value };
  if (i.kind.value === "planner") {
    const hours = Number(i.hours.value);
    if (!(hours > 0)) throw new Error(t("tour.form.bad_number", { field: t("tour.form.hours") }));
    return { hours, speed: i.speed.value };
  }
  return { preset: i.speed.value, by_hands: whole(i.by_hands, t("tour.form.by_hands"), { optional: true, min: 1 }) };
}

function readRebuys(i) {
  if (!i.rebuys.checked) return null;
  return {
    levels: whole(i.rebuy_levels, t("tour.form.rebuy_levels"), { min: 1 }),
    price: cents(i.rebuy_price, t("tour.form.rebuy_price")),
    fee: cents(i.rebuy_fee, t("tour.form.rebuy_fee")),
    chips: whole(i.rebuy_chips, t("tour.form.rebuy_chips"), { optional: true, min: 1 }),
    addon_price: cents(i.addon_price, t("tour.form.addon_price"), { optional: true }),
    addon_fee: cents(i.addon_fee, t("tour.form.addon_fee")),
    addon_chips: whole(i.addon_chips, t("tour.form.addon_chips"), { optional: true, min: 1 }),
  };
}

function readForm(i, levels) {
  const name = i.name.value.trim();
  if (!name) throw new Error(t("tour.form.no_name"));
  const scheduled = i.start.value === "scheduled";
  const out = {
    name,
    note: i.note.value.trim(),
    variant: i.variant.value,
    seats_per_table: Number(i.seats_per_table.value),
    buy_in: cents(i.buy_in, t("tour.form.buy_in")),
    fee: cents(i.fee, t("tour.form.fee")),
    starting_chips: whole(i.starting_chips, t("tour.form.starting_chips"), { min: 1 }),
    structure: readStructure(i, levels),
    payouts: i.payouts.value,
    min_players: whole(i.min_players, t("tour.form.min_players"), { min: 2 }),
    max_players: whole(i.max_players, t("tour.form.max_players"), { min: 2 }),
    start: i.start.value,
    late_levels: scheduled ? whole(i.late_levels, t("tour.form.late_levels")) : 0,
    reentry: scheduled && i.reentry.checked,
    rebuys: readRebuys(i),
    action_timer_ms: ms(i.action_timer, t("tour.form.action_timer"), 1),
    time_bank_ms: ms(i.time_bank, t("tour.form.time_bank")),
    time_bank_refill_ms: ms(i.time_bank_refill, t("tour.form.time_bank_refill")),
    pause_allowance_ms: ms(i.pause_allowance, t("tour.form.pause_allowance")),
    hand_pause_ms: ms(i.hand_pause, t("form.pause")),
    bot_delay_ms: ms(i.bot_delay, t("tour.form.bot_delay")),
    bots: whole(i.bots, t("tour.form.bots")),
    private: i.private.checked,
  };
  if (scheduled) {
    out.starts_at = isoWithOffset(i.starts_at.value);
    if (!out.starts_at) throw new Error(t("tour.form.no_start"));
    if (i.opens_at.value) out.opens_at = isoWithOffset(i.opens_at.value);
  }
  if (out.private && i.password.value) out.password = i.password.value;
  return out;
}

/** The form filled from a tournament's page: its settings, its levels to edit (R26). */
function likeThis(page) {
  const keep = ["note", "variant", "seats_per_table", "buy_in", "fee", "starting_chips", "payouts", "max_players", "late_levels", "reentry", "rebuys", "action_timer_ms", "private"];
  const out = Object.fromEntries(keep.filter((k) => page[k] !== undefined && page[k] !== null).map((k) => [k, page[k]]));
  out.name = t("tour.form.copy_name", { name: page.name });
  out.structure = { levels: page.structure.levels, open_pair: page.structure.open_pair || "r14" };
  out.start = page.seats_left === null ? "scheduled" : "full";
  return out;
}

/** The host form in a dialog; made, the tournament's page (and a private one's invite). */
export async function hostTournament(user, { go }, like = null) {
  const current = like ? likeThis(like) : { name: t("tour.form.default_name", { name: user.name }) };
  const form = tournamentFields(current);
  const made = await dialog(
    t("tour.host"),
    form.el,
    [
      { label: t("button.cancel"), value: null },
      {
        label: t("tour.form.create"),
        primary: true,
        action: async () => {
          const body = form.read();
          return { body, answer: await post("/api/tournaments", body) };
        },
      },
    ],
    { id: "host-tournament-dialog", wide: true },
  );
  if (!made) return;
  const { id, invite } = made.answer;
  toast(t("tour.created", { name: made.body.name }));
  await go(`/tournaments/${id}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`);
  if (invite) await showTournamentInvite(id, invite, made.body.name);
}
