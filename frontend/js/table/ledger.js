// The host's session ledger of a private table (GET /api/tables/{id}/ledger): each player's
// buy-ins, top-ups, cash-outs, stack now and net, read by the server from the chip ledger,
// with its CSV download. The host's; every player's when the host shares it.

import { get } from "../api.js";
import { chips, dialog, h, toast } from "../dom.js";
import { t } from "../i18n.js";

const COLUMNS = ["buy_ins", "top_ups", "cash_outs", "stack", "net"];

function amountCell(cents, net = false) {
  const kind = net && cents > 0 ? ".plus" : net && cents < 0 ? ".minus" : "";
  return h(`td.num${kind}`, net && cents > 0 ? `+${chips(cents)}` : chips(cents));
}

export async function ledgerDialog(tableId) {
  let ledger;
  try {
    ledger = await get(`/api/tables/${tableId}/ledger`);
  } catch (err) {
    toast(err.message, "error");
    return;
  }
  const head = h("tr", h("th", { scope: "col" }, t("ledger.player")), COLUMNS.map((c) => h("th.num", { scope: "col" }, t(`ledger.${c}`))));
  const rows = ledger.players.map((p) =>
    h("tr", { dataset: { user: p.user_id } }, h("th", { scope: "row" }, p.name), COLUMNS.map((c) => amountCell(p[c], c === "net"))),
  );
  const totals = h("tr.totals", h("th", { scope: "row" }, t("ledger.total")), COLUMNS.map((c) => amountCell(ledger.totals[c], c === "net")));
  const table = h(
    "table.ledger-table",
    { id: "session-ledger" },
    h("thead", head),
    h("tbody", rows.length ? rows : h("tr", h("td", { colspan: COLUMNS.length + 1 }, t("ledger.nobody")))),
    h("tfoot", totals),
  );
  const download = h("a.btn.small", { href: `/api/tables/${tableId}/ledger.csv`, download: `table-${tableId}-ledger.csv`, dataset: { cmd: "ledger-csv" } }, t("ledger.download"));
  await dialog(
    t("ledger.title"),
    [
      h("p.hint", t("ledger.hint")),
      h("div.ledger-scroll", table),
      h("p.hint", t("ledger.rake", { amount: chips(ledger.rake) })),
      h("div.row", download),
    ],
    [{ label: t("button.done"), value: null }],
    { id: "ledger-dialog", wide: true },
  );
}
