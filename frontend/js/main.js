// The client's router: one page at a time, chosen by the path, without reloads.

import { me, post } from "./api.js";
import { authPage } from "./auth.js";
import { clear, h, toast } from "./dom.js";
import { browserLanguage, language, LANGUAGES, setLanguage, t } from "./i18n.js";
import { invitePage, lobbyPage } from "./lobby.js";
import { tablePage } from "./table/page.js";
import { tournamentPage } from "./tournaments/page.js";

const root = document.getElementById("main");
const nav = document.getElementById("topnav");
let user = null;
let cleanup = null;

function go(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  return route();
}

/** The language menu: each language named in its own words. */
function languageMenu() {
  return h(
    "select.language",
    { id: "language", "aria-label": t("nav.language"), onchange: (ev) => chooseLanguage(ev.target.value) },
    LANGUAGES.map((code) => h("option", { value: code, selected: code === language(), lang: code }, t(`lang.${code}`))),
  );
}

async function chooseLanguage(code) {
  await setLanguage(code);
  if (user) {
    await post("/api/me/language", { language: code }).catch((err) => toast(err.message, "error"));
    user.language = code;
  }
  route();
}

function drawNav() {
  // the page's own words outside <main>
  document.querySelector(".skip-link").textContent = t("nav.skip");
  document.querySelector(".brand").setAttribute("aria-label", t("nav.home"));
  document.querySelector(".brand-name").textContent = t("site.name");
  document.querySelector(".brand-sub").textContent = t("site.game");
  nav.setAttribute("aria-label", t("nav.main"));
  clear(
    nav,
    user
      ? [
          h("a", { href: "/lobby", "data-link": "" }, t("nav.lobby")),
          h("a", { href: "/tournaments", "data-link": "" }, t("nav.tournaments")),
          h("a", { href: "/hands", "data-link": "" }, t("nav.hands")),
          user.operator ? h("a", { href: "/admin", "data-link": "" }, t("nav.admin")) : null,
          h("span.who", { "aria-label": t("nav.logged_in_as", { name: user.name }) }, user.name),
          languageMenu(),
          h("button.btn.small.ghost", { type: "button", id: "logout", onclick: logout }, t("nav.logout")),
        ]
      : [h("a", { href: "/login", "data-link": "" }, t("auth.login")), h("a", { href: "/register", "data-link": "" }, t("nav.register")), languageMenu()],
  );
}

async function logout() {
  await post("/api/logout").catch(() => null);
  user = null;
  go("/login");
}

async function route() {
  if (cleanup) {
    const c = cleanup;
    cleanup = null;
    await c();
  }
  document.querySelectorAll("dialog[open]").forEach((d) => d.close());
  const path = location.pathname;
  if (user === null) {
    user = await me().catch(() => null);
    if (user && user.language && user.language !== language()) await setLanguage(user.language);
  }
  drawNav();
  const proof = path.match(/^\/proof\/(\d+)$/); // a hand's public proof: anyone may open it
  if (proof) {
    document.title = t("title.page", { page: t("title.proof") });
    const { proofPage } = await import("./proof.js");
    await proofPage(root, proof[1]);
    root.focus({ preventScroll: true });
    return;
  }
  if (!user) {
    if (path !== "/login" && path !== "/register") {
      if (path !== "/") sessionStorage.setItem("stud.returnTo", path + location.search); // an invite's too
      history.replaceState(null, "", "/login");
    }
    const mode = location.pathname === "/register" ? "register" : "login";
    document.title = t("title.page", { page: mode === "login" ? t("auth.login") : t("nav.register") });
    authPage(root, {
      mode,
      onDone: async (u) => {
        user = u;
        // the account's language, chosen on an earlier visit, wins over this browser's
        if (u.language && u.language !== language()) await setLanguage(u.language);
        // read only now: the first visit stored the link above, after this page was chosen
        const returnTo = sessionStorage.getItem("stud.returnTo");
        sessionStorage.removeItem("stud.returnTo");
        go(returnTo || "/lobby", { replace: true });
      },
    });
    return;
  }
  let m;
  if ((m = path.match(/^\/table\/(\d+)$/))) {
    document.title = t("title.page", { page: t("title.table") });
    cleanup = await tablePage(root, Number(m[1]), user, { onLeave: () => go("/lobby") });
  } else if ((m = path.match(/^\/invite\/([^/]+)$/))) {
    document.title = t("title.page", { page: t("title.table") });
    await invitePage(root, decodeURIComponent(m[1]), { go });
  } else if ((m = path.match(/^\/tournaments\/(\d+)$/))) {
    document.title = t("title.page", { page: t("title.tournament") });
    const invite = new URLSearchParams(location.search).get("invite");
    cleanup = await tournamentPage(root, Number(m[1]), user, { go, invite });
  } else if (path === "/admin") {
    document.title = t("title.page", { page: t("admin.title") });
    const { adminPage } = await import("./admin.js");
    cleanup = await adminPage(root);
  } else if (path === "/hands" || path.startsWith("/hands/")) {
    document.title = t("title.page", { page: t("nav.hands") });
    const { historyPage } = await import("./history.js");
    cleanup = await historyPage(root, user, path, { go });
  } else {
    const tab = path === "/tournaments" ? "tournaments" : "cash";
    if (path !== "/lobby" && tab === "cash") history.replaceState(null, "", "/lobby");
    cleanup = await lobbyPage(root, user, { go, tab });
  }
  root.focus({ preventScroll: true });
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest?.("a[data-link]");
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  ev.preventDefault();
  go(a.getAttribute("href"));
});
window.addEventListener("popstate", route);
window.addEventListener("unhandledrejection", (ev) => {
  const msg = ev.reason?.message;
  if (msg) toast(msg, "error");
});
await setLanguage(browserLanguage());
route();
