// The single page: a hash router over the lobby, a table, recall and the operator's page.
// Each view is called as view(root, shell, ...ids) and returns its cleanup (or null); `shell`
// holds what the page around the views offers them (refreshWho: the header's user and balance),
// so that no view imports this module.
import { api, session, login, endSession, restoreSession, money, setBalance } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { tableView } from "./table.js";
import { recallView } from "./recall.js";
import { operatorView } from "./operator.js";
import { rulesView } from "./rules.js";
import { floorView } from "./floor.js";
import { limitsView } from "./limits.js";
import { statementView } from "./statement.js";
import { reviewView } from "./review.js";
import { playersView } from "./players.js";
import { watchStorage } from "./paused.js";
import { variantRows } from "./lobby_card.js";

const view = () => document.getElementById("view");
let cleanup = null;

async function refreshWho() {
  const who = document.getElementById("who");
  document.getElementById("nav-operator").hidden = !(session.user && session.user.role === "operator");
  const floorNav = document.getElementById("nav-floor");
  if (floorNav) floorNav.hidden = !(session.user && session.user.role === "operator");
  const playersNav = document.getElementById("nav-players");
  if (playersNav) playersNav.hidden = !(session.user && session.user.role === "operator");
  who.replaceChildren();
  if (!session.user) {
    who.append(h("span", {}, "Not logged in"));
    return null;
  }
  try {
    const me = await api("GET", "/api/me");
    who.replaceChildren(
      h("span", {}, me.username, h("span", { class: "role" }, ` (${me.role})`)),
      // an operator plays no table: no wallet to show
      // (replaceChildren would print a null)
      ...(me.role === "operator" ? [] : [h("span", {}, "Balance: ", h("strong", { id: "balance", "data-balance": "", "data-cents": me.balance }, money(me.balance)))]),
      h("button", { type: "button", id: "logout", onclick: async () => { await endSession(); location.hash = "#/lobby"; } }, "Log out"),
    );
    setBalance(me.balance);
    return me;
  } catch (err) {
    who.append(h("span", { class: "error" }, errorText(err)));
    return null;
  }
}

function authForms(onDone) {
  const msg = h("p", { id: "auth-msg", role: "alert", class: session.notice ? "error" : null }, session.notice || "");
  const form = (id, title, action) => {
    const user = h("input", { id: `${id}-username`, name: "username", autocomplete: "username", required: true, minlength: 3, maxlength: 32 });
    const pass = h("input", { id: `${id}-password`, name: "password", type: "password", autocomplete: id === "register" ? "new-password" : "current-password", required: true, minlength: id === "register" ? 8 : 1 });
    return h("form", {
      class: "panel", id: `${id}-form`, "aria-labelledby": `${id}-title`,
      onsubmit: async (ev) => {
        ev.preventDefault();
        msg.textContent = "";
        try {
          await action(user.value.trim(), pass.value);
          await onDone();
        } catch (err) {
          msg.className = "error";
          msg.textContent = errorText(err);
        }
      },
    },
    h("h2", { id: `${id}-title` }, title),
    h("div", { class: "row" },
      h("label", {}, "Username", user),
      h("label", {}, "Password", pass),
      h("button", { type: "submit", class: "primary" }, title)));
  };
  return h("div", {},
    h("div", { class: "grid2" },
      form("login", "Log in", (u, p) => login(u, p)),
      form("register", "Register", async (u, p) => {
        await api("POST", "/api/auth/register", { username: u, password: p });
        await login(u, p);
        announce(`Registered and logged in as ${u}`);
      })),
    msg);
}

async function refreshBalance() {
  try { setBalance((await api("GET", "/api/me")).balance); } catch { /* shown elsewhere */ }
}

async function lobbyView(root) {
  root.replaceChildren(h("h1", {}, "Lobby"));
  const me = await refreshWho();
  if (!session.user) {
    root.append(h("p", {}, "Log in or register to sit at a table. Anyone can watch."), authForms(() => route()));
  } else if (me) {
    root.append(h("p", { class: "panel" }, `Your balance: `, h("strong", { id: "lobby-balance", "data-balance": "" }, money(me.balance)),
      me.seats.length ? ` — seated at ${me.seats.map((s) => `table ${s.table_id} spot ${s.spot}`).join(", ")}` : ""));
  }
  const box = h("section", { class: "panel", "aria-labelledby": "tables-title" }, h("h2", { id: "tables-title" }, "Tables"));
  root.append(box, h("p", {}, h("a", { href: "#/rules" }, "The rules of pai gow poker at these tables")));
  const body = h("div", { class: "scroll" });
  box.append(body);
  async function load() {
    try {
      const list = await api("GET", "/api/tables");
      if (!list.length) { body.replaceChildren(h("p", {}, "No open tables.")); return; }
      body.replaceChildren(h("ul", { class: "lobby", id: "tables" }, list.map((t) => {
        const free = t.spots.filter((x) => !x.occupied).length;
        const phase = t.round ? `round ${t.round.number} in play (${t.round.phase})` : "waiting for a first wager";
        return h("li", { class: "table-card", "data-table": t.id },
          h("h3", {}, `${t.name} `, h("span", { class: "muted" }, `#${t.id}`), " ", h("span", { class: `badge ${t.mode}` }, t.mode === "practice" ? "Practice" : "Casino")),
          h("dl", {},
            h("dt", {}, "Commission (posted)"), h("dd", {}, `${t.commission_posted} of each win`),
            h("dt", {}, "Limits"), h("dd", {}, `${money(t.min_wager)} – ${money(t.max_wager)}`),
            h("dt", {}, "House way"), h("dd", {}, t.house_way_label || t.house_way),
            h("dt", {}, "Starting position"), h("dd", {}, t.start === "dice" ? "three dice" : "random number 1–7"),
            h("dt", {}, "Foul"), h("dd", {}, t.foul === "loses" ? "foul loses" : "foul reset by house way"),
            ...variantRows(t),
            h("dt", {}, "Spots"), h("dd", {}, `${free} of 6 free; ${phase}`)),
          h("p", { class: "actions" },
            h("a", { class: "button primary", href: `#/table/${t.id}`, id: `open-table-${t.id}` }, `Open table ${t.id}`),
            h("a", { class: "button", href: `#/recall/${t.id}` }, `Recall table ${t.id}`)));
      })));
      if (session.user) refreshBalance();
    } catch (err) {
      body.replaceChildren(h("p", { class: "error" }, errorText(err)));
    }
  }
  await load();
  const timer = setInterval(load, 5000);
  return () => clearInterval(timer);
}

const shell = { refreshWho };

const ROUTES = [
  [/^#\/lobby$/, lobbyView],
  [/^#\/table\/(\d+)$/, tableView],
  [/^#\/recall\/(\d+)$/, recallView],
  [/^#\/recall\/(\d+)\/([A-Za-z0-9_-]+)$/, recallView],
  [/^#\/operator$/, operatorView],
  [/^#\/rules$/, rulesView],
  [/^#\/rules\/(\d+)$/, rulesView],
  [/^#\/floor$/, floorView],
  [/^#\/limits$/, limitsView],
  [/^#\/statement$/, statementView],
  [/^#\/review$/, reviewView],
  [/^#\/players$/, playersView],
  [/^#\/players\/(\d+)(?:\?[\w=&-]*)?$/, playersView],
];

let routeGen = 0;
let inFlight = null;

export async function route() {
  const p = render();
  inFlight = p;
  try { await p; } finally { if (inFlight === p) inFlight = null; }
}

// a log-in or log-out (an expired session among them) re-renders once the render under way is
// done, so that two renders never fill the page at once
async function rerender() {
  while (inFlight) { try { await inFlight; } catch { /* shown by the view */ } }
  await route();
}

async function render() {
  if (cleanup) { try { cleanup(); } catch { /* gone */ } cleanup = null; }
  const hash = location.hash || "#/lobby";
  const root = view();
  root.replaceChildren();
  delete root.dataset.ready;
  for (const [re, fn] of ROUTES) {
    const m = hash.match(re);
    if (m) {
      try {
        const gen = ++routeGen;
        // ids: numbers (a table), or a round's hex id kept as text
        const c = (await fn(root, shell, ...m.slice(1).map((x) => (/^\d{1,15}$/.test(x) ? Number(x) : x)))) || null;
        if (gen !== routeGen) { if (c) c(); return; }
        cleanup = c;
      } catch (err) {
        root.append(h("p", { class: "error", role: "alert" }, errorText(err)));
      }
      return;
    }
  }
  location.hash = "#/lobby";
}

window.addEventListener("hashchange", () => { window.paigowNavStart = performance.now(); route(); view().focus({ preventScroll: true }); });
document.addEventListener("paigow:session", () => rerender());
watchStorage();
// who is logged in is the server's to say (the session is an HttpOnly cookie): ask, then render
restoreSession().finally(() => route());
