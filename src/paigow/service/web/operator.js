// The operator's page: create and close tables, credit wallets, read and export the audit log.
import { api, session, key, money, parseCents } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { auditSection } from "./audit.js";
import { secondFactorPanel } from "./second_factor.js";

/** A commission as an operator types it ("5%", "2.5", "0 %") -> its percentage as text, or null
 * when it is not a number from 0 to 5 (the most 68 IAC 10-9-1(f) allows). */
export function parsePercent(text, max = 5) {
  const m = /^\s*(\d{1,2}(?:\.\d{1,4})?)\s*%?\s*$/.exec(String(text));
  if (!m || Number(m[1]) > max) return null;
  return m[1];
}

const VARIANT_NAMES = { indiana: "Indiana (commission, no push rule)", ez: "EZ pai gow", "commission-free": "Commission-free", "face-up": "Face Up pai gow" };

/** "3/20" -> 0.15 (display only). */
function eval_fraction(text) {
  const [n, dd] = String(text).split("/");
  return Number(n) / Number(dd || 1);
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
  let d;
  try {
    d = await api("GET", "/api/admin/table-defaults");
  } catch (err) {
    if (err.code !== "second-factor-required") throw err;
    await secondFactorPanel(root);
    return null;
  }
  const f = {
    name: h("input", { id: "t-name", required: true, maxlength: 64, value: "Table" }),
    commission: h("input", { id: "t-commission", value: d.commission, inputmode: "decimal", "aria-describedby": "t-commission-hint" }),
    min: h("input", { id: "t-min", inputmode: "decimal", value: (d.min_wager / 100).toFixed(2), required: true }),
    max: h("input", { id: "t-max", inputmode: "decimal", value: (d.max_wager / 100).toFixed(2), required: true }),
    house: h("select", { id: "t-house" }, d.house_ways.map((w) => h("option", { value: w }, w)), h("option", { value: "" }, "your own house-way file…")),
    start: h("select", { id: "t-start" }, h("option", { value: "dice" }, "three dice"), h("option", { value: "rng" }, "random number")),
    mode: h("select", { id: "t-mode" }, h("option", { value: "casino" }, "casino"), h("option", { value: "practice" }, "practice")),
    betting: h("input", { id: "t-betting", type: "number", min: 0.1, step: 0.1, value: d.betting_time_ms / 1000 }),
    setting: h("input", { id: "t-setting", type: "number", min: 0.1, step: 0.1, value: d.setting_time_ms / 1000 }),
    variant: h("select", { id: "t-variant", "aria-describedby": "t-variant-hint" }, d.variants.map((v) => h("option", { value: v.name }, VARIANT_NAMES[v.name] || v.name))),
    push: h("select", { id: "t-push" }, d.push_rules.map((p) => h("option", { value: p.value }, p.value === "none" ? "none" : p.words))),
    faceUp: h("input", { id: "t-face-up", type: "checkbox" }),
    dragon: h("input", { id: "t-dragon", type: "checkbox", "aria-describedby": "t-dragon-hint" }),
  };
  // a variant fills in its commission, push rule and face up; each can then be changed
  const variantHint = h("span", { id: "t-variant-hint", class: "hint" });
  const applyVariant = () => {
    const v = d.variants.find((x) => x.name === f.variant.value);
    if (!v) return;
    f.commission.value = v.commission;
    f.push.value = v.push;
    f.faceUp.checked = v.face_up;
    variantHint.textContent = v.posted ? `No commission; the ${v.posted.replace(/: every wager pushes$/, "")} pushes every wager${v.face_up ? "; the dealer's cards face up" : ""}.` : "";
  };
  f.variant.addEventListener("change", applyVariant);
  // an operator's own house way: its file (docs/house-way.md), chosen or pasted
  const houseFile = h("input", { id: "t-house-file", type: "file", accept: ".toml,text/plain" });
  const houseText = h("textarea", { id: "t-house-toml", rows: 8, spellcheck: "false", "aria-describedby": "t-house-hint", placeholder: 'name = "my-casino"\n\n[[rule]]\nid = "pai-gow"\nlow = "single2+single3"' });
  // the file's own name, for the server's errors (cleared when the rules are typed instead)
  let houseFileName = "";
  houseFile.addEventListener("change", async () => {
    if (houseFile.files[0]) { houseText.value = await houseFile.files[0].text(); houseFileName = houseFile.files[0].name; }
  });
  houseText.addEventListener("input", () => { houseFileName = ""; });
  const housePanel = h("fieldset", { id: "t-house-own", class: "house-own", hidden: true },
    h("legend", {}, "Your house way"),
    h("p", { id: "t-house-hint", class: "hint" }, "A house-way file in the rule language (docs/house-way.md): it is run over all 154,143,080 hands before the table opens (up to a minute), and refused with an example hand where it leaves one without a rule or sets one into a foul."),
    field("File", houseFile), field("Or its rules", houseText));
  f.house.addEventListener("change", () => { housePanel.hidden = f.house.value !== ""; });
  // the side wagers the table offers: each preset pay table, its limits, a progressive's bank
  const sideRows = d.side_wager_presets.map((p) => {
    const fixed = p.progressive && p.progressive.wager;
    const id = `sw-${p.name}`;
    const row = {
      p,
      on: h("input", { type: "checkbox", id: `${id}-on`, "data-preset": p.name }),
      min: h("input", { id: `${id}-min`, inputmode: "decimal", value: ((fixed || 100) / 100).toFixed(2), size: 7, disabled: !!fixed }),
      max: h("input", { id: `${id}-max`, inputmode: "decimal", value: ((fixed || 2500) / 100).toFixed(2), size: 7, disabled: !!fixed }),
      bank: p.progressive ? h("input", { id: `${id}-bank`, value: p.name, size: 14, pattern: "[a-z0-9][a-z0-9\\-]{0,39}" }) : null,
    };
    const what = [p.target === "player" ? "player's hand" : p.target === "dealer" ? "dealer's hand" : "dealer's low hand",
      p.envy ? "with Envy" : "", p.progressive ? `progressive: ${Math.round(Number(eval_fraction(p.progressive.share)) * 100)}% of each wager to the meter, seed ${money(p.progressive.seed)}` : ""].filter(Boolean).join("; ");
    row.el = h("fieldset", { class: "side-offer", "data-preset": p.name },
      h("legend", {}, h("label", { class: "check" }, row.on, h("span", {}, p.title))),
      h("p", { class: "hint" }, what),
      h("div", { class: "row" }, field("Minimum ($)", row.min), field("Maximum ($)", row.max), row.bank ? field("Progressive bank", row.bank) : ""));
    return row;
  });
  const sidePanel = h("details", { class: "side-wagers", id: "t-side" },
    h("summary", {}, "Side wagers (none by default)"),
    h("p", { class: "hint" }, "Each one is offered beside the main wager, with its posted pay table; tables naming the same bank share its meter."),
    sideRows.map((r) => r.el));
  // the form's own messages, beside its button (in view where the operator pressed it)
  const formMsg = h("p", { id: "create-msg", class: "form-msg", role: "status", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary", id: "create-submit" }, "Open table");
  const fail = (text, input) => {
    msg.textContent = "";
    formMsg.className = "form-msg error";
    formMsg.textContent = text;
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
    formMsg.scrollIntoView({ block: "nearest" });
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
      const side = [];
      for (const r of sideRows.filter((x) => x.on.checked)) {
        const lo = parseCents(r.min.value), hi = parseCents(r.max.value);
        if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo < 1 || hi < lo) {
          fail(`${r.p.title}: type its limits in dollars, the maximum at least the minimum.`, r.min);
          return;
        }
        side.push({ name: r.p.name, paytable: r.p.name, min_wager: lo, max_wager: hi, ...(r.bank ? { bank: r.bank.value.trim() } : {}) });
      }
      const own = f.house.value === "";
      if (own && !houseText.value.trim()) {
        fail("Choose your house way's file, or paste its rules.", houseFile);
        return;
      }
      msg.textContent = "";
      formMsg.className = "form-msg";
      formMsg.textContent = own ? "Checking your house way on every hand (up to a minute)…" : "Opening the table…";
      submit.disabled = true;
      create.setAttribute("aria-busy", "true");
      formMsg.scrollIntoView({ block: "nearest" });
      try {
        const t = await api("POST", "/api/admin/tables", {
          side_wagers: side,
          ...(own ? { house_way_toml: houseText.value, ...(houseFileName ? { house_way_file: houseFileName } : {}) } : { house_way: f.house.value }),
          name: f.name.value, commission: `${rate}%`, start: f.start.value,
          mode: f.mode.value, min_wager: minC, max_wager: maxC, push: f.push.value, face_up: f.faceUp.checked, dragon: f.dragon.checked,
          betting_time_ms: Math.round(Number(f.betting.value) * 1000), setting_time_ms: Math.round(Number(f.setting.value) * 1000),
        });
        msg.className = "ok";
        msg.textContent = `Table ${t.id} (${t.name}) is open: commission ${t.commission_posted} posted` +
          (own ? `; house way ${t.house_way_label || t.house_way}` : "") + (t.push_posted ? `; ${t.push_posted}` : "") + (t.face_up ? "; the dealer's cards face up" : "") + (t.dragon ? "; the dragon hand offered" : "") +
          // the side wagers by the titles the form offers them under (their presets' names are ids)
          (side.length ? `; side wagers: ${sideRows.filter((r) => r.on.checked).map((r) => r.p.title).join("; ")}.` : ".");
        formMsg.className = "form-msg ok";
        formMsg.textContent = msg.textContent;
        announce(msg.textContent);
        await loadTables();
        await loadBanks();
      } catch (err) {
        formMsg.className = "form-msg error";
        formMsg.textContent = errorText(err);
        formMsg.scrollIntoView({ block: "nearest" });
      } finally {
        submit.disabled = false;
        create.removeAttribute("aria-busy");
      }
    },
  }, h("h2", {}, "Open a table"),
  h("div", { class: "row" }, field("Name", f.name),
    h("label", {}, `Commission (0 to ${d.max_commission})`, f.commission, h("span", { id: "t-commission-hint", class: "sr-only" }, "A percentage of each win, like 5%")),
    field("Minimum wager ($)", f.min), field("Maximum wager ($)", f.max), field("House way", f.house),
    field("Starting position", f.start), field("Mode", f.mode), field("Betting time (s)", f.betting),
    field("Time to set (s)", f.setting)),
  h("fieldset", { class: "row variant", id: "t-variants" }, h("legend", {}, "Variant"),
    field("Game", f.variant), field("Push rule", f.push), h("label", { class: "check" }, f.faceUp, h("span", {}, "Dealer's cards face up")),
    h("label", { class: "check" }, f.dragon, h("span", {}, "Dragon hand"), h("span", { id: "t-dragon-hint", class: "hint" }, " (an empty spot's cards offered to the players in turn; off: discarded)")), variantHint),
  housePanel, sidePanel, h("div", { class: "row submit-row" }, submit, formMsg));

  // the progressive banks: meter, seed, reset
  const banksBox = h("div", { id: "banks-box" });
  const bankAmount = h("input", { id: "bank-amount", inputmode: "decimal", value: "100.00", size: 10 });
  async function loadBanks() {
    const banks = await api("GET", "/api/admin/progressives");
    const cols = ["Bank", "Pay table", "Share", "Seed", "Meter", "Tables", "Action"];
    const cell = (i, ...content) => h("td", { "data-label": cols[i] }, h("span", {}, ...content));
    const act = (b, kind) => h("button", {
      type: "button", id: `${kind}-${b.bank}`,
      onclick: async () => {
        const cents = parseCents(bankAmount.value);
        if (!Number.isFinite(cents)) { fail("Type the amount in dollars, like 100 or 12.50.", bankAmount); return; }
        try {
          const r = await api("POST", `/api/admin/progressives/${encodeURIComponent(b.bank)}/${kind}`, { amount: cents });
          msg.className = "ok";
          msg.textContent = `Bank ${r.bank}: meter ${money(r.meter_before)} → ${money(r.meter)} (${kind === "seed" ? "seeded" : "reset"}; recorded in the audit log).`;
          announce(msg.textContent);
          await loadBanks();
        } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
      },
    }, kind === "seed" ? `Add to ${b.bank}` : `Reset ${b.bank}`);
    banksBox.replaceChildren(banks.length ? h("table", { class: "list stack", id: "banks" },
      h("caption", { class: "sr-only" }, "Progressive banks (amounts in dollars)"),
      h("thead", {}, h("tr", {}, cols.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, banks.map((b) => h("tr", { "data-bank": b.bank },
        cell(0, b.bank), cell(1, b.paytable), cell(2, `${+(Number(eval_fraction(b.share)) * 100).toFixed(2)}%`),
        cell(3, money(b.seed)), h("td", { "data-label": "Meter", "data-field": "meter", "data-cents": b.meter }, h("span", {}, money(b.meter))),
        cell(5, b.tables.map((t) => `#${t}`).join(", ") || "—"),
        cell(6, h("span", { class: "row" }, act(b, "seed"), act(b, "reset")))))))
      : h("p", {}, "No progressive bank yet: open a table with a progressive side wager."));
  }
  const banksPanel = h("section", { class: "panel", "aria-labelledby": "banks-title" }, h("h2", { id: "banks-title" }, "Progressive banks"),
    h("p", { class: "hint" }, "Add to a bank's meter, or reset it to an amount: the house's money, moved on the ledger and recorded in the audit log."),
    h("div", { class: "row" }, field("Amount ($)", bankAmount)), banksBox);

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
  const act = (t, verb, words) => async () => {
    try { await api("POST", `/api/admin/tables/${t.id}/${verb}`); announce(`Table ${t.id} ${words}`); tablesBox.dataset.sig = ""; await loadTables(); } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
  };
  // closing asks first (the round in betting is voided, the seats cleared); a closed table reopens
  function tableAction(t) {
    if (t.status !== "open") return h("button", { type: "button", id: `reopen-${t.id}`, onclick: act(t, "reopen", "reopened") }, `Reopen table ${t.id}`);
    const box = h("span", { class: "confirm-close" });
    const ask = h("button", { type: "button", class: "danger", id: `close-${t.id}`, onclick: () => {
      box.replaceChildren(h("span", { role: "alert", id: `close-q-${t.id}` }, `Close table ${t.id}? A round in betting is voided, a dealt one played out.`),
        h("button", { type: "button", class: "danger", id: `close-yes-${t.id}`, onclick: act(t, "close", "closing") }, "Yes, close it"),
        h("button", { type: "button", id: `close-no-${t.id}`, onclick: () => box.replaceChildren(ask) }, "Keep it open"));
      box.querySelector("button").focus();
    } }, `Close table ${t.id}`);
    box.append(ask);
    return box;
  }
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
        cell(0, h("a", { href: `#/table/${t.id}` }, `${t.name} (#${t.id})`), ` ${t.mode}`,
          h("span", { class: "house-way-line", "data-field": "house-way", title: `digest ${t.house_way_digest}` }, `house way ${t.house_way_label || t.house_way}`)), cell(1, t.status),
        cell(2, t.round ? `round ${t.round.number}: ${t.round.phase}${t.round.wagers.length ? `, ${t.round.wagers.length} wager${t.round.wagers.length > 1 ? "s" : ""} (${money(t.round.wagers.reduce((a, w) => a + w.amount, 0))})` : ""}` : "idle"),
        cell(3, t.spots.filter((x) => x.player).map((x) => `${x.spot}: ${x.player}`).join(", ") || "—"),
        cell(4, `${money(t.min_wager)} – ${money(t.max_wager)}`), cell(5, t.commission_posted, t.push_posted ? `; ${t.push_posted}` : "", t.face_up ? "; face up" : "", t.dragon ? h("span", { "data-field": "dragon" }, "; dragon hand") : "",
          t.side_wagers && t.side_wagers.length ? h("span", { "data-field": "side" }, `; side wagers ${t.side_wagers.map((o) => o.name).join(", ")}`) : ""),
        cell(6, String(t.rounds_played)),
        cell(7, tableAction(t)))))));
    waysBox.replaceChildren(waysInUse(list));
  }
  const waysBox = h("div", { id: "op-ways-box" });

  // each version of a house way (its name and the digest of its rules) and the tables on it
  function waysInUse(list) {
    const byDigest = new Map();
    for (const t of list) {
      const key = t.house_way_digest || t.house_way;
      if (!byDigest.has(key)) byDigest.set(key, { label: t.house_way_label || t.house_way, digest: t.house_way_digest, open: [], closed: [] });
      byDigest.get(key)[t.status === "closed" ? "closed" : "open"].push(`${t.name} (#${t.id})`);
    }
    const cols = ["House way", "Digest of its rules", "Tables in play", "Tables closed"];
    const cell = (i, ...content) => h("td", { "data-label": cols[i] }, h("span", {}, ...content));
    return h("table", { class: "list stack", id: "op-ways" },
      h("caption", { class: "sr-only" }, "House ways in use, by version"),
      h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, [...byDigest.values()].map((w) => h("tr", { "data-digest": w.digest },
        cell(0, w.label), cell(1, h("code", {}, w.digest || "—")),
        cell(2, w.open.join(", ") || "—"), cell(3, w.closed.join(", ") || "—")))));
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
    h("section", { class: "panel" }, h("h2", {}, "Every table, live"), tablesBox),
    h("section", { class: "panel", "aria-labelledby": "ways-title" }, h("h2", { id: "ways-title" }, "House ways in use"),
      h("p", { class: "hint" }, "Each version of a house way, known by the digest of its rules: a table keeps the version it opened with."), waysBox),
    banksPanel, audit);
  await loadTables();
  try { await loadBanks(); } catch (err) { banksBox.textContent = errorText(err); }
  const live = setInterval(() => { loadTables().catch(() => {}); }, 3000);
  return () => clearInterval(live);
}
