// Round events in words (the table's live log and game recall) and the round's state.
import { money } from "./api.js";

const OUTCOME = { win: "WIN", push: "PUSH", loss: "LOSS" };

/** A settled spot's outcome in one word; a push by the table's push rule is its own ("PUSH BY
 * RULE": the dealer's hand pushed every wager, whatever the hands). */
export const outcomeWord = (r) => (r.outcome === "push" && r.reason ? "PUSH BY RULE" : OUTCOME[r.outcome]);

/** A settled spot's money in words: "won $10.00, commission $0.50, returned $19.50",
 * "push, $10.00 returned", "lost $10.00"; why, in the server's words ("high win, low loss",
 * "foul: loses", from paigow.narrator) from the event's narration. */
export function settledWords(r) {
  const text = r.text || "";
  const m = /^spot \d+: (.*)$/.exec(text);
  if (m) return m[1];
  if (r.outcome === "win") return `won ${money(r.win)}, commission ${money(r.commission)}, returned ${money(r.returned)}`;
  if (r.outcome === "push") return `push, ${money(r.returned)} returned`;
  return `lost ${money(r.wager)}`;
}

export function positionName(p) {
  return p === 1 ? "the dealer" : `spot ${p - 1}`;
}

/** The positions counted from the dealer (1) counterclockwise up to ``total``. */
export function countPath(total) {
  const out = [];
  for (let i = 0; i < total; i++) out.push((i % 7) + 1);
  return out;
}

/** The push rule as posted: "dealer's queen-high pai gow: every wager pushes" -> "The dealer's
 * queen-high pai gow pushes every wager". */
export function pushPosted(posted) {
  const m = /^(.*): every wager pushes$/.exec(posted || "");
  const words = m ? `the ${m[1]} pushes every wager` : posted || "";
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The round's one name, the table's round number: "Round 12" (its id is for the API). */
export function roundName(number) {
  return number ? `Round ${number}` : "The round";
}

/** An event in words: the server's narration (``text``, from paigow.narrator, as this viewer may
 * read it), as a sentence; the round named by its number when ``number`` is known (the
 * narration names it by its id). */
export function describe(e, number = null) {
  let text = e.text || e.type;
  if (e.type === "round-started" && number) text = text.replace(/^round \S+ opens/, `${roundName(number)} opens`);
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}

/** The dragon hand's offer in ``st`` (from :func:`derive`): the spot whose turn it is, or null
 * when no offer is open (none made, accepted, or declined by all). */
export function dragonTurn(st) {
  const d = st.dragon;
  if (!d || d.by !== null || d.result || st.totals || st.voided) return null;
  return d.order.find((n) => !d.declined.includes(n)) ?? null;
}

/** The round's state after ``events`` (as a viewer saw them). */
export function derive(events) {
  const st = { wagers: {}, settings: {}, results: [], start: null, dealt: null, dealer: null, totals: null, voided: null, started: null,
    sides: {}, sideResults: [], envy: [], dragon: null };
  const dragon = () => (st.dragon ||= { spot: null, order: [], declined: [], by: null, amount: null, setting: null, result: null });
  for (const e of events) {
    switch (e.type) {
      case "round-started": st.started = e; break;
      case "wager-placed": st.wagers[e.spot] = e.amount; break;
      case "side-wager-placed": (st.sides[e.spot] ||= {})[e.name] = e.amount; break;
      case "side-wager-settled": st.sideResults.push(e); break;
      case "envy-paid": st.envy.push(e); break;
      case "start-chosen": st.start = e; break;
      case "dealt": st.dealt = e; break;
      case "hand-set": st.settings[e.spot] = { ...(st.settings[e.spot] || {}), ...e }; break;
      case "dealer-set":
        st.dealer = e;
        for (const [spot, s] of Object.entries(e.settings || {})) st.settings[spot] = { ...s, spot: Number(spot) };
        if (e.dragon) dragon().setting = e.dragon; // the showdown: the dragon hand's setting
        break;
      case "spot-settled": // a face-up table's showdown: the spot's setting comes with its result
        st.results.push(e);
        if (e.setting) st.settings[e.spot] = { ...(st.settings[e.spot] || {}), ...e.setting, spot: e.spot };
        break;
      case "dragon-offered": Object.assign(dragon(), { spot: e.spot, order: e.order }); break;
      case "dragon-declined": if (!dragon().declined.includes(e.spot)) dragon().declined.push(e.spot); break;
      case "dragon-accepted": Object.assign(dragon(), { by: e.spot, amount: e.amount }); break;
      case "dragon-set": // face down (no cards) until the showdown; the complete log shows them
        if (e.high) dragon().setting = { high: e.high, low: e.low, rule: e.rule };
        break;
      case "dragon-settled":
        Object.assign(dragon(), { result: e, by: e.by, spot: e.spot });
        if (e.setting) dragon().setting = e.setting; // a face-up table's showdown
        break;
      case "round-settled": st.totals = e; break;
      case "voided": st.voided = e; break;
      default: break;
    }
  }
  return st;
}
