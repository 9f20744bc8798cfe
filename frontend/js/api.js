// The HTTP API: JSON in and out, the session in the HttpOnly cookie the server sets.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function describe(status, body) {
  const detail = body && body.detail;
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    return new ApiError(status, detail.code || "error", detail.message || "refused");
  }
  if (Array.isArray(detail) && detail.length) {
    const first = detail[0];
    const where = (first.loc || []).filter((x) => x !== "body").join(".");
    return new ApiError(status, "invalid", `${where ? where + ": " : ""}${first.msg}`);
  }
  if (typeof detail === "string") return new ApiError(status, "error", detail);
  return new ApiError(status, "error", `the server answered ${status}`);
}

export async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, "offline", "cannot reach the server");
  }
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) throw describe(res.status, data);
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);

/** The logged-in player's profile, or null. */
export async function me() {
  try {
    return await get("/api/me");
  } catch (err) {
    if (err.status === 401) return null;
    throw err;
  }
}
