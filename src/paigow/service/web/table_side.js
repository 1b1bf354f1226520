// The side column (a drawer on a phone): what the table posts (commission, push rule, face up,
// the dragon hand, limits, house way, start, mode, fouls, side wagers), the pay tables, the
// round's results spot by spot, the practice help (the exact EV of every setting), your wallet
// (table_wallet.js), the table's events and the links to recall and the rules.
import { api, money } from "./api.js";
import { h, errorText, patch } from "./dom.js";
import { cardsText, sortCards } from "./cards.js";
import { describe, outcomeWord, pushPosted, roundName, settledWords } from "./describe.js";
import { dragonWords } from "./dragon.js";
import { offerLimits, offerTitle, payTables, sideWords } from "./side.js";
import { myWagerSpot, offers } from "./table_state.js";

function posted(table, offered) {
  return [
    h("span", { id: "posted-commission" }, table.commission === "0" ? "No commission (posted, 9-1(f))" : `Commission ${table.commission_posted} of each win (posted, 9-1(f))`),
    table.push_posted ? h("span", { id: "posted-push", class: "variant" }, pushPosted(table.push_posted)) : null,
    table.face_up ? h("span", { id: "posted-face-up", class: "variant" }, "Face up: the dealer's cards are shown and set before you set") : null,
    table.dragon ? h("span", { id: "posted-dragon", class: "variant" }, "Dragon hand: an empty spot's cards offered to the players in turn, from the table minimum up to your own wager") : null,
    h("span", { id: "posted-limits" }, `Limits ${money(table.min_wager)} – ${money(table.max_wager)}`),
    h("span", { id: "posted-house-way" }, `House way: ${table.house_way_label || table.house_way}`),
    h("span", {}, `Start: ${table.start === "dice" ? "three dice" : "random number"}`),
    h("span", { id: "posted-mode" }, table.mode === "practice" ? "Practice table" : "Casino table"),
    table.mode === "practice" ? h("span", { id: "posted-money" }, "Wagers here are play money, never your wallet; each setting's price is shown after the round") : null,
    h("span", {}, table.foul === "loses" ? "A foul hand loses" : "A foul is reset by the house way"),
    offered.length ? h("span", { id: "posted-side" }, `Side wagers: ${offered.map((o) => `${offerTitle(o.name)} ${offerLimits(o)}`).join(", ")} (pay tables below)`) : null,
    table.status !== "open" ? h("span", { class: "error" }, `Table ${table.status}`) : null,
  ];
}

function resultLine(r, mine, sides) {
  const who = `Spot ${r.spot}${r.spot === mine ? " (you)" : ""}`;
  return h("li", { id: `result-${r.spot}`, class: r.outcome, "data-outcome": r.outcome, "data-reason": r.reason || "", "data-returned": r.returned },
    h("strong", {}, `${who}: ${outcomeWord(r)}`), ` — ${settledWords(r)}. `, h("span", { class: "muted" }, `Wager ${money(r.wager)}.`),
    sides.map((e) => h("span", { class: "side-line", "data-name": e.name, "data-returned": e.returned }, ` ${sideWords(e)}.`)));
}

function results(state, mine) {
  const s = state.round;
  const out = [h("h2", { id: "results-title" }, state.roundNumber ? `Results, ${roundName(state.roundNumber).toLowerCase()}` : "Results")];
  if (s.voided) out.push(h("p", {}, describe(s.voided)));
  else if (!s.results.length) out.push(h("p", { class: "muted" }, "Spot by spot from spot 1, once the dealer has set."));
  else {
    out.push(h("ul", { class: "results", id: "results" }, s.results.map((r) => resultLine(r, mine, s.sideResults.filter((e) => e.spot === r.spot)))));
    const dr = s.dragon && s.dragon.result;
    if (dr) {
      out.push(h("ul", { class: "results", id: "dragon-results" }, h("li", { id: "result-dragon", class: dr.outcome, "data-outcome": dr.outcome, "data-returned": dr.returned },
        h("strong", {}, `Dragon hand (spot ${dr.spot}'s cards), spot ${dr.by}${dr.by === mine ? " (you)" : ""}: ${outcomeWord(dr)}`), ` — ${dragonWords(dr)}. `, h("span", { class: "muted" }, `Wager ${money(dr.wager)}.`))));
    }
    if (s.envy.length) out.push(h("ul", { class: "results", id: "envy-results" }, s.envy.map((e) => h("li", { class: "win" }, describe(e)))));
    if (s.totals) out.push(h("p", { class: "muted" }, describe(s.totals)));
  }
  return out;
}

function evTable(a, table) {
  const rows = a.settings.map((s, i) => ({ ...s, i })).sort((x, y) => y.ev - x.ev);
  const n = (v) => Number(v).toLocaleString("en-US");
  return h("table", { class: "list ev", id: "ev-table" },
    h("caption", {}, a.against === "exposed"
      ? `Exact EV per unit wagered against the dealer's exposed setting: each outcome is certain (commission ${table.commission_posted} of each win)`
      : `Exact EV per unit wagered over all ${n(a.dealer_hands)} dealer hands (commission ${table.commission_posted} of each win)`),
    h("thead", {}, h("tr", {}, ["High", "Low", "EV", "Win / push / loss", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows.map((s) => h("tr", { class: s.i === a.optimal ? "best" : "" },
      h("td", { class: "cards-text" }, cardsText(sortCards(s.high))), h("td", { class: "cards-text" }, cardsText(sortCards(s.low))),
      h("td", { class: "num" }, (s.ev >= 0 ? "+" : "−") + Math.abs(s.ev).toFixed(4)),
      h("td", { class: "num wpl" }, h("span", {}, n(s.win)), h("span", {}, ` / ${n(s.push)}`), h("span", {}, ` / ${n(s.loss)}`)),
      h("td", {}, [s.i === a.optimal ? "best" : "", s.i === a.house_way ? "house way" : "", s.foul ? "foul" : ""].filter(Boolean).join(", "))))));
}

/** The side column, with ``walletEl`` (the wallet panel) among its panels. ``ctx``: ``state()``
 * and ``infoBtn`` (the status bar's button that opens it on a narrow screen). */
export function sideView(ctx, walletEl) {
  const table0 = ctx.state().table;
  let returns = null; // a practice table's exact returns of its side wagers (the server's answer)
  let returnsTimer = null;
  let evPromise = null; // the practice help's exact EV for the round ``evFor``
  let evFor = null;
  let closed = false;
  let logEpoch = null; // the log shows the events of this epoch of the state
  let logged = 0; // ... up to this many
  const postedBox = h("div", { class: "posted", id: "posted", role: "region", "aria-label": "Posted at this table" });
  const payPanel = offers(ctx.state()).length ? h("section", { class: "panel pay-tables", id: "pay-tables", "aria-labelledby": "pay-tables-title" }) : null;
  const practicePanel = table0.mode === "practice" ? h("section", { class: "panel", id: "practice", "aria-labelledby": "practice-title" }) : null;
  const resultsPanel = h("section", { class: "panel", id: "results-panel", "aria-labelledby": "results-title" });
  const logList = h("ol", { class: "log", id: "log", tabindex: 0, "aria-label": "Table events, oldest first" });
  const logPanel = h("section", { class: "panel", id: "log-panel", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Table events"),
    h("div", { "aria-live": "polite", "aria-relevant": "additions", id: "log-live" }, logList));
  const links = h("p", { class: "links" }, h("a", { href: `#/recall/${table0.id}` }, "Recall: the last ten rounds"), " · ", h("a", { href: `#/rules/${table0.id}`, id: "rules-link" }, "How to play (the rules and this table's house way)"));
  const closeBtn = h("button", { type: "button", id: "side-close", class: "side-close", onclick: () => { open(false); ctx.infoBtn.focus(); } }, "Close");
  const el = h("aside", { class: "side", id: "side", "aria-label": "Table info: the posted rules, results, your wallet and the events" },
    h("div", { class: "side-head" }, h("h2", {}, "Table info"), closeBtn),
    postedBox, payPanel, resultsPanel, practicePanel, walletEl, logPanel, links);

  /** Open (or close) the side panel; on a wide screen it is a column and always open. */
  function open(yes) {
    el.classList.toggle("open", yes);
    ctx.infoBtn.setAttribute("aria-expanded", yes ? "true" : "false");
    if (yes) closeBtn.focus();
  }
  const onKey = (ev) => { if (ev.key === "Escape" && el.classList.contains("open")) { open(false); ctx.infoBtn.focus(); } };
  document.addEventListener("keydown", onKey);

  /** The pay tables (a practice table's exact returns among them). */
  function renderPays() {
    const table = ctx.state().table;
    if (payPanel) patch(payPanel, [table.side_wagers, table.meters, table.mode, returns], () => payTables(table, returns));
  }

  /** A practice table asks the server for its side wagers' exact returns (again while the
   * house way's bonus hands are being counted, and when a meter moves). */
  async function fetchReturns() {
    const table = ctx.state().table;
    if (!payPanel || table.mode !== "practice" || closed) return;
    clearTimeout(returnsTimer);
    try {
      returns = await api("GET", `/api/web/tables/${table.id}/side-returns`);
    } catch { returns = null; }
    renderPays();
    if (!returns || returns.status !== "ready") returnsTimer = setTimeout(fetchReturns, 3000);
  }

  function renderLog(state) {
    if (logEpoch !== state.epoch) { logList.replaceChildren(); logEpoch = state.epoch; logged = 0; }
    if (logged >= state.events.length) return;
    for (const e of state.events.slice(logged)) logList.append(h("li", {}, describe(e, state.roundNumber)));
    logged = state.events.length;
    while (logList.children.length > 80) logList.firstChild.remove();
    logList.scrollTop = logList.scrollHeight;
  }

  function renderPractice() {
    if (!practicePanel) return;
    practicePanel.replaceChildren(h("h2", { id: "practice-title" }, "Practice help"),
      h("p", {}, "Practice table: help with setting is offered (never at a casino table). The wagers are real money from your wallet: a practice table differs from a casino table only by its help."),
      h("div", { id: "ev", "aria-live": "polite" }));
  }

  /** The exact EV of your hand's settings (asked once a round). */
  function fetchEv() {
    const { table, roundId } = ctx.state();
    if (evFor === roundId && evPromise) return evPromise;
    evFor = roundId;
    evPromise = api("GET", `/api/web/tables/${table.id}/ev`).then((r) => ({ r }), (err) => ({ err }));
    return evPromise;
  }

  async function showEv() {
    const evBox = document.getElementById("ev");
    open(true);
    practicePanel.scrollIntoView({ block: "start" });
    const started = Date.now();
    const progress = h("p", { id: "ev-progress", role: "status" }, h("progress", { "aria-label": "Computing the exact EV" }), " Computing the exact EV over every dealer hand…");
    evBox.replaceChildren(progress);
    const t = setInterval(() => { progress.lastChild.textContent = ` Computing the exact EV over every dealer hand… ${Math.round((Date.now() - started) / 1000)} s`; }, 1000);
    const { r, err } = await fetchEv();
    clearInterval(t);
    if (err) { evFor = null; evPromise = null; evBox.replaceChildren(h("p", { class: "error" }, errorText(err))); return; }
    if (!r.available) { evBox.replaceChildren(h("p", { id: "ev-unavailable" }, "The exact EV is not available: the analysis table is not compiled on this server.")); return; }
    evBox.replaceChildren(evTable(r.analysis, ctx.state().table));
  }

  return {
    el, open, showEv, fetchEv, fetchReturns,
    practice: !!practicePanel,
    toggle() { open(!el.classList.contains("open")); },
    render() {
      const state = ctx.state();
      const t = state.table;
      patch(postedBox, [t.commission_posted, t.push_posted, t.face_up, t.dragon, t.min_wager, t.max_wager, t.house_way, t.house_way_label, t.start, t.mode, t.foul, t.status], () => posted(t, offers(state)));
      renderPays();
      const s = state.round;
      const mine = myWagerSpot(state);
      patch(resultsPanel, [state.roundId, state.roundNumber, s.results.length, s.sideResults.length, s.envy.length, !!s.totals, !!s.voided, mine], () => results(state, mine));
      renderLog(state);
    },
    /** The practice help afresh (the feed's hello). */
    renderPractice,
    /** A new round: the practice help afresh, its exact EV asked again. */
    newRound() { evPromise = null; evFor = null; renderPractice(); },
    /** A progressive's meter moved: the pay tables, and a practice table's returns again soon. */
    onMeter() {
      renderPays();
      if (returns && ctx.state().table.mode === "practice") { clearTimeout(returnsTimer); returnsTimer = setTimeout(fetchReturns, 500); }
    },
    stop() { closed = true; clearTimeout(returnsTimer); document.removeEventListener("keydown", onKey); },
  };
}
