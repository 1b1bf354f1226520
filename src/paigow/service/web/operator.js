// The operator's page: create and close tables, credit wallets, read and export the audit log.
import { api, session, key, money, parseCents } from "./api.js";
import { h, announce, errorText } from "./dom.js";

export async function operatorView(root, shell) {
  root.append(h("h1", {}, "Operator"));
  await shell.refreshWho();
  if (!session.user || session.user.role !== "operator") {
    root.append(h("p", { class: "panel" }, "Operators only: log in as an operator from the ", h("a", { href: "#/lobby" }, "lobby"), "."));
    return null;
  }
  const msg = h("p", { id: "op-msg", role: "status", "aria-live": "polite" });
  const field = (label, input) => h("label", {}, label, input);
  const f = {
    name: h("input", { id: "t-name", required: true, maxlength: 64, value: "Table" }),
    commission: h("input", { id: "t-commission", value: "0.05", pattern: "[0-9./%]{1,12}" }),
    min: h("input", { id: "t-min", inputmode: "decimal", value: "5.00", required: true }),
    max: h("input", { id: "t-max", inputmode: "decimal", value: "1000.00", required: true }),
    house: h("select", { id: "t-house" }, h("option", { value: "standard" }, "standard"), h("option", { value: "foxwoods" }, "foxwoods")),
    start: h("select", { id: "t-start" }, h("option", { value: "dice" }, "three dice"), h("option", { value: "rng" }, "random number")),
    mode: h("select", { id: "t-mode" }, h("option", { value: "casino" }, "casino"), h("option", { value: "practice" }, "practice")),
    betting: h("input", { id: "t-betting", type: "number", min: 0.1, step: 0.1, value: 15 }),
    setting: h("input", { id: "t-setting", type: "number", min: 0.1, step: 0.1, value: 60 }),
  };
  const create = h("form", {
    class: "panel", id: "create-table",
    onsubmit: async (ev) => {
      ev.preventDefault();
      const minC = parseCents(f.min.value);
      const maxC = parseCents(f.max.value);
      if (!Number.isFinite(minC) || !Number.isFinite(maxC) || minC < 1 || maxC < minC) {
        msg.className = "error";
        msg.textContent = "Type the limits in dollars (like 5 or 12.50), the maximum at least the minimum.";
        return;
      }
      try {
        const t = await api("POST", "/api/admin/tables", {
          name: f.name.value, commission: f.commission.value, house_way: f.house.value, start: f.start.value,
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
  h("div", { class: "row" }, field("Name", f.name), field("Commission (at most 0.05)", f.commission),
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

  const tablesBox = h("div", { class: "scroll" });
  async function loadTables() {
    const list = await api("GET", "/api/tables?include_closed=true");
    const sig = JSON.stringify(list.map((t) => ({ ...t, round: t.round && { ...t.round, deadline: 0, time_left_s: 0 } })));
    if (tablesBox.dataset.sig === sig) return;
    tablesBox.dataset.sig = sig;
    tablesBox.replaceChildren(h("table", { class: "list", id: "op-tables" },
      h("thead", {}, h("tr", {}, ["Table", "Status", "Now", "Players", "Limits", "Commission", "Rounds", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, list.map((t) => h("tr", { "data-table": t.id },
        h("td", {}, h("a", { href: `#/table/${t.id}` }, `${t.name} (#${t.id})`), ` ${t.mode}`), h("td", {}, t.status),
        h("td", {}, t.round ? `round ${t.round.number}: ${t.round.phase}${t.round.wagers.length ? `, ${t.round.wagers.length} wager${t.round.wagers.length > 1 ? "s" : ""} (${money(t.round.wagers.reduce((a, w) => a + w.amount, 0))})` : ""}` : "idle"),
        h("td", {}, t.spots.filter((x) => x.player).map((x) => `${x.spot}: ${x.player}`).join(", ") || "—"),
        h("td", {}, `${money(t.min_wager)} – ${money(t.max_wager)}`), h("td", {}, t.commission_posted),
        h("td", {}, String(t.rounds_played)),
        h("td", {}, t.status === "open" ? h("button", {
          type: "button", class: "danger", id: `close-${t.id}`,
          onclick: async () => {
            try { await api("POST", `/api/admin/tables/${t.id}/close`); announce(`Table ${t.id} closing`); await loadTables(); } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
          },
        }, `Close table ${t.id}`) : ""))))));
  }

  const auditBox = h("pre", { id: "audit", class: "scroll", tabindex: 0, role: "region", "aria-label": "audit log" });
  const exportLink = h("a", { id: "audit-export", hidden: true, download: "paigow-audit.jsonl" }, "Download the audit log (JSON lines)");
  const audit = h("section", { class: "panel" }, h("h2", {}, "Audit log"),
    h("div", { class: "row" }, h("button", {
      type: "button", id: "load-audit",
      onclick: async () => {
        try {
          const text = await api("GET", "/api/admin/audit", undefined, { text: true });
          const lines = text.trim() ? text.trim().split("\n") : [];
          auditBox.textContent = lines.slice(-50).map((l) => {
            const r = JSON.parse(l);
            return `#${r.id} ${typeof r.at === "number" ? new Date(r.at * 1000).toISOString() : r.at} ${r.actor} ${r.action} ${r.target} ${JSON.stringify(r.details)}`;
          }).join("\n") || "(empty)";
          exportLink.href = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
          exportLink.hidden = false;
          announce(`${lines.length} audit records`);
        } catch (err) { auditBox.textContent = errorText(err); }
      },
    }, "Load the audit log"), exportLink), auditBox);

  root.append(msg, h("div", { class: "grid2" }, create, credit),
    h("section", { class: "panel" }, h("h2", {}, "Every table, live"), tablesBox), audit);
  await loadTables();
  const live = setInterval(() => { loadTables().catch(() => {}); }, 3000);
  return () => clearInterval(live);
}
