// Tiny DOM helpers.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replace ``el``'s children by ``build()`` only when ``k`` differs from what it shows now. */
export function patch(el, k, build) {
  const sig = typeof k === "string" ? k : JSON.stringify(k);
  if (el.dataset.sig === sig) return false;
  el.dataset.sig = sig;
  el.replaceChildren(...[build()].flat().filter((x) => x !== null && x !== undefined && x !== false));
  return true;
}

export function announce(text) {
  const a = document.getElementById("announcer");
  if (!a) return;
  a.textContent = "";
  setTimeout(() => { a.textContent = text; }, 30);
}

// The service's own codes in the player's words. A rule's code from the core (paigow.errors.CODES:
// outside-limits, already-wagered, already-set, ...) has no entry: its message is the core's own,
// the answer's detail, never a copy here (tests/test_core_messages.py checks).
const MESSAGES = {
  "insufficient-funds": (c) => `Your wallet has ${c.balance ?? "too little"}${c.amount ? `, less than the ${c.amount} wager` : ""} - ask the operator to credit it.`,
  "no-money": (c) => `Your wallet has ${c.balance ?? "less than the minimum"}${c.minimum ? `, less than this table's ${c.minimum} minimum wager` : ""} - ask the operator to credit it before you sit.`,
  "too-many-seats": () => "You already hold as many seats as one player may: leave one first.",
  "round-in-play": () => "A round is in play: you can wager as soon as it is over.",
  "not-betting": () => "Betting is closed: a side wager goes with your next wager.",
  "table-closed": () => "This table is closed: no new wagers or seats.",
  "spot-taken": () => "Someone just took that spot: choose another.",
  "spot-busy": () => "That spot still has a wager in play: choose another or wait for the round to end.",
  "already-seated": () => "You already sit at this table: leave your spot first to change it.",
  "not-seated": () => "Sit at a spot first.",
  "not-setting": () => "Too late to set: the time is up and the house way has set your hand.",
  "not-current-round": () => "That round is over.",
  "not-dealt": () => "Your cards are not dealt yet.",
  "no-round": () => "There is no round in play.",
  "casino-table": () => "No help with setting at a casino table: the player sets the hand alone (Indiana 68 IAC 10-9-13(a)).",
  "bad-credentials": () => "Wrong username or password.",
  "username-taken": () => "That username is taken: choose another.",
  "invalid-token": () => "Your session has ended: log in again.",
  "token-expired": () => "Your session has expired: log in again.",
  "session-idle": () => "Your session ended after a while without activity: log in again.",
  "token-revoked": () => "Your session was ended: log in again.",
  "bad-origin": () => "Refused: the request did not come from this site's own pages.",
  "not-logged-in": () => "Log in first.",
  "no-user": () => "There is no player with that username.",
  "operators-only": () => "Operators only.",
  "no-table": () => "There is no such table.",
  "storage-full": () => "Not taken: play is paused while the database is out of space. Nothing was taken from your wallet; try again once play resumes.",
  "storage-read-only": () => "Not taken: play is paused while the database is read-only. Nothing was taken from your wallet; try again once play resumes.",
  "offline": () => "The table server cannot be reached: check the connection and try again.",
};

/** An error in the player's words (and dollars); ``ctx`` fills in amounts: {balance, amount, limits}. */
export function errorText(err, ctx = {}) {
  if (err && err.code && MESSAGES[err.code]) return MESSAGES[err.code](ctx);
  if (err && err.status === 429) return "Too many tries: wait a minute and try again.";
  if (err && err.invalid) return `Please check what you typed: ${err.message}.`;
  if (err && err.status >= 500) return "Something went wrong at the server: try again.";
  return err && err.message ? err.message : String(err);
}
