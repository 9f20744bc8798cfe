// Hand histories (/api/hands): the hands a player was dealt into, a replayer that
// steps through a finished hand street by street or action by action (the live table's
// drawing), the downloads (PokerStars text, PHH), the deal's fairness check, and "Email me
// this hand".

import { get } from "./api.js";
import { chips, clear, h, toast, variantName, variantShort } from "./dom.js";
import { DATE, language, t } from "./i18n.js";
import { checkReveal } from "./fairness.js";
import { emailHand } from "./hand-mail.js";
import { applyEvent, emptyState, resultLines } from "./table/model.js";
import { renderFelt } from "./table/view.js";

export async function handsSection(box, user, path, { go }) {
  let list;
  try {
    list = await get("/api/hands?limit=50");
  } catch (err) {
    clear(box, h("div.panel", h("h2", t("hands.title")), h("p.sub", err.status === 404 ? t("hands.none_kept") : err.message)));
    return () => {};
  }
  const replayBox = h("div.replay-box");
  clear(
    box,
    h(
      "div.panel",
      h("h2", t("hands.title")),
      list.hands.length
        ? h(
            "div.table-list",
            h(
              "table.tables.hands",
              h("caption.sr-only", t("hands.caption")),
              h("thead", h("tr", ["hand", "table", "game", "ended", "net"].map((c) => h("th", { scope: "col" }, t(`hands.col.${c}`))), h("th", { scope: "col" }))),
              h(
                "tbody",
                list.hands.map((x) =>
                  h(
                    "tr",
                    { dataset: { hand: x.number } },
                    h("th", { scope: "row" }, `#${x.number}`),
                    h("td", x.table_name),
                    h("td", variantShort(x.variant)),
                    h("td", x.ended_at ? new Date(x.ended_at).toLocaleString(language(), DATE) : "—"),
                    h(`td${x.net > 0 ? ".plus" : x.net < 0 ? ".minus" : ""}`, x.net === null || x.net === undefined ? "" : chips(x.net)),
                    h("td", h("a.btn.small", { href: `/hands/${x.number}`, "data-link": "", "aria-label": t("hands.replay_n", { n: x.number }) }, t("hands.replay"))),
                  ),
                ),
              ),
            ),
          )
        : h("p.empty", t("hands.none")),
    ),
    replayBox,
  );
  const m = path.match(/^\/hands\/([A-Za-z0-9_-]+)$/);
  if (m) await replayer(replayBox, m[1], user);
  return () => {};
}

const ACTS = new Set(["ante_posted", "brought_in", "completed", "bet", "raised", "called", "checked", "folded", "hand_shown", "hand_mucked", "show_declined", "pot_awarded"]);

async function replayer(box, handId, user) {
  let hand;
  try {
    hand = await get(`/api/hands/${encodeURIComponent(handId)}`);
  } catch (err) {
    clear(box, h("div.panel", h("h2", t("hands.not_found")), h("p", err.message)));
    return;
  }
  const events = hand.events;
  const marks = [0];
  events.forEach((e, i) => {
    if (e.type === "street_started" || e.type === "showdown_started") marks.push(i + 1);
  });
  marks.push(events.length);
  // stepping by action too, as PokerStars' and PokerNow's replayers do: each player's act
  const acts = [];
  events.forEach((e, i) => {
    if (ACTS.has(e.type)) acts.push(i + 1);
  });
  let upto = events.length; // the events drawn: a street's mark or an action's
  const streetOf = () => marks.filter((m) => m <= upto).length - 1;
  const actOf = () => acts.filter((m) => m <= upto).length;
  const felt = h("div.felt.replay-felt", { role: "region", "aria-label": t("hands.replayed") }, h("div.rail"), h("div.center", h("div.center-info")));
  const results = h("div.results.replay-results", { "aria-live": "polite" });
  const log = h("ol.log.replay-log", { "aria-label": t("table.log") });
  const position = h("span.replay-pos", { "aria-live": "polite" });
  const actPosition = h("span.replay-act", { "aria-live": "polite" });
  const rotated = hand.rules?.rotation; // R45: a rotation table's hand names its game and step
  const fairness = h("p.fairness", t("fair.checking"));
  const emailStatus = h("span.email-status", { "aria-live": "polite" });
  const nav = (name, fn, key) => h("button.btn.small", { type: "button", onclick: () => { fn(); draw(); }, "aria-keyshortcuts": key, dataset: { replay: name } }, t(`replay.${name}`));
  const dl = (fmt, label, ext) => h("a.btn.small.ghost", { href: `/api/hands/${hand.number}?format=${fmt}`, download: `hand-${hand.number}.${ext}` }, label);
  clear(
    box,
    h(
      "div.panel.replayer",
      h("h2", t("hand.number", { n: hand.number }), ` · ${hand.table_name} · `, h("span.replay-game", rotated ? t("rotation.replay", { game: variantName(hand.variant), hand: rotated.hand, of: rotated.of }) : variantShort(hand.variant))),
      h(
        "div.row",
        nav("start", () => (upto = 0), "Home"),
        nav("back", () => (upto = marks[Math.max(0, marks.findLastIndex((m) => m < upto))] ?? 0), "ArrowLeft"),
        nav("next", () => (upto = marks.find((m) => m > upto) ?? events.length), "ArrowRight"),
        nav("end", () => (upto = events.length), "End"),
        position,
        nav("back_action", () => (upto = acts.findLast((m) => m < upto) ?? 0), "Shift+ArrowLeft"),
        nav("next_action", () => (upto = acts.find((m) => m > upto) ?? events.length), "Shift+ArrowRight"),
        actPosition,
        dl("pokerstars", t("hands.pokerstars"), "txt"),
        dl("phh", t("hands.phh"), "phh"),
        h("button.btn.small", {
          type: "button",
          id: "email-this-hand",
          onclick: async () => {
            try {
              const r = await emailHand(hand.number);
              toast(t("mail.request_status", { id: r.id, status: t(`mail.status.${r.status}`) }));
              followRequest(emailStatus, r);
            } catch (err) {
              toast(err.message, "error", 6000);
            }
          },
        }, t("hands.email_this")),
        emailStatus,
      ),
      h("div.replay-grid", h("div", h("div.felt-wrap", felt), results), log),
      fairness,
    ),
  );

  function draw() {
    const state = emptyState(user.id);
    state.table = { max_seats: Math.max(hand.max_seats ?? 8, ...hand.seats.map((s) => s.seat + 1)), variant: hand.variant, host_user_id: null };
    state.seats = hand.seats.map((s) => ({ ...s, sitting_out: false, auto_post: true, bot: false, leaving: false }));
    // the record's events carry no hand number: the record has it
    for (let i = 0; i < upto; i++) applyEvent(state, { v: i + 1, ...events[i], ...(events[i].type === "hand_started" ? { number: hand.number } : {}) });
    if (state.hand) state.hand.to_act = null;
    renderFelt(felt, state, { me: null, onSit: () => {} });
    const lines = resultLines(state);
    clear(results, lines.length ? h("div.result-box", lines.map((l) => h("div.result-line", h("strong", l.text), l.hand ? ` — ${l.hand}` : ""))) : null);
    clear(log, state.log.map((e) => h(`li.log-${e.kind}`, e.text)));
    position.textContent = t("replay.step", { n: streetOf(), of: marks.length - 1 });
    actPosition.textContent = t("replay.action", { n: actOf(), of: acts.length });
  }
  draw();
  box.scrollIntoView?.({ block: "start", behavior: "smooth" });
  const verdict = await checkReveal(hand.fairness.commitment, hand.fairness.reveal, hand.events, hand.fairness);
  fairness.textContent = t("fair.line", { commitment: `${hand.fairness.commitment?.slice(0, 16) ?? "—"}…`, verdict: verdict.text });
  // a seeded-v2 hand has a public proof anyone may open
  if (hand.fairness.scheme === "seeded-v2") fairness.append(" ", h("a.proof-link", { href: `/proof/${hand.number}`, "data-link": "" }, t("seeded.proof_link")));
}

const DONE = new Set(["sent", "failed"]);

/** Show an email request's status until it is sent or has failed (GET /api/mail/requests). */
async function followRequest(el, request) {
  const show = (q) => {
    el.dataset.status = q.status;
    el.textContent = t("mail.request_status", { id: q.id, status: t(`mail.status.${q.status}`) }) + (q.reason ? ` (${q.reason})` : "");
  };
  show(request);
  for (let i = 0; i < 120 && !DONE.has(el.dataset.status) && el.isConnected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    try {
      const found = (await get("/api/mail/requests")).requests.find((q) => q.id === request.id);
      if (found) show(found);
    } catch {
      // try again on the next tick
    }
  }
}
