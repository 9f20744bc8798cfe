// The operators' page (/admin): players (search, what they hold, mute, ban, adjust), chat
// reports, the processes and their tables (close, move) and the moderation log. Every route
// behind it refuses anyone but an operator; this page only draws what they answer.

import { get, post } from "./api.js";
import { chips, clear, h, toast, toCents } from "./dom.js";
import { DATE, has, language, t } from "./i18n.js";

const when = (iso) => (iso ? new Date(iso).toLocaleString(language(), DATE) : "");
// a posting kind or a logged action in the page's language (one the catalogue lacks: as stored)
const named = (prefix, value) => (has(`${prefix}.${value}`) ? t(`${prefix}.${value}`) : value);

function table(heads, rows) {
  return h("table", h("thead", h("tr", heads.map((x) => h("th", x)))), h("tbody", rows.map((r) => h("tr", r.map((c) => h("td", c))))));
}

function input(name, label, attrs = {}) {
  return h("label", label, " ", h("input", { name, "aria-label": label, ...attrs }));
}

/** A form whose submit runs `fn(values)` and says how it went. */
function form(id, fields, button, fn) {
  return h(
    "form",
    {
      id,
      onsubmit: async (ev) => {
        ev.preventDefault();
        const values = Object.fromEntries(new FormData(ev.target).entries());
        try {
          await fn(values, ev.target);
        } catch (err) {
          toast(err.message, "error");
        }
      },
    },
    fields,
    h("button.btn.small", { type: "submit" }, button),
  );
}

export async function adminPage(root) {
  try {
    await get("/api/admin/me");
  } catch (err) {
    clear(root, h("section.admin", h("h1", t("admin.title")), h("p.refused", err.message)));
    return null;
  }
  const found = h("div", { id: "admin-found" });
  const playerBox = h("div", { id: "admin-player" });
  const reportsBox = h("div", { id: "admin-reports" });
  const processesBox = h("div", { id: "admin-processes" });
  const logBox = h("div", { id: "admin-log" });

  async function search(values) {
    const { players } = await get(`/api/admin/players?q=${encodeURIComponent(values.q || "")}`);
    clear(
      found,
      players.length
        ? h("ul", players.map((p) => h("li", h("button.btn.small.ghost", { type: "button", onclick: () => showPlayer(p.id) }, p.name), " ", p.email, p.banned ? ` · ${t("admin.banned")}` : "")))
        : h("p", t("admin.none_found")),
    );
  }

  async function act(path, body, done) {
    await post(path, body);
    toast(done);
  }

  async function showPlayer(id) {
    const p = await get(`/api/admin/players/${id}`);
    let adjustKey = crypto.randomUUID(); // one key per adjustment: a second click posts once
    const state = [
      p.banned ? t("admin.banned") : null,
      p.muted_until ? t("admin.muted_until", { when: when(p.muted_until) }) : null,
      p.role === "operator" ? t("admin.operator") : null,
    ].filter(Boolean);
    clear(
      playerBox,
      h("h2", p.name),
      h("p", t("admin.balance", { amount: chips(p.balance) }), state.length ? ` · ${state.join(" · ")}` : ""),
      form("admin-mute", input("minutes", t("admin.minutes"), { type: "number", min: 1, placeholder: t("admin.for_good") }), t("admin.mute"), async (v) => {
        await act(`/api/admin/players/${id}/mute`, { minutes: v.minutes ? Number(v.minutes) : null }, t("admin.done"));
        await showPlayer(id);
      }),
      h("button.btn.small.ghost", { type: "button", id: "admin-unmute", onclick: async () => { await act(`/api/admin/players/${id}/unmute`, {}, t("admin.done")); await showPlayer(id); } }, t("admin.unmute")),
      form("admin-ban", input("reason", t("admin.reason"), { maxlength: 500 }), p.banned ? t("admin.unban") : t("admin.ban"), async (v) => {
        await act(`/api/admin/players/${id}/${p.banned ? "unban" : "ban"}`, { reason: v.reason }, t("admin.done"));
        await showPlayer(id);
      }),
      form(
        "admin-adjust",
        [input("amount", t("admin.amount"), { inputmode: "decimal", required: true }), input("reason", t("admin.reason"), { maxlength: 500, required: true })],
        t("admin.adjust"),
        async (v) => {
          const sign = String(v.amount).trim().startsWith("-") ? -1 : 1;
          const cents = toCents(String(v.amount).replace("-", ""));
          if (!Number.isFinite(cents) || cents <= 0) throw new Error(t("admin.bad_amount"));
          await act(`/api/admin/players/${id}/adjust`, { amount: sign * cents, key: adjustKey, reason: v.reason }, t("admin.done"));
          adjustKey = crypto.randomUUID();
          await showPlayer(id);
        },
      ),
      h("h3", t("admin.ledger")),
      table([t("admin.when"), t("admin.kind"), t("admin.amount"), t("admin.memo")], p.ledger.map((e) => [when(e.at), named("admin.kind", e.kind), chips(e.amount), e.memo])),
      h("h3", t("admin.sessions")),
      table([t("admin.opened"), t("admin.expires"), t("admin.live")], p.sessions.map((s) => [when(s.created_at), when(s.expires_at), s.live ? "✓" : "—"])),
      h("h3", t("admin.tables")),
      table([t("admin.table"), t("admin.seat"), t("admin.stack")], p.tables.map((x) => [`${x.name} (#${x.table})`, String(x.seat + 1), chips(x.stack)])),
      h("h3", t("admin.hands")),
      table([t("admin.hand"), t("admin.table")], p.hands.map((x) => [h("a", { href: `/hands/${x.number}`, "data-link": "" }, `#${x.number}`), `${x.table_name} (#${x.table})`])),
      h("h3", t("admin.log")),
      logTable(p.log),
    );
  }

  function logTable(lines) {
    return table(
      [t("admin.when"), t("admin.who"), t("admin.what"), t("admin.whom"), t("admin.table"), t("admin.why")],
      lines.map((l) => [when(l.at), l.actor_id === null ? t("admin.command_line") : l.actor, named("admin.action", l.action), l.target || "", l.table === null ? "" : `#${l.table}`, l.reason]),
    );
  }

  async function refresh() {
    const [{ reports }, { processes }, { log }] = await Promise.all([get("/api/admin/reports"), get("/api/admin/processes"), get("/api/admin/log")]);
    clear(
      reportsBox,
      reports.length
        ? reports.map((r) =>
            h(
              "article.report",
              h("p", t("admin.report_line", { reporter: r.reporter, reported: r.reported, table: r.table }), " ", when(r.at), " ", h("button.btn.small.ghost", { type: "button", onclick: () => showPlayer(r.reported_id) }, r.reported)),
              h("ol", r.context.map((c) => h(`li${c.line === r.line ? ".reported" : ""}`, h("strong", c.name), ": ", c.text))),
            ),
          )
        : h("p", t("admin.no_reports")),
    );
    clear(processesBox, processes.length ? h("ul", processes.map((p) => h("li", h("code", p.line)))) : h("p", t("admin.no_processes")));
    clear(logBox, logTable(log));
  }

  clear(
    root,
    h(
      "div.admin",
      h("h1", t("admin.title")),
      h("section", h("h2", t("admin.players")), form("admin-search", input("q", t("admin.search"), { type: "search" }), t("admin.find"), search), found, playerBox),
      h("section", h("h2", t("admin.reports")), reportsBox),
      h(
        "section",
        h("h2", t("admin.processes")),
        processesBox,
        form("admin-close", [input("table", t("admin.table"), { type: "number", min: 1, required: true }), input("reason", t("admin.reason"), { maxlength: 500 })], t("admin.close_table"), async (v) => {
          const r = await post(`/api/admin/tables/${Number(v.table)}/close`, { reason: v.reason });
          toast(r.closed ? t("admin.closed") : t("admin.closes_after_hand"));
          await refresh();
        }),
        form("admin-move", [input("table", t("admin.table"), { type: "number", min: 1, required: true }), input("to", t("admin.to_process"))], t("admin.move_table"), async (v) => {
          const r = await post(`/api/admin/tables/${Number(v.table)}/move`, { to: v.to || null });
          toast(r.moved ? t("admin.moved", { target: r.target }) : t("admin.not_moved"));
          await refresh();
        }),
      ),
      h("section", h("h2", t("admin.log")), logBox),
    ),
  );
  await refresh();
  const timer = setInterval(() => refresh().catch(() => null), 10_000);
  return () => clearInterval(timer);
}
