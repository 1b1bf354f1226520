// The felt: the dealer (position 1, the bank) across from six spots, spot 1 at the dealer's far
// right; the dice (or the random number) and the count to the first packet; at a table with side
// wagers the live meters and the showdown's Envy and jackpot news; the dragon hand on its spot.
// Each spot shows who sits there, the chips, the cards (face down until they are yours or
// shown), how the hand was set, the result and the bonus hand.
import { money, session } from "./api.js";
import { h, patch } from "./dom.js";
import { backs, cardRow } from "./cards.js";
import { countPath, outcomeWord, positionName, settledWords } from "./describe.js";
import { dragonSpot, isDragonSpot } from "./dragon.js";
import { chip } from "./chips.js";
import { categoryLabel, meterLines, offerTitle, sideNews, sideWords } from "./side.js";
import { ended, inPlayWithoutPlayer, myCards, myDealtSpot, mySeat, myWagerSpot, offers, seatOf, showsRound } from "./table_state.js";

const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** The cards that make a bonus hand, marked at the showdown (``codes``: those the server names). */
function markBonus(rows, codes) {
  if (!codes.length) return rows;
  for (const row of rows) {
    for (const el of row.querySelectorAll(".card[data-card]")) {
      if (!codes.includes(el.dataset.card)) continue;
      el.classList.add("bonus");
      el.setAttribute("aria-label", `${el.getAttribute("aria-label")}, in the bonus hand`);
    }
  }
  return rows;
}

/** The codes the side wagers settled on ``whose`` cards mark (a spot's, or the dealer's: null),
 * and the cards an Envy paid on. */
function bonusCodes(s, whose) {
  const codes = s.sideResults.filter((e) => e.cards && (whose === null ? e.target && e.target.startsWith("dealer") : e.spot === whose && (e.target || "player") === "player")).flatMap((e) => e.cards);
  if (whose !== null) for (const e of s.envy) codes.push(...((e.marks || {})[String(whose)] || []));
  return codes;
}

function renderDealer(box, state) {
  const s = state.round;
  const d = s.dealer;
  const marked = bonusCodes(s, null);
  const k = [state.roundId, !!s.dealt, d ? [d.high, d.low, d.rule] : null, s.voided ? 1 : 0, s.results.some((x) => x.reason), marked];
  patch(box, k, () => {
    const out = [h("h2", { class: "seat-name" }, "Dealer")];
    if (d) {
      const pushed = s.results.find((x) => x.reason);
      out.push(h("div", { class: "hands", id: "dealer-hand" },
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), ...markBonus([cardRow(d.high, { small: true })], marked), h("strong", { class: "hname" }, d.high_name)),
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), ...markBonus([cardRow(d.low, { small: true })], marked), h("strong", { class: "hname" }, d.low_name))),
      // a push by the rule, once settled, in the rule's line (the box keeps its height)
      pushed ? h("p", { id: "dealer-push", class: "rule push-rule" }, settledWords(pushed).replace(/^.*\((.*)\)$/, "$1"))
        : h("p", { id: "dealer-rule", class: "rule" }, `${state.table.face_up ? "Face up, set" : "Set"} by the house way (${state.table.house_way}), rule ${d.rule}`));
    } else if (s.dealt && !s.voided) {
      out.push(backs(7), h("p", { class: "rule" }, "Face down until all have set"));
    } else {
      out.push(h("p", { class: "muted" }, "The bank: the house"));
    }
    return out;
  });
  box.classList.toggle("start", !!(s.start && s.start.position === 1 && !ended(s)));
}

function renderDice(box, state) {
  const s = state.round;
  const e = ended(s) || (state.table.face_up && s.dealer) ? null : s.start; // a face-up dealer's hand takes its room
  patch(box, e ? [state.roundId, e.number, e.position] : null, () => {
    if (!e) return [];
    const path = countPath(e.number);
    return [
      h("div", { class: "dice", id: "dice-shown" },
        e.method === "dice" ? e.dice.map((d) => h("span", { class: "die", role: "img", "aria-label": `die ${d}` }, String(d))) : h("span", { class: "die", role: "img", "aria-label": `random number ${e.number}` }, String(e.number)),
        h("strong", {}, e.method === "dice" ? ` = ${e.number}` : " (random number)")),
      h("p", { class: "count", id: "count" }, h("span", { class: "count-path" }, "Counting from the dealer: ",
        path.map((p, i) => h("span", { class: i === path.length - 1 ? "hit" : "" }, `${i + 1}:${p === 1 ? "D" : p - 1}${i < path.length - 1 ? " → " : ""}`)), " — "),
        h("span", {}, `first packet to ${positionName(e.position)}`)),
    ];
  });
}

/** The showdown's Envy and jackpot news, on the felt and to a screen reader. */
function renderNews(box, state) {
  const s = state.round;
  const news = [...s.envy, ...s.sideResults].map((e) => sideNews(e, state.table)).filter(Boolean);
  patch(box, [state.roundId, news], () => news.map((t) => h("p", { class: t.startsWith("JACKPOT") ? "news jackpot" : "news envy" }, t)));
}

/** Whether you may sit at spot ``n`` now. */
const canSitAt = (state, n) => !seatOf(state, n).occupied && !!session.user && mySeat(state) === null && state.table.status === "open";

/** Spot ``n``'s content as ``patch`` takes it: [key, build]. */
function spotContent(n, state, sit) {
  const s = state.round;
  const { username } = state;
  const seated = seatOf(state, n);
  const mine = myDealtSpot(state);
  const you = seated.player && seated.player === username;
  const show = showsRound(state, n);
  const wager = show ? s.wagers[n] : undefined;
  const sides = show ? s.sides[n] : undefined;
  const sideRes = show ? s.sideResults.filter((e) => e.spot === n) : [];
  const marked = show ? bonusCodes(s, n) : [];
  const dealt = show && s.dealt && s.dealt.spots.includes(n);
  const set = dealt ? s.settings[n] : null;
  const result = show ? s.results.find((x) => x.spot === n) : null;
  const cards = dealt && n === mine ? myCards(state) : null;
  const gone = inPlayWithoutPlayer(state, n);
  const who = state.players[n] || null;
  const canSit = !gone && canSitAt(state, n);
  const isStart = !!(s.start && s.start.position === n + 1 && !ended(s));
  const k = [seated.player, you, wager, sides, sideRes.map((e) => [e.name, e.hand, e.returned]), dealt, set ? [set.high, set.low, set.by, set.foul, set.reason] : null, cards, result ? [result.outcome, result.reason, result.text] : null,
    canSit, isStart, gone, who, ended(s), marked];
  return [k, () => {
    const out = [h("h2", { class: "seat-name" }, `Spot ${n}`, isStart ? h("span", { class: "start-badge", title: "The first packet of cards goes here" }, "1st") : null)];
    let name = "empty";
    if (seated.player) name = you ? `${seated.player} (you)` : seated.player;
    else if (gone) name = who ? `${who === username ? "you" : who} (left; in play)` : "in play (player left)";
    // "(you)" apart: a narrow spot keeps the whole name and leaves "you" to its gold frame
    out.push(h("p", { class: "player", title: name }, you ? [seated.player, h("span", { class: "you-tag" }, " (you)")] : name));
    if (wager) {
      const chips = h("span", { class: "spot-chips" }, chip(wager, `chip-${n}`));
      if (sides) {
        const c = chip(Object.values(sides).reduce((a, b) => a + b, 0), `side-chip-${n}`);
        c.classList.add("side-chip");
        c.setAttribute("aria-label", `side wagers: ${Object.entries(sides).map(([name, a]) => `${offerTitle(name)} ${money(a)}`).join(", ")}`);
        chips.prepend(c);
      }
      out.push(chips);
    }
    if (dealt) {
      if (set && set.high) {
        out.push(h("div", { class: "set-hands" },
          h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), ...markBonus([cardRow(set.high, { small: true, fan: true })], marked)),
          h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), ...markBonus([cardRow(set.low, { small: true, fan: true })], marked))));
      } else if (cards) {
        out.push(cardRow(cards, { small: true, fan: true }));
      } else {
        out.push(backs(7));
      }
      if (set) {
        const by = set.by === "player" ? "set" : `house way${set.reason ? ` (${set.reason === "left" ? "left" : set.reason})` : ""}`;
        out.push(h("p", { class: "set-by" }, set.foul ? h("strong", { class: "foul-tag" }, "FOUL ") : "", by));
      }
    }
    if (result) {
      out.push(h("p", { class: `result ${result.outcome}`, title: settledWords(result) },
        ended(s) ? h("span", { class: "past-tag" }, "last round: ") : null, outcomeWord(result) + (result.foul ? " (foul)" : "")));
    }
    if (sideRes.length) {
      const won = sideRes.some((e) => e.returned > 0);
      const hand = sideRes.find((e) => e.hand)?.hand;
      out.push(h("p", { class: `side-res${won ? " won" : ""}`, id: `side-res-${n}`, title: sideRes.map(sideWords).join("; ") },
        hand ? [h("span", { class: "sr-only" }, "Bonus hand: "), categoryLabel(hand)] : [h("span", { class: "sr-only" }, "Bonus hand: none"), h("span", { "aria-hidden": "true" }, "no bonus")],
        won ? h("span", { class: "amt" }, ` +${money(sideRes.reduce((a, e) => a + e.win, 0))}`) : ""));
    }
    if (canSit) out.push(h("button", { type: "button", id: `sit-${n}`, class: "sit", onclick: () => sit(n) }, `Sit at spot ${n}`));
    return out;
  }];
}

/** The felt. ``ctx``: ``state()`` and ``sit(n)`` (sit at spot ``n``). */
export function feltView(ctx) {
  const dealerBox = h("div", { class: "dealer", id: "dealer", "data-position": 1, role: "group", "aria-label": "Dealer, position 1, the bank" });
  const diceBox = h("div", { id: "dice", class: "dice-box", "aria-live": "polite" });
  const meterBox = h("div", { id: "meters", class: "meters", role: "group", "aria-label": "Progressive meters, live" });
  const newsBox = h("div", { id: "side-news", class: "side-news", role: "status", "aria-live": "polite" });
  const corner = h("div", { class: "felt-corner", id: "felt-corner" }, meterBox, diceBox, newsBox);
  const spotsBox = h("div", { class: "spots", id: "spots" });
  const spotEls = {};
  for (let n = 1; n <= 6; n++) {
    spotEls[n] = h("div", { class: "spot", id: `spot-${n}`, "data-position": n + 1, role: "group", "aria-label": `Spot ${n}${n === 1 ? ", at the dealer's far right" : ""}` });
    spotsBox.append(spotEls[n]);
  }
  const el = h("section", { class: "felt", id: "felt", "aria-label": "The table: the dealer across from six spots, spot 1 at the dealer's far right" }, dealerBox, corner, spotsBox);

  function renderSpots(state) {
    const s = state.round;
    const seated = mySeat(state);
    const dragonCtx = { mine: () => myWagerSpot(state), ended, sit: ctx.sit, canSit: (n) => canSitAt(state, n) };
    for (let n = 1; n <= 6; n++) {
      const spotEl = spotEls[n];
      const dragon = isDragonSpot(n, s);
      const [k, build] = dragon ? dragonSpot(n, s, dragonCtx) : spotContent(n, state, ctx.sit);
      patch(spotEl, k, build);
      spotEl.classList.toggle("dragon", dragon);
      spotEl.classList.toggle("mine", n === seated);
      spotEl.classList.toggle("start", !!(s.start && s.start.position === n + 1 && !ended(s)));
    }
    el.classList.toggle("past", ended(s));
  }

  return {
    el,
    render() {
      const state = ctx.state();
      renderDealer(dealerBox, state);
      renderDice(diceBox, state);
      renderNews(newsBox, state);
      patch(meterBox, [state.table.meters, offers(state).map((o) => o.bank)], () => meterLines(state.table));
      renderSpots(state);
    },
    /** The packets go out one by one, counterclockwise from the starting position (``e.order``):
     * each position that gets one lights up and its cards slide in from the dealer's side. */
    animateDeal(e) {
      if (reducedMotion()) return;
      e.order.forEach((p, i) => {
        const posEl = el.querySelector(`[data-position="${p}"]`);
        if (!posEl) return;
        const row = posEl.querySelector(".cards");
        if (row) { row.style.setProperty("--deal-delay", `${i * 140}ms`); row.classList.add("dealing"); }
        setTimeout(() => {
          posEl.classList.remove("got-packet");
          void posEl.offsetWidth;
          posEl.classList.add("got-packet");
        }, 140 * i);
      });
    },
  };
}
