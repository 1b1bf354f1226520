// The rules for players (docs/rules.md), rendered from the little Markdown it uses.
import { api } from "./api.js";
import { h } from "./dom.js";

/** Inline Markdown: **bold**, `code`, and nothing else (text is never parsed as HTML). */
function inline(text) {
  const out = [];
  const re = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[1] !== undefined ? h("strong", {}, m[1]) : h("code", {}, m[2]));
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Block Markdown: headings, paragraphs, lists (with continuation lines) and tables. */
export function renderMarkdown(md) {
  const out = [];
  const lines = md.split("\n");
  let i = 0;
  const cells = (l) => l.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    const hd = /^(#{1,3}) (.*)$/.exec(line);
    if (hd) { out.push(h(`h${hd[1].length}`, {}, inline(hd[2]))); i++; continue; }
    if (line.startsWith("|")) {
      const head = cells(line);
      i += 2;
      const rows = [];
      while (i < lines.length && lines[i].startsWith("|")) rows.push(cells(lines[i++]));
      out.push(h("div", { class: "scroll" }, h("table", { class: "list" },
        h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, inline(c))))),
        h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, inline(c)))))))));
      continue;
    }
    const item = /^(\d+\.|-) (.*)$/;
    if (item.test(line)) {
      const ordered = /^\d/.test(line);
      const list = h(ordered ? "ol" : "ul", {});
      while (i < lines.length && (item.test(lines[i]) || /^ {2,}\S/.test(lines[i]))) {
        const m = item.exec(lines[i]);
        if (m) list.append(h("li", {}, inline(m[2])));
        else list.lastChild.append(" ", ...inline(lines[i].trim()));
        i++;
      }
      out.push(list);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^(#|\||- |\d+\. )/.test(lines[i])) para.push(lines[i++].trim());
    out.push(h("p", {}, inline(para.join(" "))));
  }
  return out;
}

/** A table's own house way, numbered in plain words, each rule with an example hand
 * (generated from its rules by the server: docs/house-way.md#in-plain-english). */
export function houseWaySection(way, tableId) {
  const cards = (list) => list.join(" ");
  return h("section", { class: "panel rules house-way-plain", id: "house-way", "aria-labelledby": "house-way-title" },
    h("h2", { id: "house-way-title" }, `The house way at table ${tableId}: ${way.label}`),
    way.title ? h("p", { class: "hint" }, way.title) : null,
    h("p", {}, "The dealer sets the bank's hand by these rules, tried in order: the first that fits sets the hand."),
    h("ol", { id: "house-way-rules" }, way.rules.map((r) => h("li", { "data-rule": r.id },
      h("span", { class: "rule-text" }, r.text), " ", h("code", {}, r.id),
      r.example ? h("span", { class: "rule-example" }, `For example ${cards(r.example.cards)}: high ${cards(r.example.high)}, low ${cards(r.example.low)}.`) : null))));
}

export async function rulesView(root, shell, tableId) {
  await shell.refreshWho();
  if (tableId) {
    const way = await api("GET", `/api/tables/${tableId}/house-way`);
    root.append(houseWaySection(way, tableId));
  }
  const text = await api("GET", "/api/web/rules", undefined, { text: true });
  root.append(h("article", { class: "panel rules", id: "rules" }, renderMarkdown(text)));
  return null;
}
