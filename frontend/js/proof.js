// The public proof of one finished hand (/proof/NUMBER, anyone may open it): the hand's public
// record (GET /api/proof/{number}) checked here with the browser's own code, the four steps of
// scheme seeded-v2 (docs/fairness.md), and in plain words what that proves and what it cannot.

import { get } from "./api.js";
import { clear, h } from "./dom.js";
import { checkReveal } from "./fairness.js";
import { t } from "./i18n.js";
import { checkHand, SCHEME, verdict } from "./seeded.js";

const STEPS = [1, 2, 3, 4];

export async function proofPage(root, number) {
  clear(root, h("section.panel.proof", h("h1", t("proof.title", { n: number })), h("p.proof-status", t("proof.checking"))));
  let record;
  try {
    record = await get(`/api/proof/${encodeURIComponent(number)}`);
  } catch (err) {
    clear(root, h("section.panel.proof", h("h1", t("proof.not_found")), h("p", err.message)));
    return;
  }
  if (record.scheme !== SCHEME) {
    const old = await checkReveal(record.reveal?.commitment ?? record.deal_committed?.commitment, record.reveal, record.events || null);
    clear(root, h("section.panel.proof", h("h1", t("proof.title", { n: number })), h("p", t("proof.old_scheme", { scheme: record.scheme })), h(`p.verdict.${old.ok ? "ok" : "failed"}`, old.text)));
    return;
  }
  const result = verdict(
    await checkHand({ reveal: record.reveal, events: record.events || null, committed: record.deal_committed || null, announce: record.announce || null, previousCommits: record.previous_commits || null }),
  );
  const reveal = record.reveal;
  const seeds = reveal.seeds || [];
  const stepLine = (n) => {
    const what = t(`seeded.step.${n}`);
    const failed = result.problems.filter((p) => p.step === n);
    if (failed.length) return h("li.failed", t("proof.step_failed", { n, what, problem: failed.map((p) => p.text).join("; ") }));
    const skipped = result.unchecked.filter((u) => u.step === n);
    if (skipped.length) return h("li.unchecked", t("proof.step_unchecked", { n, what, why: skipped.map((u) => u.text).join("; ") }));
    return h("li.ok", t("proof.step_ok", { n, what }));
  };
  const headline = !result.ok ? t("proof.failed") : result.unchecked.length ? t("proof.ok_partly") : t("proof.ok");
  clear(
    root,
    h(
      "section.panel.proof",
      { dataset: { verdict: result.ok ? "ok" : "failed" } },
      h("h1", t("proof.title", { n: record.number ?? number })),
      h(`p.verdict.${result.ok ? "ok" : "failed"}`, { role: result.ok ? "status" : "alert" }, headline),
      h("ol.steps", STEPS.map(stepLine)),
      h("h2", t("proof.facts")),
      h(
        "dl.facts",
        h("dt", t("proof.sealed")), h("dd", h("code", reveal.commitment)),
        h("dt", t("proof.server_seed_hash")), h("dd", h("code", record.announce?.server_seed_hash ?? record.deal_committed?.server_seed_hash ?? "—")),
        h("dt", t("proof.server_seed")), h("dd", h("code", reveal.server_seed)),
        h("dt", t("proof.seeds")),
        h("dd", seeds.length ? h("ul", seeds.map((s) => h("li", t("proof.seat_seed", { seat: s.seat + 1 }), " ", h("code", s.seed)))) : t("proof.no_seeds")),
      ),
      h("h2", t("proof.proves_title")),
      h("ul", h("li", t("proof.proves.sealed")), h("li", t("proof.proves.order")), h("li", t("proof.proves.cards"))),
      h("h2", t("proof.cannot_title")),
      h("ul", h("li", t("proof.cannot.hidden")), h("li", t("proof.cannot.whose")), h("li", t("proof.cannot.peek")), seeds.length ? null : h("li", t("proof.cannot.bots"))),
    ),
  );
}
