// The client's router: one page at a time, chosen by the path, without reloads.

import { me, post } from "./api.js";
import { authPage } from "./auth.js";
import { clear, h, toast } from "./dom.js";
import { invitePage, lobbyPage } from "./lobby.js";
import { tablePage } from "./table/page.js";

const root = document.getElementById("main");
const nav = document.getElementById("topnav");
let user = null;
let cleanup = null;

function go(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  return route();
}

function drawNav() {
  clear(
    nav,
    user
      ? [
          h("a", { href: "/lobby", "data-link": "" }, "Lobby"),
          h("a", { href: "/hands", "data-link": "" }, "My hands"),
          h("span.who", { "aria-label": `Logged in as ${user.name}` }, user.name),
          h("button.btn.small.ghost", { type: "button", id: "logout", onclick: logout }, "Log out"),
        ]
      : [h("a", { href: "/login", "data-link": "" }, "Log in"), h("a", { href: "/register", "data-link": "" }, "Register")],
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
  if (user === null) user = await me().catch(() => null);
  drawNav();
  const returnTo = sessionStorage.getItem("stud.returnTo");
  if (!user) {
    if (path !== "/login" && path !== "/register") {
      if (path !== "/") sessionStorage.setItem("stud.returnTo", path);
      history.replaceState(null, "", "/login");
    }
    const mode = location.pathname === "/register" ? "register" : "login";
    document.title = mode === "login" ? "Log in · Stud" : "Register · Stud";
    authPage(root, {
      mode,
      onDone: (u) => {
        user = u;
        sessionStorage.removeItem("stud.returnTo");
        go(returnTo || "/lobby", { replace: true });
      },
    });
    return;
  }
  let m;
  if ((m = path.match(/^\/table\/(\d+)$/))) {
    document.title = "Table · Stud";
    cleanup = await tablePage(root, Number(m[1]), user, { onLeave: () => go("/lobby") });
  } else if ((m = path.match(/^\/invite\/([^/]+)$/))) {
    await invitePage(root, decodeURIComponent(m[1]), { go });
  } else if (path === "/hands" || path.startsWith("/hands/")) {
    document.title = "My hands · Stud";
    const { historyPage } = await import("./history.js");
    cleanup = await historyPage(root, user, path, { go });
  } else {
    if (path !== "/lobby") history.replaceState(null, "", "/lobby");
    document.title = "Lobby · Stud";
    cleanup = await lobbyPage(root, user, { go });
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
route();
