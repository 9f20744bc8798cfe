// The table settings form: used to create a table and by the host to change one.

import { dollars, field, h, toCents, VARIANT_CODES, variantName } from "./dom.js";
import { t } from "./i18n.js";

const DEFAULTS = {
  name: "",
  variant: "stud",
  small_bet: 100,
  big_bet: 200,
  ante: 15,
  bring_in: 50,
  max_buy_in: null,
  max_seats: 8,
  action_timer_ms: 10000,
  hand_pause_ms: 3000,
  rake_bps: 0,
  rake_cap: 0,
  rake_third_street: false,
  timeout_action: "all_in",
  showdown_first_when_checked: "first_to_act",
  sit_out_limit: 3,
  time_bank: 0,
  time_bank_refill: 0,
  time_bank_every: 0,
  time_bank_cap: 0,
  bot_delay_ms: 800,
  private: false,
  seat_approval: false,
  ledger_shared: false,
  rotation: "none",
  rotation_hands: 8,
};

function select(name, options, value) {
  return h("select", { name }, Object.entries(options).map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)));
}

function money(name, cents) {
  return h("input", { name, type: "text", inputmode: "decimal", value: cents === null || cents === undefined ? "" : dollars(cents), autocomplete: "off" });
}

function num(name, value, attrs = {}) {
  return h("input", { name, type: "number", value, ...attrs });
}

/** `{el, read()}`: `read()` returns the settings in the server's units, or throws. */
export function settingsFields(current = {}, { forHost = false } = {}) {
  const s = { ...DEFAULTS, ...current };
  const inputs = {
    name: h("input", { name: "name", type: "text", maxlength: 64, value: s.name, required: true, autocomplete: "off" }),
    variant: select("variant", Object.fromEntries(VARIANT_CODES.map((v) => [v, variantName(v)])), s.variant),
    small_bet: money("small_bet", s.small_bet),
    big_bet: money("big_bet", s.big_bet),
    ante: money("ante", s.ante),
    bring_in: money("bring_in", s.bring_in),
    max_buy_in: money("max_buy_in", s.max_buy_in),
    max_seats: select("max_seats", Object.fromEntries([2, 3, 4, 5, 6, 7, 8].map((n) => [n, t("form.n_seats", { n })])), s.max_seats),
    action_timer: num("action_timer", s.action_timer_ms / 1000, { min: 1, max: 300, step: 1 }),
    hand_pause: num("hand_pause", s.hand_pause_ms / 1000, { min: 0, max: 60, step: 0.5 }),
    rake_pct: num("rake_pct", s.rake_bps / 100, { min: 0, max: 100, step: 0.25 }),
    rake_cap: money("rake_cap", s.rake_cap),
    rake_third_street: h("input", { name: "rake_third_street", type: "checkbox", checked: s.rake_third_street }),
    timeout_action: select("timeout_action", { all_in: t("form.timeout.all_in"), fold: t("form.timeout.fold") }, s.timeout_action),
    showdown_first_when_checked: select("showdown_first_when_checked", { first_to_act: t("form.first.first_to_act"), lowest_seat: t("form.first.lowest_seat") }, s.showdown_first_when_checked),
    sit_out_limit: num("sit_out_limit", s.sit_out_limit, { min: 0, max: 1000 }),
    // R42: a time bank in seconds, refilled every so many hands, up to a cap (0: off)
    time_bank: num("time_bank", s.time_bank ?? 0, { min: 0, max: 600, step: 1 }),
    time_bank_refill: num("time_bank_refill", s.time_bank_refill ?? 0, { min: 0, max: 600, step: 1 }),
    time_bank_every: num("time_bank_every", s.time_bank_every ?? 0, { min: 0, max: 1000, step: 1 }),
    time_bank_cap: num("time_bank_cap", s.time_bank_cap ?? 0, { min: 0, max: 600, step: 1 }),
    // R45: the game rotates (Stud Hi, Stud Hi/Lo, Razz) every N hands or every orbit
    rotation: select("rotation", { none: t("form.rotation.none"), hands: t("form.rotation.hands"), orbit: t("form.rotation.orbit") }, s.rotation),
    rotation_hands: num("rotation_hands", s.rotation_hands, { min: 1, max: 100 }),
    private: h("input", { name: "private", type: "checkbox", checked: s.private }),
    // a private table's host options (R43; the session ledger shared with every player)
    seat_approval: h("input", { name: "seat_approval", type: "checkbox", checked: s.seat_approval }),
    ledger_shared: h("input", { name: "ledger_shared", type: "checkbox", checked: s.ledger_shared }),
    password: h("input", { name: "password", type: "password", maxlength: 128, autocomplete: "new-password" }),
  };
  // A new small bet suggests the usual big bet and bring-in (R2).
  inputs.small_bet.addEventListener("change", () => {
    const sb = toCents(inputs.small_bet.value);
    if (!Number.isFinite(sb)) return;
    inputs.big_bet.value = dollars(2 * sb);
    inputs.bring_in.value = dollars(Math.max(1, Math.floor(sb / 2)));
  });
  const check = (label, input) => h("label.check", input, " ", label);
  const el = h(
    "div.settings-grid",
    field(t("form.name"), inputs.name),
    field(t("lobby.game"), inputs.variant),
    field(t("form.rotation"), inputs.rotation),
    field(t("form.rotation_hands"), inputs.rotation_hands),
    field(t("form.small_bet"), inputs.small_bet, t("form.small_bet_hint")),
    field(t("form.big_bet"), inputs.big_bet),
    field(t("form.ante"), inputs.ante),
    field(t("form.bring_in"), inputs.bring_in),
    field(t("form.max_buy_in"), inputs.max_buy_in, t("form.max_buy_in_hint")),
    field(t("lobby.col.seats"), inputs.max_seats),
    field(t("form.timer"), inputs.action_timer),
    field(t("form.pause"), inputs.hand_pause),
    field(t("form.rake"), inputs.rake_pct),
    field(t("form.rake_cap"), inputs.rake_cap),
    field(t("form.on_timeout"), inputs.timeout_action),
    field(t("form.showdown_order"), inputs.showdown_first_when_checked),
    field(t("form.sit_out_limit"), inputs.sit_out_limit),
    field(t("form.time_bank"), inputs.time_bank),
    field(t("form.time_bank_refill"), inputs.time_bank_refill),
    field(t("form.time_bank_every"), inputs.time_bank_every),
    field(t("form.time_bank_cap"), inputs.time_bank_cap),
    h("div.field.checks", check(t("form.rake_third"), inputs.rake_third_street)),
    forHost ? null : h("div.field.checks", check(t("form.private"), inputs.private)),
    !forHost || s.private ? h("div.field.checks", check(t("form.seat_approval"), inputs.seat_approval), check(t("form.ledger_shared"), inputs.ledger_shared)) : null,
    forHost ? null : field(t("form.password"), inputs.password),
  );
  const cents = (input, label, { optional = false, zero = true } = {}) => {
    if (optional && input.value.trim() === "") return null;
    const v = toCents(input.value);
    if (!Number.isFinite(v) || (!zero && v <= 0)) throw new Error(t("form.bad_amount", { field: label }));
    return v;
  };
  const read = () => {
    const name = inputs.name.value.trim();
    if (!name) throw new Error(t("form.no_name"));
    const out = {
      name,
      variant: inputs.variant.value,
      small_bet: cents(inputs.small_bet, t("form.small_bet"), { zero: false }),
      big_bet: cents(inputs.big_bet, t("form.big_bet"), { zero: false }),
      ante: cents(inputs.ante, t("form.ante")),
      bring_in: cents(inputs.bring_in, t("form.bring_in"), { zero: false }),
      max_buy_in: cents(inputs.max_buy_in, t("form.max_buy_in"), { optional: true, zero: false }),
      max_seats: Number(inputs.max_seats.value),
      action_timer_ms: Math.round(Number(inputs.action_timer.value) * 1000),
      hand_pause_ms: Math.round(Number(inputs.hand_pause.value) * 1000),
      rake_bps: Math.round(Number(inputs.rake_pct.value) * 100),
      rake_cap: cents(inputs.rake_cap, t("form.rake_cap")),
      rake_third_street: inputs.rake_third_street.checked,
      timeout_action: inputs.timeout_action.value,
      showdown_first_when_checked: inputs.showdown_first_when_checked.value,
      sit_out_limit: Number(inputs.sit_out_limit.value),
      time_bank: Number(inputs.time_bank.value),
      time_bank_refill: Number(inputs.time_bank_refill.value),
      time_bank_every: Number(inputs.time_bank_every.value),
      time_bank_cap: Number(inputs.time_bank_cap.value),
      rotation: inputs.rotation.value,
      rotation_hands: Number(inputs.rotation_hands.value),
    };
    if (!forHost) {
      out.private = inputs.private.checked;
      if (out.private && inputs.password.value) out.password = inputs.password.value;
    }
    if (forHost ? s.private : out.private) {
      out.seat_approval = inputs.seat_approval.checked;
      out.ledger_shared = inputs.ledger_shared.checked;
    }
    if (!(out.action_timer_ms >= 1000)) throw new Error(t("form.timer_min"));
    return out;
  };
  return { el, read, inputs };
}
