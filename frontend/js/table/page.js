// The table page: connects, keeps the state, draws it, and sends the player's commands.

import { errorText, get, me } from "../api.js";
import { emailHand } from "../hand-mail.js";
import { chips, clear, dialog, dollars, field, h, toast, toCents, variantName } from "../dom.js";
import { amount, setUnit, t } from "../i18n.js";
import { actionButtons, buttonNode } from "./controls.js";
import { hostDialog } from "./host.js";
import { ledgerDialog } from "./ledger.js";
import { TurnNotice, soundOn } from "./notice.js";
import { afterPlayed, choose, decide, kept, offered } from "./preactions.js";
import { inviteDialog } from "../invite-dialog.js";
import { checkReveal } from "../fairness.js";
import { checkHand, problemText, uncheckedText, verdict } from "../seeded.js";
import { SeedKeeper } from "../seedkeeper.js";
import { applyEvent, applySnapshot, clockStopped, emptyState, isHost, myInfo, myLegal, mySeat, resultLines, seatName, timeLeft } from "./model.js";
import { TableSocket } from "./socket.js";
import { tournamentStrip } from "./tournament.js";
import { keyed, renderFelt } from "./view.js";

const PHONE = window.matchMedia("(max-width: 700px)");
const requestId = () => `r${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

export function inviteLink(token) {
  return `${location.origin}/invite/${token}`;
}

export async function showInvite(token, name) {
  await inviteDialog(inviteLink(token), name);
}

export async function tablePage(root, tableId, user, { onLeave }) {
  const state = emptyState(user.id);
  let socket = null;
  let keeper = null; // this player's seeds for the table's deals (seeded-v2)
  let handEvents = null; // the live hand's events as seen here, from its start (step 4 of the check)
  let handEventsFor = null; // …and its hand_id
  let alarm = null; // a deal that failed its check: {number, problems}, shown until dismissed
  let pending = false;
  let status = "connecting";
  let frameQueued = false;
  let barWanted = false; // bring the action bar into view at the next drawing (your turn, phone)
  let lastHandSeen = 0;
  let invite = null; // the private table's invite token, when this player is its host
  const followers = new Set(); // an open host dialog, redrawn as seats and seat requests change
  let chosen = null; // the pre-action set before this player's turn (preactions.js)
  const notice = new TurnNotice(); // the tab's title and icon, a tone, a vibration
  const unlockSound = () => soundOn() && notice.unlock(); // a tone may play only after a click

  const header = h("div.table-head");
  const strip = tournamentStrip(); // a tournament's table: its level, clock and notices
  const results = h("div.results", { "aria-live": "polite" });
  const felt = h("div.felt", { role: "region", "aria-label": t("table.the_table") }, h("div.rail"), h("div.center", h("div.center-info", { "aria-live": "polite" })));
  // the winners are announced in the action bar, where nothing else is shown between hands
  // (in the middle of the felt the banner covered the lower seats' cards)
  const actionMain = h("div.action-main");
  const actionBar = h("div.action-bar", { role: "region", "aria-label": t("table.your_actions") }, results, actionMain);
  const announcer = h("div.sr-only", { "aria-live": "assertive", id: "turn-announcer" });
  const alarmBox = h("div.fair-alarm-slot");
  const logList = h("ol.log", { "aria-label": t("table.log") });
  const chatList = h("ol.chat", { "aria-label": t("table.chat_messages") });
  const chatInput = h("input", { type: "text", maxlength: 200, placeholder: t("table.say"), "aria-label": t("table.chat_message"), autocomplete: "off" });
  const chatForm = h(
    "form.chat-form",
    { onsubmit: (ev) => (ev.preventDefault(), sendChat()) },
    chatInput,
    h("button.btn.small", { type: "submit" }, t("button.send")),
  );
  const tabs = sideTabs([
    { id: "log", label: t("table.log"), panel: logList },
    { id: "chat", label: t("table.chat"), panel: h("div.chat-panel", chatList, chatForm) },
  ]);
  const page = h(
    "section.table-page",
    { "aria-label": t("table.the_table") },
    header,
    alarmBox,
    strip.el,
    h("div.table-main", h("div.felt-wrap", felt), h("aside.side-panel", tabs.el)),
    h("div.toast-slot", { "aria-hidden": "true" }), // a phone's room for toasts (toasts.js)
    actionBar,
    announcer,
  );
  clear(root, page);

  const ctx = { me: null, onSit: (seat) => buyIn(seat) };

  function render() {
    frameQueued = false;
    renderHeader();
    renderAlarm();
    strip.render(state);
    renderFelt(felt, state, ctx);
    renderActions();
    renderResults();
    renderLog();
    tick();
    // after drawing: scrolled before, the bar could grow (a row of buttons) past the fold
    if (barWanted) actionBar.scrollIntoView({ block: "nearest" });
    barWanted = false;
  }

  function schedule() {
    if (!frameQueued) {
      frameQueued = true;
      requestAnimationFrame(render);
    }
  }

  function onFrame(frame) {
    if (frame.type === "error") {
      toast(errorText(frame.code, frame.message), "error");
      return;
    }
    if (frame.type === "snapshot") {
      applySnapshot(state, frame);
      if (state.table.id !== tableId) followed(state.table.id);
      handEvents = null; // a snapshot's log lacks the other seats' down cards: positions unknown
      keeper.snapshot(frame, mySeat(state));
      chosen = kept(state, chosen);
      if (myLegal(state)) playChosen();
    } else if (typeof frame.v === "number") {
      if (frame.v <= state.v) return;
      if (frame.v !== state.v + 1) {
        socket.resync(); // a gap: ask for what is missing
        return;
      }
      const before = state.seatRequests.map((r) => r.request);
      applyEvent(state, frame);
      collect(frame);
      if (frame.type === "seat_requests" && isHost(state)) {
        // the host hears of a new request even with the host dialog closed
        for (const r of frame.requests) if (!before.includes(r.request)) toast(t("approval.new", { name: r.name, n: r.seat + 1, amount: chips(r.amount) }));
      }
      if (frame.type === "seat_answer") seatAnswered(frame);
      if (frame.type === "seat_requests" || frame.type === "seats") for (const follow of followers) follow();
      if (frame.type === "seat_offered") seatOffered(frame); // R44: the seat is this player's to take
      chosen = kept(state, chosen); // before the turn it may be played on
      keeper.seated(mySeat(state));
      if (frame.type === "deal_committed") keeper.dealCommitted(frame, mySeat(state));
      if (frame.type === "turn" && frame.seat === mySeat(state)) {
        announce();
        // on a phone the bar sits below the felt: bring it into view for the turn
        barWanted = PHONE.matches;
        playChosen();
      }
      if (frame.type === "deal_revealed") {
        if (frame.reveal?.scheme === "seeded-v2") checkSeeded(frame, state.commitment);
        else checkDeal(state.commitment);
      }
    }
    window.studDebug.v = state.v;
    notice.update(!!myLegal(state)); // here, not when drawing: a hidden tab draws nothing
    schedule();
  }

  /** This player's turn came: the pre-action chosen before it is played at once (the turn is
   * the server's; the act is an ordinary `act`), or dropped when it does not fit. */
  function playChosen() {
    const legal = myLegal(state);
    const action = decide(chosen, legal);
    chosen = action ? afterPlayed(chosen, action) : null;
    if (!action) return;
    window.studDebug.preplayed.push({ turn_id: state.hand.turn_id, action });
    act({ action });
  }

  /** The socket now follows this player's new table (their tournament moved them): the page
   * is that table's, without a reload; its address too. */
  function followed(id) {
    tableId = id;
    socket.tableId = id; // a reconnect asks for the new table
    keeper = new SeedKeeper(id, (msg) => socket.request(msg));
    invite = null;
    history.replaceState(null, "", `/table/${id}`);
    chatList.replaceChildren();
    chatShown = 0;
    felt.dataset.layout = ""; // another table: its seats are drawn anew
  }

  async function checkDeal(c) {
    // everyone checks every hand: the reveal opens the commitment sent before the first card
    c.verdict = c.commitment ? await checkReveal(c.commitment, c.reveal) : { ok: false, text: t("fair.before_joined") };
    schedule();
  }

  /** The live hand's events, in order, as the deal's check walks them: another seat's
   * face-down card comes as a bare number, which is a hidden card at its position. */
  function collect(frame) {
    if (frame.type === "hand_started") {
      handEvents = [frame];
      handEventsFor = frame.hand_id;
    } else if (!handEvents) return;
    else if (frame.type === "hand_ended" || frame.type === "hand_voided") handEvents = [...handEvents, frame];
    else if (handEvents.at(-1)?.type === "hand_ended") return; // dealing is over: seat reveals follow
    else handEvents.push(frame.type ? frame : { type: "card_dealt", face_up: false, card: null });
  }

  /** seeded-v2: the four steps with this player's own seed (an observer: without it). */
  async function checkSeeded(ev, c) {
    const hand = state.hand && state.hand.hand_id === ev.hand_id ? state.hand : null;
    const seat = mySeat(state);
    const dealtIn = hand && seat !== null && hand.players[seat] ? seat : null;
    let events = handEventsFor === ev.hand_id && handEvents?.at(-1)?.type === "hand_ended" ? handEvents : null;
    let result;
    try {
      // joined mid-hand (a snapshot's log lacks the other seats' down cards): the record's
      if (!events && hand?.number) events = await recordedEvents(hand.number, dealtIn !== null);
      const inputs = await keeper.inputs(ev.hand_id, ev.reveal.commitment, dealtIn);
      result = verdict(await checkHand({ reveal: ev.reveal, events, ...inputs }));
    } catch (err) {
      result = verdict({ problems: [{ step: 2, text: err.message }], unchecked: [], shown: 0, hidden: 52, seeds: 0 });
    }
    if (result.ok && result.mineUsed) result.text += ` · ${t("seeded.mine_used")}`;
    if (result.ok && result.unchecked.length) result.text += ` (${result.unchecked.map(uncheckedText).join("; ")})`;
    if (c && c.hand_id === ev.hand_id) c.verdict = result;
    window.studDebug.verdicts[ev.hand_id] = result; // by hand: the next hand may have begun
    if (!result.ok) alarm = { number: hand?.number ?? "", problems: result.problems.map(problemText) };
    schedule();
  }

  /** A finished hand's events from its record, with every card this page may see (a player
   * dealt in: their history; anyone else: the public proof); null if it cannot be read yet. */
  async function recordedEvents(number, dealtIn) {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const record = await get(dealtIn ? `/api/hands/${number}` : `/api/proof/${number}`);
        return record.events || null;
      } catch (err) {
        if (err.status !== 404) return null;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // written just after the hand
      }
    }
    return null;
  }

  function renderAlarm() {
    keyed(alarmBox, JSON.stringify(alarm), () =>
      alarm
        ? h(
            "div.fair-alarm",
            { role: "alert" },
            h("strong", t("seeded.alarm_title")),
            h("p", t("seeded.alarm_text", { n: alarm.number })),
            h("ul", alarm.problems.map((p) => h("li", p))),
            h(
              "div.row",
              alarm.number ? h("a.btn.small", { href: `/proof/${alarm.number}`, target: "_blank", rel: "noopener" }, t("seeded.proof_link")) : null,
              h("button.btn.small.ghost", { type: "button", onclick: () => ((alarm = null), schedule()) }, t("seeded.dismiss")),
            ),
          )
        : null,
    );
  }

  function announce() {
    const legal = myLegal(state);
    if (!legal) return;
    const names = actionButtons(legal, state.hand.phase).map((b) => b.label).join(", ");
    announcer.textContent = t("table.your_turn_is", { actions: names });
  }

  function setStatus(s, detail) {
    status = s;
    page.dataset.connection = s;
    if (s === "gone") toast(t("table.disconnected_because", { detail }), "error", 8000);
    schedule();
  }

  // -- header and player controls ------------------------------------------------------------

  function renderHeader() {
    const table = state.table;
    const info = myInfo(state);
    const host = isHost(state);
    const key = JSON.stringify([table, info && [info.seat, info.sitting_out, info.auto_post, info.leaving], host, status, state.closed, state.postAnteDue, state.lastHandNumber, state.observers, invite, host ? null : state.seatRequests, state.myWait, state.waiting, state.offer]);
    keyed(header, key, () => {
      if (!table) return h("h1.table-title", t("conn.connecting"));
      const conn = t(`conn.${status}`);
      const buttons = [];
      const directed = !!table.tournament; // the director seats, the clock plays (R28)
      if (info && !state.closed && !directed) {
        if (info.sitting_out) buttons.push(btn(t("table.im_back"), "sit-in", () => command({ type: "sit_in" })));
        else buttons.push(btn(t("table.sit_out"), "sit-out", () => command({ type: "sit_out" })));
        if (state.postAnteDue) buttons.push(btn(t("table.post_ante"), "post-ante", () => command({ type: "post_ante" }).then(() => (state.postAnteDue = false))));
        buttons.push(
          h("label.toggle", h("input", { type: "checkbox", checked: info.auto_post, onchange: (ev) => command({ type: "auto_post", on: ev.target.checked }) }), " ", t("table.auto_post")),
        );
        buttons.push(
          h("label.toggle", h("input", { type: "checkbox", name: "turn-sound", checked: soundOn(), onchange: (ev) => notice.setSound(ev.target.checked) }), " ", t("turn.sound")),
        );
        buttons.push(btn(t("table.top_up"), "top-up", topUp));
        buttons.push(btn(info.leaving ? t("table.leaving") : t("table.leave"), "leave", leave, info.leaving));
      }
      // R44: a full public table's waiting list, for a player without a seat
      const held = state.waiting?.offered ?? [];
      const full = state.seats.length + held.length >= table.max_seats;
      if (!info && !state.closed && !directed && !table.private && (full || state.myWait)) {
        if (state.myWait) buttons.push(btn(t("wait.leave", { n: state.myWait }), "wait-leave", () => command({ type: "wait_leave" }).then(() => toast(t("wait.left")))));
        else buttons.push(btn(t("wait.join"), "wait-join", () => command({ type: "wait_join" }).then((r) => toast(t("wait.joined", { n: r.waiting })))));
      }
      if (state.lastHandNumber) buttons.push(btn(t("table.email_last"), "email-hand", () => emailLastHand(state.lastHandNumber)));
      if (state.lastHandNumber) buttons.push(btn(t("table.last_hands"), "last-hands", lastHands));
      if (invite && host && !state.closed && !directed) buttons.push(btn(t("table.invite_link"), "invite", () => showInvite(invite, table.name)));
      if (host && !state.closed && !directed) buttons.push(btn(t("host.title"), "host", () => hostDialog(table, state, command, { follow })));
      // R43's session ledger: the host's, and every player's when the host shares it
      if (table.private && !directed && (host || table.ledger_shared)) buttons.push(btn(t("ledger.title"), "ledger", () => ledgerDialog(tableId)));
      const asked = !host && state.seatRequests.length ? state.seatRequests[0] : null;
      buttons.push(btn(t("nav.lobby"), "lobby", () => onLeave()));
      return [
        h(
          "div.table-title-row",
          h("h1.table-title", table.name),
          h("span.chip-tag.game", table.rotation_step ? t("rotation.tag", { game: variantName(table.variant) }) : variantName(table.variant)),
          h("span.chip-tag", `${amount(table.small_bet)}/${amount(table.big_bet)}`),
          table.ante ? h("span.chip-tag", t("table.ante_tag", { amount: amount(table.ante) })) : null,
          table.private ? h("span.chip-tag.private", t("badge.private")) : null,
          table.paused ? h("span.chip-tag.warn", t("badge.paused")) : null,
          h("span.chip-tag.observers", { title: t("table.watching_title") }, t("table.watching", { n: state.observers })),
          h(`span.conn.conn-${status}`, { role: "status" }, conn),
        ),
        h("div.table-tools", buttons),
        asked
          ? h(
              "p.waiting-host",
              { role: "status" },
              t("approval.waiting", { n: asked.seat + 1, amount: chips(asked.amount) }),
              " ",
              btn(t("approval.withdraw"), "withdraw", () => command({ type: "seat_withdraw" }).then(() => toast(t("approval.withdrawn")))),
            )
          : null,
      ];
    });
  }

  /** Follow the seats and seat requests while a host dialog is open (its redraw). */
  function follow(redraw) {
    followers.add(redraw);
    return () => followers.delete(redraw);
  }

  /** R43: what the host answered to this player's seat request. */
  function seatAnswered(ev) {
    if (ev.approved) toast(t("approval.approved", { n: ev.seat + 1 }));
    else toast(t(`approval.no.${["declined", "seat_taken", "table_closed"].includes(ev.reason) ? ev.reason : "other"}`, { n: ev.seat + 1 }), "error", 6000);
  }

  function btn(label, name, onclick, disabled = false) {
    return h("button.btn.small.ghost", { type: "button", dataset: { cmd: name }, onclick, disabled }, label);
  }

  /** How long a refusal's toast stays; a frozen table's also stops the countdown. */
  function refused(err) {
    if (err.code !== "table_frozen") return 4000;
    clockStopped(state); // the server's clock stands still until it says `resumed`
    schedule();
    return 6000; // a longer text, and the player should read that nothing was done
  }

  async function command(msg) {
    try {
      return await socket.request(msg);
    } catch (err) {
      toast(err.message, "error", refused(err));
      throw err;
    }
  }

  /** A seat offered from the waiting list: said, and its buy-in dialog opened at once. */
  function seatOffered(frame) {
    toast(t("wait.offered", { n: frame.seat + 1, s: Math.round(frame.ms / 1000) }), "info", 8000);
    if (!document.getElementById("buy-in-dialog")) buyIn(frame.seat);
  }

  async function buyIn(seat) {
    const table = state.table;
    const profile = await me().catch(() => null);
    const balance = profile ? profile.balance : 0;
    const min = table.min_buy_in;
    const max = table.max_buy_in;
    const suggested = Math.min(balance, max ?? Infinity, Math.max(min, 20 * table.small_bet));
    const amount = h("input", { type: "text", inputmode: "decimal", name: "amount", value: dollars(Math.max(min, suggested)), autocomplete: "off" });
    const facts = h(
      "dl.facts",
      h("dt", t("buy.minimum")), h("dd.min-buy-in", t("buy.minimum_is", { amount: chips(min) })),
      h("dt", t("buy.maximum")), h("dd", max ? chips(max) : t("buy.no_maximum")),
      h("dt", t("buy.balance")), h("dd.balance", chips(balance)),
    );
    await dialog(
      t("buy.title", { n: seat + 1 }),
      [facts, field(t("buy.amount"), amount)],
      [
        { label: t("button.cancel"), value: null },
        {
          label: t("buy.take_seat"),
          primary: true,
          action: async () => {
            const cents = toCents(amount.value);
            if (!Number.isFinite(cents) || cents <= 0) throw new Error(t("buy.enter_amount", { example: dollars(2050) }));
            if (cents < min) throw new Error(t("buy.below_min", { amount: chips(min) }));
            if (max && cents > max) throw new Error(t("buy.above_max", { amount: chips(max) }));
            if (cents > balance) throw new Error(t("buy.over_balance", { amount: chips(balance) }));
            const r = await socket.request({ type: "sit", seat, amount: cents, request_id: requestId() });
            toast(r.waiting ? t("approval.sent") : t("buy.seated", { amount: chips(cents) }));
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
      t("table.top_up"),
      [h("p", t("topup.text", { amount: chips(profile?.balance ?? 0) })), field(t("topup.add"), amount)],
      [
        { label: t("button.cancel"), value: null },
        {
          label: t("table.top_up"),
          primary: true,
          action: async () => {
            const cents = toCents(amount.value);
            if (!Number.isFinite(cents) || cents <= 0) throw new Error(t("topup.enter_amount"));
            const r = await socket.request({ type: "top_up", amount: cents, request_id: requestId() });
            toast(t(r.queued ? "topup.queued" : "topup.added", { amount: chips(cents) }));
            return true;
          },
        },
      ],
      { id: "top-up-dialog" },
    );
  }

  /** This player's last hands at this table (GET /api/hands): the live log keeps only the
   * hands since the page opened. Each opens in the replayer. */
  async function lastHands() {
    let listed;
    try {
      listed = await get(`/api/hands?table_id=${tableId}&limit=10`);
    } catch (err) {
      toast(err.message, "error");
      return;
    }
    const rows = listed.hands.map((x) =>
      h("li", h("a", { href: `/hands/${x.number}`, "data-link": "" }, t("hand.number", { n: x.number })), ` · ${amount(x.net ?? 0)}`),
    );
    await dialog(t("table.last_hands"), rows.length ? h("ol.last-hands", rows) : h("p", t("hands.none")), [{ label: t("button.done"), value: null }], { id: "last-hands-dialog" });
  }

  /** After a reload the last hand is asked of the history: "Email me the last hand" stays. */
  async function findLastHand() {
    try {
      const listed = await get(`/api/hands?table_id=${tableId}&limit=1`);
      if (state.lastHandNumber === null && listed.hands.length) {
        state.lastHandNumber = listed.hands[0].number;
        schedule();
      }
    } catch {
      // no history API or no answer: the button comes with the next hand
    }
  }

  async function emailLastHand(number) {
    try {
      const r = await emailHand(number);
      toast(t("mail.requested_hand", { hand: number, id: r.id, status: t(`mail.status.${r.status}`) }));
    } catch (err) {
      toast(err.status === 403 && err.code === "email_not_verified" ? t("mail.verify_first") : err.message, "error", 6000);
    }
  }

  async function leave() {
    const r = await command({ type: "leave" });
    toast(r.left ? t("table.left_with", { amount: chips(r.amount) }) : t("table.leave_after"));
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
    const showable = !!state.showOffer && performance.now() < state.showOffer.until;
    const pre = legal ? [] : offered(state, chosen);
    const key = JSON.stringify([legal, hand?.turn_id, hand?.to_act, pending, seat, state.closed, hand?.over, status === "open", !!state.table?.paused, !!state.table?.tournament, pre, chosen, showable]);
    actionBar.dataset.turn = legal ? String(hand.turn_id) : "";
    keyed(actionMain, key, () => {
      if (state.closed) return h("p.waiting", t("table.closed"));
      if (seat === null) return h("p.waiting", state.table?.tournament ? t("tour.watching") : t("table.watching_you"));
      if (legal) {
        const buttons = actionButtons(legal, hand.phase).map((b) => buttonNode(b, act));
        if (pending) buttons.forEach((b) => (b.disabled = true));
        const prompt = hand.phase === "betting" ? t("table.your_turn") : hand.phase === "uncontested" ? t("table.show_uncontested") : t("table.show_or_muck");
        // R24: a hand mucked at the showdown still reaches the others' histories; say so here
        const note = legal.muck && hand.phase !== "uncontested" ? h("p.muck-note", { id: "muck-note" }, t("table.muck_note")) : null;
        if (note) buttons.filter((b) => b.dataset.action === "muck").forEach((b) => b.setAttribute("aria-describedby", "muck-note"));
        return [h("div.prompt", h("strong", prompt), h("span.countdown", { role: "timer", "aria-label": t("table.seconds_left") })), h("div.buttons", buttons), note];
      }
      if (hand && !hand.over && hand.to_act !== null) {
        const waiting = h("p.waiting", t("table.waiting_for", { name: seatName(state, hand.to_act) }), " ", h("span.countdown", { role: "timer" }));
        return pre.length ? [waiting, preButtons(pre)] : waiting;
      }
      const offer = state.showOffer; // R41: the pot is won; showing stays open a few seconds
      if (offer && performance.now() < offer.until) {
        setTimeout(schedule, offer.until - performance.now() + 50);
        const show = () => command({ type: "show", hand_id: offer.hand_id }).finally(() => ((state.showOffer = null), schedule()));
        return h("p.waiting", t("table.next_soon"), " ", h("button.btn.small", { type: "button", dataset: { cmd: "show-after" }, onclick: show }, t("table.show_after")));
      }
      if (hand && hand.over) return h("p.waiting", state.table?.paused ? t("table.paused") : t("table.next_soon"));
      return h("p.waiting", t("table.waiting_next"));
    });
  }

  /** The pre-actions as toggles (one at a time), shown while it is not this player's turn. */
  function preButtons(list) {
    const label = (o) =>
      o.kind === "check_fold" ? (o.owed > 0 ? t("act.fold") : t("pre.check_fold"))
      : o.kind === "check" ? t("act.check")
      : o.kind === "call" ? t("act.call", { amount: amount(o.amount) })
      : o.kind === "call_any" ? (o.owed > 0 ? t("pre.call_any") : t("pre.check_call_any"))
      : t("pre.fold_any");
    const on = (o) => chosen?.kind === o.kind && (o.kind !== "call" || chosen.amount === o.amount);
    const toggle = (o) => {
      chosen = on(o) ? null : choose(state, o.kind, o.amount);
      schedule();
    };
    return h(
      "div.pre-actions",
      { role: "group", "aria-label": t("pre.title") },
      list.map((o) => h("button.btn.small.pre", { type: "button", "aria-pressed": String(on(o)), dataset: { pre: o.kind }, onclick: () => toggle(o) }, label(o))),
    );
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
      const ms = refused(err);
      if (err.code !== "stale_turn") toast(err.message, "error", ms);
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

  let logShown = 0; // the number (`n`) of the last line drawn
  let logDrawn = -1; // the log's reset count when drawn: a snapshot redraws it whole
  /** A chat line; another's has a menu (right click, or its ⋯ button): report it to the
   * operators, and for the host, mute its player at this table. */
  function chatLine(line) {
    const li = h(`li${line.mine ? ".mine" : ""}`, h("strong", line.name), ": ", line.text);
    if (line.mine || !line.line) return li;
    const open = (ev) => {
      ev.preventDefault();
      chatMenu(li, line);
    };
    li.addEventListener("contextmenu", open);
    li.append(" ", h("button.btn.small.ghost.chat-more", { type: "button", "aria-label": t("chat.menu", { name: line.name }), onclick: open }, "⋯"));
    return li;
  }

  function chatMenu(li, line) {
    document.querySelectorAll(".chat-menu").forEach((m) => m.remove());
    const menu = h("div.chat-menu", { role: "menu", "aria-label": t("chat.menu", { name: line.name }) });
    const item = (label, fn) =>
      h("button.btn.small", {
        type: "button",
        role: "menuitem",
        onclick: async () => {
          menu.remove();
          try {
            await fn();
          } catch (err) {
            toast(err.message, "error");
          }
        },
      }, label);
    menu.append(
      item(t("chat.report"), async () => {
        await socket.request({ type: "report_chat", line: line.line });
        toast(t("chat.reported"));
      }),
    );
    if (isHost(state)) {
      menu.append(
        item(t("chat.mute_here"), async () => {
          await socket.request({ type: "host_mute", user_id: line.userId, muted: true });
          toast(t("chat.muted", { name: line.name }));
        }),
      );
    }
    li.append(menu);
    menu.querySelector("button").focus();
  }

  let chatShown = 0;
  function renderLog() {
    if (logDrawn !== state.logReset) {
      logList.replaceChildren();
      logShown = 0;
      logDrawn = state.logReset;
    }
    for (const entry of state.log) {
      if (entry.n > logShown) logList.append(h(`li.log-${entry.kind}`, entry.text));
    }
    logShown = state.logSeq;
    while (logList.childElementCount > 200) logList.firstElementChild.remove();
    logList.scrollTop = logList.scrollHeight;
    for (const line of state.chat.slice(chatShown)) {
      chatList.append(chatLine(line));
      if (!line.mine) tabs.flag("chat");
    }
    chatShown = state.chat.length;
    chatList.scrollTop = chatList.scrollHeight;
    if (state.handsSeen !== lastHandSeen) lastHandSeen = state.handsSeen;
  }

  function tick() {
    const hand = state.hand;
    const { left, stopped } = timeLeft(state);
    const frac = left === null ? 0 : left / (hand.timer_ms || 10000);
    for (const bar of felt.querySelectorAll(".timer-bar")) bar.style.setProperty("--left", String(frac));
    for (const c of actionBar.querySelectorAll(".countdown")) {
      const n = left === null ? null : Math.ceil(left / 1000);
      const secs = n === null ? "" : stopped ? t("table.clock_stopped", { n }) : hand.bank !== null && hand.bank !== undefined ? t("table.time_bank_seconds", { n }) : t("table.seconds", { n });
      if (c.textContent !== secs) c.textContent = secs;
      c.classList.toggle("urgent", left !== null && left < 4000 && !stopped);
      c.classList.toggle("stopped", stopped);
    }
    strip.tick();
  }
  const ticker = setInterval(tick, 100);

  // -- start ---------------------------------------------------------------------------------

  try {
    const found = await get(`/api/tables/${tableId}`);
    state.table = { ...found.settings, id: tableId };
    setUnit(state.table.tournament ? "chips" : "money"); // drawn before the snapshot comes
    state.seats = found.seats;
    invite = found.invite || null; // only the host gets it
  } catch (err) {
    clear(root, h("section.panel", h("h1", t("table.not_found")), h("p", err.status === 404 ? t("table.not_found_text") : err.message), h("a.btn", { href: "/lobby", "data-link": "" }, t("nav.back_lobby"))));
    return () => {};
  }
  socket = new TableSocket(tableId, {
    position: () => ({ v: state.v, epoch: state.epoch }),
    onFrame,
    onStatus: setStatus,
  });
  keeper = new SeedKeeper(tableId, (msg) => socket.request(msg));
  window.studDebug = { socket, state, v: 0, drop: () => socket.drop(), verdicts: {}, preplayed: [], notice, chosen: () => chosen };
  document.addEventListener("keydown", onKey);
  document.addEventListener("pointerdown", unlockSound);
  window.addEventListener("resize", schedule); // the seats move when the felt turns portrait
  socket.connect();
  render();
  findLastHand();

  return () => {
    clearInterval(ticker);
    strip.stop();
    setUnit("money"); // the next page's amounts are dollars again
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("pointerdown", unlockSound);
    notice.stop();
    window.removeEventListener("resize", schedule);
    socket.close();
  };
}

function sideTabs(items) {
  const list = h("div.tabs", { role: "tablist", "aria-label": t("table.log_and_chat") });
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
