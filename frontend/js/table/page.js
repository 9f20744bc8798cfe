// The table page: connects, keeps the state, draws it, and sends the player's commands.

import { get, me } from "../api.js";
import { emailHand } from "../history.js";
import { chips, clear, dialog, dollars, field, h, stakes, toast, toCents, VARIANTS } from "../dom.js";
import { actionButtons, buttonNode } from "./controls.js";
import { hostDialog } from "./host.js";
import { checkReveal } from "../fairness.js";
import { applyEvent, applySnapshot, emptyState, isHost, myInfo, myLegal, mySeat, resultLines, seatName } from "./model.js";
import { TableSocket } from "./socket.js";
import { keyed, renderFelt } from "./view.js";

const requestId = () => `r${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

export function inviteLink(token) {
  return `${location.origin}/invite/${token}`;
}

export async function showInvite(token, name) {
  const link = inviteLink(token);
  const input = h("input.invite-link", { type: "text", readonly: true, value: link, "aria-label": "Invite link" });
  const copy = async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      document.execCommand?.("copy");
    }
    toast("Invite link copied");
    return undefined;
  };
  await dialog(
    `Invite players to ${name}`,
    [h("p", "Anyone with this link can join (with the password, if you set one)."), input],
    [{ label: "Copy link", action: copy }, { label: "Done", value: true, primary: true }],
    { id: "invite-dialog" },
  );
}

export async function tablePage(root, tableId, user, { onLeave }) {
  const state = emptyState(user.id);
  let socket = null;
  let pending = false;
  let status = "connecting";
  let frameQueued = false;
  let lastHandSeen = 0;
  let invite = null; // the private table's invite token, when this player is its host

  const header = h("div.table-head");
  const results = h("div.results", { "aria-live": "polite" });
  const felt = h("div.felt", { role: "region", "aria-label": "The table" }, h("div.rail"), h("div.center", h("div.center-info", { "aria-live": "polite" })));
  // the winners are announced in the action bar, where nothing else is shown between hands
  // (in the middle of the felt the banner covered the lower seats' cards)
  const actionMain = h("div.action-main");
  const actionBar = h("div.action-bar", { role: "region", "aria-label": "Your actions" }, results, actionMain);
  const announcer = h("div.sr-only", { "aria-live": "assertive", id: "turn-announcer" });
  const logList = h("ol.log", { "aria-label": "Hand log" });
  const chatList = h("ol.chat", { "aria-label": "Chat messages" });
  const chatInput = h("input", { type: "text", maxlength: 200, placeholder: "Say something…", "aria-label": "Chat message", autocomplete: "off" });
  const chatForm = h(
    "form.chat-form",
    { onsubmit: (ev) => (ev.preventDefault(), sendChat()) },
    chatInput,
    h("button.btn.small", { type: "submit" }, "Send"),
  );
  const tabs = sideTabs([
    { id: "log", label: "Hand log", panel: logList },
    { id: "chat", label: "Chat", panel: h("div.chat-panel", chatList, chatForm) },
  ]);
  const page = h(
    "section.table-page",
    { "aria-label": "Table" },
    header,
    h("div.table-main", h("div.felt-wrap", felt), h("aside.side-panel", tabs.el)),
    actionBar,
    announcer,
  );
  clear(root, page);

  const ctx = { me: null, onSit: (seat) => buyIn(seat) };

  function render() {
    frameQueued = false;
    renderHeader();
    renderFelt(felt, state, ctx);
    renderActions();
    renderResults();
    renderLog();
    tick();
  }

  function schedule() {
    if (!frameQueued) {
      frameQueued = true;
      requestAnimationFrame(render);
    }
  }

  function onFrame(frame) {
    if (frame.type === "error") {
      toast(frame.message, "error");
      return;
    }
    if (frame.type === "snapshot") {
      applySnapshot(state, frame);
    } else if (typeof frame.v === "number") {
      if (frame.v <= state.v) return;
      if (frame.v !== state.v + 1) {
        socket.resync(); // a gap: ask for what is missing
        return;
      }
      applyEvent(state, frame);
      if (frame.type === "turn" && frame.seat === mySeat(state)) announce();
      if (frame.type === "deal_revealed") checkDeal(state.commitment);
    }
    window.studDebug.v = state.v;
    schedule();
  }

  async function checkDeal(c) {
    // everyone checks every hand: the reveal opens the commitment sent before the first card
    c.verdict = c.commitment ? await checkReveal(c.commitment, c.reveal) : "the commitment was sent before you joined";
    schedule();
  }

  function announce() {
    const legal = myLegal(state);
    if (!legal) return;
    const names = actionButtons(legal, state.hand.phase).map((b) => b.label).join(", ");
    announcer.textContent = `Your turn: ${names}`;
  }

  function setStatus(s, detail) {
    status = s;
    page.dataset.connection = s;
    if (s === "gone") toast(`Disconnected from the table: ${detail}`, "error", 8000);
    schedule();
  }

  // -- header and player controls ------------------------------------------------------------

  function renderHeader() {
    const t = state.table;
    const info = myInfo(state);
    const host = isHost(state);
    const key = JSON.stringify([t, info && [info.seat, info.sitting_out, info.auto_post, info.leaving], host, status, state.closed, state.postAnteDue, state.lastHandId, state.observers, invite]);
    keyed(header, key, () => {
      if (!t) return h("h1.table-title", "Connecting…");
      const conn = { open: "Connected", connecting: "Connecting…", retrying: "Reconnecting…", gone: "Disconnected" }[status];
      const buttons = [];
      if (info && !state.closed) {
        if (info.sitting_out) buttons.push(btn("Sit in", "sit-in", () => command({ type: "sit_in" })));
        else buttons.push(btn("Sit out", "sit-out", () => command({ type: "sit_out" })));
        if (state.postAnteDue) buttons.push(btn("Post ante (I'm in)", "post-ante", () => command({ type: "post_ante" }).then(() => (state.postAnteDue = false))));
        buttons.push(
          h("label.toggle", h("input", { type: "checkbox", checked: info.auto_post, onchange: (ev) => command({ type: "auto_post", on: ev.target.checked }) }), " Auto-post ante"),
        );
        buttons.push(btn("Top up", "top-up", topUp));
        buttons.push(btn(info.leaving ? "Leaving after this hand" : "Leave seat", "leave", leave, info.leaving));
      }
      if (state.lastHandId) buttons.push(btn("Email me the last hand", "email-hand", () => emailLastHand(state.lastHandId)));
      if (invite && host && !state.closed) buttons.push(btn("Invite link", "invite", () => showInvite(invite, t.name)));
      if (host && !state.closed) buttons.push(btn("Host controls", "host", () => hostDialog(t, state, command)));
      buttons.push(btn("Lobby", "lobby", () => onLeave()));
      return [
        h(
          "div.table-title-row",
          h("h1.table-title", t.name),
          h("span.chip-tag", VARIANTS[t.variant]),
          h("span.chip-tag", stakes(t)),
          t.ante ? h("span.chip-tag", `ante ${chips(t.ante)}`) : null,
          t.private ? h("span.chip-tag.private", "private") : null,
          t.paused ? h("span.chip-tag.warn", "paused") : null,
          h("span.chip-tag.observers", { title: "People watching who are not seated" }, `${state.observers} watching`),
          h(`span.conn.conn-${status}`, { role: "status" }, conn),
        ),
        h("div.table-tools", buttons),
      ];
    });
  }

  function btn(label, name, onclick, disabled = false) {
    return h("button.btn.small.ghost", { type: "button", dataset: { cmd: name }, onclick, disabled }, label);
  }

  async function command(msg) {
    try {
      return await socket.request(msg);
    } catch (err) {
      toast(err.message, "error");
      throw err;
    }
  }

  async function buyIn(seat) {
    const t = state.table;
    const profile = await me().catch(() => null);
    const balance = profile ? profile.balance : 0;
    const min = t.min_buy_in;
    const max = t.max_buy_in;
    const suggested = Math.min(balance, max ?? Infinity, Math.max(min, 20 * t.small_bet));
    const amount = h("input", { type: "text", inputmode: "decimal", name: "amount", value: dollars(Math.max(min, suggested)), autocomplete: "off" });
    const facts = h(
      "dl.facts",
      h("dt", "Minimum"), h("dd.min-buy-in", `${chips(min)} (10 small bets)`),
      h("dt", "Maximum"), h("dd", max ? chips(max) : "no maximum"),
      h("dt", "Your balance"), h("dd.balance", chips(balance)),
    );
    await dialog(
      `Buy in at seat ${seat + 1}`,
      [facts, field("Buy-in ($)", amount)],
      [
        { label: "Cancel", value: null },
        {
          label: "Take the seat",
          primary: true,
          action: async () => {
            const cents = toCents(amount.value);
            if (!Number.isFinite(cents) || cents <= 0) throw new Error("enter an amount in dollars, like 20 or 20.50");
            if (cents < min) throw new Error(`the minimum buy-in here is ${chips(min)}`);
            if (max && cents > max) throw new Error(`the maximum buy-in here is ${chips(max)}`);
            if (cents > balance) throw new Error(`your balance is ${chips(balance)}`);
            await socket.request({ type: "sit", seat, amount: cents, request_id: requestId() });
            toast(`Seated with ${chips(cents)}`);
            return true;
          },
        },
      ],
      { id: "buy-in-dialog" },
    );
  }

  async function topUp() {
    const profile = await me().catch(() => null);
    const amount = h("input", { type: "text", inputmode: "decimal", value: dollars(state.table.min_buy_in), autocomplete: "off" });
    await dialog(
      "Top up",
      [h("p", `Your balance: ${chips(profile?.balance ?? 0)}. During a hand the chips arrive when it ends.`), field("Add ($)", amount)],
      [
        { label: "Cancel", value: null },
        {
          label: "Top up",
          primary: true,
          action: async () => {
            const cents = toCents(amount.value);
            if (!Number.isFinite(cents) || cents <= 0) throw new Error("enter an amount in dollars");
            const r = await socket.request({ type: "top_up", amount: cents, request_id: requestId() });
            toast(r.queued ? `${chips(cents)} will be added after this hand` : `Added ${chips(cents)}`);
            return true;
          },
        },
      ],
      { id: "top-up-dialog" },
    );
  }

  async function emailLastHand(handId) {
    try {
      const r = await emailHand(handId);
      toast(`Hand ${handId}: email request #${r.id} ${r.status} (see My hands)`);
    } catch (err) {
      toast(err.status === 403 && err.code === "email_not_verified" ? "Verify your email address first (My hands)" : err.message, "error", 6000);
    }
  }

  async function leave() {
    const r = await command({ type: "leave" });
    toast(r.left ? `You left the seat with ${chips(r.amount)}` : "You will leave when this hand ends");
  }

  async function sendChat() {
    const text = chatInput.value.trim();
    if (!text) return;
    try {
      await socket.request({ type: "chat", text });
      chatInput.value = "";
    } catch (err) {
      toast(err.message, "error");
    }
  }

  // -- the action bar ------------------------------------------------------------------------

  function renderActions() {
    const legal = myLegal(state);
    const hand = state.hand;
    const seat = mySeat(state);
    const key = JSON.stringify([legal, hand?.turn_id, hand?.to_act, pending, seat, state.closed, hand?.over, status === "open", !!state.table?.paused]);
    actionBar.dataset.turn = legal ? String(hand.turn_id) : "";
    keyed(actionMain, key, () => {
      if (state.closed) return h("p.waiting", "This table is closed.");
      if (seat === null) return h("p.waiting", "You are watching. Pick an empty seat to play.");
      if (legal) {
        const buttons = actionButtons(legal, hand.phase).map((b) => buttonNode(b, act));
        if (pending) buttons.forEach((b) => (b.disabled = true));
        const prompt = hand.phase === "betting" ? "Your turn" : hand.phase === "uncontested" ? "You win: show your hand?" : "Show or muck?";
        return [h("div.prompt", h("strong", prompt), h("span.countdown", { role: "timer", "aria-label": "seconds left" })), h("div.buttons", buttons)];
      }
      if (hand && !hand.over && hand.to_act !== null) return h("p.waiting", `Waiting for ${seatName(state, hand.to_act)}… `, h("span.countdown", { role: "timer" }));
      if (hand && hand.over) return h("p.waiting", state.table?.paused ? "Paused by the host" : "Next hand soon…");
      return h("p.waiting", "Waiting for the next hand…");
    });
  }

  async function act(b) {
    const hand = state.hand;
    if (pending || !hand) return;
    pending = true;
    schedule();
    const msg = { type: "act", hand_id: hand.hand_id, turn_id: hand.turn_id, action: b.action };
    if (b.amount !== undefined && b.amount !== null) msg.amount = b.amount;
    try {
      await socket.request(msg);
    } catch (err) {
      if (err.code !== "stale_turn") toast(err.message, "error");
    } finally {
      pending = false;
      schedule();
    }
  }

  function onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target;
    if (target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
    const key = ev.key.toLowerCase();
    const button = [...actionBar.querySelectorAll("button.act")].find((b) => b.getAttribute("aria-keyshortcuts")?.toLowerCase() === key);
    if (button && !button.disabled) {
      ev.preventDefault();
      button.click();
    }
  }

  // -- results, log, timer -------------------------------------------------------------------

  function renderResults() {
    const lines = resultLines(state);
    const key = JSON.stringify([state.hand?.hand_id, lines]);
    keyed(results, key, () =>
      lines.length
        ? h(
            "div.result-box",
            { role: "status" },
            lines.map((l) => h("div.result-line", { dataset: { seat: l.seat } }, h("strong", l.text), l.hand ? h("span.result-hand", ` — ${l.hand}`) : null)),
          )
        : null,
    );
  }

  let logShown = 0;
  let chatShown = 0;
  function renderLog() {
    if (state.log.length < logShown) logShown = 0;
    if (logList.childElementCount === 0) logShown = 0;
    for (const entry of state.log.slice(logShown)) {
      logList.append(h(`li.log-${entry.kind}`, entry.text));
    }
    logShown = state.log.length;
    while (logList.childElementCount > 200) logList.firstElementChild.remove();
    logList.scrollTop = logList.scrollHeight;
    for (const line of state.chat.slice(chatShown)) {
      chatList.append(h(`li${line.mine ? ".mine" : ""}`, h("strong", line.name), ": ", line.text));
      if (!line.mine) tabs.flag("chat");
    }
    chatShown = state.chat.length;
    chatList.scrollTop = chatList.scrollHeight;
    if (state.handsSeen !== lastHandSeen) lastHandSeen = state.handsSeen;
  }

  function tick() {
    const hand = state.hand;
    const left = hand && hand.deadline && !hand.over ? Math.max(0, hand.deadline - performance.now()) : null;
    const frac = left === null ? 0 : left / (hand.timer_ms || 10000);
    for (const bar of felt.querySelectorAll(".timer-bar")) bar.style.setProperty("--left", String(frac));
    for (const c of actionBar.querySelectorAll(".countdown")) {
      const secs = left === null ? "" : `${Math.ceil(left / 1000)}s`;
      if (c.textContent !== secs) c.textContent = secs;
      c.classList.toggle("urgent", left !== null && left < 4000);
    }
  }
  const ticker = setInterval(tick, 100);

  // -- start ---------------------------------------------------------------------------------

  try {
    const found = await get(`/api/tables/${tableId}`);
    state.table = { ...found.settings, id: tableId };
    state.seats = found.seats;
    invite = found.invite || null; // only the host gets it
  } catch (err) {
    clear(root, h("section.panel", h("h1", "Table not found"), h("p", err.status === 404 ? "This table does not exist, is closed, or needs an invite link." : err.message), h("a.btn", { href: "/lobby", "data-link": "" }, "Back to the lobby")));
    return () => {};
  }
  socket = new TableSocket(tableId, {
    position: () => ({ v: state.v, epoch: state.epoch }),
    onFrame,
    onStatus: setStatus,
  });
  window.studDebug = { socket, state, v: 0, drop: () => socket.drop() };
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", schedule); // the seats move when the felt turns portrait
  socket.connect();
  render();

  return () => {
    clearInterval(ticker);
    document.removeEventListener("keydown", onKey);
    window.removeEventListener("resize", schedule);
    socket.close();
  };
}

function sideTabs(items) {
  const list = h("div.tabs", { role: "tablist", "aria-label": "Log and chat" });
  const panels = [];
  const tabsEls = {};
  const select = (id) => {
    for (const it of items) {
      const active = it.id === id;
      tabsEls[it.id].setAttribute("aria-selected", String(active));
      tabsEls[it.id].tabIndex = active ? 0 : -1;
      if (active) tabsEls[it.id].classList.remove("flag");
      it.panelEl.hidden = !active;
    }
  };
  for (const it of items) {
    const tab = h("button.tab", { type: "button", role: "tab", id: `tab-${it.id}`, "aria-controls": `panel-${it.id}`, onclick: () => select(it.id) }, it.label);
    tab.addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
        const i = items.indexOf(it);
        const next = items[(i + (ev.key === "ArrowRight" ? 1 : items.length - 1)) % items.length];
        select(next.id);
        tabsEls[next.id].focus();
      }
    });
    tabsEls[it.id] = tab;
    list.append(tab);
    it.panelEl = h("div.tab-panel", { role: "tabpanel", id: `panel-${it.id}`, "aria-labelledby": `tab-${it.id}` }, it.panel);
    panels.push(it.panelEl);
  }
  select(items[0].id);
  return {
    el: h("div.side-tabs", list, panels),
    flag: (id) => {
      if (tabsEls[id].getAttribute("aria-selected") !== "true") tabsEls[id].classList.add("flag");
    },
  };
}
