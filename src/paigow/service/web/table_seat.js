// Your seat: what you can do now (sit, wager, add a side wager, answer the dragon's offer, leave
// the spot, asked first while your wager is in play), your hand (hand.js: set it, or your two
// hands once set) and your result in one line (outcome, why, the main wager's and the side
// wagers' amounts, the net).
import { api, money, session, signed, wallet } from "./api.js";
import { h, announce, errorText, patch } from "./dom.js";
import { dragonTurn, outcomeWord, settledWords } from "./describe.js";
import { dragonOffer, dragonWords } from "./dragon.js";
import { chip } from "./chips.js";
import { handView } from "./hand.js";
import { offerTitle, sideSummary, sideWords } from "./side.js";
import { betView, showPlayBalance } from "./table_bet.js";
import { ended, livePhase, myCards, myDealtSpot, mySeat, myWagerSpot, offers, stillSetting } from "./table_state.js";

/** Your seat. ``ctx``: ``state()``, ``dispatch(action)``, ``fail(err, words)``, ``clearMsg()``,
 * ``refresh()`` (fetch the table's state now; a promise), ``later()`` (fetch it soon),
 * ``practice`` (a practice table) and ``showEv()`` (the practice help's exact EV). */
export function seatView(id, ctx) {
  const controls = h("div", { id: "controls", role: "group", "aria-labelledby": "controls-title" });
  const handPanel = h("div", { class: "hand-panel", id: "hand-panel", role: "group", "aria-labelledby": "hand-title", hidden: true });
  const myResult = h("p", { id: "my-result", "aria-live": "polite", hidden: true });
  const el = h("section", { class: "seat", id: "seat", "aria-label": "Your spot" }, controls, handPanel, myResult);
  const bet = betView(id, { state: ctx.state, fail: ctx.fail, clearMsg: ctx.clearMsg, placed: ctx.later });

  const hand = handView(handPanel, {
    table: () => ctx.state().table, roundId: () => ctx.state().roundId,
    // a round over, seated at another spot than the one dealt: that hand is no longer your seat's
    cards: () => {
      const state = ctx.state();
      return ended(state.round) && ![null, myDealtSpot(state)].includes(mySeat(state)) ? null : myCards(state);
    },
    spot: () => myDealtSpot(ctx.state()), state: () => ctx.state().round, ended,
    stillSetting: () => stillSetting(ctx.state()), practice: ctx.practice, showEv: ctx.showEv, fail: (err) => ctx.fail(err), clearMsg: ctx.clearMsg,
    onSetting: (open) => el.classList.toggle("setting", open),
  });

  async function sit(n) {
    try {
      await api("POST", `/api/tables/${ctx.state().table.id}/sit`, { spot: n });
      announce(`You sit at spot ${n}`);
      ctx.clearMsg();
      await ctx.refresh();
      const f = document.getElementById("wager-amount");
      if (f) f.focus({ preventScroll: true });
    } catch (err) { ctx.fail(err); }
  }

  async function leave() {
    const state = ctx.state();
    const spot = mySeat(state);
    const inPlay = spot !== null && !!state.round.wagers[spot] && !ended(state.round);
    try {
      const r = await api("POST", `/api/tables/${state.table.id}/leave`);
      ctx.dispatch({ type: "you-left", spot, inPlay });
      announce(r.hand_set ? "You left the spot; the house way set your hand" : "You left the spot");
      ctx.clearMsg();
      await ctx.refresh();
    } catch (err) { ctx.fail(err); }
  }

  function leaveButton(inPlay) {
    if (!inPlay) {
      return h("button", { type: "button", id: "leave-btn", class: "small", onclick: () => leave() }, "Leave the spot");
    }
    const state = ctx.state();
    if (!state.leaving) {
      return h("button", { type: "button", id: "leave-btn", class: "small", onclick: () => { ctx.dispatch({ type: "leave-question", open: true }); document.getElementById("leave-confirm")?.focus(); } }, "Leave the spot…");
    }
    const s = state.round;
    const spot = myWagerSpot(state);
    const set = spot && s.settings[spot];
    return h("div", { class: "leave-ask", id: "leave-ask", role: "alertdialog", "aria-labelledby": "leave-q" },
      h("p", { id: "leave-q" }, `Your ${money(s.wagers[spot] || 0)} wager stays in play: `,
        set ? "your hand is set; " : "the house way sets your hand at once; ", "the result goes to your wallet. Leave now?"),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger small", id: "leave-confirm", onclick: () => leave() }, "Leave; play it out"),
        h("button", { type: "button", class: "small", id: "leave-cancel", onclick: () => { ctx.dispatch({ type: "leave-question", open: false }); document.getElementById("leave-btn")?.focus(); } }, "Stay")));
  }

  /** A practice table's line: it plays for play money (never the wallet), with a top-up. */
  function practiceMoney() {
    const shown = h("strong", { id: "play-balance" }, "…");
    const msg = h("span", { id: "play-msg", role: "status" });
    api("GET", "/api/me").then((me) => showPlayBalance(me.play_balance ?? 0), () => {});
    const topUp = async () => {
      try {
        const r = await api("POST", "/api/me/play-money", { amount: 50_000, idempotency_key: `play-${Date.now()}` });
        showPlayBalance(r.play_balance);
        msg.textContent = "";
        announce(`Play money topped up to ${money(r.play_balance)}`);
      } catch (err) { msg.textContent = errorText(err); }
    };
    return h("p", { class: "practice-note", id: "practice-money" }, "Play money ", shown, " (not your wallet) ",
      h("button", { type: "button", class: "small", id: "play-top-up", "aria-label": "+$500 of play money", onclick: topUp }, "+$500"), " ", msg);
  }

  function renderControls(state) {
    const { table, roundId } = state;
    const seated = mySeat(state);
    const s = state.round;
    const phase = ended(s) ? (table.round && table.round.id !== roundId ? table.round.phase : null) : livePhase(state);
    const wagered = seated !== null && !!s.wagers[seated] && !ended(s);
    const canWager = seated !== null && !wagered && (phase === null || phase === "betting") && table.status === "open";
    const poor = table.mode !== "practice" && wallet.balance !== null && wallet.balance < table.min_wager; // practice: play money
    const offered = wagered && dragonTurn(s) === seated ? [roundId, s.dragon.spot] : null; // the dragon hand: your turn
    const leftHere = state.leftMidRound !== null && state.leftMidRound === roundId && !ended(s);
    const k = [!!session.user, seated, wagered ? s.wagers[seated] : null, wagered ? s.sides[seated] || null : null, offers(state).length, wagered && offers(state).length ? phase : null, canWager, table.min_wager, table.max_wager, state.leaving, poor, leftHere, offered];
    patch(controls, k, () => {
      const out = [h("h2", { id: "controls-title", class: "sr-only" }, "Your spot")];
      if (!session.user) {
        out.push(h("p", {}, "Watching. ", h("a", { href: "#/lobby" }, "Log in"), " to play."));
        return out;
      }
      if (seated === null) {
        if (leftHere) out.push(h("p", { id: "left-note" }, "You left the spot: your wager plays out and its result goes to your wallet."));
        if (poor) {
          out.push(h("p", { id: "wallet-hint", class: "hint-money" }, `Your wallet has ${money(wallet.balance)}: this table's minimum wager is ${money(table.min_wager)}. Ask the operator to credit your wallet, then sit.`));
        } else {
          out.push(h("p", {}, "Choose a free spot on the table to sit."));
        }
        return out;
      }
      if (canWager) {
        if (table.mode === "practice") out.push(practiceMoney());
        out.push(bet.form(leaveButton(false)));
      } else if (wagered) {
        const mySides = Object.entries(s.sides[seated] || {});
        out.push(h("div", { class: "row seat-actions" }, h("p", { id: "my-wager" }, h("span", { class: "wager-word" }, "Your wager "), chip(s.wagers[seated]), ` ${money(s.wagers[seated])}`,
          mySides.length ? h("span", { id: "my-side", title: mySides.map(([n, a]) => `${offerTitle(n)} ${money(a)}`).join(", ") },
            ` + ${money(mySides.reduce((x, [, a]) => x + a, 0))} side`, h("span", { class: "sr-only" }, `: ${mySides.map(([n, a]) => `${offerTitle(n)} ${money(a)}`).join(", ")}`)) : null), leaveButton(true)));
        if (offered) out.push(dragonOffer(s, seated, { table: () => ctx.state().table, roundId: () => ctx.state().roundId, fail: ctx.fail, clearMsg: ctx.clearMsg, done: ctx.later }));
        if (phase === "betting") out.push(bet.lateRow(s.sides[seated] || {}));
      } else {
        out.push(h("div", { class: "row seat-actions" }, h("p", {}, `Spot ${seated}: a round is in play; you can wager when it is over.`), leaveButton(false)));
      }
      return out;
    });
  }

  // the price of your setting, fetched once your spot is settled at a table that prices them
  const prices = new Map(); // round id -> the line's text, once priced
  function fetchPrice(rid, tries = 40) {
    if (prices.has(rid)) return;
    prices.set(rid, null);
    const poll = async (left) => {
      try {
        const r = await api("GET", `/api/me/review/${rid}`);
        if (r.status === "pending" && left > 0) { setTimeout(() => poll(left - 1), 150); return; }
        const hand = r.hands.find((x) => !x.dragon && x.status === "priced");
        if (!hand) return;
        prices.set(rid, { text: `; gave up ${hand.given_up_dollars}`, title: `Your setting's EV ${hand.played.ev_dollars}, the best ${hand.best.ev_dollars}, the house way's ${hand.house_way.ev_dollars} for this wager (My play)` });
        renderResult(ctx.state());
      } catch { /* no price shown */ }
    };
    poll(tries);
  }

  /** Your result in one line, once your spot is settled (or the round void). */
  function renderResult(state) {
    const s = state.round;
    const mine = myWagerSpot(state);
    const r = mine ? s.results.find((x) => x.spot === mine) : null;
    const mySide = r ? s.sideResults.filter((e) => e.spot === mine) : [];
    const myEnvy = r ? s.envy.filter((e) => e.spot === mine) : [];
    const myDragon = r && s.dragon && s.dragon.result && s.dragon.result.by === mine ? s.dragon.result : null;
    if (r && state.table.price_settings) fetchPrice(state.roundId);
    const price = r ? prices.get(state.roundId) : null;
    patch(myResult, [state.roundId, r ? [r.outcome, r.text] : null, s.voided ? 1 : 0, mySide.map((e) => [e.name, e.returned]), myEnvy.length, myDragon ? myDragon.returned : null, price && price.text], () => {
      if (s.voided && mine) return [h("strong", {}, "VOID: "), "your wager was returned."];
      if (!r) return [];
      const sideNet = mySide.reduce((a, e) => a + e.returned - e.wager, 0) + myEnvy.reduce((a, e) => a + e.amount, 0);
      const net = r.returned - r.wager + sideNet + (myDragon ? myDragon.returned - myDragon.wager : 0);
      const words = settledWords(r);
      const cut = words.lastIndexOf(" (");
      return [h("strong", { class: `result ${r.outcome}` }, outcomeWord(r)), h("span", { class: "words" }, ` You ${cut > 0 ? words.slice(0, cut) : words}`),
        cut > 0 ? h("span", { class: "why" }, words.slice(cut)) : null, h("span", { class: "main-short" }, ` main ${signed(r.returned - r.wager)}`),
        mySide.length ? h("span", { class: "my-side-result", id: "my-side-result", title: mySide.map(sideWords).join("; ") }, sideSummary(mySide)) : null,
        myEnvy.length ? h("span", { id: "my-envy" }, `; Envy ${money(myEnvy.reduce((a, e) => a + e.amount, 0))}`) : null,
        myDragon ? h("span", { id: "my-dragon", title: dragonWords(myDragon) }, `; dragon ${outcomeWord(myDragon)}`) : null,
        "; ", h("span", { class: "net" }, `net ${signed(net)}`),
        price ? h("a", { id: "my-price", class: "my-price", href: "#/review", title: price.title }, price.text, h("span", { class: "sr-only" }, ` against the best setting. ${price.title}`)) : null];
    });
    myResult.hidden = !myResult.childNodes.length;
    myResult.className = r ? `my-result ${r.outcome}` : "my-result";
  }

  return {
    el, sit, hand,
    render() {
      const state = ctx.state();
      renderControls(state);
      hand.render();
      renderResult(state);
    },
  };
}
