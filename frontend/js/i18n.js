// The site's words: one catalogue per language (frontend/i18n/<code>.json), a text for each
// key, with {name} places filled in by t(). English is the reference every catalogue follows.

export const LANGUAGES = ["en", "nl", "de"];
const STORE = "stud.language";
let code = "en";
let catalogue = {};
let english = {}; // where a key missing from a catalogue is looked up (a test keeps none missing)

/** The language this browser prefers among ours (a stored choice first). */
export function browserLanguage() {
  const stored = localStorage.getItem(STORE);
  if (LANGUAGES.includes(stored)) return stored;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const two = String(wanted).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(two)) return two;
  }
  return "en";
}

export async function setLanguage(wanted) {
  const next = LANGUAGES.includes(wanted) ? wanted : "en";
  if (next === code && Object.keys(catalogue).length) return;
  const load = async (c) => {
    const res = await fetch(`/static/i18n/${c}.json`, { credentials: "same-origin" });
    if (!res.ok) throw new Error(`no catalogue for ${c}`);
    return res.json();
  };
  if (!Object.keys(english).length) english = await load("en");
  catalogue = next === "en" ? english : await load(next);
  code = next;
  localStorage.setItem(STORE, next);
  document.documentElement.lang = next;
}

export const language = () => code;
/** Dates are written by the browser in the page's language, on a 24-hour clock (no "AM"). */
export const DATE = { dateStyle: "short", timeStyle: "short", hour12: false };
export const has = (key) => Object.hasOwn(catalogue, key);

/** The text for `key` with its {name}s filled from `params`. */
export function t(key, params = {}) {
  const text = catalogue[key] ?? english[key];
  if (text === undefined) {
    console.error(`no text for ${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (params[name] === undefined ? `{${name}}` : String(params[name])));
}

/** A number with this language's grouping: 1234 → "1,234" / "1.234". */
export function number(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, catalogue["num.group"] ?? ",");
}

/** Chips are integers in cents, written the language's way: 130 → "$1.30" / "$ 1,30" /
 * "1,30 $"; whole dollars without cents ("$15"). */
export function money(cents) {
  if (cents === null || cents === undefined) return "";
  const abs = Math.abs(cents);
  const rest = abs % 100;
  const amount = number(Math.floor(abs / 100)) + (rest ? (catalogue["num.decimal"] ?? ".") + String(rest).padStart(2, "0") : "");
  return (cents < 0 ? "-" : "") + t("money", { amount });
}

/** Tournament chips are counted, not dollars: 1500 → "1,500" (cents play no part). */
export function chipCount(n) {
  if (n === null || n === undefined) return "";
  return (n < 0 ? "-" : "") + number(Math.abs(n));
}

// What the table page's amounts are: dollars at a cash table, chips at a tournament's (the
// table page sets it from its snapshot and sets it back when it is left).
let unit = "money";
export function setUnit(u) {
  unit = u === "chips" ? "chips" : "money";
}
/** An amount at the table in its unit: "$1.30" at a cash table, "1,500" at a tournament's. */
export const amount = (n) => (unit === "chips" ? chipCount(n) : money(n));

/** 7 → "7th" / "7e" / "7.": the language's ordinal, by the browser's plural rules. */
export function ordinal(n) {
  const kind = new Intl.PluralRules(code, { type: "ordinal" }).select(n);
  return t(`ordinal.${["one", "two", "few"].includes(kind) ? kind : "other"}`, { n: number(n) });
}

/** An amount a person typed ("12.50", "12,50", "$ 1.234,50") → cents, NaN when it is none.
 * Where the comma is the decimal sign a lone point is still read as one ("0.50" is fifty
 * cents, not fifty dollars); only "1.234" (groups of three) is a thousands point. */
export function parseMoney(text) {
  const group = catalogue["num.group"] ?? ",";
  const decimal = catalogue["num.decimal"] ?? ".";
  let s = String(text).replace(/[$\s]/g, "");
  if (decimal === ".") s = s.split(group).join("");
  else if (s.includes(decimal)) s = s.split(group).join("").replace(decimal, ".");
  else if (/^\d{1,3}(\.\d{3})+$/.test(s)) s = s.split(".").join("");
  if (!/^\d+(\.\d{0,2})?$/.test(s)) return NaN;
  return Math.round(Number(s) * 100);
}

/** Cents as a person types them in this language: 1250 → "12.50" / "12,50"; 1200 → "12". */
export function typedMoney(cents) {
  const whole = String(Math.floor(cents / 100));
  return cents % 100 ? whole + (catalogue["num.decimal"] ?? ".") + String(cents % 100).padStart(2, "0") : whole;
}

// -- hand names --------------------------------------------------------------------------------
// The engine names hands in English ("Full house, kings full of fours", "8-6-4-2-A low");
// these read that fixed grammar back and say it in the page's language.

const RANK_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"];
const PLURAL_WORDS = RANK_WORDS.map((w) => (w === "six" ? "sixes" : `${w}s`));
const SYMBOLS = { A: "A", K: "K", Q: "Q", J: "J", T: "T", 10: "T" };

const rank = (word) => t(`rank.${RANK_WORDS.indexOf(word)}`);
const ranks = (word) => t(`ranks.${PLURAL_WORDS.indexOf(word)}`);
/** "Q-9-8-3-A": each card's sign in this language (a queen is "V" in Dutch, "D" in German). */
const lowCards = (text) => text.split("-").map((c) => (SYMBOLS[c] ? t(`sign.${SYMBOLS[c]}`) : c)).join("-");

const HIGH = [
  [/^Royal flush$/, () => t("hand.royal_flush")],
  [/^Straight flush, (\w+) high$/, (m) => t("hand.straight_flush", { rank: rank(m[1]) })],
  [/^Four of a kind, (\w+)$/, (m) => t("hand.quads", { ranks: ranks(m[1]) })],
  [/^Full house, (\w+) full of (\w+)$/, (m) => t("hand.full_house", { ranks: ranks(m[1]), over: ranks(m[2]) })],
  [/^Flush, (\w+) high$/, (m) => t("hand.flush", { rank: rank(m[1]) })],
  [/^Straight, (\w+) high$/, (m) => t("hand.straight", { rank: rank(m[1]) })],
  [/^Three of a kind, (\w+)$/, (m) => t("hand.trips", { ranks: ranks(m[1]) })],
  [/^Two pair, (\w+) and (\w+)$/, (m) => t("hand.two_pair", { ranks: ranks(m[1]), and: ranks(m[2]) })],
  [/^One pair, (\w+)$/, (m) => t("hand.pair", { ranks: ranks(m[1]) })],
  [/^High card, (\w+)$/, (m) => t("hand.high_card", { rank: rank(m[1]) })],
];
const LOW = [
  [/^([\dAKQJT]+(?:-[\dAKQJT]+){4}) low$/, (m) => t("low.cards", { cards: lowCards(m[1]) })],
  [/^Pair of (\w+), ([\w-]+) \(low\)$/, (m) => t("low.pair", { ranks: ranks(m[1]), cards: lowCards(m[2]) })],
  [/^Two pair, (\w+) and (\w+), (\w+) \(low\)$/, (m) => t("low.two_pair", { ranks: ranks(m[1]), and: ranks(m[2]), cards: lowCards(m[3]) })],
  [/^Three of a kind, (\w+), ([\w-]+) \(low\)$/, (m) => t("low.trips", { ranks: ranks(m[1]), cards: lowCards(m[2]) })],
  [/^Full house, (\w+) full of (\w+) \(low\)$/, (m) => t("low.full_house", { ranks: ranks(m[1]), over: ranks(m[2]) })],
  [/^Four of a kind, (\w+), (\w+) \(low\)$/, (m) => t("low.quads", { ranks: ranks(m[1]), cards: lowCards(m[2]) })],
];

/** The engine's English name of a hand (high or low) in this language; unknown text as is. */
export function handName(english) {
  if (!english) return english;
  for (const [re, say] of [...LOW, ...HIGH]) {
    const m = english.match(re);
    if (m) return say(m);
  }
  return english;
}
