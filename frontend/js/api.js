// The HTTP API: JSON in and out, the session in the HttpOnly cookie the server sets.

import { has, language, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A refusal's text: the catalogue's for its code (the server's English otherwise). */
export function errorText(code, message) {
  // the engine says why in English (one code for every refusal): English players keep its
  // words, the others get their own language's
  if (code === "illegal_action" && language() === "en" && message) return message;
  return has(`error.${code}`) ? t(`error.${code}`) : message || t("error.refused");
}

function describe(status, body) {
  const detail = body && body.detail;
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    return new ApiError(status, detail.code || "error", errorText(detail.code, detail.message));
  }
  if (Array.isArray(detail) && detail.length) {
    const first = detail[0];
    const where = (first.loc || []).filter((x) => x !== "body").join(".");
    return new ApiError(status, "invalid", `${where ? where + ": " : ""}${first.msg}`);
  }
  if (typeof detail === "string") return new ApiError(status, "error", has(`error.http.${status}`) ? t(`error.http.${status}`) : detail);
  return new ApiError(status, "error", t("error.status", { status }));
}

/** `timeoutMs`: a request not answered by then is given up (a page that asks again every few
 * seconds must not wait forever on one). */
export async function api(method, path, body, { timeoutMs = null } = {}) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (timeoutMs) init.signal = AbortSignal.timeout(timeoutMs);
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err.name === "TimeoutError") throw new ApiError(0, "timeout", t("error.no_answer"));
    throw new ApiError(0, "offline", t("error.offline"));
  }
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) throw describe(res.status, data);
  return data;
}

export const get = (path, options) => api("GET", path, undefined, options);
export const post = (path, body = {}) => api("POST", path, body);
export const del = (path) => api("DELETE", path);

/** The logged-in player's profile, or null. */
export async function me() {
  try {
    return await get("/api/me");
  } catch (err) {
    if (err.status === 401) return null;
    throw err;
  }
}
