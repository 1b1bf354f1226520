// The service's HTTP API and the logged-in session. The session itself lives in an HttpOnly
// cookie the server sets at log-in: no script here (or injected) can read it; the page keeps
// only who is logged in (from /api/me), in memory.
export const session = {
  user: null,
  notice: null,
};

// Why a session ended, as the server's 401 code says it, in the words the page shows.
const ENDED = {
  "token-expired": "Your session has expired — log in again.",
  "session-idle": "Your session ended after a while without activity — log in again.",
  "token-revoked": "Your session was ended (logged out, your password changed, or ended by the operator) — log in again.",
};

export class ApiError extends Error {
  constructor(status, body) {
    const detail = body && body.detail;
    super(typeof detail === "string" ? detail : Array.isArray(detail) ? detail.map((d) => d.msg || JSON.stringify(d)).join("; ") : JSON.stringify(detail ?? body));
    this.status = status;
    this.code = body && body.code;
    this.invalid = status === 422 && Array.isArray(detail);
  }
}

/** The codes that say a session ended (on HTTP and on the live feed). */
export const SESSION_ENDED = Object.keys(ENDED);

const SECOND_FACTOR_CODES = ["bad-code", "code-used", "second-factor-not-enrolled"];
const STORAGE_CODES = ["storage-full", "storage-read-only"];

export async function api(method, path, body, { text = false } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let r;
  try {
    r = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { detail: "network", code: "offline" });
  }
  if (!r.ok) {
    let data = null;
    try { data = await r.json(); } catch { data = { detail: r.statusText }; }
    // the database refused a write (full, read-only): paused.js shows why play is paused
    if (r.status === 503 && data && STORAGE_CODES.includes(data.code)) document.dispatchEvent(new CustomEvent("paigow:storage", { detail: data.code }));
    // a 401 about the session ends it here (a wrong second-factor code does not)
    if (r.status === 401 && session.user && !SECOND_FACTOR_CODES.includes(data && data.code)) {
      sessionEnded(data && data.code);
    }
    throw new ApiError(r.status, data);
  }
  return text ? r.text() : r.json();
}

/** The server said the session ended (`code` says why): say so plainly and show the log-in
 * form; a seat and a wager in play stay as the rules say (the server keeps them). */
export function sessionEnded(code) {
  session.notice = ENDED[code] || ENDED["token-expired"];
  forget();
  if (location.hash && location.hash !== "#/lobby") location.hash = "#/lobby";
}

/** Who is logged in, asked of the server (the cookie goes with the request): at start-up. */
export async function restoreSession() {
  try {
    const out = await api("GET", "/api/auth/session");
    session.user = out.user;
    if (!out.user && ENDED[out.ended]) session.notice = ENDED[out.ended];
  } catch {
    session.user = null;
  }
  return session.user;
}

export function key() {
  const a = new Uint8Array(12);
  crypto.getRandomValues(a);
  return "web-" + Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Log in: the server sets the session cookie; the answer (without the token) is returned. */
export async function login(username, password) {
  const data = await api("POST", "/api/auth/login", { username, password, cookie: true });
  keepSession(data);
  return data;
}

/** Keep a log-in's (or a second factor's) user; the user. */
export function keepSession(data) {
  session.notice = null;
  session.user = data.user;
  return data.user;
}

/** Log out at the server (the session is revoked there and the cookie cleared), then here. */
export async function endSession() {
  if (session.user) {
    try { await api("POST", "/api/auth/logout", undefined, { text: true }); } catch { /* gone already */ }
  }
  forget();
}

/** Forget the user here and re-render (the server's session is not touched). */
export function forget() {
  session.user = null;
  document.dispatchEvent(new CustomEvent("paigow:session"));
}

/** Dollars as typed ("25", "12.50") -> integer cents, without floating point; NaN if malformed. */
export function parseCents(text) {
  const m = /^\s*(\d{1,12})(?:\.(\d{1,2}))?\s*$/.exec(String(text));
  if (!m) return NaN;
  return Number(m[1]) * 100 + Number((m[2] || "").padEnd(2, "0"));
}

export function money(cents) {
  if (cents === null || cents === undefined) return "—";
  const sign = cents < 0 ? "-" : "";
  const v = Math.abs(cents);
  return `${sign}$${Math.floor(v / 100).toLocaleString("en-US")}.${String(v % 100).padStart(2, "0")}`;
}

export function signed(cents) {
  return (cents > 0 ? "+" : "") + money(cents);
}

/** The wallet balance last seen (cents), kept current by the header and the live feed. */
export const wallet = { balance: null };

export function setBalance(cents) {
  wallet.balance = cents;
  for (const el of document.querySelectorAll("[data-balance]")) {
    el.textContent = money(cents);
    el.dataset.cents = String(cents);
  }
  document.dispatchEvent(new CustomEvent("paigow:balance", { detail: cents }));
}
