// The action bar: one button for each action legal now, with its amount and its key.

import { chips, h } from "../dom.js";

/** The buttons for `legal` (the server's legal actions): [{action, amount, label, key, kind}]. */
export function actionButtons(legal, phase) {
  const out = [];
  if (!legal) return out;
  if (legal.bring_in !== null) out.push({ action: "bring_in", amount: legal.bring_in, label: `Bring in ${chips(legal.bring_in)}`, key: "i", kind: "call" });
  if (legal.fold) out.push({ action: "fold", label: "Fold", key: "f", kind: "fold" });
  if (legal.check) out.push({ action: "check", label: "Check", key: "k", kind: "call" });
  if (legal.call !== null) out.push({ action: "call", label: `Call ${chips(legal.call)}`, key: "c", kind: "call" });
  if (legal.complete !== null) out.push({ action: "complete", amount: legal.complete, label: `Complete to ${chips(legal.complete)}`, key: "o", kind: "raise" });
  const betKeys = ["b", "g"];
  legal.bets.forEach((amount, i) => {
    const big = legal.bets.length > 1 && i === legal.bets.length - 1;
    out.push({ action: "bet", amount, label: `Bet ${chips(amount)}${big ? " (big bet)" : ""}`, key: betKeys[i] || null, kind: "raise" });
  });
  const raiseKeys = ["r", "t"];
  legal.raises.forEach((amount, i) => {
    const big = legal.raises.length > 1 && i === legal.raises.length - 1;
    out.push({ action: "raise", amount, label: `Raise to ${chips(amount)}${big ? " (big bet)" : ""}`, key: raiseKeys[i] || null, kind: "raise" });
  });
  if (legal.show) out.push({ action: "show", label: phase === "uncontested" ? "Show" : "Show hand", key: "s", kind: "call" });
  if (legal.muck) out.push({ action: "muck", label: phase === "uncontested" ? "Don't show" : "Muck", key: "m", kind: "fold" });
  return out;
}

export function buttonNode(b, onAct) {
  const label = b.label;
  const keyHint = b.key ? h("kbd", { "aria-hidden": "true" }, b.key.toUpperCase()) : null;
  return h(
    `button.btn.act.act-${b.kind}`,
    {
      type: "button",
      dataset: { action: b.action, amount: b.amount ?? "" },
      "aria-keyshortcuts": b.key ? b.key.toUpperCase() : undefined,
      onclick: () => onAct(b),
    },
    h("span.act-label", label),
    keyHint,
  );
}
