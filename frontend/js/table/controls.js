// The action bar: one button for each action legal now, with its amount and its key.

import { h } from "../dom.js";
import { amount as chips, t } from "../i18n.js";

/** The buttons for `legal` (the server's legal actions): [{action, amount, label, key, kind}].
 * The keys stay the same in every language (they are printed on the buttons). */
export function actionButtons(legal, phase) {
  const out = [];
  if (!legal) return out;
  if (legal.bring_in !== null) out.push({ action: "bring_in", amount: legal.bring_in, label: t("act.bring_in", { amount: chips(legal.bring_in) }), key: "i", kind: "call" });
  if (legal.fold) out.push({ action: "fold", label: t("act.fold"), key: "f", kind: "fold" });
  if (legal.check) out.push({ action: "check", label: t("act.check"), key: "k", kind: "call" });
  if (legal.call !== null) out.push({ action: "call", label: t("act.call", { amount: chips(legal.call) }), key: "c", kind: "call" });
  if (legal.complete !== null) out.push({ action: "complete", amount: legal.complete, label: t("act.complete", { amount: chips(legal.complete) }), key: "o", kind: "raise" });
  const betKeys = ["b", "g"];
  legal.bets.forEach((amount, i) => {
    const big = legal.bets.length > 1 && i === legal.bets.length - 1;
    out.push({ action: "bet", amount, label: t(big ? "act.bet.big" : "act.bet", { amount: chips(amount) }), key: betKeys[i] || null, kind: "raise" });
  });
  const raiseKeys = ["r", "t"];
  legal.raises.forEach((amount, i) => {
    const big = legal.raises.length > 1 && i === legal.raises.length - 1;
    out.push({ action: "raise", amount, label: t(big ? "act.raise.big" : "act.raise", { amount: chips(amount) }), key: raiseKeys[i] || null, kind: "raise" });
  });
  if (legal.show) out.push({ action: "show", label: phase === "uncontested" ? t("act.show") : t("act.show_hand"), key: "s", kind: "call" });
  if (legal.muck) out.push({ action: "muck", label: phase === "uncontested" ? t("act.no_show") : t("act.muck"), key: "m", kind: "fold" });
  return out;
}

export function buttonNode(b, onAct) {
  const keyHint = b.key ? h("kbd", { "aria-hidden": "true" }, b.key.toUpperCase()) : null;
  return h(
    `button.btn.act.act-${b.kind}`,
    {
      type: "button",
      dataset: { action: b.action, amount: b.amount ?? "" },
      "aria-keyshortcuts": b.key ? b.key.toUpperCase() : undefined,
      onclick: () => onAct(b),
    },
    h("span.act-label", b.label),
    keyHint,
  );
}
