// Play paused by the database (out of space, or read-only): a banner above every view saying so
// plainly, shown as soon as a request is refused with storage-full / storage-read-only (api.js
// sends "paigow:storage") or the service's health says so, and gone by itself once it says
// writes work again. The service keeps the state in memory: /api/health costs no database read.
import { h } from "./dom.js";

export const PAUSED = {
  "storage-full": "the database is out of space",
  "storage-read-only": "the database is read-only (it takes no changes)",
};
const POLL_MS = 5000;
const POLL_PAUSED_MS = 2000;

let banner = null;
let timer = null;

function show(code) {
  const why = PAUSED[code];
  if (!why || !banner) return;
  if (banner.hidden || banner.dataset.code !== code) {
    banner.replaceChildren(
      h("strong", {}, `Play is paused: ${why}.`),
      " The operator has been told. Nothing you did was lost: a wager or move refused while paused was not taken, and play resumes by itself when it clears.");
    banner.dataset.code = code;
    banner.hidden = false;
    document.body.classList.add("is-paused");
  }
  schedule(POLL_PAUSED_MS);
}

function hide() {
  if (!banner || banner.hidden) return;
  banner.hidden = true;
  delete banner.dataset.code;
  document.body.classList.remove("is-paused");
  document.dispatchEvent(new CustomEvent("paigow:resumed"));
}

async function check() {
  try {
    const r = await fetch("/api/health", { cache: "no-store" });
    if (r.ok) {
      const { storage } = await r.json();
      if (PAUSED[storage]) show(storage); else hide();
    }
  } catch { /* offline: shown by the views */ }
  schedule(banner && !banner.hidden ? POLL_PAUSED_MS : POLL_MS);
}

function schedule(ms) {
  clearTimeout(timer);
  timer = setTimeout(check, ms);
}

/** The banner (once, before the view) and its watch: events from api.js and a health poll. */
export function watchStorage() {
  if (banner) return;
  banner = h("div", { id: "paused", class: "paused-banner", role: "alert", hidden: true });
  const view = document.getElementById("view");
  view.parentNode.insertBefore(banner, view);
  document.addEventListener("paigow:storage", (ev) => show(ev.detail));
  check();
}
