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
  if (r.status === 401 && session.token) {
    logout();
  }
  if (!r.ok) {
    let data = null;
    try { data = await r.json(); } catch { data = { detail: r.statusText }; }
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
  const data = await api("POST", "/api/auth/login", { username, password });
  session.token = data.token;
  session.user = data.user;
  localStorage.setItem("paigow.token", data.token);
  localStorage.setItem("paigow.user", JSON.stringify(data.user));
  return data.user;
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
