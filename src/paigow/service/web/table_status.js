// The table's status bar: its name, the round's phase in words, the countdown (betting closes,
// time to set), the connection's state, the button that opens the side panel on a narrow screen,
// and the one line for errors.
import { money, wallet } from "./api.js";
import { h, errorText } from "./dom.js";
import { roundName } from "./describe.js";
import { ended, livePhase, offers } from "./table_state.js";

const PHASE_TEXT = {
  betting: "Betting is open", shuffled: "Shuffling", starting: "Choosing the starting position",
  setting: "Players set their hands", dealer: "The dealer reveals and sets; settling",
  settled: "Settled", voided: "Void",
};

/** The table's limits in words: "$5.00 to $500.00". */
export const limitsText = (table) => `${money(table.min_wager)} to ${money(table.max_wager)}`;

/** The round's phase in one line, from the state: "Round 12: Betting is open.". */
function phaseLine(state) {
  const s = state.round;
  const { table, roundId, roundNumber } = state;
  const r = table.round;
  const phase = livePhase(state);
  if (phase && !ended(s)) return `${roundName(roundNumber ?? (r ? r.number : null))}: ${PHASE_TEXT[phase] || phase}.`;
  if (r && r.id !== roundId) return `${roundName(r.number)}: ${PHASE_TEXT[r.phase] || r.phase}.`;
  if (s.voided) return `${roundName(roundNumber)} void: every wager returned; a wager opens the next round.`;
  if (s.totals) return `${roundName(roundNumber)} settled; a wager opens the next round.`;
  if (table.status !== "open") return `This table is ${table.status}.`;
  return "Waiting for the first wager: a wager opens the round.";
}

/** The status bar. ``ctx``: ``state()`` and ``onInfo()`` (the info button pressed). */
export function statusView(ctx) {
  const table = ctx.state().table;
  let skew = 0; // the server's clock less ours, from the table's deadline and time left
  const phaseText = h("span", { id: "phase" });
  const countdown = h("span", { class: "countdown", id: "countdown", role: "timer", "aria-live": "off" });
  const conn = h("span", { id: "conn", class: "conn", role: "status" });
  const statusMsg = h("p", { id: "status-msg", role: "alert" });
  const infoBtn = h("button", { type: "button", id: "info-btn", class: "info-btn", "aria-controls": "side", "aria-expanded": "false", onclick: () => ctx.onInfo() },
    offers(ctx.state()).length ? "Info & pays" : "Table info");
  const el = h("section", { class: "statusbar", id: "status", "aria-label": "Round status" },
    h("div", { class: "status-line" }, h("h1", { class: "table-name" }, `Table ${table.id}: ${table.name}`), phaseText, countdown, conn, infoBtn), statusMsg);

  function render() {
    const state = ctx.state();
    const text = phaseLine(state);
    if (phaseText.textContent !== text) phaseText.textContent = text;
    const r = state.table.round;
    if (r && r.deadline !== null && r.time_left_s !== null) skew = r.deadline - r.time_left_s - Date.now() / 1000;
    el.dataset.phase = livePhase(state) || "idle";
  }

  function tick() {
    const state = ctx.state();
    const r = state.table.round;
    if (!r || r.deadline === null || !["betting", "setting"].includes(r.phase) || (r.id === state.roundId && r.phase !== livePhase(state))) {
      if (countdown.textContent) countdown.textContent = "";
      return;
    }
    const left = Math.max(0, r.deadline - (Date.now() / 1000 + skew));
    const label = r.phase === "betting" ? "Betting closes in" : "Time to set";
    const text = `${label}: ${left.toFixed(0)} s`;
    if (countdown.textContent !== text) countdown.textContent = text;
    countdown.classList.toggle("low", left < 10);
    countdown.title = r.phase === "setting" ? "At the time limit the house way sets any hand not set" : "";
  }
  const ticker = setInterval(tick, 250);

  /** An error in the player's words on the status line; ``extra`` fills in amounts. */
  function fail(err, extra = {}) {
    const t = ctx.state().table;
    statusMsg.className = "error";
    statusMsg.dataset.code = (err && err.code) || "";
    statusMsg.textContent = errorText(err, { balance: wallet.balance === null ? undefined : money(wallet.balance), limits: limitsText(t), minimum: money(t.min_wager), ...extra });
  }
  function clearMsg() { statusMsg.textContent = ""; statusMsg.className = ""; statusMsg.dataset.code = ""; }

  return {
    el, infoBtn, render, tick, fail, clearMsg,
    /** The error shown now, by its code ("" when none or one without a code). */
    errorCode: () => statusMsg.dataset.code,
    /** The connection's state in words ("" when connected). */
    showConn(text) { if (conn.textContent !== text) conn.textContent = text; conn.hidden = !text; },
    stop() { clearInterval(ticker); },
  };
}
