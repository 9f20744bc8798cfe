// Log in and register.

import { get, post } from "./api.js";
import { clear, field, h } from "./dom.js";
import { language, t } from "./i18n.js";

export function authPage(root, { mode = "login", onDone }) {
  const isLogin = mode === "login";
  const name = h("input", { name: "name", type: "text", autocomplete: "username", required: true, minlength: 2, maxlength: 20 });
  const email = h("input", { name: "email", type: "email", autocomplete: "email", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: isLogin ? "current-password" : "new-password", required: true });
  const error = h("p.form-error", { role: "alert" });
  const submit = h("button.btn.primary.wide", { type: "submit" }, isLogin ? t("auth.login") : t("auth.create_account"));
  const form = h(
    "form.auth-form",
    {
      novalidate: true,
      onsubmit: async (ev) => {
        ev.preventDefault();
        error.textContent = "";
        submit.disabled = true;
        try {
          if (!isLogin) {
            await post("/api/register", { name: name.value.trim(), email: email.value.trim(), password: password.value, language: language() });
          }
          const r = await post("/api/login", { name: name.value.trim(), password: password.value });
          await onDone(r.user);
        } catch (err) {
          error.textContent = err.message;
          (isLogin ? password : name).focus();
        } finally {
          submit.disabled = false;
        }
      },
    },
    field(t("auth.name"), name, isLogin ? null : t("auth.name_hint")),
    isLogin ? null : field(t("auth.email"), email, t("auth.email_hint")),
    field(t("auth.password"), password, isLogin ? null : t("auth.password_hint")),
    error,
    submit,
  );
  clear(
    root,
    h(
      "section.auth",
      h(
        "div.auth-hero",
        h("h1", t("site.game")),
        h("p.lead", t("auth.lead")),
        h("div.hero-cards", { "aria-hidden": "true" }, heroCards()),
      ),
      h(
        "div.panel.auth-panel",
        h("h2", isLogin ? t("auth.login") : t("auth.create_title")),
        inviteNote(),
        form,
        h(
          "p.switch",
          isLogin ? t("auth.new_here") : t("auth.have_account"),
          " ",
          h("a", { href: isLogin ? "/register" : "/login", "data-link": "" }, isLogin ? t("auth.create_title") : t("auth.login")),
        ),
      ),
    ),
  );
  name.focus();
}

/** A friend's invite link, opened logged out: the page says who invites to which table and
 * that logging in leads there (or that the link is no longer good). */
function inviteNote() {
  const returnTo = sessionStorage.getItem("stud.returnTo") || "";
  const token = returnTo.match(/^\/invite\/([^/?]+)/)?.[1];
  if (!token) return null;
  const note = h("p.invite-note", { role: "note" }, t("auth.invited"));
  get(`/api/tables/invite/${token}`).then(
    (who) => (note.textContent = t("auth.invited_by", { host: who.host, table: who.table })),
    (err) => {
      if (err.status !== 404) return; // offline: the general words stay
      note.textContent = t("auth.invite_invalid");
      note.classList.add("invite-invalid");
    },
  );
  return note;
}

function heroCards() {
  const codes = ["As", "Kh", "Qd", "Jc", "Ts"];
  return codes.map((c, i) => {
    const suit = { s: "♠", h: "♥", d: "♦", c: "♣" }[c[1]];
    const rank = c[0] === "T" ? "10" : c[0];
    const el = h(`div.card.face.${"hd".includes(c[1]) ? "red" : "black"}`, h("span.corner", h("span.rank", rank), h("span.suit", suit)), h("span.pip", suit));
    el.style.setProperty("--i", String(i - 2));
    return el;
  });
}
