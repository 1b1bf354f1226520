// The service's HTTP API and the logged-in session (token in localStorage).
export const session = {
  token: localStorage.getItem("paigow.token"),
  user: JSON.parse(localStorage.getItem("paigow.user") || "null"),
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

const SECOND_FACTOR_CODES = ["bad-code", "code-used", "second-factor-not-enrolled"];
const STORAGE_CODES = ["storage-full", "storage-read-only"];

export async function api(method, path, body, { text = false } = {}) {
  const headers = {};
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let r;
  try {
    r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { detail: "network", code: "offline" });
  }
  if (!r.ok) {
    let data = null;
    try { data = await r.json(); } catch { data = { detail: r.statusText }; }
    // the database refused a write (full, read-only): paused.js shows why play is paused
    if (r.status === 503 && data && STORAGE_CODES.includes(data.code)) document.dispatchEvent(new CustomEvent("paigow:storage", { detail: data.code }));
    // a 401 about the token ends the session here (a wrong second-factor code does not)
    if (r.status === 401 && session.token && !SECOND_FACTOR_CODES.includes(data && data.code)) {
      // an expired or revoked session: say so plainly, and show the log-in form
      const ended = data && (data.code === "token-expired" || data.code === "token-revoked");
      if (ended) session.notice = "Your session has expired — log in again";
      logout();
      if (ended && location.hash && location.hash !== "#/lobby") location.hash = "#/lobby";
    }
    throw new ApiError(r.status, data);
  }
  return text ? r.text() : r.json();
}

export function key() {
  const a = new Uint8Array(12);
  crypto.getRandomValues(a);
  return "web-" + Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function login(username, password) {
  return keepSession(await api("POST", "/api/auth/login", { username, password }));
}

/** Keep a log-in's (or a second factor's) token and user; the user. */
export function keepSession(data) {
  session.notice = null;
  session.token = data.token;
  session.user = data.user;
  localStorage.setItem("paigow.token", data.token);
  localStorage.setItem("paigow.user", JSON.stringify(data.user));
  return data.user;
}

/** Log out at the server too (the session is revoked there), then here. */
export async function endSession() {
  if (session.token) {
    try { await api("POST", "/api/auth/logout", undefined, { text: true }); } catch { /* gone already */ }
  }
  logout();
}

export function logout() {
  session.token = null;
  session.user = null;
  localStorage.removeItem("paigow.token");
  localStorage.removeItem("paigow.user");
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
