// "My hands": hand histories by email (/api/mail) and, when the server has them,
// the hand-history list and replayer (/api/hands, see `hands-api.js`).
//
// Email: the address must be verified first (a link by email); then one hand, or the last N,
// can be requested; each request's state (queued, sent, failed and why) is listed here.

import { get, me, post } from "./api.js";
import { clear, h, toast } from "./dom.js";
import { DATE, language, t } from "./i18n.js";

const STATUSES = ["queued", "sending", "sent", "failed"];
const statusText = (s) => (STATUSES.includes(s) ? t(`mail.status.${s}`) : s);

export async function historyPage(root, user, path, { go }) {
  let profile = (await me().catch(() => null)) || user;
  const requestsBody = h("tbody");
  const requestsEmpty = h("p.empty");
  const verifyBox = h("div.verify");
  const lastN = h("input", { type: "number", min: 1, max: 100, value: 10, id: "last-n", name: "last" });
  const handsBox = h("div.hands-box");

  clear(
    root,
    h(
      "section.history",
      h("h1", t("nav.hands")),
      h(
        "div.panel",
        h("h2", t("mail.title")),
        h("p.sub", t("mail.about")),
        verifyBox,
        h(
          "form.row.email-last",
          {
            onsubmit: async (ev) => {
              ev.preventDefault();
              try {
                const r = await post("/api/mail/hands", { last: Number(lastN.value) });
                toast(t("mail.queued", { id: r.request.id }));
                refresh();
              } catch (err) {
                toast(err.message, "error");
              }
            },
          },
          h("label", { for: "last-n" }, t("mail.last_before")),
          lastN,
          h("span", t("mail.last_after")),
          h("button.btn.small", { type: "submit", id: "email-last" }, t("button.send")),
        ),
        h("h3", t("mail.requests")),
        h(
          "div.table-list",
          h(
            "table.tables.requests",
            h("caption.sr-only", t("mail.your_requests")),
            h("thead", h("tr", h("th", { scope: "col" }, "#"), ["what", "to", "status", "attempts", "when"].map((c) => h("th", { scope: "col" }, t(`mail.col.${c}`))))),
            requestsBody,
          ),
          requestsEmpty,
        ),
      ),
      handsBox,
    ),
  );

  function drawVerify() {
    clear(
      verifyBox,
      profile.email_verified
        ? h("p", t("mail.address_before"), " ", h("strong", profile.email), " ", t("mail.is_verified"))
        : h(
            "p.row",
            t("mail.address_before"),
            " ",
            h("strong", profile.email),
            " ",
            t("mail.not_verified"),
            " ",
            h("button.btn.small", {
              type: "button",
              id: "send-verification",
              onclick: async () => {
                try {
                  await post("/api/mail/verification");
                  toast(t("mail.link_sent"));
                  refresh();
                } catch (err) {
                  toast(err.message, "error");
                }
              },
            }, t("mail.send_link")),
          ),
    );
  }

  async function refresh() {
    const fresh = await me().catch(() => null);
    if (fresh && fresh.email_verified !== profile.email_verified) {
      profile = fresh;
      drawVerify();
    }
    try {
      const r = await get("/api/mail/requests");
      clear(
        requestsBody,
        r.requests.map((q) =>
          h(
            "tr",
            { dataset: { request: q.id, status: q.status } },
            h("td", String(q.id)),
            h("td", q.kind === "verify" ? t("mail.what.verify") : q.hand_numbers.length === 1 ? t("mail.what.hand", { id: q.hand_numbers[0] }) : t("mail.what.hands", { n: q.hand_numbers.length, first: Math.min(...q.hand_numbers), last: Math.max(...q.hand_numbers) })),
            h("td", q.to),
            h("td", h(`span.status.status-${q.status}`, statusText(q.status)), q.reason ? h("small.hint", ` ${q.reason}`) : null),
            h("td", String(q.attempts)),
            h("td", new Date(q.sent_at || q.created_at).toLocaleString(language(), DATE)),
          ),
        ),
      );
      requestsEmpty.textContent = r.requests.length ? "" : t("mail.none");
    } catch (err) {
      requestsEmpty.textContent = err.status === 404 ? t("mail.unavailable") : err.message;
    }
  }

  drawVerify();
  await refresh();
  const timer = setInterval(refresh, 3000);

  // The hand-history list, replayer and downloads: drawn only when the server has the API.
  let stopHands = () => {};
  try {
    const { handsSection } = await import("./hands-api.js");
    stopHands = (await handsSection(handsBox, user, path, { go })) || stopHands;
  } catch {
    clear(handsBox);
  }
  return () => {
    clearInterval(timer);
    stopHands();
  };
}
