// The operator's page: create and close tables, credit wallets, read and export the audit log.
import { api, session, key, money } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { refreshWho } from "./app.js";

export async function operatorView(root) {
  root.append(h("h1", {}, "Operator"));
  await refreshWho();
  if (!session.user || session.user.role !== "operator") {
    root.append(h("p", { class: "panel" }, "Operators only: log in as an operator from the ", h("a", { href: "#/lobby" }, "lobby"), "."));
    return null;
  }
  const msg = h("p", { id: "op-msg", role: "status", "aria-live": "polite" });
  const field = (label, input) => h("label", {}, label, input);
  const f = {
    name: h("input", { id: "t-name", required: true, maxlength: 64, value: "Table" }),
    commission: h("input", { id: "t-commission", value: "0.05", pattern: "[0-9./%]{1,12}" }),
    min: h("input", { id: "t-min", type: "number", min: 1, value: 500 }),
    max: h("input", { id: "t-max", type: "number", min: 1, value: 100000 }),
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
      try {
        const t = await api("POST", "/api/admin/tables", {
          name: f.name.value, commission: f.commission.value, house_way: f.house.value, start: f.start.value,
          mode: f.mode.value, min_wager: Math.round(Number(f.min.value)), max_wager: Math.round(Number(f.max.value)),
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
    field("Minimum (cents)", f.min), field("Maximum (cents)", f.max), field("House way", f.house),
    field("Starting position", f.start), field("Mode", f.mode), field("Betting time (s)", f.betting),
    field("Time to set (s)", f.setting), h("button", { type: "submit", class: "primary" }, "Open table")));

  const cUser = h("input", { id: "c-user", required: true });
  const cAmount = h("input", { id: "c-amount", type: "number", min: 1, required: true, value: 10000 });
  const credit = h("form", {
    class: "panel", id: "credit-form",
    onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        const r = await api("POST", `/api/admin/wallets/${encodeURIComponent(cUser.value.trim())}/credit`, { amount: Math.round(Number(cAmount.value)), idempotency_key: key() });
        msg.className = "ok";
        msg.textContent = `Credited ${money(r.amount)} to ${r.username}: balance ${money(r.balance)} (transaction ${r.transaction_id}).`;
        announce(msg.textContent);
      } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
    },
  }, h("h2", {}, "Credit a wallet"), h("div", { class: "row" }, field("Username", cUser), field("Amount (cents)", cAmount), h("button", { type: "submit", class: "primary" }, "Credit")));

  const tablesBox = h("div", { class: "scroll" });
  async function loadTables() {
    const list = await api("GET", "/api/tables?include_closed=true");
    tablesBox.replaceChildren(h("table", { class: "list", id: "op-tables" },
      h("thead", {}, h("tr", {}, ["Table", "Status", "Mode", "Commission", "Rounds", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, list.map((t) => h("tr", {},
        h("td", {}, `${t.name} (#${t.id})`), h("td", {}, t.status), h("td", {}, t.mode), h("td", {}, t.commission_posted),
        h("td", {}, String(t.rounds_played)),
        h("td", {}, t.status === "open" ? h("button", {
          type: "button", class: "danger", id: `close-${t.id}`,
          onclick: async () => {
            try { await api("POST", `/api/admin/tables/${t.id}/close`); announce(`Table ${t.id} closing`); await loadTables(); } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
          },
        }, `Close table ${t.id}`) : ""))))));
  }

  const auditBox = h("pre", { id: "audit", class: "scroll", tabindex: 0, "aria-label": "audit log" });
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
    h("section", { class: "panel" }, h("h2", {}, "Tables"), tablesBox), audit);
  await loadTables();
  return null;
}
