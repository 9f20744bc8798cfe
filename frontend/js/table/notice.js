// "Your turn", noticed from another tab or a pocket: while it is this player's turn the tab's
// title and icon change (and change back after); when the turn comes a phone vibrates and, if
// the player switched it on (off by default, remembered in this browser), a short tone plays.

import { t } from "../i18n.js";

const SOUND = "stud.turnSound";
// a gold dot: the tab's icon while it is your turn (the page's own icon is empty)
const TURN_ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%23e2b650'/%3E%3C/svg%3E";

export const soundOn = () => localStorage.getItem(SOUND) === "on";

export class TurnNotice {
  constructor() {
    this.mine = false;
    this.title = null; // the tab's title and icon before the turn, put back after it
    this.icon = null;
    this.audio = null; // made on a click (browsers let a page sound only after one)
    this.tones = 0; // tones played (the page's debug hook shows it)
  }

  setSound(on) {
    localStorage.setItem(SOUND, on ? "on" : "off");
    if (on) this.unlock();
  }

  /** An AudioContext may start only from a user's gesture: the switch, or any click. */
  unlock() {
    if (!this.audio && window.AudioContext) this.audio = new AudioContext();
    this.audio?.resume?.().catch(() => {});
  }

  /** Called after every event: is it this player's turn now? */
  update(mine) {
    if (mine === this.mine) return;
    this.mine = mine;
    const link = document.querySelector('link[rel="icon"]');
    if (mine) {
      this.title = document.title;
      this.icon = link?.getAttribute("href") ?? null;
      document.title = t("turn.title", { page: this.title });
      link?.setAttribute("href", TURN_ICON);
      navigator.vibrate?.(200); // phones; elsewhere absent or a no-op
      if (soundOn()) this.tone();
    } else {
      if (this.title !== null) document.title = this.title;
      if (link && this.icon !== null) link.setAttribute("href", this.icon);
    }
  }

  tone() {
    this.unlock();
    const ctx = this.audio;
    if (!ctx) return;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.25);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.25);
    this.tones += 1;
  }

  /** The page is left: the title and icon are the page's again. */
  stop() {
    this.update(false);
    this.audio?.close?.().catch(() => {});
  }
}
