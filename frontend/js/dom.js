// Small DOM helpers: element building, chip amounts, toasts and modal dialogs.

import { money, parseMoney, t, typedMoney } from "./i18n.js";
import { placeToasts } from "./toasts.js";

/** h("button.primary", {onclick}, "Text") → an element; attrs may hold on* handlers,
 * `class`, `dataset`, booleans (set when true) and anything else as attributes. */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs === null || typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs)) {
    children.unshift(attrs);
    attrs = {};
  }
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = [el.className, value].filter(Boolean).join(" ");
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else if (key === "value" || key === "checked" || key === "selected") {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Chips are integers in cents, written the page language's way (i18n.money). */
export const chips = money;

/** An amount a person typed → cents (NaN when it is not one). */
export const toCents = parseMoney;

/** Cents as a person would type them (the value of an amount field). */
export const dollars = typedMoney;

export const VARIANT_CODES = ["stud", "stud8", "razz"];
// a tournament may also rotate the three games level by level
const NAMED = [...VARIANT_CODES, "rotation"];
export const variantName = (v) => (NAMED.includes(v) ? t(`variant.${v}`) : "");
export const variantShort = (v) => (NAMED.includes(v) ? t(`variant.${v}.short`) : "");

export function stakes(table) {
  return `${chips(table.small_bet)}/${chips(table.big_bet)}`;
}

export function toast(message, kind = "info", ms = 4000) {
  const box = document.getElementById("toasts");
  const el = h(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : undefined }, message);
  box.append(el);
  placeToasts();
  setTimeout(() => el.classList.add("fade"), ms - 400);
  setTimeout(() => el.remove(), ms);
  return el;
}

/** A modal <dialog> with a title, content and buttons; resolves with the value the clicked
 * button returns (or null when dismissed). `buttons`: [{label, value, primary, action}] where
 * `action(form)` may return a value, or throw an Error whose message is shown in the dialog. */
export function dialog(title, content, buttons, { id, wide } = {}) {
  return new Promise((resolve) => {
    const error = h("p.form-error", { role: "alert", "aria-live": "assertive" });
    const form = h("form.dialog-body", { method: "dialog", novalidate: true });
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const dlg = h(
      `dialog.modal${wide ? ".wide" : ""}`,
      { id, "aria-labelledby": titleId },
      form,
    );
    append(form, [h("h2", { id: titleId }, title), content, error]);
    const row = h("div.dialog-buttons");
    let done = false;
    const finish = (value) => {
      if (done) return;
      done = true;
      if (dlg.open) dlg.close();
      dlg.remove();
      resolve(value);
    };
    for (const b of buttons) {
      const btn = h(`button.btn${b.primary ? ".primary" : ""}`, {
        type: b.primary ? "submit" : "button",
        dataset: { value: b.value ?? b.label },
      }, b.label);
      btn.addEventListener("click", async (ev) => {
        ev.preventDefault();
        error.textContent = "";
        if (!b.action) return finish(b.value ?? null);
        btn.disabled = true;
        try {
          const value = await b.action(form);
          if (value !== undefined) finish(value);
        } catch (err) {
          error.textContent = err.message || String(err);
        } finally {
          btn.disabled = false;
        }
      });
      row.append(btn);
    }
    form.append(row);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      row.querySelector("button[type=submit]")?.click();
    });
    dlg.addEventListener("close", () => finish(null));
    dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      finish(null);
    });
    document.body.append(dlg);
    dlg.showModal();
    const first = form.querySelector("input:not([type=hidden]):not([readonly]), select, textarea");
    (first || row.querySelector("button"))?.focus();
  });
}

export function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2)}`;
  input.id = id;
  const hintEl = hint ? h("small.hint", { id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute("aria-describedby", hintEl.id);
  return h("div.field", h("label", { for: id }, label), input, hintEl);
}
