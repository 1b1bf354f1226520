// The audit log for people: a table in dollars and plain words, the raw record (JSON, cents) on
// demand, and the JSON-lines export.
import { money } from "./api.js";
import { h } from "./dom.js";

/** Fields of audit details that are cents. */
const CENTS = new Set(["amount", "returned_total", "handle", "house_result", "min_wager", "max_wager",
  "daily_loss_limit", "previous", "loss_today", "balance", "meter", "meter_before", "meter_after",
  "seed", "win", "wager", "returned", "paid"]);
/** Fields that are moments (epoch seconds). */
const MOMENTS = new Set(["until", "excluded_until", "effective", "from", "at"]);
const LABELS = {
  amount: "amount", returned_total: "returned", house_result: "house result", min_wager: "minimum",
  max_wager: "maximum", daily_loss_limit: "daily loss limit", loss_today: "lost today",
  excluded_until: "excluded until", table_id: "table", betting_time_ms: "betting time",
  setting_time_ms: "time to set", actual_hold: "actual hold", theoretical_hold: "theoretical hold",
  band_999: "99.9% band", meter_before: "meter before", meter_after: "meter after",
};

export function utc(ts) {
  return `${new Date(ts * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function percent(decimalText) {
  return `${(Number(decimalText) * 100).toFixed(3)}%`;
}

/** One detail's value in words (dollars for cents, dates for moments, percentages for holds). */
export function detailValue(k, v) {
  if (v === null || v === undefined) return "none";
  if (typeof v === "number" && Number.isInteger(v) && CENTS.has(k)) return money(v);
  if (typeof v === "number" && (MOMENTS.has(k))) return utc(v);
  if (typeof v === "number" && k.endsWith("_ms")) return `${v / 1000} s`;
  if (v && typeof v === "object" && "decimal" in v && "exact" in v) return percent(v.decimal);
  if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "string" && /^-?\d/.test(x))) {
    return `${percent(v[0])} to ${percent(v[1])}`;
  }
  if (k === "ruleset" && v && typeof v === "object") {
    const rate = v.commission !== undefined ? `${+(Number(v.commission) * 100).toFixed(4)}%` : "?";
    const side = Array.isArray(v.side_wagers) && v.side_wagers.length
      ? `, side wagers ${v.side_wagers.map((o) => o.name).join(", ")}` : "";
    const push = v.push && v.push !== "none" ? `, push on the dealer's ${v.push.replaceAll("-", " ")}` : "";
    const more = `${v.face_up ? ", dealer face up" : ""}${v.dragon ? ", dragon hand" : ""}`;
    return `commission ${rate}, limits ${money(v.min_wager)} to ${money(v.max_wager)}, ${v.start || ""} start, wheel ${v.wheel || "?"}${push}${more}${side}`;
  }
  if (k === "house_way" && v && typeof v === "object") return String(v.name ?? "custom");
  if (k === "commission" && typeof v === "string" && /^[0-9.]+$/.test(v)) return `${+(Number(v) * 100).toFixed(4)}%`;
  if (typeof v === "object") return "(see the raw record)";
  return String(v);
}

/** An audit record's details in words: "amount $123.45, transaction 7". */
export function describeDetails(details) {
  if (!details || typeof details !== "object") return "";
  return Object.entries(details)
    .map(([k, v]) => `${LABELS[k] || k.replaceAll("_", " ")} ${detailValue(k, v)}`)
    .join("; ");
}

function momentOf(at) {
  return typeof at === "number" ? utc(at) : String(at).slice(0, 19).replace("T", " ") + " UTC";
}

/** The audit section: load, the newest records first in a table, each raw record on demand. */
export function auditSection() {
  const box = h("div", { id: "audit", class: "scroll", tabindex: 0, role: "region", "aria-label": "Audit records, newest first" });
  const status = h("p", { id: "audit-status", role: "status" });
  const exportLink = h("a", { id: "audit-export", hidden: true, download: "paigow-audit.jsonl" }, "Download the audit log (JSON lines, amounts in cents)");
  async function load(fetchText) {
    const text = await fetchText();
    const lines = text.trim() ? text.trim().split("\n") : [];
    const records = lines.slice(-100).map((l) => JSON.parse(l)).reverse();
    box.replaceChildren(records.length ? h("table", { class: "list stack", id: "audit-table" },
      h("caption", { class: "sr-only" }, "Audit records, newest first (amounts in dollars)"),
      h("thead", {}, h("tr", {}, ["#", "When", "Who", "What", "On", "Details"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, records.map((r) => h("tr", { "data-id": r.id, "data-action": r.action },
        h("td", { "data-label": "#" }, h("span", {}, String(r.id))),
        h("td", { "data-label": "When" }, h("span", {}, momentOf(r.at))),
        h("td", { "data-label": "Who" }, h("span", {}, r.actor)),
        h("td", { "data-label": "What" }, h("span", {}, r.action)),
        h("td", { "data-label": "On" }, h("span", {}, r.target || "—")),
        h("td", { "data-label": "Details", class: "details" }, h("div", {}, h("span", { class: "said" }, describeDetails(r.details)),
          h("details", { class: "raw" }, h("summary", {}, "raw record"), h("pre", {}, JSON.stringify(r, null, 2)))))))))
      : h("p", {}, "No audit records yet."));
    exportLink.href = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    exportLink.hidden = false;
    status.textContent = `${lines.length} audit record${lines.length === 1 ? "" : "s"}${lines.length > 100 ? "; the newest 100 shown" : ""}.`;
    return lines.length;
  }
  return { box, status, exportLink, load };
}
