// The table as this client knows it: a snapshot, then every numbered event applied in order.
// Pure data and functions (no DOM), so a reload or a resync rebuilds exactly the same state.

import { amount as chips, handName, number, setUnit, t } from "../i18n.js";
import { finishedText, placedText } from "../tournaments/words.js";

/** "Fourth street" in the page's language (0: the cards are being dealt). */
export function streetName(street) {
  return street >= 3 && street <= 7 ? t(`street.${street}`) : t("street.dealing");
}
const LOG_MAX = 200;
const CHAT_MAX = 100;

export function emptyState(userId) {
  return {
    v: 0,
    epoch: null,
    userId,
    table: null,
    seats: [],
    hand: null,
    log: [],
    logSeq: 0, // every log line gets the next number (drawing appends the new ones)
    logReset: 0, // bumped when a snapshot replaces the log (drawing starts over)
    timedOut: null, // the seat whose timeout's action is logged as part of its timeout line
    chat: [],
    postAnteDue: false,
    closed: false,
    handsSeen: 0,
    observers: 0, // people watching who are not seated
    lastHandNumber: null, // the last finished hand this player was dealt into
    commitment: null, // {hand_id, commitment, scheme, reveal, verdict}: the deal fixed before the first card, opened after
    voidedSeen: new Set(), // cancelled hands already told (an event, or a snapshot's `voided`)
    frozen: false, // a command was refused `table_frozen`: the server's clock stands still
    moved: null, // {to_table, seat}: the tournament's director moved this player (its last move)
    finished: null, // {place, of, prize, tournament_id}: this player's place in the tournament
    showOffer: null, // {hand_id, until}: this player won uncalled and may still show (R41)
    seatRequests: [], // R43: seat requests waiting for the host (the host's all, a player's own)
    seatAnswer: null, // R43: the last answer to this player's request, {request, seat, approved, reason}
    waiting: { line: [], offered: [] }, // the waiting list (R44): who waits, the seats held
    myWait: null, // this player's place in line (1 first), or null
    offer: null, // {seat, until}: a seat offered to this player (R44), until Date.now() passes `until`
  };
}

/** The pots to draw in the middle: the server's (the engine's main and side pots, R18, as
 * they stood when the last betting round ended; this street's wagers are drawn in front of
 * the players). */
export function displayPots(hand) {
  return hand ? hand.pots : [];
}

/** A betting round is over: the server's pots take in its wagers. */
function roundEnded(hand, pots) {
  if (pots) hand.pots = pots.map((p) => ({ amount: p.amount, eligible: [...p.eligible] }));
  for (const p of Object.values(hand.players)) p.wager = 0;
}

export function totalPot(hand) {
  if (!hand) return 0;
  const inPots = hand.pots.reduce((s, p) => s + p.amount, 0);
  return inPots + Object.values(hand.players).reduce((s, p) => s + p.wager, 0);
}

export function seatName(state, seat) {
  const s = state.seats.find((x) => x.seat === seat);
  // a player who left mid-hand is still named by the hand they were dealt into
  const dealt = state.hand?.names?.[seat];
  return s ? s.name : dealt ?? t("seat.number", { n: seat + 1 });
}

export function mySeat(state) {
  const s = state.seats.find((x) => x.user_id === state.userId);
  return s ? s.seat : null;
}

export function myInfo(state) {
  return state.seats.find((x) => x.user_id === state.userId) || null;
}

export function isHost(state) {
  return !!state.table && state.table.host_user_id === state.userId;
}

/** A command came back `table_frozen`: the table cannot reach its players and its clock
 * stands still, so the countdown stops where it is (the server's `resumed`, then a new
 * `turn` with the whole clock, or a snapshot, starts it again). */
export function clockStopped(state) {
  state.frozen = true;
  const hand = state.hand;
  if (hand && hand.deadline !== null && hand.stopped_left === null) hand.stopped_left = Math.max(0, hand.deadline - performance.now());
}

/** What the countdown shows: `left` ms (null: no clock running), `stopped` while frozen. */
export function timeLeft(state) {
  const hand = state.hand;
  if (!hand || hand.over || hand.deadline === null) return { left: null, stopped: false };
  if (state.frozen && hand.stopped_left !== null) return { left: hand.stopped_left, stopped: true };
  return { left: Math.max(0, hand.deadline - performance.now()), stopped: false };
}

/** "12 s", or "3 min" for a long pause: how long the table's clock stood still. */
function pauseLength(ms) {
  const secs = Math.max(1, Math.round(ms / 1000));
  return secs < 120 ? t("log.pause.seconds", { n: number(secs) }) : t("log.pause.minutes", { n: number(Math.round(secs / 60)) });
}
const RESUMED = new Set(["lease", "fanout", "database"]);

/** The legal actions when it is this client's turn, else null. */
export function myLegal(state) {
  const hand = state.hand;
  const seat = mySeat(state);
  if (!hand || hand.over || seat === null || hand.to_act !== seat || !hand.legal) return null;
  return hand.legal.seat === seat ? hand.legal : null;
}

function log(state, text, kind = "action", seat = null) {
  state.log.push({ v: state.v, n: ++state.logSeq, text, kind, seat });
  if (state.log.length > LOG_MAX) state.log.splice(0, state.log.length - LOG_MAX);
}

function newPlayer(seat, stack) {
  return { seat, stack, wager: 0, folded: false, all_in: false, up: [], down: null, down_count: 0, shown: false, mucked: false, high: null, low: null, won: 0 };
}

/** The hand as a snapshot's view shows it. */
function handFromView(hv, table) {
  const players = {};
  for (const s of hv.seats) players[s.seat] = { ...newPlayer(s.seat, s.stack), ...s, won: 0 };
  const hand = {
    hand_id: hv.hand_id,
    number: hv.number ?? null,
    count: hv.count ?? null, // the hand's count at this table: what players read
    names: hv.names || {}, // every seat dealt in, by its player's name (one who left too)
    variant: hv.variant,
    street: hv.street,
    phase: hv.phase,
    button: hv.button,
    to_act: hv.to_act,
    turn_id: hv.turn_id,
    legal: hv.legal || hv.turn_legal || null,
    deadline: hv.remaining_ms === null || hv.remaining_ms === undefined ? null : performance.now() + hv.remaining_ms,
    stopped_left: null,
    timer_ms: table.action_timer_ms,
    community: hv.community,
    players,
    pots: hv.pots.map((p) => ({ amount: p.amount, eligible: [...p.eligible] })),
    order: [],
    awards: [],
    rake: 0,
    over: false,
    bring_in_seat: null,
    bank: null, // the seat whose time bank runs (R27)
    commitment: hv.commitment || null,
  };
  if (hv.result) {
    hand.over = hv.phase === "over";
    hand.rake = hv.result.rake;
    hand.awards = hv.result.awards;
    for (const a of hv.result.awards) if (players[a.seat]) players[a.seat].won += a.amount;
  }
  return hand;
}

/** The snapshot's hand log (the hand's events so far, as this player may see them) drawn the
 * same way as live: replayed on a scratch state, whose log lines are kept. */
function replayedLog(state, snap) {
  const scratch = emptyState(state.userId);
  scratch.table = snap.table;
  scratch.seats = snap.seats;
  const events = snap.log || [];
  if (snap.log_complete === false) {
    scratch.v = events.length ? events[0].v - 1 : snap.v;
    log(scratch, t("log.earlier_lost"), "info");
    if (snap.hand) scratch.hand = handFromView(snap.hand, snap.table); // names and seats for the lines
  }
  for (const ev of events) applyEvent(scratch, ev);
  return scratch.log;
}

/** Replace the state with a server snapshot. */
export function applySnapshot(state, snap) {
  // a tournament player moved by the director: the socket follows them, and this is the
  // snapshot of their new table (its log, chat and deal are its own)
  const moved = state.table !== null && snap.table.id !== state.table.id;
  const back = !moved && state.epoch !== null && snap.epoch !== state.epoch; // restarted, or moved
  setUnit(snap.table.tournament ? "chips" : "money"); // a tournament's stacks are its chips
  if (moved) {
    state.log = [];
    state.chat = [];
    state.commitment = null;
    state.postAnteDue = false;
  }
  state.v = snap.v;
  state.epoch = snap.epoch;
  state.table = snap.table;
  state.seats = snap.seats;
  state.closed = !!snap.table.closed;
  state.observers = snap.observers ?? 0;
  state.seatRequests = snap.seat_requests || [];
  state.waiting = snap.waiting ?? { line: [], offered: [] };
  state.myWait = snap.you?.waiting ?? null;
  state.offer = snap.you?.offer ? { seat: snap.you.offer.seat, until: Date.now() + snap.you.offer.ms } : null;
  // the lines before the snapshot's hand stay (a resync); the hand's own are drawn anew
  const lines = replayedLog(state, snap);
  const from = lines.length ? lines[0].v : Infinity;
  state.log = [...state.log.filter((e) => e.v < from), ...lines.map((e) => ({ ...e, n: ++state.logSeq }))].slice(-LOG_MAX);
  state.logReset += 1;
  state.timedOut = null;
  state.frozen = false; // the snapshot's `remaining_ms` is the server's clock as it is now
  const hv = snap.hand;
  state.hand = hv ? handFromView(hv, snap.table) : null;
  if (moved) log(state, t("log.moved_here", { table: snap.table.name }), "info");
  else if (back) log(state, t("log.table_back"), "info");
  else if (!lines.length) log(state, hv ? t("log.joined_street", { street: streetName(hv.street) }) : t("log.joined"), "info");
  // a hand cancelled when the table's server stopped (or the table moved to another one
  // mid-hand): said once, whether it came as an event or in a snapshot
  for (const v of snap.voided || []) {
    if (state.voidedSeen.has(v.hand_id)) continue;
    state.voidedSeen.add(v.hand_id);
    log(state, t("log.voided", { n: v.number ?? "" }), "warn");
  }
  return state;
}

const SUIT_SIGNS = { s: "♠", h: "♥", d: "♦", c: "♣" };

/** "ann shows Q♠ 7♠ 10♠ 9♠ J♣ 4♠ 2♣ (Flush, queen high; 8-5-4-2-A low)": the hand's names
 * in the page's language, as the engine named them (a low's cards stay upper case). */
export function showLine(who, cards, high, low) {
  const shown = (cards || []).map((c) => `${c[0] === "T" ? "10" : c[0]}${SUIT_SIGNS[c[1]] || c[1]}`).join(" ");
  const names = [high, low].filter(Boolean).map(handName).join("; ");
  const what = shown || t("log.the_hand");
  return names ? t("log.shows_named", { who, cards: what, names }) : t("log.shows", { who, cards: what });
}

const WAGER_TO = { brought_in: "log.brings_in", completed: "log.completes", bet: "log.bets", raised: "log.raises" };
// what a timed-out seat did, said once in its timeout line (the engine's action event follows)
const TIMEOUT_ACTIONS = { folded: "fold", checked: "check", hand_mucked: "muck", show_declined: "no_show" };

/** The line for `seat`'s action, or its timeout line when the timer made it act. */
function acted(state, seat, type, key, params, kind = "action") {
  if (state.timedOut?.seat === seat && TIMEOUT_ACTIONS[type]) {
    state.timedOut = null;
    log(state, t(`log.timeout.${TIMEOUT_ACTIONS[type]}`, params), "warn", seat);
    return;
  }
  log(state, t(key, params), kind, seat);
}

/** A timeout whose action event did not follow is still said. */
function flushTimeout(state, ev) {
  const out = state.timedOut;
  if (!out || (ev.seat === out.seat && TIMEOUT_ACTIONS[ev.type])) return;
  state.timedOut = null;
  log(state, t(`log.timeout.${out.outcome}`, { who: seatName(state, out.seat) }), "warn", out.seat);
}

/** Apply one numbered event (already known to be the next version). */
export function applyEvent(state, ev) {
  state.v = ev.v;
  if (!ev.type) return state; // another seat's private event: only its number
  flushTimeout(state, ev);
  const hand = state.hand;
  const name = (seat) => seatName(state, seat);
  const p = hand && ev.seat !== undefined ? hand.players[ev.seat] : null;
  switch (ev.type) {
    case "seats":
      state.seats = ev.seats;
      break;
    case "table":
      state.table = ev.table;
      setUnit(ev.table.tournament ? "chips" : "money");
      if (ev.table.closed) state.closed = true;
      break;
    case "tournament": // the level, its stakes, and whether the table waits for the director
      if (state.table) state.table = { ...state.table, tournament: { tournament_id: ev.tournament_id, level: ev.level, stakes: ev.stakes, waiting: ev.waiting, round: ev.round } };
      break;
    case "moved":
      tournamentMove(state, ev);
      break;
    case "finished":
      if (ev.user_id === state.userId) {
        state.finished = { place: ev.place, of: ev.of, prize: ev.prize, tournament_id: state.table?.tournament?.tournament_id ?? null };
      }
      if (ev.user_id === state.userId) log(state, finishedText(ev.place, ev.of, ev.prize), "win");
      else log(state, placedText(ev.name, ev.place, ev.of, ev.prize), "info");
      break;
    case "time_bank": // R27: the clock ran out and the seat's time bank runs now
      if (hand && ev.turn_id === hand.turn_id) {
        hand.deadline = performance.now() + ev.ms;
        hand.timer_ms = ev.ms;
        hand.stopped_left = null;
        hand.bank = ev.seat;
      }
      log(state, t("log.time_bank", { who: name(ev.seat), n: number(Math.ceil(ev.ms / 1000)) }), "warn", ev.seat);
      break;
    case "closed":
      state.closed = true;
      log(state, t("log.closed"), "info");
      break;
    case "seat_requests": // R43: to the host every waiting request, to a requester their own
      state.seatRequests = ev.requests;
      break;
    case "seat_answer":
      state.seatAnswer = { request: ev.request, seat: ev.seat, approved: ev.approved, reason: ev.reason };
      break;
    case "left": {
      const who = seatName(state, ev.seat);
      if (ev.reason === "busted" || ev.reason === "moved") {
        log(state, t(`log.left.${ev.reason}`, { who }), "info"); // no chips leave with them
        break;
      }
      const why = ["removed", "sat_out", "table_closed"].includes(ev.reason) ? ev.reason : "left";
      const params = { who, amount: chips(ev.amount) };
      log(state, t(ev.amount ? `log.left.${why}.with` : `log.left.${why}`, params), "info");
      break;
    }
    case "observers":
      state.observers = ev.count;
      break;
    case "waiting_list": {
      state.waiting = { line: ev.line, offered: ev.offered };
      const at = ev.line.findIndex((w) => w.user_id === state.userId);
      state.myWait = at < 0 ? null : at + 1;
      break;
    }
    case "seat_offered":
      state.offer = { seat: ev.seat, until: Date.now() + ev.ms };
      log(state, t("wait.offered", { n: ev.seat + 1, s: Math.round(ev.ms / 1000) }), "info");
      break;
    case "seat_offer_ended":
      state.offer = null;
      log(state, t(ev.reason === "expired" ? "wait.expired" : "wait.declined"), "info");
      break;
    case "chat":
      state.chat.push({ name: ev.name, text: ev.text, seat: ev.seat, mine: ev.user_id === state.userId, line: ev.line, userId: ev.user_id });
      if (state.chat.length > CHAT_MAX) state.chat.shift();
      break;
    case "deal_committed":
      state.commitment = { hand_id: ev.hand_id, commitment: ev.commitment, scheme: ev.scheme, reveal: null, verdict: null };
      if (hand && hand.hand_id === ev.hand_id) hand.commitment = ev.commitment;
      break;
    case "deal_revealed": // page.js checks it (crypto.subtle) and sets `verdict`
      if (!state.commitment || state.commitment.hand_id !== ev.hand_id) {
        state.commitment = { hand_id: ev.hand_id, commitment: hand?.hand_id === ev.hand_id ? hand.commitment : null, scheme: ev.reveal.scheme, reveal: null, verdict: null };
      }
      state.commitment.reveal = ev.reveal;
      break;
    case "hand_voided":
      if (!state.voidedSeen.has(ev.hand_id)) {
        state.voidedSeen.add(ev.hand_id);
        log(state, t("log.voided", { n: ev.number ?? "" }), "warn");
      }
      if (hand && (!ev.hand_id || ev.hand_id === hand.hand_id)) state.hand = null;
      break;
    case "resumed": {
      // the table reaches its players again after its clock stood still; the old turn's
      // countdown is void: the `turn` that follows gives the whole clock
      state.frozen = false;
      if (hand) {
        hand.deadline = null;
        hand.stopped_left = null;
      }
      const key = RESUMED.has(ev.reason) ? `log.resumed.${ev.reason}` : "log.resumed";
      log(state, t(key, { time: pauseLength(ev.paused_ms ?? 0) }), "warn");
      break;
    }
    case "post_ante_due":
      if (ev.seat === mySeat(state)) state.postAnteDue = true;
      break;
    case "hand_started": {
      const players = {};
      ev.seats.forEach((seat, i) => (players[seat] = newPlayer(seat, ev.stacks[i])));
      state.hand = {
        hand_id: ev.hand_id, number: ev.number ?? null, count: ev.count ?? null, variant: ev.variant, street: 0, phase: "betting", button: ev.button,
        to_act: null, turn_id: null, legal: null, deadline: null, stopped_left: null, timer_ms: state.table?.action_timer_ms ?? 10000,
        community: null, players, pots: [], order: [], awards: [], rake: 0, over: false,
        bring_in_seat: null, bank: null,
        commitment: state.commitment && state.commitment.hand_id === ev.hand_id ? state.commitment.commitment : null,
      };
      // the server names every seat dealt in; the seat list is the fallback of older events
      state.hand.names = ev.names || Object.fromEntries(state.seats.filter((x) => ev.seats.includes(x.seat)).map((x) => [x.seat, x.name]));
      state.postAnteDue = false;
      state.handsSeen += 1;
      log(state, ev.count ? t("log.new_hand_at_table", { count: ev.count, n: ev.number ?? "", who: name(ev.button) }) : t("log.new_hand", { n: ev.number ?? "", who: name(ev.button) }), "hand");
      break;
    }
    case "ante_posted":
      if (p) {
        p.stack -= ev.amount;
        p.all_in = p.all_in || ev.all_in;
      }
      break;
    case "street_started":
      if (hand) {
        roundEnded(hand, ev.pots);
        hand.street = ev.street;
        log(state, streetName(ev.street), "street");
      }
      break;
    case "card_dealt":
      if (p) {
        if (ev.face_up) p.up.push(ev.card);
        else if (ev.card) {
          p.down = p.down || [];
          p.down.push(ev.card);
          p.down_count = p.down.length;
        } else if (!p.down) p.down_count += 1; // a hand history hides this card (R24): its back
      }
      break;
    case "down_cards":
      if (hand) {
        for (const [seat, n] of Object.entries(ev.counts)) {
          if (hand.players[seat]) hand.players[seat].down_count = n;
        }
      }
      break;
    case "community_card_dealt":
      if (hand) hand.community = ev.card;
      log(state, t("log.community"), "info");
      break;
    case "burns_reshuffled":
      log(state, t("log.reshuffled"), "info");
      break;
    case "bring_in_due":
      if (hand) hand.bring_in_seat = ev.seat;
      log(state, t(hand?.variant === "razz" ? "log.bring_in_due.razz" : "log.bring_in_due", { who: name(ev.seat) }), "info", ev.seat);
      break;
    case "brought_in":
    case "completed":
    case "bet":
    case "raised":
      if (p) {
        const delta = ev.amount - p.wager;
        p.stack -= delta;
        p.wager = ev.amount;
        p.all_in = p.all_in || ev.all_in;
        log(state, t(WAGER_TO[ev.type] + (ev.all_in ? ".all_in" : ""), { who: name(ev.seat), amount: chips(ev.amount) }), "action", ev.seat);
      }
      break;
    case "called":
      if (p) {
        p.stack -= ev.amount;
        p.wager += ev.amount;
        p.all_in = p.all_in || ev.all_in;
        log(state, t(ev.all_in ? "log.calls.all_in" : "log.calls", { who: name(ev.seat), amount: chips(ev.amount) }), "action", ev.seat);
      }
      break;
    case "checked":
      acted(state, ev.seat, ev.type, "log.checks", { who: name(ev.seat) });
      break;
    case "folded":
      if (p) p.folded = true;
      acted(state, ev.seat, ev.type, "log.folds", { who: name(ev.seat) });
      break;
    case "timed_out": {
      if (p && ev.outcome === "all_in") p.all_in = true;
      // all-in protection has no action event of its own: said now; the others with theirs
      if (ev.outcome === "all_in") log(state, t("log.timeout.all_in", { who: name(ev.seat) }), "warn", ev.seat);
      else state.timedOut = { seat: ev.seat, outcome: ["check", "fold", "muck"].includes(ev.outcome) ? ev.outcome : "other" };
      break;
    }
    case "uncalled_bet_returned":
      if (p) {
        p.stack += ev.amount;
        p.wager -= ev.amount;
        log(state, t("log.uncalled", { who: name(ev.seat), amount: chips(ev.amount) }), "info", ev.seat);
      }
      break;
    case "showdown_started":
      if (hand) {
        roundEnded(hand, ev.pots);
        hand.order = ev.order;
        log(state, t("log.showdown", { order: ev.order.map(name).join(", ") }), "street");
      }
      break;
    case "show_offered": // R41: the uncalled winner was paid at once and may still show
      state.showOffer = ev.seat === mySeat(state) ? { hand_id: ev.hand_id, until: performance.now() + ev.ms } : null;
      break;
    case "hand_shown":
      if (state.showOffer?.hand_id === ev.hand_id) state.showOffer = null;
      if (hand && ev.hand_id && ev.hand_id !== hand.hand_id) {
        log(state, showLine(name(ev.seat), ev.cards, ev.high, ev.low), "show", ev.seat); // shown after the award, the next hand dealt
      } else if (p) {
        p.shown = true;
        p.down = ev.cards.filter((c) => !p.up.includes(c));
        p.down_count = p.down.length;
        p.high = ev.high;
        p.low = ev.low;
        log(state, showLine(name(ev.seat), ev.cards, ev.high, ev.low), "show", ev.seat);
      }
      break;
    case "hand_mucked":
      if (p) p.mucked = true;
      acted(state, ev.seat, ev.type, "log.mucks", { who: name(ev.seat) });
      break;
    case "show_declined":
      acted(state, ev.seat, ev.type, "log.no_show", { who: name(ev.seat) });
      break;
    case "rake_taken":
      if (hand) hand.rake = ev.amount;
      if (ev.amount) log(state, t("log.rake", { amount: chips(ev.amount) }), "info");
      break;
    case "pot_awarded":
      if (hand) {
        if (p) {
          p.won += ev.amount;
          p.stack += ev.amount;
        }
        hand.awards.push({ pot: ev.pot, seat: ev.seat, amount: ev.amount, share: ev.share });
        const which = hand.pots.length > 1 ? (ev.pot === 0 ? "main" : "side") : "pot";
        const line = (a) => t(`log.wins.${which}${a.share === "high" || a.share === "low" ? `.${a.share}` : ""}`, { who: name(a.seat), amount: chips(a.amount), n: a.pot });
        const last = state.log[state.log.length - 1];
        const award = hand.awards[hand.awards.length - 1];
        if (ev.share === "low" && last?.award?.share === "high" && last.award.pot === ev.pot && last.award.seat === ev.seat && !hand.awards.some((a) => a !== last.award && a.pot === ev.pot && a.share === "high" && a.seat !== ev.seat)) {
          // one player takes both halves: a scoop, said once (a second low winner, a tie, unsays it)
          last.text = t(`log.scoops.${which}`, { who: name(ev.seat), amount: chips(last.award.amount + ev.amount), n: ev.pot });
          last.award = { ...award, scoop: last.award };
          state.logReset += 1;
        } else if (ev.share === "low" && last?.award?.scoop && last.award.pot === ev.pot) {
          last.text = line(last.award.scoop);
          last.award = last.award.scoop;
          state.logReset += 1;
          log(state, line(hand.awards[hand.awards.length - 2]), "win", hand.awards[hand.awards.length - 2].seat);
          log(state, line(award), "win", ev.seat);
          state.log[state.log.length - 1].award = award;
        } else {
          log(state, line(award), "win", ev.seat);
          state.log[state.log.length - 1].award = award;
        }
        // Stud Hi/Lo: a showdown pot taken whole means no hand made an eight-or-better low
        const shown = Object.values(hand.players).filter((x) => x.shown);
        if (hand.variant === "stud8" && ev.share === "whole" && shown.length > 1 && !shown.some((x) => x.low) && !hand.noLowSaid) {
          hand.noLowSaid = true;
          log(state, t("log.no_low"), "info");
        }
      }
      break;
    case "hand_ended":
      if (hand) {
        roundEnded(hand, ev.pots);
        ev.seats.forEach((seat, i) => {
          if (hand.players[seat]) hand.players[seat].stack = ev.stacks[i];
        });
        hand.over = true;
        if (mySeat(state) !== null && hand.players[mySeat(state)]) state.lastHandNumber = hand.number; // mail names hands by number
        hand.to_act = null;
        hand.legal = null;
        hand.deadline = null;
        hand.phase = "over";
      }
      break;
    case "turn":
      if (hand && ev.hand_id === hand.hand_id) {
        hand.to_act = ev.seat;
        hand.turn_id = ev.turn_id;
        hand.phase = ev.phase;
        hand.legal = ev.legal;
        hand.timer_ms = ev.timer_ms;
        hand.deadline = performance.now() + ev.timer_ms;
        hand.stopped_left = null;
        hand.bank = null;
        state.frozen = false; // a new turn: the server's clock runs
      }
      break;
    default:
      break;
  }
  return state;
}

/** The director moved a player to another of the tournament's tables (R33): this player's
 * page follows (the snapshot of the new table comes next); another's is a log line. */
function tournamentMove(state, ev) {
  if (ev.user_id === state.userId) {
    state.moved = { to_table: ev.to_table, seat: ev.seat };
    log(state, t("log.moved_you", { n: ev.to_table }), "info");
  } else {
    log(state, t("log.moved", { who: ev.name, n: ev.to_table }), "info");
  }
}

/** A winner's line for the results banner: "alice wins $12 (main pot, high): Full house…" */
export function resultLines(state) {
  const hand = state.hand;
  if (!hand || !hand.awards.length) return [];
  const multi = new Set(hand.awards.map((a) => a.pot)).size > 1;
  return hand.awards.map((a) => {
    const pl = hand.players[a.seat];
    const pot = multi ? (a.pot === 0 ? "main" : "side") : "pot";
    const share = a.share === "high" || a.share === "low" ? `.${a.share}` : "";
    const named = a.share === "low" ? pl?.low : a.share === "high" ? pl?.high : pl?.high || pl?.low;
    const text = t(`result.${pot}${share}`, { who: seatName(state, a.seat), amount: chips(a.amount), n: a.pot });
    return { seat: a.seat, text, hand: pl?.shown && named ? handName(named) : null };
  });
}
