// My play: every hand played at a table that prices settings, by gaming day and session, with
// the setting played, the best and the house way's (exact EV for the wager) and what the choice
// gave up; the day's totals; the ten costliest decisions with their hands; CSV.
import { api, session } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { cardRow, cardsText, sortCards } from "./cards.js";

const settingText = (s) => `${cardsText(sortCards(s.high))} / ${cardsText(sortCards(s.low))}`;

function handName(x) {
  return `Table ${x.table_id}, round ${x.round_number}${x.dragon ? ", dragon hand" : ""}`;
}

/** One priced hand as a row: played, best, house way, given up. */
function handRow(x) {
  if (x.status !== "priced") {
    return h("tr", { "data-round": x.round_id }, h("td", { "data-label": "Hand" }, h("a", { href: x.recall }, handName(x))), h("td", { colspan: 4, "data-label": "Price" }, `Not priced: ${x.reason || x.status}`));
  }
  return h("tr", { "data-round": x.round_id },
    h("td", { "data-label": "Hand" }, h("a", { href: x.recall }, handName(x))),
    h("td", { class: "cards-text", "data-label": "You played" }, h("span", {}, settingText(x.played), " ", h("span", { class: "muted" }, x.played.ev_dollars))),
    h("td", { class: "cards-text", "data-label": "Best" }, h("span", {}, settingText(x.best), " ", h("span", { class: "muted" }, x.best.ev_dollars))),
    h("td", { class: "cards-text", "data-label": "House way" }, h("span", {}, settingText(x.house_way), " ", h("span", { class: "muted" }, x.house_way.ev_dollars))),
    h("td", { class: "num", "data-label": "Gave up", "data-cents": x.given_up_cents }, x.given_up_dollars));
}

function handsTable(hands, caption) {
  return h("table", { class: "list review stack" },
    h("caption", { class: "sr-only" }, caption),
    h("thead", {}, h("tr", {}, ["Hand", "You played (EV)", "Best (EV)", "House way (EV)", "Gave up"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, hands.map(handRow)));
}

/** A costly decision, with the hand shown so the player can learn from it. */
function costly(x, i) {
  return h("li", { class: "costly", "data-round": x.round_id },
    h("p", {}, h("strong", { "data-rank": i + 1 }, `${x.given_up_dollars} given up`), ` — ${handName(x)}, wager $${(x.wager / 100).toFixed(2)} `, h("a", { href: x.recall }, "recall")),
    cardRow(x.cards, { small: true }),
    h("p", { class: "muted" }, `You played ${settingText(x.played)}; best ${settingText(x.best)}; house way ${settingText(x.house_way)}.`));
}

export async function reviewView(root, shell) {
  root.append(h("h1", {}, "My play"));
  await shell.refreshWho();
  if (!session.user) {
    root.append(h("p", { class: "panel" }, "Log in from the ", h("a", { href: "#/lobby" }, "lobby"), " to review your play."));
    return null;
  }
  let day = new Date().toISOString().slice(0, 10);
  try { day = (await api("GET", "/api/me/limits")).gaming_day || day; } catch { /* today's date */ }
  const from = h("input", { id: "rv-from", type: "date", value: day, required: true });
  const to = h("input", { id: "rv-to", type: "date", value: day, required: true });
  const msg = h("p", { id: "rv-msg", role: "status", "aria-live": "polite" });
  const summary = h("p", { id: "rv-summary" });
  const days = h("div", { id: "rv-days", class: "scroll", tabindex: 0, role: "region", "aria-label": "Hands by gaming day" });
  const worst = h("ol", { id: "rv-costliest", class: "costliest" });
  const csv = h("a", { id: "rv-csv", class: "button", download: "" }, "Download CSV");
  async function load() {
    const q = `from=${encodeURIComponent(from.value)}&to=${encodeURIComponent(to.value)}`;
    csv.href = `/api/me/review?${q}&format=csv`;
    try {
      const r = await api("GET", `/api/me/review?${q}`);
      msg.textContent = "";
      msg.className = "";
      const t = r.totals;
      summary.replaceChildren(`${t.hands} hand${t.hands === 1 ? "" : "s"} (${t.priced} priced): given up `,
        h("strong", { id: "rv-given-up", "data-cents": t.given_up_cents }, t.given_up_dollars), " against the best, ",
        h("strong", { id: "rv-house-given-up", "data-cents": t.house_given_up_cents }, t.house_given_up_dollars), " against the house way.");
      days.replaceChildren(...(r.days.length ? r.days.map((d) => h("section", { class: "review-day", "data-day": d.gaming_day, "aria-labelledby": `rd-${d.gaming_day}` },
        h("h3", { id: `rd-${d.gaming_day}` }, `Gaming day ${d.gaming_day}: ${d.totals.given_up_dollars} given up against the best, ${d.totals.house_given_up_dollars} against the house way`),
        ...d.sessions.map((s, i) => handsTable(s.hands, `Session ${i + 1} at table ${s.table_id}`)))) : [h("p", {}, "No hands priced in these days.")]));
      worst.replaceChildren(...(r.costliest.length ? r.costliest.map(costly) : [h("li", {}, "Nothing given up: every setting was the best.")]));
      root.dataset.ready = "1";
      announce(`My play loaded: ${t.hands} hands`);
    } catch (err) {
      msg.className = "error";
      msg.textContent = errorText(err);
    }
  }
  const form = h("form", { class: "panel row", id: "rv-form", onsubmit: (ev) => { ev.preventDefault(); load(); } },
    h("label", {}, "From gaming day", from), h("label", {}, "To gaming day", to),
    h("button", { type: "submit", class: "primary", id: "rv-show" }, "Show"), csv);
  root.append(form, msg,
    h("section", { class: "panel", "aria-labelledby": "rv-title" }, h("h2", { id: "rv-title" }, "Hands"), summary, days),
    h("section", { class: "panel", "aria-labelledby": "rv-worst-title" }, h("h2", { id: "rv-worst-title" }, "Your ten costliest decisions"), worst));
  await load();
  return null;
}
