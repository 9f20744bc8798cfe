// One WebSocket to one table that reconnects by itself and catches up from the last event
// it saw (`?last_v=&epoch=`): the server answers with what was missed, or a snapshot.

import { errorText, get } from "../api.js";
import { t } from "../i18n.js";

const NO_RETRY = new Set([4001, 4004, 1008]); // logged out, no such table, policy
const PING_EVERY = 15000;
const PING_TIMEOUT = 8000;

export class TableSocket {
  /** `position()` gives {v, epoch} of the last event applied; `onFrame(frame)` gets every
   * event/snapshot; `onStatus(status, detail)` gets "connecting" | "open" | "retrying" | "gone". */
  constructor(tableId, { position, onFrame, onStatus }) {
    this.tableId = tableId;
    this.position = position;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.ws = null;
    this.pending = new Map();
    this.refs = 0;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.pingTimer = null;
    this.pongDeadline = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const { v, epoch } = this.position();
    const q = v && epoch ? `?last_v=${v}&epoch=${encodeURIComponent(epoch)}` : "";
    return `${proto}//${location.host}/ws/tables/${this.tableId}${q}`;
  }

  connect() {
    if (this.stopped) return;
    this.onStatus(this.attempt ? "retrying" : "connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.onStatus("open");
      this.startPings();
    };
    ws.onmessage = (msg) => this.receive(msg.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPings();
      this.failPending(t("error.dropped"));
      if (this.stopped) return;
      if (NO_RETRY.has(ev.code)) {
        this.onStatus("gone", ev.reason || t("error.closed"));
        return;
      }
      if (opened) this.scheduleRetry();
      else this.askWhy();
    };
  }

  // A refused handshake reaches a browser as 1006 whatever the reason (an HTTP 403): the
  // table's own address says whether the table (404) or the session (401) is gone; anything
  // else (a table moving between processes, the network) is worth another try.
  async askWhy() {
    try {
      await get(`/api/tables/${this.tableId}`, { timeoutMs: 5000 });
    } catch (err) {
      if (this.stopped) return;
      if (err.status === 401 || err.status === 404) {
        this.onStatus("gone", err.message);
        return;
      }
    }
    if (!this.stopped) this.scheduleRetry();
  }

  scheduleRetry() {
    this.attempt += 1;
    const wait = Math.min(5000, 300 * 2 ** (this.attempt - 1)) * (0.75 + Math.random() / 2);
    this.onStatus("retrying", Math.round(wait));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    // an answer names the request it answers (`ref`): `ok`, `error`, or its own kind (`seed_ok`)
    if (frame.type === "ok" || frame.type === "error" || (frame.ref && typeof frame.v !== "number" && this.pending.has(frame.ref))) {
      const waiter = frame.ref ? this.pending.get(frame.ref) : null;
      if (waiter) {
        this.pending.delete(frame.ref);
        if (frame.type === "ok") waiter.resolve(frame.result);
        else if (frame.type !== "error") waiter.resolve(frame);
        else waiter.reject(Object.assign(new Error(errorText(frame.code, frame.message)), { code: frame.code }));
      } else if (frame.type === "error") {
        this.onFrame(frame);
      }
      return;
    }
    this.onFrame(frame);
  }

  /** Send a command; resolves with the server's `result` or rejects with its error. */
  request(msg, timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(Object.assign(new Error(t("error.reconnecting")), { code: "offline" }));
        return;
      }
      const ref = `c${++this.refs}`;
      const timer = setTimeout(() => {
        if (this.pending.delete(ref)) reject(Object.assign(new Error(t("error.no_answer")), { code: "timeout" }));
      }, timeoutMs);
      this.pending.set(ref, {
        resolve: (x) => (clearTimeout(timer), resolve(x)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.ws.send(JSON.stringify({ ...msg, ref }));
    });
  }

  /** Ask for what was missed after a gap in the numbering. */
  resync() {
    const { v, epoch } = this.position();
    this.request({ type: "resync", last_v: v || null, epoch: epoch || null }).catch(() => this.drop());
  }

  failPending(message) {
    for (const waiter of this.pending.values()) waiter.reject(Object.assign(new Error(message), { code: "offline" }));
    this.pending.clear();
  }

  startPings() {
    this.stopPings();
    this.pingTimer = setInterval(() => {
      this.request({ type: "ping" }, PING_TIMEOUT).catch(() => this.drop());
    }, PING_EVERY);
  }

  stopPings() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  /** Drop the connection as a network failure would (it reconnects and catches up). */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.stopPings();
    this.failPending(t("error.dropped"));
    try {
      ws.close();
    } catch {
      /* already closed */
    }
    if (!this.stopped) this.scheduleRetry();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopPings();
    if (this.ws) this.ws.close(1000, "bye");
    this.ws = null;
  }
}
