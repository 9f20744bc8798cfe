// The host's controls on a private table: settings, pause, remove a player, bots, close.

import { chips, dialog, field, h, toast } from "../dom.js";
import { settingsFields } from "../settings-form.js";

export async function hostDialog(table, state, command) {
  const form = settingsFields(table, { forHost: true });
  const seated = state.seats.filter((s) => s.user_id !== state.userId);
  const removeSel = h(
    "select",
    { name: "remove" },
    h("option", { value: "" }, "— choose a player —"),
    seated.map((s) => h("option", { value: s.seat }, `${s.name} (seat ${s.seat + 1}, ${chips(s.stack)})`)),
  );
  const free = (table.max_seats || 8) - state.seats.length;
  const bots = h("select", { name: "bots" }, Array.from({ length: Math.max(0, Math.min(7, free)) }, (_, i) => h("option", { value: i + 1 }, String(i + 1))));

  const run = async (msg, done) => {
    try {
      const r = await command(msg);
      toast(done(r));
    } catch {
      /* shown by command() */
    }
  };
  const quick = h(
    "div.host-quick",
    h("h3", "Table"),
    h(
      "div.row",
      h("button.btn.small", { type: "button", dataset: { host: "pause" }, onclick: () => run({ type: "host_pause", paused: !table.paused }, (r) => (r.paused ? "Paused: no new hand starts" : "Resumed")) }, table.paused ? "Resume dealing" : "Pause after this hand"),
      h("button.btn.small.danger", {
        type: "button",
        dataset: { host: "close" },
        onclick: async () => {
          const sure = await dialog("Close the table?", h("p", "Every stack goes back to its owner's balance. A hand in progress is played out first."), [
            { label: "Keep it open", value: false },
            { label: "Close table", value: true, primary: true },
          ], { id: "close-dialog" });
          if (!sure) return;
          await run({ type: "host_close" }, (r) => (r.closed ? "Table closed" : "The table closes after this hand"));
        },
      }, "Close table"),
    ),
    h("h3", "Players"),
    h("div.row", field("Remove", removeSel), h("button.btn.small", {
      type: "button",
      dataset: { host: "remove" },
      onclick: () => removeSel.value !== "" && run({ type: "host_remove", seat: Number(removeSel.value) }, (r) => (r.removed ? "Player removed" : "The player leaves after this hand")),
    }, "Remove")),
    free > 0
      ? h("div.row", field("Seat bots", bots), h("button.btn.small", { type: "button", dataset: { host: "bots" }, onclick: () => run({ type: "host_bots", count: Number(bots.value) }, (r) => `Seated ${r.seats.length} bot${r.seats.length === 1 ? "" : "s"}`) }, "Seat bots"))
      : h("p.hint", "No free seat for a bot."),
    h("h3", "Settings (apply between hands)"),
  );
  await dialog(
    "Host controls",
    [quick, form.el],
    [
      { label: "Close", value: null },
      {
        label: "Save settings",
        primary: true,
        action: async () => {
          const values = form.read();
          const changes = {};
          for (const [k, v] of Object.entries(values)) if (v !== table[k] && k !== "private" && k !== "password") changes[k] = v;
          if (!Object.keys(changes).length) return true;
          const r = await command({ type: "host_settings", changes });
          toast(r.applied ? "Settings changed" : "Settings change when this hand ends");
          return true;
        },
      },
    ],
    { id: "host-dialog", wide: true },
  );
}
