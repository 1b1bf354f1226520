// The player's statement: every movement of the wallet in a range of gaming days, with the
// balance after each, grouped by round (each linked to the round in recall), the operators'
// credits and debits on their own lines; a page at a time, or all of it as CSV.
import { api, session, money } from "./api.js";
import { h, announce, errorText } from "./dom.js";

const PAGE = 50;

function when(ts) {
  return new Date(ts * 1000).toISOString().slice(5, 16).replace("T", " ");
}

function signed(cents) {
  return `${cents > 0 ? "+" : cents < 0 ? "−" : ""}${money(Math.abs(cents))}`;
}

const KIND_WORDS = { wager: "Wager", settlement: "Paid back", "void-refund": "Refund (round void)", credit: "Credit by the operator", debit: "Debit by the operator",
  "play-wager": "Wager", "play-settlement": "Paid back", "play-void-refund": "Refund (round void)", "play-top-up": "Play money added" };

function what(m) {
  const base = KIND_WORDS[m.kind] || m.kind;
  return m.memo && !["credit", "debit"].includes(m.memo) ? `${base} (${m.memo})` : base;
}

function groupTitle(g) {
  if (g.kind === "round") return h("span", {}, `Table ${g.table_id}, round ${g.round_number} `, h("a", { href: g.recall, "data-round": g.round_id }, "recall"));
  const who = g.movements[0].operator;
  const words = { credit: "Credit", debit: "Debit" }[g.kind];
  return h("span", {}, words && who ? `${words} by ${who}` : KIND_WORDS[g.kind] || g.kind);
}

export function groupBlock(g, i) {
  return h("section", { class: "statement-group", "data-kind": g.kind, "aria-labelledby": `sg-${i}` },
    h("h3", { id: `sg-${i}` }, groupTitle(g), " ", h("span", { class: g.net < 0 ? "neg" : "pos", "data-cents": g.net }, signed(g.net))),
    h("table", { class: "list statement" },
      h("thead", {}, h("tr", {}, ["Time (UTC)", "What", "Amount", "Balance"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, g.movements.map((m) => h("tr", { "data-entry": m.entry_id },
        h("td", {}, when(m.at)), h("td", {}, what(m)),
        h("td", { class: "num", "data-cents": m.amount }, signed(m.amount)),
        h("td", { class: "num", "data-cents": m.balance }, money(m.balance)))))));
}

export async function statementView(root, shell) {
  root.append(h("h1", {}, "My statement"));
  await shell.refreshWho();
  if (!session.user) {
    root.append(h("p", { class: "panel" }, "Log in from the ", h("a", { href: "#/lobby" }, "lobby"), " to read your statement."));
    return null;
  }
  let day = new Date().toISOString().slice(0, 10);
  try { day = (await api("GET", "/api/me/limits")).gaming_day || day; } catch { /* today's date */ }
  const from = h("input", { id: "st-from", type: "date", value: day, required: true });
  const to = h("input", { id: "st-to", type: "date", value: day, required: true });
  const which = h("select", { id: "st-wallet" }, h("option", { value: "real" }, "Your wallet"), h("option", { value: "play" }, "Play money (practice)"));
  const msg = h("p", { id: "st-msg", role: "status", "aria-live": "polite" });
  const summary = h("p", { id: "st-summary" });
  const list = h("div", { id: "st-groups", class: "scroll", tabindex: 0, role: "region", "aria-label": "Movements by round" });
  const csv = h("a", { id: "st-csv", class: "button", download: "" }, "Download CSV");
  const prev = h("button", { type: "button", id: "st-prev" }, "Previous page");
  const next = h("button", { type: "button", id: "st-next" }, "Next page");
  let page = 1;
  let pages = 1;
  async function load() {
    const q = `from=${encodeURIComponent(from.value)}&to=${encodeURIComponent(to.value)}&wallet=${which.value}`;
    csv.href = `/api/me/statement?${q}&format=csv`;
    try {
      const st = await api("GET", `/api/me/statement?${q}&page=${page}&size=${PAGE}`);
      pages = st.pages;
      msg.className = "";
      msg.textContent = "";
      summary.replaceChildren(`Gaming days ${st.from} to ${st.to} (${st.gaming_day}): opening balance `,
        h("strong", { id: "st-opening", "data-cents": st.opening_balance }, money(st.opening_balance)), ", closing balance ",
        h("strong", { id: "st-closing", "data-cents": st.closing_balance }, money(st.closing_balance)),
        `; ${st.movements_in_range} movement${st.movements_in_range === 1 ? "" : "s"}, page ${st.page} of ${st.pages}.`);
      list.replaceChildren(...(st.groups.length ? st.groups.map(groupBlock) : [h("p", {}, "No movements in these days.")]));
      prev.disabled = page <= 1;
      next.disabled = page >= pages;
      root.dataset.ready = "1";
      announce(`Statement page ${st.page} of ${st.pages} loaded`);
    } catch (err) {
      msg.className = "error";
      msg.textContent = errorText(err);
      list.replaceChildren();
    }
  }
  prev.onclick = () => { if (page > 1) { page -= 1; load(); } };
  next.onclick = () => { if (page < pages) { page += 1; load(); } };
  const form = h("form", { class: "panel row", id: "st-form", onsubmit: (ev) => { ev.preventDefault(); page = 1; load(); } },
    h("label", {}, "From gaming day", from), h("label", {}, "To gaming day", to), h("label", {}, "Money", which),
    h("button", { type: "submit", class: "primary", id: "st-show" }, "Show"), csv);
  root.append(form, msg, h("section", { class: "panel", "aria-labelledby": "st-title" },
    h("h2", { id: "st-title" }, "Movements"), summary, h("div", { class: "row", role: "toolbar", "aria-label": "Pages" }, prev, next), list));
  await load();
  return null;
}
