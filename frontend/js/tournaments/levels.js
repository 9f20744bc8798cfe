// A tournament's levels (R26): the table the page shows, and the host's editor of their own.
// Stakes are tournament chips (whole numbers); a break keeps the stakes of the level before.

import { clear, h, variantShort, VARIANT_CODES } from "../dom.js";
import { chipCount, number, t } from "../i18n.js";

/** "20 min", "10 hands". */
export function levelLength(level) {
  if (level.hands !== null && level.hands !== undefined) return t("tour.level.hands", { n: number(level.hands) });
  return t("tour.level.minutes", { n: number(level.minutes ?? 0) });
}

/** The structure as a table; `current` (0-based) is the level in force, marked. */
export function levelsTable(structure, current = null, { rotation = false } = {}) {
  const rows = (structure?.levels || []).map((level, i) => {
    const mark = i === current ? { class: "current", "aria-current": "true" } : {};
    const numbered = h("th", { scope: "row" }, String(i + 1));
    if (level.is_break) return h("tr.break", mark, numbered, h("td", { colspan: rotation ? 4 : 3 }, t("tour.level.break")), h("td", levelLength(level)));
    return h(
      "tr",
      mark,
      numbered,
      h("td", chipCount(level.ante)),
      h("td", chipCount(level.bring_in)),
      h("td", `${chipCount(level.small_bet)}/${chipCount(level.big_bet)}`),
      rotation ? h("td", variantShort(level.variant)) : null,
      h("td", levelLength(level)),
    );
  });
  return h(
    "table.tour-table.levels",
    h("caption.sr-only", t("tour.structure")),
    h(
      "thead",
      h(
        "tr",
        ["level", "ante", "bring_in", "limits"].map((c) => h("th", { scope: "col" }, t(`tour.level.col.${c}`))),
        rotation ? h("th", { scope: "col" }, t("tour.level.col.game")) : null,
        h("th", { scope: "col" }, t("tour.level.col.length")),
      ),
    ),
    h("tbody", rows),
  );
}

const int = (input) => (input.value.trim() === "" ? NaN : Number(input.value));

/** The host's level table: `{el, read(), set(levels)}`; `read()` gives the levels in the
 * server's form or throws an Error naming the row at fault. `rotation()` says whether each
 * level names its game; `first` is the number of the first row (the levels to come of a
 * tournament under way start after the one in play, `previous`, whose stakes a break
 * first in the rows keeps). */
export function levelEditor(initial, { rotation, first = 1, previous = null }) {
  const body = h("tbody");
  const rows = [];

  function row(level) {
    const num = (name, value, label) => h("input", { type: "number", name, min: 0, step: 1, value: value ?? "", "aria-label": label, class: "level-input" });
    const r = {
      ante: num("ante", level.ante, t("tour.level.col.ante")),
      bring_in: num("bring_in", level.bring_in, t("tour.level.col.bring_in")),
      small_bet: num("small_bet", level.small_bet, t("tour.level.small")),
      big_bet: num("big_bet", level.big_bet, t("tour.level.big")),
      length: num("length", level.hands ?? level.minutes ?? 10, t("tour.level.col.length")),
      per: h("select", { name: "per", "aria-label": t("tour.level.per") }, h("option", { value: "minutes", selected: level.hands == null }, t("tour.level.per_minutes")), h("option", { value: "hands", selected: level.hands != null }, t("tour.level.per_hands"))),
      game: h("select", { name: "game", "aria-label": t("tour.level.col.game") }, VARIANT_CODES.map((v) => h("option", { value: v, selected: v === (level.variant || "stud") }, variantShort(v)))),
      is_break: !!level.is_break,
    };
    // R2's usual limits: the big bet is twice the small
    r.small_bet.addEventListener("change", () => {
      if (Number.isFinite(int(r.small_bet))) r.big_bet.value = String(2 * int(r.small_bet));
    });
    r.remove = h("button.btn.small.ghost", { type: "button", "aria-label": t("tour.level.remove"), onclick: () => (rows.splice(rows.indexOf(r), 1), draw()) }, "×");
    return r;
  }

  function draw() {
    clear(
      body,
      rows.map((r, i) => {
        const cells = r.is_break
          ? [h("td", { colspan: rotation() ? 5 : 4 }, t("tour.level.break_keeps"))]
          : [h("td", r.ante), h("td", r.bring_in), h("td", r.small_bet), h("td", r.big_bet), rotation() ? h("td", r.game) : null];
        if (r.is_break) r.per.value = "minutes";
        r.per.disabled = r.is_break;
        return h(`tr${r.is_break ? ".break" : ""}`, { dataset: { level: first + i } }, h("th", { scope: "row" }, String(first + i)), cells, h("td.length", r.length, r.per), h("td", r.remove));
      }),
    );
  }

  function add(isBreak) {
    const last = [...rows].reverse().find((r) => !r.is_break);
    const grow = (input, f) => (last && Number.isFinite(int(input)) ? Math.max(1, Math.round(int(input) * f)) : null);
    const small = last ? grow(last.small_bet, 1.5) : 20;
    const level = isBreak
      ? { is_break: true, minutes: 5 }
      : {
          ante: last ? grow(last.ante, 1.5) ?? 0 : 4,
          bring_in: last ? grow(last.bring_in, 1.5) : 5,
          small_bet: small,
          big_bet: small === null ? null : 2 * small,
          minutes: last && last.per.value === "minutes" ? int(last.length) : 10,
          hands: last && last.per.value === "hands" ? int(last.length) : null,
          variant: last ? last.game.value : "stud",
        };
    rows.push(row(level));
    draw();
  }

  function read() {
    if (first === 1 && !rows.some((r) => !r.is_break)) throw new Error(t("tour.level.none"));
    let before = previous && { ante: previous.ante, bring_in: previous.bring_in, small_bet: previous.small_bet, big_bet: previous.big_bet, variant: previous.variant ?? null };
    return rows.map((r, i) => {
      const n = first + i;
      const length = int(r.length);
      if (!Number.isInteger(length) || length <= 0) throw new Error(t("tour.level.bad_length", { n }));
      if (r.is_break) {
        if (!before) throw new Error(t("tour.level.break_first"));
        return { ...before, minutes: length, hands: null, is_break: true };
      }
      const values = ["ante", "bring_in", "small_bet", "big_bet"].map((k) => int(r[k]));
      if (!values.every((v) => Number.isInteger(v) && v >= 0)) throw new Error(t("tour.level.bad_stakes", { n }));
      const [ante, bring_in, small_bet, big_bet] = values;
      before = { ante, bring_in, small_bet, big_bet, variant: rotation() ? r.game.value : null };
      return { ...before, minutes: r.per.value === "minutes" ? length : null, hands: r.per.value === "hands" ? length : null, is_break: false };
    });
  }

  function set(levels) {
    rows.splice(0, rows.length, ...levels.map(row));
    draw();
  }

  set(initial);
  const el = h(
    "div.level-editor",
    h(
      "div.table-list",
      h(
        "table.tour-table.levels.editable",
        h("caption.sr-only", t("tour.levels_own")),
        h(
          "thead",
          h(
            "tr",
            h("th", { scope: "col" }, t("tour.level.col.level")),
            ["ante", "bring_in"].map((c) => h("th", { scope: "col" }, t(`tour.level.col.${c}`))),
            h("th", { scope: "col" }, t("tour.level.small")),
            h("th", { scope: "col" }, t("tour.level.big")),
            h("th.game-col", { scope: "col" }, t("tour.level.col.game")),
            h("th", { scope: "col" }, t("tour.level.col.length")),
            h("th", { scope: "col" }, h("span.sr-only", t("tour.level.remove"))),
          ),
        ),
        body,
      ),
    ),
    h(
      "div.row",
      h("button.btn.small", { type: "button", dataset: { levels: "add" }, onclick: () => add(false) }, t("tour.level.add")),
      h("button.btn.small.ghost", { type: "button", dataset: { levels: "break" }, onclick: () => add(true) }, t("tour.level.add_break")),
    ),
  );
  const redraw = () => {
    el.querySelector(".game-col").hidden = !rotation();
    draw();
  };
  redraw();
  return { el, read, set, redraw };
}

/** A first level for the host to edit: about a fiftieth of the stack as the small bet. */
export function suggestedLevels(startingChips) {
  const small = Math.max(2, Math.round(startingChips / 50));
  return [{ ante: Math.floor(small / 5), bring_in: Math.max(1, Math.floor(small / 4)), small_bet: small, big_bet: 2 * small, minutes: 10, hands: null, is_break: false, variant: "stud" }];
}
