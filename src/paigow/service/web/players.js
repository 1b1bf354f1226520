// The operator's players: each player rated by their decisions over a range of gaming days, the
// flat theoretical win (handle x the house way's exact edge) beside the exact one (each hand's
// wager x minus the EV of the setting chosen), their difference, the hands rated and waiting; a
// page at a time, or all as CSV. #/players/<id>: one player, with their statement.
import { api, session, money } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { groupBlock } from "./statement.js";

const PAGE = 25;
const COLUMNS = ["Player", "Wallet", "Hands", "Handle", "Actual", "Flat theo", "Exact theo", "Difference", "Decisions", "Limits"];

function when(ts) {
  return ts ? new Date(ts * 1000).toISOString().slice(0, 16).replace("T", " ") : "never";
}

function handleText(x) {
  if (!x.handle.dragon && !Object.keys(x.handle.side).length) return money(x.handle_total);
  const parts = [`main ${money(x.handle.main)}`];
  if (x.handle.dragon) parts.push(`dragon ${money(x.handle.dragon)}`);
  for (const [name, c] of Object.entries(x.handle.side)) parts.push(`${name} ${money(c)}`);
  return `${money(x.handle_total)} (${parts.join(", ")})`;
}

function theo(a) {
  return a.status === "ready" ? a.dollars : "computing";
}

function limitsText(l) {
  if (l.excluded) return `self-excluded until ${when(l.excluded_until)}`;
  return l.daily_loss_limit === null ? "none" : `loss limit ${money(l.daily_loss_limit)} a day`;
}

function row(x, q) {
  const cell = (i, attrs, ...content) => h("td", { "data-label": COLUMNS[i], ...attrs }, h("span", {}, ...content));
  return h("tr", { "data-player": x.id },
    cell(0, {}, h("a", { href: `#/players/${x.id}?${q}`, id: `player-${x.id}` }, x.username), h("span", { class: "muted" }, ` seen ${when(x.last_seen).slice(5)}`)),
    cell(1, { class: "num", "data-cents": x.wallet }, money(x.wallet)),
    cell(2, { "data-field": "hands" }, `${x.hands} (${x.hands_rated} rated${x.hands_waiting ? `, ${x.hands_waiting} waiting` : ""}${x.hands_unavailable ? `, ${x.hands_unavailable} not rated` : ""})`),
    cell(3, {}, handleText(x)),
    cell(4, { class: "num", "data-cents": x.actual }, money(x.actual)),
    cell(5, { class: "num", "data-field": "flat" }, theo(x.flat_theo)),
    cell(6, { class: "num", "data-field": "exact" }, theo(x.exact_theo)),
    cell(7, { class: "num", "data-field": "difference" }, theo(x.difference)),
    cell(8, { class: "num", "data-field": "decisions" }, theo(x.decisions)),
    cell(9, {}, limitsText(x.limits)));
}

function dates(day) {
  const from = h("input", { id: "pl-from", type: "date", value: day, required: true });
  const to = h("input", { id: "pl-to", type: "date", value: day, required: true });
  return [from, to];
}

function operatorsOnly(root) {
  root.append(h("p", { class: "panel" }, "Operators only: log in as an operator from the ", h("a", { href: "#/lobby" }, "lobby"), "."));
  return null;
}

function rangeOf() {
  const m = location.hash.match(/[?&]from=([\d-]+)&to=([\d-]+)/);
  return m ? [m[1], m[2]] : null;
}

async function playerView(root, id) {
  const range = rangeOf();
  const q = range ? `from=${range[0]}&to=${range[1]}` : "";
  const msg = h("p", { id: "pl-msg", role: "status", "aria-live": "polite" });
  root.append(h("p", {}, h("a", { href: "#/players" }, "All players")), msg);
  try {
    const x = await api("GET", `/api/admin/players/${id}?${q}`);
    const pairs = [["Wallet", money(x.wallet)], ["Last seen", when(x.last_seen)], ["Hands", `${x.hands} (${x.hands_rated} rated, ${x.hands_waiting} waiting)`],
      ["Handle", handleText(x)], ["Actual (the house's)", money(x.actual)], ["Flat theoretical", theo(x.flat_theo)],
      ["Exact theoretical by decision", theo(x.exact_theo)], ["Difference", theo(x.difference)], ["Decisions (against the house way's)", theo(x.decisions)], ["Limits", limitsText(x.limits)]];
    const st = await api("GET", `${x.statement}?from=${x.from}&to=${x.to}&size=50`);
    root.append(h("section", { class: "panel", "aria-labelledby": "pl-one" }, h("h2", { id: "pl-one" }, `${x.username}, gaming days ${x.from} to ${x.to}`),
      h("dl", { class: "facts", id: "pl-facts" }, pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
    h("section", { class: "panel", "aria-labelledby": "pl-st" }, h("h2", { id: "pl-st" }, "Statement"),
      h("p", {}, `Opening balance ${money(st.opening_balance)}, closing ${money(st.closing_balance)}; ${st.movements_in_range} movements (the first ${st.groups.length} groups).`),
      h("div", { id: "pl-statement", class: "scroll", tabindex: 0, role: "region", "aria-label": "Movements by round" },
        ...(st.groups.length ? st.groups.map(groupBlock) : [h("p", {}, "No movements in these days.")]))));
    root.dataset.ready = "1";
  } catch (err) {
    msg.className = "error";
    msg.textContent = errorText(err);
  }
  return null;
}

export async function playersView(root, shell, id) {
  root.append(h("h1", { class: "compact" }, "Players"));
  await shell.refreshWho();
  if (!session.user || session.user.role !== "operator") return operatorsOnly(root);
  if (id) return playerView(root, id);
  let data = null;
  const [from, to] = dates("");
  const msg = h("p", { id: "pl-msg", role: "status", "aria-live": "polite" });
  const summary = h("p", { id: "pl-summary" });
  const body = h("tbody", {});
  const list = h("div", { id: "pl-list", class: "scroll", tabindex: 0, role: "region", "aria-label": "Players" },
    h("table", { class: "list players stack-wide", id: "pl-table" },
      h("caption", { class: "sr-only" }, "Players rated by their decisions (the house's amounts, in dollars)"),
      h("thead", {}, h("tr", {}, COLUMNS.map((t) => h("th", { scope: "col" }, t)))), body));
  const csv = h("a", { id: "pl-csv", class: "button", download: "" }, "Download CSV");
  const prev = h("button", { type: "button", id: "pl-prev" }, "Previous page");
  const next = h("button", { type: "button", id: "pl-next" }, "Next page");
  let page = 1;
  let timer = null;
  async function load() {
    // the first look: today's gaming day, as the server counts it
    const q = from.value && to.value ? `from=${encodeURIComponent(from.value)}&to=${encodeURIComponent(to.value)}` : "";
    csv.href = `/api/admin/players?${q}&format=csv`;
    try {
      data = await api("GET", `/api/admin/players?${q}&page=${page}&size=${PAGE}`);
      if (!from.value || !to.value) { from.value = data.from; to.value = data.to; csv.href = `/api/admin/players?from=${data.from}&to=${data.to}&format=csv`; }
      msg.className = "";
      msg.textContent = "";
      summary.replaceChildren(`Gaming days ${data.from} to ${data.to}: `,
        h("strong", { id: "pl-rated", "data-n": data.hands_rated }, `${data.hands_rated} hands rated`), ", ",
        h("strong", { id: "pl-waiting", "data-n": data.hands_waiting }, `${data.hands_waiting} waiting`),
        data.hands_unavailable ? `, ${data.hands_unavailable} not rated` : "",
        `; ${data.players} player${data.players === 1 ? "" : "s"}, page ${data.page} of ${data.pages}.`);
      body.replaceChildren(...data.lines.map((x) => row(x, `from=${data.from}&to=${data.to}`)));
      prev.disabled = page <= 1;
      next.disabled = page >= data.pages;
      root.dataset.ready = "1";
      announce(`Players page ${data.page} of ${data.pages} loaded`);
    } catch (err) {
      msg.className = "error";
      msg.textContent = errorText(err);
    }
    clearTimeout(timer);
    // the hands waiting are rated in the background: look again until none waits
    // (and the exact edges computed in the background too)
    const computing = data && data.lines.some((x) => x.flat_theo.status !== "ready");
    if (data && (data.hands_waiting || computing)) timer = setTimeout(load, 3000);
  }
  prev.onclick = () => { if (page > 1) { page -= 1; load(); } };
  next.onclick = () => { if (data && page < data.pages) { page += 1; load(); } };
  const form = h("form", { class: "row", id: "pl-form", onsubmit: (ev) => { ev.preventDefault(); page = 1; load(); } },
    h("label", {}, "From gaming day", from), h("label", {}, "To gaming day", to),
    h("button", { type: "submit", class: "primary", id: "pl-show" }, "Show"), csv);
  root.append(h("section", { class: "panel players-head", "aria-label": "Players by gaming days" }, form, summary,
    h("details", { class: "hint-more", id: "pl-columns" }, h("summary", {}, "What the columns mean"),
      h("p", {}, "The house's amounts. Actual: what the player's wagers lost (won, when negative). Flat theo: the handle times the house way's exact edge, side wagers at their exact hold. Exact theo: each hand's wager times minus the EV of the setting the player chose, side wagers the same. Difference: exact less flat over the hands rated; it includes the cards dealt. Decisions: exact less the house way's setting of the same hands: what the player's choices alone gave the house (below zero: they played better than the house way).")), msg,
    h("h2", { id: "pl-title", class: "sr-only" }, "Rated by their decisions"),
    list, h("div", { class: "row", role: "toolbar", "aria-label": "Pages" }, prev, next)));
  await load();
  return () => clearTimeout(timer);
}
