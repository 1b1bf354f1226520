// The dragon hand at a table that offers it: its spot on the felt (the packet of an empty spot,
// offered in turn from the starting position, face down until the showdown, then its setting and
// its result) and the offer to the player whose turn it is (an amount from the table minimum to
// their own wager: wager on it, or decline).
import { api, key, money, parseCents, setBalance } from "./api.js";
import { h, announce } from "./dom.js";
import { backs, cardRow } from "./cards.js";
import { chip } from "./chips.js";
import { dragonTurn } from "./describe.js";

const OUTCOME = { win: "WIN", push: "PUSH", loss: "LOSS" };

/** Whether spot ``n`` holds the dragon hand in the round state ``s``. */
export function isDragonSpot(n, s) {
  return !!(s.dragon && s.dragon.spot === n && !s.wagers[n]);
}

/** Where the offer stands, in words: "offered to spot 4", "offered to you", "spot 1 wagers
 * $5.00", "declined by all". ``mine``: the spot you wagered on (or null). */
export function dragonStatus(s, mine) {
  const d = s.dragon;
  if (!d) return "";
  const turn = dragonTurn(s);
  if (turn !== null) return turn === mine ? "offered to you" : `offered to spot ${turn}`;
  if (d.by !== null) return `spot ${d.by}${d.by === mine ? " (you)" : ""} wagers ${money(d.amount ?? d.result?.wager ?? 0)}`;
  if (s.voided) return "not played (void)";
  return d.order.length && d.declined.length >= d.order.length ? "declined by all" : "";
}

/** The dragon hand's result in words, from its settlement's narration ("won $5.00, ..."). */
export function dragonWords(r) {
  const m = /^dragon hand \(spot \d+'s packet\) of spot \d+: (.*)$/.exec(r.text || "");
  return m ? m[1] : `${r.outcome}, returned ${money(r.returned)}`;
}

/** Where the offer stands, for the spot: who wagers apart from what ("spot 3 (you)" and " wagers
 * $7.50"), so that a narrow spot shows who beside the chip that shows what. */
function stateWords(status) {
  const m = /^(spot \d+(?: \(you\))?)( wagers .*)$/.exec(status);
  return m ? [m[1], h("span", { class: "state-what" }, m[2])] : status;
}

/** The dragon's spot on the felt, as ``patch`` takes it: [key, build]. ``ctx``: ``mine()`` (the
 * spot you wagered on), ``ended(s)``, ``canSit(n)`` and ``sit(n)``. */
export function dragonSpot(n, s, ctx) {
  const d = s.dragon;
  const mine = ctx.mine();
  const ended = ctx.ended(s);
  const status = dragonStatus(s, mine);
  const canSit = ended && ctx.canSit(n);
  const k = ["dragon", n, status, d.setting ? [d.setting.high, d.setting.low] : null, d.result ? [d.result.outcome, d.result.text] : null, ended, canSit];
  return [k, () => {
    const out = [h("h2", { class: "seat-name" }, `Spot ${n}`),
      h("p", { class: "player dragon-name", title: "The dragon hand: this empty spot's cards, offered to the players in turn" }, "Dragon", h("span", { class: "word-long" }, " hand"))];
    if (d.by !== null && d.amount) {
      const c = chip(d.amount, "dragon-chip");
      c.setAttribute("aria-label", `dragon wager ${money(d.amount)} by spot ${d.by}`);
      out.push(h("span", { class: "spot-chips" }, c));
    }
    if (status) out.push(h("p", { class: "dragon-state", id: "dragon-state", title: status }, stateWords(status)));
    if (canSit) { // the round is over: the spot is free again
      if (d.result) out.push(h("p", { class: `result ${d.result.outcome}`, id: "dragon-result", title: dragonWords(d.result) }, OUTCOME[d.result.outcome]));
      out.push(h("button", { type: "button", id: `sit-${n}`, class: "sit", onclick: () => ctx.sit(n) }, `Sit at spot ${n}`));
      return out;
    }
    if (d.setting && d.setting.high) {
      out.push(h("div", { class: "set-hands", id: "dragon-hands" },
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), cardRow(d.setting.high, { small: true, fan: true })),
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), cardRow(d.setting.low, { small: true, fan: true }))));
      out.push(h("p", { class: "set-by rule-by" }, `house way${d.setting.rule ? `, ${d.setting.rule}` : ""}`));
    } else if (!s.voided && (d.by !== null || dragonTurn(s) !== null)) {
      out.push(backs(7));
    }
    if (d.result) {
      out.push(h("p", { class: `result ${d.result.outcome}`, id: "dragon-result", title: dragonWords(d.result) },
        ended ? h("span", { class: "past-tag" }, "last round: ") : null, OUTCOME[d.result.outcome]));
    }
    return out;
  }];
}

/** The offer to you when it is your turn (null otherwise): an amount from the table minimum to
 * your own wager, wager on it or decline. ``ctx``: ``table()``, ``roundId()``, ``fail(err,
 * words)``, ``clearMsg()`` and ``done()`` (after an answer). */
export function dragonOffer(s, mine, ctx) {
  if (mine === null || dragonTurn(s) !== mine) return null;
  const table = ctx.table();
  const lo = table.min_wager;
  const hi = s.wagers[mine];
  const range = `${money(lo)}–${money(hi)}`;
  const amount = h("input", { id: "dragon-amount", inputmode: "decimal", autocomplete: "off", value: (lo / 100).toFixed(2), "aria-describedby": "dragon-range" });
  const answer = async (accept) => {
    const body = { accept, idempotency_key: key(), round_id: ctx.roundId() };
    if (accept) {
      const cents = parseCents(amount.value);
      if (!Number.isFinite(cents) || cents < lo || cents > hi) {
        ctx.fail(new Error(`A dragon wager is from the table minimum to your own wager: ${range}.`));
        amount.focus();
        return;
      }
      body.amount = cents;
    }
    try {
      const r = await api("POST", `/api/tables/${table.id}/dragon`, body);
      if (r.balance !== null && r.balance !== undefined && !r.play_money) setBalance(r.balance); // practice: play money
      announce(accept ? `Dragon wager of ${money(r.amount)} accepted; balance ${money(r.balance)}` : "You declined the dragon hand");
      ctx.clearMsg();
      ctx.done();
    } catch (err) {
      ctx.fail(err, { amount: accept ? money(body.amount) : undefined, limits: range });
    }
  };
  return h("form", {
    id: "dragon-offer", class: "dragon-offer", role: "group", "aria-labelledby": "dragon-q",
    onsubmit: (ev) => { ev.preventDefault(); answer(true); },
  },
  h("span", { id: "dragon-q", class: "dragon-q" }, h("span", { class: "q-long" }, `Dragon hand (spot ${s.dragon.spot}'s cards): your turn`),
    h("span", { class: "q-short" }, `Dragon (spot ${s.dragon.spot}):`)),
  h("label", { class: "dragon-amount" }, h("span", { class: "dragon-word" }, "Wager ", h("span", { id: "dragon-range", class: "muted" }, `(${range})`)), amount),
  h("button", { type: "submit", class: "primary small", id: "dragon-accept" }, "Wager"),
  h("button", { type: "button", class: "small", id: "dragon-decline", onclick: () => answer(false) }, "Decline"));
}
