// The operator's floor: every open table against its exact theoretical hold, live (polled every
// two seconds), a chart per table of actual hold against hands inside the bands, flags, the
// players who excluded themselves, and the gaming-day report's download.
import { api, session, money } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { statusCell, chartKey } from "./floor_status.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 2000;
const CHARTS_PER_TICK = 12;
const MARKED_POINTS = 12;

/** "1 hand", "12 hands". */
export function hands(n) {
  return `${n} hand${n === 1 ? "" : "s"}`;
}

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** A hold given as a decimal string -> "2.7219%" (display only; money stays in cents). */
export function pct(text, places = 3) {
  if (text === null || text === undefined) return "—";
  return `${(Number(text) * 100).toFixed(places)}%`;
}

const COLUMNS = ["Table", "Players", "Rounds", "Hands", "Handle", "Player wins", "Player losses",
  "Commission", "House result", "Actual hold", "Theoretical hold", "95% band", "Status"];

const TYPE_COLUMNS = ["Table", "Wager", "Wagers", "Handle", "Returned", "Envy paid", "House result", "Actual hold", "Theoretical hold", "95% band"];

/** A table's lines by wager type: the main wager, then each side wager. */
function typeRows(x) {
  const td = (i, attrs, ...content) => h("td", { "data-label": TYPE_COLUMNS[i], ...attrs }, h("span", {}, ...content));
  const band = (b) => (b ? `${pct(b[0], 2)} to ${pct(b[1], 2)}` : "—");
  const main = h("tr", { "data-table": x.id, "data-wager": "main" },
    h("th", { scope: "row", class: "wrap" }, `${x.name} (#${x.id})`),
    td(1, {}, "main"), td(2, { class: "num" }, String(x.hands)),
    td(3, { class: "num", "data-field": "handle", "data-cents": x.handle }, money(x.handle)),
    td(4, { class: "num" }, "—"), td(5, { class: "num" }, "—"),
    td(6, { class: "num", "data-field": "house_result", "data-cents": x.house_result }, money(x.house_result)),
    td(7, { class: "num" }, x.actual_hold ? pct(x.actual_hold.decimal) : "—"),
    td(8, { "data-field": "theoretical", class: "wrap" }, theoretical(x)),
    td(9, { class: "wrap" }, band(x.band_95)));
  return [main, ...x.side_wagers.map((w) => h("tr", { "data-table": x.id, "data-wager": w.name },
    h("th", { scope: "row", class: "wrap" }, `${x.name} (#${x.id})`),
    td(1, { class: "wrap", title: w.title }, w.name, w.bank ? ` (meter ${money(w.meter)})` : ""),
    td(2, { class: "num", "data-field": "wagers" }, String(w.wagers)),
    td(3, { class: "num", "data-field": "handle", "data-cents": w.handle }, money(w.handle)),
    td(4, { class: "num", "data-field": "returned", "data-cents": w.returned }, money(w.returned)),
    td(5, { class: "num", "data-field": "envy_paid", "data-cents": w.envy_paid }, money(w.envy_paid)),
    td(6, { class: "num", "data-field": "house_result", "data-cents": w.house_result }, money(w.house_result)),
    td(7, { class: "num", "data-field": "actual_hold" }, w.actual_hold ? pct(w.actual_hold.decimal) : "—"),
    td(8, { "data-field": "theoretical", class: "wrap" }, w.theoretical.status === "ready"
      ? h("span", { "data-status": "ready", title: `exactly ${w.theoretical.hold.exact}` }, pct(w.theoretical.hold.decimal, 4))
      : h("span", { class: "computing", "data-status": w.theoretical.status }, w.theoretical.status === "failed" ? `failed: ${w.theoretical.error}` : "computing…")),
    td(9, { class: "wrap", "data-field": "band" }, band(w.band_95))))];
}

function theoretical(t) {
  if (t.theoretical.status !== "ready") {
    return h("span", { class: "computing", "data-status": t.theoretical.status },
      t.theoretical.status === "failed" ? `failed: ${t.theoretical.error || "unknown"}` : "computing…");
  }
  const opt = t.theoretical.optimal_hold;
  return h("span", { "data-status": "ready", title: `exactly ${t.theoretical.house_way_hold.exact}` },
    pct(t.theoretical.house_way_hold.decimal, 4), opt ? ` (optimal player ${pct(opt.decimal, 4)})` : "");
}

/** The chart: actual hold after each round against hands played, inside the 95% and 99.9% bands. */
export function chartSvg(data, width = 520, height = 220) {
  const pts = data.points.filter((p) => p.hold !== null);
  const label = pts.length
    ? `Table ${data.name}: actual hold ${pct(pts[pts.length - 1].hold)} after ${hands(pts[pts.length - 1].hands)}` +
      (data.theoretical ? `; theoretical ${pct(data.theoretical.decimal)}` : "; theoretical hold computing")
    : `Table ${data.name}: no settled hands yet`;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "chart", "data-points": pts.length });
  svg.append(s("title", {}, label));
  const pad = { l: 52, r: 8, t: 8, b: 26 };
  const W = width - pad.l - pad.r, H = height - pad.t - pad.b;
  svg.append(s("rect", { x: pad.l, y: pad.t, width: W, height: H, fill: "#fff", stroke: "#889" }));
  if (!pts.length) {
    svg.append(s("text", { x: pad.l + W / 2, y: pad.t + H / 2, "text-anchor": "middle", "font-size": 13, fill: "#333" }, "no settled hands yet"));
    return svg;
  }
  const mu = data.theoretical ? Number(data.theoretical.decimal) : 0;
  const last = pts[pts.length - 1];
  const holds = pts.map((p) => Number(p.hold));
  let spread = last.band_999 ? (Number(last.band_999[1]) - Number(last.band_999[0])) : 0.2;
  spread = Math.max(spread, 0.02);
  let lo = Math.min(mu - spread, ...holds.slice(-Math.max(3, Math.floor(pts.length / 2))));
  let hi = Math.max(mu + spread, ...holds.slice(-Math.max(3, Math.floor(pts.length / 2))));
  lo = Math.max(lo, -1.05); hi = Math.min(hi, 1.05);
  const maxX = Math.max(4, last.hands);
  const X = (n) => pad.l + (n / maxX) * W;
  const Y = (v) => pad.t + H - ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * H;
  // a band over fewer than two points would be a line of no width: it is drawn as a bar instead
  const band = (key, fill) => {
    const b = pts.filter((p) => p[key]);
    if (!b.length) return;
    if (b.length === 1) {
      const p = b[0], x = X(p.hands), y1 = Y(Number(p[key][1])), y0 = Y(Number(p[key][0]));
      svg.append(s("rect", { x: (x - 6).toFixed(1), y: y1.toFixed(1), width: 12, height: Math.max(1, y0 - y1).toFixed(1), fill, class: `band ${key}` }));
      return;
    }
    const top = b.map((p) => `${X(p.hands).toFixed(1)},${Y(Number(p[key][1])).toFixed(1)}`);
    const bottom = b.slice().reverse().map((p) => `${X(p.hands).toFixed(1)},${Y(Number(p[key][0])).toFixed(1)}`);
    svg.append(s("polygon", { points: [...top, ...bottom].join(" "), fill, class: `band ${key}` }));
  };
  band("band_999", "#dfe9f7");
  band("band_95", "#b7cdee");
  if (data.theoretical) {
    svg.append(s("line", { x1: pad.l, x2: pad.l + W, y1: Y(mu), y2: Y(mu), stroke: "#1b4fd1", "stroke-dasharray": "5 4", class: "theory" }));
  }
  const colour = data.flagged ? "#b3121f" : "#0a6b2e";
  svg.append(s("polyline", {
    points: pts.map((p) => `${X(p.hands).toFixed(1)},${Y(Number(p.hold)).toFixed(1)}`).join(" "),
    fill: "none", stroke: colour, "stroke-width": 2, class: "hold",
  }));
  // a few rounds: each one a dot (a line through one point draws nothing)
  if (pts.length <= MARKED_POINTS) {
    for (const p of pts) svg.append(s("circle", { cx: X(p.hands).toFixed(1), cy: Y(Number(p.hold)).toFixed(1), r: 4, fill: colour, class: "point" }));
  }
  const axis = { "font-size": 11, fill: "#222" };
  svg.append(s("text", { x: pad.l - 4, y: pad.t + 10, "text-anchor": "end", ...axis }, pct(hi, 1)));
  svg.append(s("text", { x: pad.l - 4, y: pad.t + H, "text-anchor": "end", ...axis }, pct(lo, 1)));
  svg.append(s("text", { x: pad.l, y: height - 8, ...axis }, "0"));
  svg.append(s("text", { x: pad.l + W, y: height - 8, "text-anchor": "end", ...axis }, hands(last.hands)));
  return svg;
}

function utcDate(daysAgo = 0) {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

export async function floorView(root, shell) {
  root.append(h("h1", {}, "Floor"));
  await shell.refreshWho();
  if (!session.user || session.user.role !== "operator") {
    root.append(h("p", { class: "panel" }, "Operators only: log in as an operator from the ", h("a", { href: "#/lobby" }, "lobby"), "."));
    return null;
  }
  const status = h("p", { id: "floor-status", role: "status", "aria-live": "polite" }, "Loading…");
  const totals = h("div", { id: "floor-totals", class: "floor-totals" });
  const body = h("tbody", {});
  const list = h("div", { class: "scroll", id: "floor-scroll", tabindex: 0, role: "region", "aria-label": "Open tables" }, h("table", { class: "list floor stack", id: "floor-tables" },
    h("caption", { class: "sr-only" }, "Open tables with their figures (amounts in dollars)"),
    h("thead", {}, h("tr", {}, COLUMNS.map((t) => h("th", { scope: "col" }, t)))),
    body));
  // a table wider than its box scrolls, and says so (never a hidden sideways scroll)
  const scrollHint = h("p", { id: "floor-scroll-hint", class: "scroll-hint", hidden: true }, "More columns to the right: scroll the table sideways →");
  const typesBody = h("tbody", {});
  const types = h("div", { class: "scroll", id: "types-scroll", tabindex: 0, role: "region", "aria-label": "Figures by wager type" }, h("table", { class: "list floor stack", id: "floor-types" },
    h("caption", { class: "sr-only" }, "Each table's figures by wager type: the main wager and each side wager (amounts in dollars)"),
    h("thead", {}, h("tr", {}, TYPE_COLUMNS.map((t) => h("th", { scope: "col" }, t)))),
    typesBody));
  const typesSection = h("section", { class: "panel", "aria-labelledby": "types-title", id: "types-panel", hidden: true },
    h("h2", { id: "types-title" }, "By wager type"),
    h("p", { class: "hint" }, "Each side wager against its exact theoretical hold (1 − its exact return over every hand, at its smallest wager and, for a progressive, at the meter now); Envy is paid on other players' hands, so it is shown apart and not in the hold."),
    types);
  const charts = h("div", { id: "floor-charts", class: "charts" });
  const flags = h("div", { id: "floor-flags", role: "alert" });

  // the report's download
  const from = h("input", { id: "r-from", type: "date", value: utcDate(1), required: true });
  const to = h("input", { id: "r-to", type: "date", value: utcDate(0), required: true });
  const fmt = h("select", { id: "r-format" }, h("option", { value: "csv" }, "CSV"), h("option", { value: "json" }, "JSON"), h("option", { value: "html" }, "HTML"));
  const reportMsg = h("p", { id: "report-msg", role: "status" });
  const report = h("form", {
    class: "panel", id: "report-form",
    onsubmit: async (ev) => {
      ev.preventDefault();
      reportMsg.className = "";
      reportMsg.textContent = "Preparing the report…";
      try {
        const q = `from=${encodeURIComponent(from.value)}&to=${encodeURIComponent(to.value)}&format=${fmt.value}`;
        const text = await api("GET", `/api/admin/floor/report?${q}`, undefined, { text: true });
        const type = { csv: "text/csv", json: "application/json", html: "text/html" }[fmt.value];
        const a = h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: `paigow-floor-${from.value}-${to.value}.${fmt.value}`, id: "report-link" }, "download");
        document.body.append(a);
        a.click();
        a.remove();
        reportMsg.className = "ok";
        reportMsg.textContent = `Report for gaming days ${from.value} to ${to.value} downloaded: reconciled to the ledger to the cent.`;
        announce(reportMsg.textContent);
      } catch (err) { reportMsg.className = "error"; reportMsg.textContent = errorText(err); }
    },
  }, h("h2", {}, "Report by gaming day"),
  h("p", { class: "hint", id: "report-day" }, "Every figure is reconciled to the ledger to the cent."),
  h("div", { class: "row" }, h("label", {}, "From gaming day", from), h("label", {}, "To gaming day", to),
    h("label", {}, "Format", fmt), h("button", { type: "submit", class: "primary", id: "report-btn" }, "Download the report")), reportMsg);

  const excluded = h("div", { id: "floor-excluded", class: "scroll", tabindex: 0, role: "region", "aria-label": "Players' limits" });

  root.append(status, flags, h("section", { class: "panel", "aria-labelledby": "totals-title" }, h("h2", { id: "totals-title" }, "All open tables"), totals),
    h("section", { class: "panel", "aria-labelledby": "ft-title" }, h("h2", { id: "ft-title" }, "Tables"), scrollHint, list),
    typesSection,
    h("section", { class: "panel", "aria-labelledby": "charts-title" }, h("h2", { id: "charts-title" }, "Actual hold against hands played"),
      h("p", { class: "hint" }, "Green line: the table's actual hold after each round; dashed: the exact theoretical hold; dark band: 95%; light band: 99.9% (a table outside it after enough hands is flagged)."), charts),
    report,
    h("section", { class: "panel", "aria-labelledby": "ex-title" }, h("h2", { id: "ex-title" }, "Players' limits and self-exclusions"), excluded));

  const seen = new Map(); // table id -> what its chart was drawn from (chartKey)
  let stopped = false;

  async function drawChart(t) {
    const data = await api("GET", `/api/admin/floor/tables/${t.id}/chart`);
    const box = document.getElementById(`chart-${t.id}`);
    if (!box) return;
    box.querySelector("svg")?.remove();
    box.append(chartSvg(data));
    box.dataset.rounds = String(t.rounds);
    box.classList.toggle("flagged", !!data.flagged);
  }

  async function load() {
    const view = await api("GET", "/api/admin/floor");
    const t = view.totals;
    totals.replaceChildren(h("dl", { class: "figures" },
      ...[["Rounds", t.rounds], ["Hands", t.hands], ["Handle", money(t.handle)], ["Player wins", money(t.player_wins)],
        ["Player losses", money(t.player_losses)], ["Commission", money(t.commission_taken)], ["House result", money(t.house_result)],
        ["Actual hold", t.actual_hold ? pct(t.actual_hold.decimal) : "—"], ["Voided rounds", t.voided_rounds], ["Returned wagers", money(t.voided_returned)]]
        .flatMap(([k, v]) => [h("dt", {}, k), h("dd", { "data-field": k }, String(v))])));
    const td = (i, attrs, ...content) => h("td", { "data-label": COLUMNS[i], ...attrs }, h("span", {}, ...content));
    body.replaceChildren(...view.tables.map((x) => h("tr", { "data-table": x.id, "data-rounds": x.rounds, "data-flagged": x.flagged ? "1" : "0", class: x.flagged ? "flagged" : "" },
      h("th", { scope: "row", class: "wrap" }, `${x.name} (#${x.id})`,
        h("span", { class: "variant-line", "data-field": "house-way" }, ` — house way ${x.house_way_label || x.house_way}`),
        x.push_posted || x.face_up || x.dragon ? h("span", { class: "variant-line", "data-field": "variant" }, ` — commission ${x.commission_posted}${x.push_posted ? `; ${x.push_posted}` : ""}${x.face_up ? "; face up" : ""}${x.dragon ? "; dragon hand" : ""}`) : null),
      td(1, { class: "wrap" }, x.players.length ? x.players.join(", ") : "—"),
      td(2, { "data-field": "rounds", class: "num" }, String(x.rounds)),
      td(3, { "data-field": "hands", class: "num" }, String(x.hands)),
      td(4, { "data-field": "handle", "data-cents": x.handle, class: "num" }, money(x.handle)),
      td(5, { "data-cents": x.player_wins, class: "num" }, money(x.player_wins)),
      td(6, { "data-cents": x.player_losses, class: "num" }, money(x.player_losses)),
      td(7, { "data-cents": x.commission_taken, class: "num" }, money(x.commission_taken)),
      td(8, { "data-field": "house_result", "data-cents": x.house_result, class: "num" }, money(x.house_result)),
      td(9, { "data-field": "actual_hold", class: "num" }, x.actual_hold ? pct(x.actual_hold.decimal) : "—"),
      td(10, { "data-field": "theoretical", class: "wrap" }, theoretical(x)),
      td(11, { "data-field": "band", class: "wrap" }, x.band_95 ? `${pct(x.band_95[0], 2)} to ${pct(x.band_95[1], 2)}` : "—"),
      td(12, { "data-field": "status", class: "wrap" }, statusCell(x, view.flag_min_hands)))));
    scrollHint.hidden = list.scrollWidth <= list.clientWidth + 1;
    const withSide = view.tables.filter((x) => x.side_wagers && x.side_wagers.length);
    typesSection.hidden = !withSide.length;
    typesBody.replaceChildren(...withSide.flatMap(typeRows));
    const flagged = view.tables.filter((x) => x.flagged);
    flags.replaceChildren(...flagged.map((x) => h("p", { class: "flag-banner", id: `flag-${x.id}` },
      `Table ${x.name} (#${x.id}) is flagged: actual hold ${pct(x.actual_hold.decimal)} after ${x.hands} hands, outside the 99.9% band ${pct(x.flag.band_999[0], 2)} to ${pct(x.flag.band_999[1], 2)} around the theoretical ${pct(x.flag.theoretical_hold.decimal)}: a possible malfunction or cheating (recorded in the audit log).`)));
    // redraw the charts of tables that played since (at most CHARTS_PER_TICK a tick, in parallel)
    for (const x of view.tables) {
      if (!document.getElementById(`chart-${x.id}`)) {
        charts.append(h("figure", { id: `chart-${x.id}`, class: "chart-box" }, h("figcaption", {}, `${x.name} (#${x.id})`)));
      }
    }
    const stale = view.tables.filter((x) => seen.get(x.id) !== chartKey(x));
    await Promise.all(stale.slice(0, CHARTS_PER_TICK).map(async (x) => {
      await drawChart(x);
      seen.set(x.id, chartKey(x));
    }));
    for (const box of [...charts.children]) {
      if (!view.tables.some((x) => `chart-${x.id}` === box.id)) box.remove();
    }
    if (view.gaming_day) document.getElementById("report-day").textContent = `A gaming day runs ${view.gaming_day}. Every figure is reconciled to the ledger to the cent.`;
    status.textContent = `${view.tables.length} open table${view.tables.length === 1 ? "" : "s"}; updated ${new Date(view.at * 1000).toLocaleTimeString("en-GB")}` +
      (flagged.length ? `; ${flagged.length} flagged` : "");
    root.dataset.ready = "1";
  }

  async function loadExcluded() {
    const rows = await api("GET", "/api/admin/limits");
    excluded.replaceChildren(rows.length ? h("table", { class: "list", id: "excluded" },
      h("thead", {}, h("tr", {}, ["Player", "Self-excluded until", "Daily loss limit"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-player": r.username },
        h("td", {}, r.username),
        h("td", {}, r.excluded ? `${new Date(r.excluded_until * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC (cannot be lifted before then)` : "—"),
        h("td", {}, r.daily_loss_limit === null ? "—" : money(r.daily_loss_limit))))))
      : h("p", {}, "No player has a limit or a self-exclusion."));
  }

  async function tick() {
    if (stopped) return;
    try { await load(); } catch (err) { status.textContent = errorText(err); }
    if (!stopped) timer = setTimeout(tick, POLL_MS);
  }
  let timer = null;
  await tick();
  try { await loadExcluded(); } catch (err) { excluded.textContent = errorText(err); }
  return () => { stopped = true; if (timer) clearTimeout(timer); };
}
