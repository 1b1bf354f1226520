// The operator's page: create and close tables, credit wallets, read and export the audit log.
import { api, session, key, money, parseCents } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { auditSection } from "./audit.js";

/** A commission as an operator types it ("5%", "2.5", "0 %") -> its percentage as text, or null
 * when it is not a number from 0 to 5 (the most 68 IAC 10-9-1(f) allows). */
export function parsePercent(text, max = 5) {
  const m = /^\s*(\d{1,2}(?:\.\d{1,4})?)\s*%?\s*$/.exec(String(text));
  if (!m || Number(m[1]) > max) return null;
  return m[1];
}

export async function operatorView(root, shell) {
  root.append(h("h1", {}, "Operator"));
  await shell.refreshWho();
  if (!session.user || session.user.role !== "operator") {
    root.append(h("p", { class: "panel" }, "Operators only: log in as an operator from the ", h("a", { href: "#/lobby" }, "lobby"), "."));
    return null;
  }
  const msg = h("p", { id: "op-msg", role: "status", "aria-live": "polite" });
  const field = (label, input) => h("label", {}, label, input);
  // the defaults come from the server: the same as the demo tables' and the API's
  const d = await api("GET", "/api/admin/table-defaults");
  const f = {
    name: h("input", { id: "t-name", required: true, maxlength: 64, value: "Table" }),
    commission: h("input", { id: "t-commission", value: d.commission, inputmode: "decimal", "aria-describedby": "t-commission-hint" }),
    min: h("input", { id: "t-min", inputmode: "decimal", value: (d.min_wager / 100).toFixed(2), required: true }),
    max: h("input", { id: "t-max", inputmode: "decimal", value: (d.max_wager / 100).toFixed(2), required: true }),
    house: h("select", { id: "t-house" }, d.house_ways.map((w) => h("option", { value: w }, w))),
    start: h("select", { id: "t-start" }, h("option", { value: "dice" }, "three dice"), h("option", { value: "rng" }, "random number")),
    mode: h("select", { id: "t-mode" }, h("option", { value: "casino" }, "casino"), h("option", { value: "practice" }, "practice")),
    betting: h("input", { id: "t-betting", type: "number", min: 0.1, step: 0.1, value: d.betting_time_ms / 1000 }),
    setting: h("input", { id: "t-setting", type: "number", min: 0.1, step: 0.1, value: d.setting_time_ms / 1000 }),
  };
  const fail = (text, input) => {
    msg.className = "error";
    msg.textContent = text;
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  };
  const create = h("form", {
    class: "panel", id: "create-table",
    onsubmit: async (ev) => {
      ev.preventDefault();
      for (const input of Object.values(f)) input.removeAttribute("aria-invalid");
      const rate = parsePercent(f.commission.value);
      if (rate === null) {
        fail(`The commission is a percentage from 0 to ${d.max_commission}, like 5% or 2.5%: "${f.commission.value}" is not.`, f.commission);
        return;
      }
      const minC = parseCents(f.min.value);
      const maxC = parseCents(f.max.value);
      if (!Number.isFinite(minC) || !Number.isFinite(maxC) || minC < 1 || maxC < minC) {
        fail("Type the limits in dollars (like 5 or 12.50), the maximum at least the minimum.", Number.isFinite(minC) && minC >= 1 ? f.max : f.min);
        return;
      }
      try {
        const t = await api("POST", "/api/admin/tables", {
          name: f.name.value, commission: `${rate}%`, house_way: f.house.value, start: f.start.value,
          mode: f.mode.value, min_wager: minC, max_wager: maxC,
          betting_time_ms: Math.round(Number(f.betting.value) * 1000), setting_time_ms: Math.round(Number(f.setting.value) * 1000),
        });
        msg.className = "ok";
        msg.textContent = `Table ${t.id} (${t.name}) is open: commission ${t.commission_posted} posted.`;
        announce(msg.textContent);
        await loadTables();
      } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
    },
  }, h("h2", {}, "Open a table"),
  h("div", { class: "row" }, field("Name", f.name),
    h("label", {}, `Commission (0 to ${d.max_commission})`, f.commission, h("span", { id: "t-commission-hint", class: "sr-only" }, "A percentage of each win, like 5%")),
    field("Minimum wager ($)", f.min), field("Maximum wager ($)", f.max), field("House way", f.house),
    field("Starting position", f.start), field("Mode", f.mode), field("Betting time (s)", f.betting),
    field("Time to set (s)", f.setting), h("button", { type: "submit", class: "primary" }, "Open table")));

  const cUser = h("input", { id: "c-user", required: true });
  const cAmount = h("input", { id: "c-amount", inputmode: "decimal", required: true, value: "100.00" });
  const move = (kind) => async () => {
    const cents = parseCents(cAmount.value);
    if (!Number.isFinite(cents) || cents < 1) {
      msg.className = "error";
      msg.textContent = "Type the amount in dollars, like 100 or 12.50.";
      return;
    }
    try {
      const r = await api("POST", `/api/admin/wallets/${encodeURIComponent(cUser.value.trim())}/${kind}`, { amount: cents, idempotency_key: key() });
      msg.className = "ok";
      msg.textContent = `${kind === "credit" ? "Credited" : "Debited"} ${money(r.amount)} ${kind === "credit" ? "to" : "from"} ${r.username}: balance ${money(r.balance)} (transaction ${r.transaction_id}).`;
      announce(msg.textContent);
    } catch (err) {
      msg.className = "error";
      msg.textContent = err.code === "insufficient-funds" ? `${cUser.value.trim()}'s wallet holds less than ${money(cents)}: nothing was debited.` : errorText(err);
    }
  };
  const credit = h("form", {
    class: "panel", id: "credit-form",
    onsubmit: (ev) => { ev.preventDefault(); move("credit")(); },
  }, h("h2", {}, "Credit or debit a wallet"), h("div", { class: "row" }, field("Username", cUser), field("Amount ($)", cAmount),
    h("button", { type: "submit", class: "primary" }, "Credit"), h("button", { type: "button", id: "debit-btn", onclick: move("debit") }, "Debit")));

  const tablesBox = h("div", { id: "op-tables-box" });
  async function loadTables() {
    const list = await api("GET", "/api/tables?include_closed=true");
    const sig = JSON.stringify(list.map((t) => ({ ...t, round: t.round && { ...t.round, deadline: 0, time_left_s: 0 } })));
    if (tablesBox.dataset.sig === sig) return;
    tablesBox.dataset.sig = sig;
    const cols = ["Table", "Status", "Now", "Players", "Limits", "Commission", "Rounds", "Action"];
    const cell = (i, ...content) => h("td", { "data-label": cols[i] }, h("span", {}, ...content));
    tablesBox.replaceChildren(h("table", { class: "list stack", id: "op-tables" },
      h("caption", { class: "sr-only" }, "Every table (amounts in dollars)"),
      h("thead", {}, h("tr", {}, cols.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, list.map((t) => h("tr", { "data-table": t.id },
        cell(0, h("a", { href: `#/table/${t.id}` }, `${t.name} (#${t.id})`), ` ${t.mode}`), cell(1, t.status),
        cell(2, t.round ? `round ${t.round.number}: ${t.round.phase}${t.round.wagers.length ? `, ${t.round.wagers.length} wager${t.round.wagers.length > 1 ? "s" : ""} (${money(t.round.wagers.reduce((a, w) => a + w.amount, 0))})` : ""}` : "idle"),
        cell(3, t.spots.filter((x) => x.player).map((x) => `${x.spot}: ${x.player}`).join(", ") || "—"),
        cell(4, `${money(t.min_wager)} – ${money(t.max_wager)}`), cell(5, t.commission_posted),
        cell(6, String(t.rounds_played)),
        cell(7, t.status === "open" ? h("button", {
          type: "button", class: "danger", id: `close-${t.id}`,
          onclick: async () => {
            try { await api("POST", `/api/admin/tables/${t.id}/close`); announce(`Table ${t.id} closing`); await loadTables(); } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
          },
        }, `Close table ${t.id}`) : ""))))));
  }

  const log = auditSection();
  const audit = h("section", { class: "panel", "aria-labelledby": "audit-title" }, h("h2", { id: "audit-title" }, "Audit log"),
    h("div", { class: "row" }, h("button", {
      type: "button", id: "load-audit",
      onclick: async () => {
        try {
          const n = await log.load(() => api("GET", "/api/admin/audit", undefined, { text: true }));
          announce(`${n} audit records`);
        } catch (err) { log.box.textContent = errorText(err); }
      },
    }, "Load the audit log"), log.exportLink), log.status, log.box);

  root.append(msg, h("div", { class: "grid2" }, create, credit),
    h("section", { class: "panel" }, h("h2", {}, "Every table, live"), tablesBox), audit);
  await loadTables();
  const live = setInterval(() => { loadTables().catch(() => {}); }, 3000);
  return () => clearInterval(live);
}
