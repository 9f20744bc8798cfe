// How tournaments are written: their state, the buy-in, the clock, places and prizes. Money
// (buy-ins, prizes) is in cents of play money; stacks and stakes are tournament chips.

import { chipCount, DATE, language, money, number, ordinal, t } from "../i18n.js";

export const STATUSES = ["registering", "running", "finished", "cancelled"];
export const SPEEDS = ["normal", "turbo", "hyper"];
export const PAYOUTS = ["winner_takes_all", "top10", "top15", "top20", "sng_50_30_20", "sng_65_35", "sng_70_30"];
export const TOURNAMENT_VARIANTS = ["stud", "stud8", "razz", "rotation"];

export const statusName = (s) => (STATUSES.includes(s) ? t(`tour.status.${s}`) : s);
export const speedName = (s) => (SPEEDS.includes(s) ? t(`tour.speed.${s}`) : "—");
export const payoutName = (p) => (PAYOUTS.includes(p) ? t(`tour.payouts.${p}`) : p);

/** "$10+$1": the prize pool's part and the house's fee (a freeroll: "Free"). */
export function buyIn(x) {
  if (!x.buy_in && !x.fee) return t("tour.free");
  return t("tour.buy_in_plus", { buy_in: money(x.buy_in), fee: money(x.fee) });
}

/** A moment the server wrote (ISO) in the page's language; "" for none. */
export function when(iso) {
  if (!iso) return "";
  return new Intl.DateTimeFormat(language(), DATE).format(new Date(iso));
}

/** 272000 ms → "4:32"; an hour or more: "1:04:32". */
export function clock(ms) {
  const secs = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = String(secs % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** "Ante 10 · bring-in 15 · 40/80" (chips). */
export function stakesText(s) {
  return t("tour.stakes", { ante: chipCount(s.ante), bring_in: chipCount(s.bring_in), small: chipCount(s.small_bet), big: chipCount(s.big_bet) });
}

/** "You finished 7th of 60 ($12.40)": the prize left out when there is none. */
export function finishedText(place, of, prize) {
  const params = { place: ordinal(place), of: number(of), prize: money(prize) };
  return prize ? t("tour.you_finished_prize", params) : t("tour.you_finished", params);
}

/** A log line for another player's place. */
export function placedText(name, place, of, prize) {
  const params = { who: name, place: ordinal(place), of: number(of), prize: money(prize) };
  return prize ? t("log.finished_prize", params) : t("log.finished", params);
}

/** What the tournament page's clock says about the level in force now. */
export function levelLeft(live, leftMs) {
  if (live.frozen) return t("tour.clock.frozen");
  if (live.level_hands_left !== null && live.level_hands_left !== undefined) return t("tour.clock.hands_left", { n: number(live.level_hands_left) });
  if (leftMs === null) return "";
  return live.is_break ? t("tour.clock.break_left", { time: clock(leftMs) }) : t("tour.clock.next_in", { time: clock(leftMs) });
}

export const requestId = () => `r${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
