// "My hands": hand histories by email (issue 7's /api/mail) and, when the server has them,
// the hand-history list and replayer (issue 6's API, see `hands-api.js`).
//
// Email: the address must be verified first (a link by email); then one hand, or the last N,
// can be requested; each request's state (queued, sent, failed and why) is listed here.

import { get, me, post } from "./api.js";
import { clear, h, toast } from "./dom.js";

const STATUS = { queued: "Queued", sending: "Sending", sent: "Sent", failed: "Failed" };

/** Ask for one hand by email; resolves with the request, or rejects with a readable error. */
export async function emailHand(handId) {
  const r = await post("/api/mail/hands", { hand_id: handId });
  return r.request;
}

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
      h("h1", "My hands"),
      h(
        "div.panel",
        h("h2", "Hand histories by email"),
        h("p.sub", "Each email has the PokerStars-style history in its text and the PHH file attached. Cards follow the house rules: hands that reached the showdown are shown, mucked or not; folded hands never are."),
        verifyBox,
        h(
          "form.row.email-last",
          {
            onsubmit: async (ev) => {
              ev.preventDefault();
              try {
                const r = await post("/api/mail/hands", { last: Number(lastN.value) });
                toast(`Request #${r.request.id} queued`);
                refresh();
              } catch (err) {
                toast(err.message, "error");
              }
            },
          },
          h("label", { for: "last-n" }, "Email me my last"),
          lastN,
          h("span", "hands"),
          h("button.btn.small", { type: "submit", id: "email-last" }, "Send"),
        ),
        h("h3", "Requests"),
        h(
          "div.table-list",
          h(
            "table.tables.requests",
            h("caption.sr-only", "Your email requests"),
            h("thead", h("tr", ["#", "What", "To", "Status", "Attempts", "When"].map((t) => h("th", { scope: "col" }, t)))),
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
        ? h("p", "Your address ", h("strong", profile.email), " is verified.")
        : h(
            "p.row",
            "Your address ",
            h("strong", profile.email),
            " is not verified yet. ",
            h("button.btn.small", {
              type: "button",
              id: "send-verification",
              onclick: async () => {
                try {
                  await post("/api/mail/verification");
                  toast("Verification link sent: open it from your mailbox");
                  refresh();
                } catch (err) {
                  toast(err.message, "error");
                }
              },
            }, "Send verification link"),
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
            h("td", q.kind === "verify" ? "Verification link" : q.hand_ids.length === 1 ? `Hand #${q.hand_ids[0]}` : `${q.hand_ids.length} hands`),
            h("td", q.to),
            h("td", h(`span.status.status-${q.status}`, STATUS[q.status] || q.status), q.reason ? h("small.hint", ` ${q.reason}`) : null),
            h("td", String(q.attempts)),
            h("td", new Date(q.sent_at || q.created_at).toLocaleString()),
          ),
        ),
      );
      requestsEmpty.textContent = r.requests.length ? "" : "No requests yet.";
    } catch (err) {
      requestsEmpty.textContent = err.status === 404 ? "Email is not available on this server." : err.message;
    }
  }

  drawVerify();
  await refresh();
  const timer = setInterval(refresh, 3000);

  // Issue 6 (hand-history list, replayer, downloads): drawn only when the server has the API.
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
