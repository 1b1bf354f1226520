// Side wagers at the table: the offers' names and limits, the posted pay tables (pays, Envy, a
// progressive's meter, a practice table's exact return), the live meter on the felt, each spot's
// bonus hand at the showdown and the Envy and jackpot wins the table hears of.
import { money } from "./api.js";
import { h } from "./dom.js";

/** A bonus category in words (as paigow.bonus.hand.BonusCategory labels it):
 * "four-of-a-kind" -> "four of a kind", "pai-gow-ace-high" -> "pai gow, ace high". */
export function categoryLabel(value) {
  if (!value) return "no bonus hand";
  return value.replace(/-/g, " ").replace(/\bseven card\b/, "seven-card").replace(/^pai gow /, "pai gow, ").replace(/^low /, "low hand, ");
}

/** An offer's name as the table shows it: "fortune" -> "Fortune". */
export function offerTitle(name) {
  return name.charAt(0).toUpperCase() + name.slice(1).replace(/[-_]/g, " ");
}

/** An offer's limits: "$1.00–$25.00", or "$1.00" when the wager is fixed; ``short``: whole
 * dollars without cents ("$1–$25"). */
export function offerLimits(o, short = false) {
  const m = (c) => (short && c % 100 === 0 ? `$${(c / 100).toLocaleString("en-US")}` : money(c));
  return o.min_wager === o.max_wager ? m(o.min_wager) : `${m(o.min_wager)}–${m(o.max_wager)}`;
}

/** Whether ``pays`` (a pay table's figure) is a share of a meter: a jackpot. */
const meterPay = (pays) => /of meter/.test(pays || "");

/** A percentage from an exact fraction's decimal string: "0.07765575" -> "7.77%". */
function percent(decimal) {
  const x = Number(decimal) * 100;
  return `${x.toFixed(2)}%`;
}

/** The meter of ``offer`` now (cents), or null. */
export function meterOf(table, offer) {
  if (!offer.bank || !table.meters) return null;
  const m = table.meters[offer.bank];
  return m === undefined ? null : m;
}

/** The live meters on the felt: one line per progressive offer. */
export function meterLines(table) {
  return (table.side_wagers || []).filter((o) => meterOf(table, o) !== null).map((o) =>
    h("p", { class: "meter", id: `meter-${o.name}`, "data-bank": o.bank, "data-cents": meterOf(table, o) },
      h("span", { class: "meter-name" }, `${offerTitle(o.name)} jackpot`), " ", h("strong", {}, money(meterOf(table, o)))));
}

/** The posted pay tables: each offer's pays (and Envy), limits, a progressive's meter and, at a
 * practice table, its exact return (``returns``: the server's answer, or null while asked). */
export function payTables(table, returns) {
  const offers = table.side_wagers || [];
  const out = [h("h2", { id: "pay-tables-title" }, "Side wagers: the pay tables")];
  const practice = table.mode === "practice";
  for (const o of offers) {
    const t = o.table;
    const envy = t.envy ? t.envy.amounts : {};
    const hasEnvy = Object.keys(envy).length > 0;
    const meter = meterOf(table, o);
    const rows = Object.entries(t.pays).map(([cat, pays]) => h("tr", {},
      h("th", { scope: "row" }, categoryLabel(cat)), h("td", { class: "num" }, pays),
      hasEnvy ? h("td", { class: "num" }, envy[cat] || "") : null));
    const lines = [
      h("h3", {}, `${offerTitle(o.name)} `, h("span", { class: "muted" }, offerLimits(o))),
      h("p", { class: "pt-title" }, t.title),
    ];
    if (t.target && t.target !== "player") lines.push(h("p", {}, t.target === "dealer" ? "Paid on the dealer's seven cards." : "Paid on the dealer's low hand as the house way sets it."));
    lines.push(h("table", { class: "list paytable", id: `pays-${o.name}`, "aria-label": `${offerTitle(o.name)} pays` },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Hand"), h("th", { scope: "col" }, "Pays"), hasEnvy ? h("th", { scope: "col" }, "Envy") : null)),
      h("tbody", {}, rows)));
    if (hasEnvy) lines.push(h("p", { class: "pt-note" }, `Envy: with a ${offerTitle(o.name)} wager of at least ${t.envy.minimum}, you are paid the Envy amount for every other player's hand shown (never your own, never the dealer's).`));
    if (meter !== null) {
      const p = t.progressive || {};
      lines.push(h("p", { class: "pt-note" }, "Meter now ", h("strong", { id: `pays-meter-${o.name}`, "data-cents": meter }, money(meter)),
        p.seed ? ` (seeded at ${p.seed}; ${p.share || "a share"} of each wager goes to it)` : ""));
    }
    if (practice) lines.push(returnLine(o, returns));
    out.push(h("section", { class: "pt", id: `pt-${o.name}`, "aria-label": `${offerTitle(o.name)} pay table` }, lines));
  }
  return out;
}

function returnLine(o, returns) {
  const id = `return-${o.name}`;
  if (!returns || returns.status !== "ready") {
    return h("p", { class: "pt-return computing", id, role: "status" }, "Exact return: counting every hand of the house way…");
  }
  const r = returns.offers.find((x) => x.name === o.name);
  if (!r) return h("p", { class: "pt-return", id }, "Exact return: not available.");
  const edge = r.house_edge.decimal;
  const parts = [h("strong", {}, `House edge ${percent(edge)}`), ` (return ${Number(r.return.decimal) >= 0 ? "+" : "−"}${percent(Math.abs(Number(r.return.decimal)))} of each wager, exactly ${r.house_edge.exact}) at a ${money(r.at_wager)} wager`];
  if (r.at_meter !== null) parts.push(` and a meter of ${money(r.at_meter)}`);
  parts.push(", over every hand.");
  if (r.envy_per_other) parts.push(` Envy adds ${(Number(r.envy_per_other.decimal)).toFixed(2)}¢ per other player at the table.`);
  if (r.break_even_meter !== null) parts.push(` The wager breaks even at a meter of ${money(r.break_even_meter)}.`);
  return h("p", { class: "pt-return", id, "data-edge": edge }, parts);
}

/** One settled side wager in short words: "fortune: flush, won $20.00" / "fortune: nothing". */
export function sideShort(e) {
  if (!e.hand || !e.returned) return `${offerTitle(e.name)}: ${e.hand ? categoryLabel(e.hand) : "no bonus hand"}, lost`;
  return `${offerTitle(e.name)}: ${categoryLabel(e.hand)}, won ${money(e.win)}`;
}

/** Your side wagers' results in short: each win named ("; Fortune: flush, won $20.00"), the
 * losses together ("; side lost $6.00"), a bonus hand that paid nothing named too. */
export function sideSummary(settled) {
  const won = settled.filter((e) => e.returned > 0);
  const lost = settled.filter((e) => !(e.returned > 0));
  const parts = won.map((e) => sideShort(e));
  if (lost.length) {
    const hand = lost.find((e) => e.hand)?.hand;
    parts.push(`${won.length ? "other " : ""}side lost ${money(lost.reduce((a, e) => a + e.wager, 0))}${hand && !won.length ? ` (${categoryLabel(hand)})` : ""}`);
  }
  return parts.map((p) => `; ${p}`).join("");
}

/** One settled side wager in the server's words (paigow.narrator), without the spot. */
export function sideWords(e) {
  const m = /^spot \d+ [^:]+: (.*)$/.exec(e.text || "");
  return `${offerTitle(e.name)}: ${m ? m[1] : sideShort(e)}`;
}

/** The news the whole table hears: an Envy paid, or a jackpot (a meter pay) hit; else null. */
export function sideNews(e, table) {
  if (e.type === "envy-paid") {
    const hands = e.hands.map(([spot, cat]) => `spot ${spot}'s ${categoryLabel(cat)}`).join(" and ");
    return `Envy! Spot ${e.spot} is paid ${money(e.amount)} for ${hands}.`;
  }
  if (e.type === "side-wager-settled" && e.returned > 0 && e.hand) {
    const offer = (table.side_wagers || []).find((o) => o.name === e.name);
    const pays = offer ? offer.table.pays[e.hand] : null;
    if (meterPay(pays)) return `JACKPOT! Spot ${e.spot} hits ${categoryLabel(e.hand)} on the ${offerTitle(e.name)}: ${money(e.win)}.`;
  }
  return null;
}
