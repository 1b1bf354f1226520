// A table on one screen: the status bar, the felt (the dealer across from six spots) and your
// seat (the wager, your seven cards, your result) always in view; the posted rules, the round's
// results, your wallet, the practice help and the events in a side panel (a drawer on a phone).
// A table with side wagers adds a bonus circle beside the main wager, its pay tables in the side
// panel, the live meter and the showdown's bonus hands and Envy and jackpot news on the felt.
// A table offering the dragon hand shows it on its empty spot and the offer in your seat.
import { api, session, sessionEnded, SESSION_ENDED, key, money, parseCents, signed, wallet, setBalance } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { cardRow, backs, cardsText, cardName, sortCards } from "./cards.js";
import { walletLines, memoText } from "./wallet_lines.js";
import { describe, derive, countPath, dragonTurn, positionName, pushPosted, roundName } from "./describe.js";
import { dragonOffer, dragonSpot, dragonStatus, dragonWords, isDragonSpot } from "./dragon.js";
import { DENOMINATIONS, chip, chipButton } from "./chips.js";
import { handView } from "./hand.js";
import { categoryLabel, meterLines, offerLimits, offerTitle, payTables, sideNews, sideSummary, sideWords } from "./side.js";

export { chipLabel } from "./chips.js";

const PHASE_TEXT = {
  betting: "Betting is open", shuffled: "Shuffling", starting: "Choosing the starting position",
  setting: "Players set their hands", dealer: "The dealer reveals and sets; settling",
  settled: "Settled", voided: "Void",
};
const OUTCOME = { win: "WIN", push: "PUSH", loss: "LOSS" };
/** A settled spot's outcome in one word; a push by the table's push rule is its own ("PUSH BY
 * RULE": the dealer's hand pushed every wager, whatever the hands). */
const outcomeWord = (r) => (r.outcome === "push" && r.reason ? "PUSH BY RULE" : OUTCOME[r.outcome]);
const BACKOFF_S = [0.5, 1, 2, 4, 8];
const MONEY_ERRORS = ["no-money", "insufficient-funds"];
const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Replace ``el``'s children by ``build()`` only when ``k`` differs from what it shows now. */
function patch(el, k, build) {
  const sig = typeof k === "string" ? k : JSON.stringify(k);
  if (el.dataset.sig === sig) return false;
  el.dataset.sig = sig;
  el.replaceChildren(...[build()].flat().filter((x) => x !== null && x !== undefined && x !== false));
  return true;
}

/** A settled spot's money in words: "won $10.00, commission $0.50, returned $19.50",
 * "push, $10.00 returned", "lost $10.00"; why, in the server's words ("high win, low loss",
 * "foul: loses", from paigow.narrator) from the event's narration. */
function settledWords(r) {
  const text = r.text || "";
  const m = /^spot \d+: (.*)$/.exec(text);
  if (m) return m[1];
  if (r.outcome === "win") return `won ${money(r.win)}, commission ${money(r.commission)}, returned ${money(r.returned)}`;
  if (r.outcome === "push") return `push, ${money(r.returned)} returned`;
  return `lost ${money(r.wager)}`;
}

export async function tableView(root, shell, id) {
  const navStart = window.paigowNavStart ?? 0;
  window.paigowReadyMs = undefined;
  let table = await api("GET", `/api/tables/${id}`);
  const me = session.user ? await shell.refreshWho() : null;
  const username = me ? me.username : null;
  if (me && wallet.balance === null) setBalance(me.balance);
  const wagerKey = `paigow.wager.${id}`;
  let events = [];
  let roundId = null;
  let roundNumber = null;
  let players = {}; // spot -> who wagered there in the round shown (as far as known)
  let evPromise = null;
  let evFor = null;
  let skew = 0;
  let closed = false;
  let ws = null;
  let attempt = 0;
  let retryTimer = null;
  let fetchTimer = null;
  let walletTimer = null;
  let connected = false;
  let leaving = false; // the mid-round leave question is open
  let leftMidRound = null; // the round you left with a wager in play (your spot shows it as yours)
  document.body.classList.add("at-table");

  // ------------------------------------------------------------------ skeleton
  const phaseText = h("span", { id: "phase" });
  const countdown = h("span", { class: "countdown", id: "countdown", role: "timer", "aria-live": "off" });
  const conn = h("span", { id: "conn", class: "conn", role: "status" });
  const statusMsg = h("p", { id: "status-msg", role: "alert" });
  const infoBtn = h("button", { type: "button", id: "info-btn", class: "info-btn", "aria-controls": "side", "aria-expanded": "false", onclick: () => openSide(!side.classList.contains("open")) },
    (table.side_wagers || []).length ? "Info & pays" : "Table info");
  const status = h("section", { class: "statusbar", id: "status", "aria-label": "Round status" },
    h("div", { class: "status-line" }, h("h1", { class: "table-name" }, `Table ${table.id}: ${table.name}`), phaseText, countdown, conn, infoBtn), statusMsg);
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
  const felt = h("section", { class: "felt", id: "felt", "aria-label": "The table: the dealer across from six spots, spot 1 at the dealer's far right" }, dealerBox, corner, spotsBox);
  const controls = h("div", { id: "controls", role: "group", "aria-labelledby": "controls-title" });
  const handPanel = h("div", { class: "hand-panel", id: "hand-panel", role: "group", "aria-labelledby": "hand-title", hidden: true });
  const myResult = h("p", { id: "my-result", "aria-live": "polite", hidden: true });
  const seat = h("section", { class: "seat", id: "seat", "aria-label": "Your spot" }, controls, handPanel, myResult);

  const posted = h("div", { class: "posted", id: "posted", role: "region", "aria-label": "Posted at this table" });
  const offers = () => table.side_wagers || [];
  const payPanel = offers().length ? h("section", { class: "panel pay-tables", id: "pay-tables", "aria-labelledby": "pay-tables-title" }) : null;
  let returns = null; // a practice table's exact returns of its side wagers (the server's answer)
  let returnsTimer = null;
  let sideBet = {}; // the side wagers being built: name -> cents
  try { sideBet = JSON.parse(localStorage.getItem(`paigow.side.${id}`) || "{}") || {}; } catch { sideBet = {}; }
  const practicePanel = table.mode === "practice" ? h("section", { class: "panel", id: "practice", "aria-labelledby": "practice-title" }) : null;
  const resultsPanel = h("section", { class: "panel", id: "results-panel", "aria-labelledby": "results-title" });
  const walletPanel = h("section", { class: "panel", id: "wallet", "aria-labelledby": "wallet-title" });
  const logList = h("ol", { class: "log", id: "log", tabindex: 0, "aria-label": "Table events, oldest first" });
  const logPanel = h("section", { class: "panel", id: "log-panel", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Table events"),
    h("div", { "aria-live": "polite", "aria-relevant": "additions", id: "log-live" }, logList));
  const links = h("p", { class: "links" }, h("a", { href: `#/recall/${table.id}` }, "Recall: the last ten rounds"), " · ", h("a", { href: `#/rules/${table.id}`, id: "rules-link" }, "How to play (the rules and this table's house way)"));
  const closeSide = h("button", { type: "button", id: "side-close", class: "side-close", onclick: () => { openSide(false); infoBtn.focus(); } }, "Close");
  const side = h("aside", { class: "side", id: "side", "aria-label": "Table info: the posted rules, results, your wallet and the events" },
    h("div", { class: "side-head" }, h("h2", {}, "Table info"), closeSide),
    posted, payPanel, resultsPanel, practicePanel, walletPanel, logPanel, links);

  root.append(h("div", { class: "table-app", id: "table-app" }, status, h("div", { class: "game", id: "game" }, felt, seat), side));

  /** Open (or close) the side panel; on a wide screen it is a column and always open. */
  function openSide(open) {
    side.classList.toggle("open", open);
    infoBtn.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) closeSide.focus();
  }
  const onKey = (ev) => { if (ev.key === "Escape" && side.classList.contains("open")) { openSide(false); infoBtn.focus(); } };
  document.addEventListener("keydown", onKey);

  const st = () => derive(events);
  const seatOf = (n) => table.spots.find((x) => x.spot === n) || { spot: n, player: null, occupied: false };
  const mySeat = () => {
    const s = table.spots.find((x) => x.player && x.player === username);
    return s ? s.spot : null;
  };
  const myDealtSpot = () => {
    const d = st().dealt;
    if (!d || !d.your_cards) return null;
    const spots = Object.keys(d.your_cards).map(Number);
    const seated = mySeat();
    return spots.includes(seated) ? seated : spots[0];
  };
  const myCards = () => {
    const spot = myDealtSpot();
    return spot ? sortCards(st().dealt.your_cards[String(spot)]) : null;
  };
  const ended = (s) => !!(s.totals || s.voided);
  const faceUp = () => !!table.face_up;
  /** The spot you wagered on in the round shown (seated or not). */
  const myWagerSpot = () => {
    const s = st();
    const d = myDealtSpot();
    if (d) return d;
    const seated = mySeat();
    if (seated !== null && s.wagers[seated] && players[seated] === username) return seated;
    const found = Object.keys(s.wagers).map(Number).find((n) => players[n] === username && username);
    return found ?? null;
  };
  /** A spot with a wager in play this round but nobody seated: its player left mid-round. */
  const inPlayWithoutPlayer = (n, s) => !ended(s) && !!s.wagers[n] && !seatOf(n).occupied;
  /** Whether spot ``n`` shows the round on display: not after a settled round it did not play. */
  const showsRound = (n, s) => {
    if (!ended(s)) return true;
    const who = players[n];
    return who === undefined || who === (seatOf(n).player || null);
  };
  const limitsText = () => `${money(table.min_wager)} to ${money(table.max_wager)}`;
  const fail = (err, ctx = {}) => {
    statusMsg.className = "error";
    statusMsg.dataset.code = (err && err.code) || "";
    statusMsg.textContent = errorText(err, { balance: wallet.balance === null ? undefined : money(wallet.balance), limits: limitsText(), minimum: money(table.min_wager), ...ctx });
  };
  const clearMsg = () => { statusMsg.textContent = ""; statusMsg.className = ""; statusMsg.dataset.code = ""; };
  /** The wallet changed: a "too little money" error is stale once the wallet covers the minimum. */
  const onBalance = () => {
    if (MONEY_ERRORS.includes(statusMsg.dataset.code) && wallet.balance !== null && wallet.balance >= table.min_wager) clearMsg();
    renderControls();
  };
  document.addEventListener("paigow:balance", onBalance);

  // ------------------------------------------------------------------ posted
  function renderPosted() {
    patch(posted, [table.commission_posted, table.push_posted, table.face_up, table.dragon, table.min_wager, table.max_wager, table.house_way, table.house_way_label, table.start, table.mode, table.foul, table.status], () => [
      h("span", { id: "posted-commission" }, table.commission === "0" ? "No commission (posted, 9-1(f))" : `Commission ${table.commission_posted} of each win (posted, 9-1(f))`),
      table.push_posted ? h("span", { id: "posted-push", class: "variant" }, pushPosted(table.push_posted)) : null,
      table.face_up ? h("span", { id: "posted-face-up", class: "variant" }, "Face up: the dealer's cards are shown and set before you set") : null,
      table.dragon ? h("span", { id: "posted-dragon", class: "variant" }, "Dragon hand: an empty spot's cards offered to the players in turn, from the table minimum up to your own wager") : null,
      h("span", { id: "posted-limits" }, `Limits ${money(table.min_wager)} – ${money(table.max_wager)}`),
      h("span", { id: "posted-house-way" }, `House way: ${table.house_way_label || table.house_way}`),
      h("span", {}, `Start: ${table.start === "dice" ? "three dice" : "random number"}`),
      h("span", { id: "posted-mode" }, table.mode === "practice" ? "Practice table" : "Casino table"),
      table.mode === "practice" ? h("span", { id: "posted-money" }, "Wagers here are real money from your wallet; only the help is extra") : null,
      h("span", {}, table.foul === "loses" ? "A foul hand loses" : "A foul is reset by the house way"),
      offers().length ? h("span", { id: "posted-side" }, `Side wagers: ${offers().map((o) => `${offerTitle(o.name)} ${offerLimits(o)}`).join(", ")} (pay tables below)`) : null,
      table.status !== "open" ? h("span", { class: "error" }, `Table ${table.status}`) : null,
    ]);
    renderPays();
  }

  /** The pay tables in the side panel (a practice table's exact returns among them). */
  function renderPays() {
    if (!payPanel) return;
    patch(payPanel, [table.side_wagers, table.meters, table.mode, returns], () => payTables(table, returns));
  }

  /** A practice table asks the server for its side wagers' exact returns (again while the
   * house way's bonus hands are being counted, and when a meter moves). */
  async function fetchReturns() {
    if (!payPanel || table.mode !== "practice" || closed) return;
    clearTimeout(returnsTimer);
    try {
      returns = await api("GET", `/api/web/tables/${table.id}/side-returns`);
    } catch { returns = null; }
    renderPays();
    if (!returns || returns.status !== "ready") returnsTimer = setTimeout(fetchReturns, 3000);
  }

  /** The live meters on the felt. */
  function renderMeters() {
    patch(meterBox, [table.meters, offers().map((o) => o.bank)], () => meterLines(table));
  }

  /** A progressive's meter moved (the WebSocket's ``meter`` message): the felt and the pay table. */
  function onMeter(msg) {
    if (!offers().some((o) => o.bank === msg.bank)) return;
    table = { ...table, meters: { ...(table.meters || {}), [msg.bank]: msg.meter } };
    renderMeters(); renderPays();
    if (returns && table.mode === "practice") { clearTimeout(returnsTimer); returnsTimer = setTimeout(fetchReturns, 500); }
  }

  /** The showdown's Envy and jackpot news, on the felt and to a screen reader. */
  function renderNews() {
    const s = st();
    const news = [...s.envy, ...s.sideResults].map((e) => sideNews(e, table)).filter(Boolean);
    patch(newsBox, [roundId, news], () => news.map((t) => h("p", { class: t.startsWith("JACKPOT") ? "news jackpot" : "news envy" }, t)));
  }

  // ------------------------------------------------------------------ the felt
  function renderDealer() {
    const s = st();
    const d = s.dealer;
    const k = [roundId, !!s.dealt, d ? [d.high, d.low, d.rule] : null, s.voided ? 1 : 0, s.results.some((x) => x.reason)];
    patch(dealerBox, k, () => {
      const out = [h("h2", { class: "seat-name" }, "Dealer")];
      if (d) {
        const pushed = s.results.find((x) => x.reason);
        out.push(h("div", { class: "hands", id: "dealer-hand" },
          h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), cardRow(d.high, { small: true }), h("strong", { class: "hname" }, d.high_name)),
          h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), cardRow(d.low, { small: true }), h("strong", { class: "hname" }, d.low_name))),
        // a push by the rule, once settled, in the rule's line (the box keeps its height)
        pushed ? h("p", { id: "dealer-push", class: "rule push-rule" }, settledWords(pushed).replace(/^.*\((.*)\)$/, "$1"))
          : h("p", { id: "dealer-rule", class: "rule" }, `${faceUp() ? "Face up, set" : "Set"} by the house way (${table.house_way}), rule ${d.rule}`));
      } else if (s.dealt && !s.voided) {
        out.push(backs(7), h("p", { class: "rule" }, "Face down until all have set"));
      } else {
        out.push(h("p", { class: "muted" }, "The bank: the house"));
      }
      return out;
    });
    dealerBox.classList.toggle("start", !!(s.start && s.start.position === 1 && !ended(s)));
  }

  function renderDice() {
    const s = st();
    const e = ended(s) || (faceUp() && s.dealer) ? null : s.start; // a face-up dealer's hand takes its room
    patch(diceBox, e ? [roundId, e.number, e.position] : null, () => {
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

  function spotContent(n, s) {
    const seated = seatOf(n);
    const mine = myDealtSpot();
    const you = seated.player && seated.player === username;
    const show = showsRound(n, s);
    const wager = show ? s.wagers[n] : undefined;
    const sides = show ? s.sides[n] : undefined;
    const sideRes = show ? s.sideResults.filter((e) => e.spot === n) : [];
    const dealt = show && s.dealt && s.dealt.spots.includes(n);
    const set = dealt ? s.settings[n] : null;
    const result = show ? s.results.find((x) => x.spot === n) : null;
    const cards = dealt && n === mine ? myCards() : null;
    const gone = inPlayWithoutPlayer(n, s);
    const who = players[n] || null;
    const canSit = !seated.occupied && !gone && !!session.user && mySeat() === null && table.status === "open";
    const isStart = !!(s.start && s.start.position === n + 1 && !ended(s));
    const k = [seated.player, you, wager, sides, sideRes.map((e) => [e.name, e.hand, e.returned]), dealt, set ? [set.high, set.low, set.by, set.foul, set.reason] : null, cards, result ? [result.outcome, result.reason, result.text] : null,
      canSit, isStart, gone, who, ended(s)];
    return [k, () => {
      const out = [h("h2", { class: "seat-name" }, `Spot ${n}`, isStart ? h("span", { class: "start-badge", title: "The first packet of cards goes here" }, "1st") : null)];
      let name = "empty";
      if (seated.player) name = you ? `${seated.player} (you)` : seated.player;
      else if (gone) name = who ? `${who === username ? "you" : who} (left; in play)` : "in play (player left)";
      out.push(h("p", { class: "player", title: name }, name));
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
            h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), cardRow(set.high, { small: true, fan: true })),
            h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), cardRow(set.low, { small: true, fan: true }))));
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

  function renderSpots() {
    const s = st();
    const seated = mySeat();
    const dragonCtx = { mine: myWagerSpot, ended, sit, canSit: (n) => !seatOf(n).occupied && !!session.user && mySeat() === null && table.status === "open" };
    for (let n = 1; n <= 6; n++) {
      const el = spotEls[n];
      const dragon = isDragonSpot(n, s);
      const [k, build] = dragon ? dragonSpot(n, s, dragonCtx) : spotContent(n, s);
      patch(el, k, build);
      el.classList.toggle("dragon", dragon);
      el.classList.toggle("mine", n === seated);
      el.classList.toggle("start", !!(s.start && s.start.position === n + 1 && !ended(s)));
    }
    felt.classList.toggle("past", ended(s));
  }

  // ------------------------------------------------------------------ status and countdown
  /** The phase of the round on display, from its events (ahead of the table's state) or the table. */
  function livePhase() {
    const s = st();
    if (s.voided) return "voided";
    if (s.totals) return "settled";
    if (roundId && events.length) {
      // a face-up dealer sets right after the deal: the players set after it
      const own = s.dealer && !faceUp() ? "dealer" : s.dealt ? "setting" : s.start ? "starting" : "betting";
      const order = ["betting", "shuffled", "starting", "setting", "dealer"];
      const r = table.round;
      if (r && r.id === roundId && order.indexOf(r.phase) > order.indexOf(own)) return r.phase;
      return own;
    }
    return table.round ? table.round.phase : null;
  }
  function phaseLine() {
    const s = st();
    const r = table.round;
    const phase = livePhase();
    if (phase && !ended(s)) return `${roundName(roundNumber ?? (r ? r.number : null))}: ${PHASE_TEXT[phase] || phase}.`;
    if (r && r.id !== roundId) return `${roundName(r.number)}: ${PHASE_TEXT[r.phase] || r.phase}.`;
    if (s.voided) return `${roundName(roundNumber)} void: every wager returned; a wager opens the next round.`;
    if (s.totals) return `${roundName(roundNumber)} settled; a wager opens the next round.`;
    if (table.status !== "open") return `This table is ${table.status}.`;
    return "Waiting for the first wager: a wager opens the round.";
  }
  function renderStatus() {
    const text = phaseLine();
    if (phaseText.textContent !== text) phaseText.textContent = text;
    const r = table.round;
    if (r && r.deadline !== null && r.time_left_s !== null) skew = r.deadline - r.time_left_s - Date.now() / 1000;
    status.dataset.phase = livePhase() || "idle";
  }
  function tick() {
    const r = table.round;
    if (!r || r.deadline === null || !["betting", "setting"].includes(r.phase) || (r.id === roundId && r.phase !== livePhase())) {
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

  // ------------------------------------------------------------------ your spot: sit, wager, leave
  function betForm(leaveBtn) {
    const remembered = Number(localStorage.getItem(wagerKey));
    const start = remembered >= table.min_wager && remembered <= table.max_wager ? remembered : table.min_wager;
    let fromChips = false; // the first chip replaces the suggested amount: chips count from zero
    const amount = h("input", { id: "wager-amount", inputmode: "decimal", autocomplete: "off", value: (start / 100).toFixed(2), required: true, "aria-describedby": "wager-limits" });
    const sideOffers = offers();
    let target = "main"; // where the rack's chips go: the main wager or a side wager's name
    for (const name of Object.keys(sideBet)) if (!sideOffers.some((o) => o.name === name)) delete sideBet[name];
    const circle = sideOffers.length
      ? h("button", { type: "button", class: "bet-circle main", id: "bet-main", "aria-pressed": "true", onclick: () => aim("main") })
      : h("div", { class: "bet-circle main", id: "bet-main", "aria-hidden": "true" });
    const sideCircles = sideOffers.map((o) => h("button", { type: "button", class: "bet-circle bonus", id: `bet-side-${o.name}`, "data-name": o.name, "aria-pressed": "false", onclick: () => aim(o.name) }));
    const showCircle = () => {
      const cents = parseCents(amount.value);
      circle.replaceChildren(Number.isFinite(cents) && cents > 0 ? chip(cents) : h("span", { class: "bet-word" }, "Bet"));
      if (sideOffers.length) circle.setAttribute("aria-label", `Main wager ${Number.isFinite(cents) && cents > 0 ? money(cents) : "none"}${target === "main" ? "; the chips go here" : ""}`);
      sideOffers.forEach((o, i) => {
        const c = sideCircles[i];
        const a = sideBet[o.name] || 0;
        const word = offerTitle(o.name);
        c.replaceChildren(...(a ? [chip(a), h("span", { class: "circle-tag", "aria-hidden": "true" }, word.length > 7 ? `${word.slice(0, 4)}.` : word)] : []), a ? "" : h("span", { class: "bet-word" }, h("span", { class: "word-long" }, word),
          h("span", { class: "word-short" }, word.length > 7 ? `${word.slice(0, 4)}.` : word), h("span", { class: "circle-cap" }, offerLimits(o, true))));
        c.title = `${offerTitle(o.name)} side wager, ${offerLimits(o)}`;
        c.setAttribute("aria-pressed", target === o.name ? "true" : "false");
        c.setAttribute("aria-label", `${offerTitle(o.name)} side wager ${a ? money(a) : "none"} (${offerLimits(o)})${target === o.name ? "; the chips go here" : ""}`);
        c.dataset.cents = a;
      });
      if (sideOffers.length) circle.setAttribute("aria-pressed", target === "main" ? "true" : "false");
    };
    /** Chips go to ``name`` from now on; a fixed side wager (its one amount) is put on or taken off. */
    const aim = (name) => {
      const o = sideOffers.find((x) => x.name === name);
      if (o && o.min_wager === o.max_wager) {
        sideBet[name] = target === name && sideBet[name] ? 0 : o.min_wager;
      }
      target = name;
      showCircle();
    };
    amount.addEventListener("input", () => { fromChips = true; target = "main"; showCircle(); });
    const setAmount = (cents) => { amount.value = cents ? `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}` : ""; showCircle(); };
    const addChip = (d) => {
      const o = sideOffers.find((x) => x.name === target);
      if (o) { sideBet[o.name] = Math.min(o.max_wager, (sideBet[o.name] || 0) + d); showCircle(); return; }
      const now = fromChips ? parseCents(amount.value) : 0;
      fromChips = true;
      setAmount(Math.min(table.max_wager, (Number.isFinite(now) ? now : 0) + d));
    };
    showCircle();
    return h("form", {
      id: "wager-form", class: "bet",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const cents = parseCents(amount.value);
        if (!Number.isFinite(cents)) { fail(new Error(`Type the wager in dollars, like 10 or 12.50 (${limitsText()}).`)); return; }
        if (cents < table.min_wager || cents > table.max_wager) { fail({ code: "outside-limits" }); return; }
        const side = {};
        for (const o of sideOffers) {
          const a = sideBet[o.name] || 0;
          if (!a) continue;
          if (a < o.min_wager || a > o.max_wager) { fail(new Error(`The ${offerTitle(o.name)} side wager at this table is ${offerLimits(o)}: ${money(a)} is outside it.`)); return; }
          side[o.name] = a;
        }
        const sideTotal = Object.values(side).reduce((x, y) => x + y, 0);
        try {
          const body = { amount: cents, idempotency_key: key() };
          if (sideTotal) body.side = side;
          const r = await api("POST", `/api/tables/${table.id}/wager`, body);
          localStorage.setItem(wagerKey, String(cents));
          localStorage.setItem(`paigow.side.${table.id}`, JSON.stringify(side));
          setBalance(r.balance);
          const sideWords = Object.entries(r.side || {}).map(([n, a]) => ` and ${offerTitle(n)} ${money(a)}`).join("");
          announce(`Wager of ${money(r.amount)}${sideWords} accepted; balance ${money(r.balance)}`);
          clearMsg();
          scheduleFetch();
        } catch (err) {
          if (err.code === "insufficient-funds") { try { setBalance((await api("GET", "/api/me")).balance); } catch { /* keep the last */ } }
          fail(err, { amount: money(cents + sideTotal) });
        }
      },
    },
    h("div", { class: "bet-row" },
      h("div", { class: "bet-circles", role: sideOffers.length ? "group" : null, "aria-label": sideOffers.length ? "Your wagers: choose a circle, then add chips" : null }, circle, sideCircles),
      h("label", { class: "bet-amount" }, h("span", {}, "Wager ", h("span", { id: "wager-limits", class: "muted" }, `(${money(table.min_wager)}–${money(table.max_wager)})`)), amount),
      h("button", { type: "submit", class: "primary", id: "wager-btn" }, "Place wager")),
    h("div", { class: "chip-rack", role: "group", "aria-label": "Chips: each adds its value to the bet" },
      DENOMINATIONS.filter((d) => d <= table.max_wager).map((d) => chipButton(d, () => addChip(d))),
      h("button", { type: "button", id: "wager-clear", class: "small", onclick: () => { fromChips = true; sideBet = {}; target = "main"; setAmount(0); amount.focus(); } }, "Clear bet")),
    h("div", { class: "row seat-actions" },
      h("button", { type: "button", id: "wager-min", class: "small", onclick: () => { fromChips = true; setAmount(table.min_wager); } }, "Minimum"), leaveBtn));
  }

  /** A side wager placed after the main wager, while betting is open (idempotent). */
  async function lateSide(o, cents) {
    try {
      const r = await api("POST", `/api/tables/${table.id}/side-wagers`, { side: { [o.name]: cents }, idempotency_key: key() });
      setBalance(r.balance);
      announce(`${offerTitle(o.name)} side wager of ${money(cents)} accepted; balance ${money(r.balance)}`);
      clearMsg();
      scheduleFetch();
    } catch (err) {
      fail(err, { amount: money(cents) });
    }
  }

  function leaveButton(inPlay) {
    if (!inPlay) {
      return h("button", { type: "button", id: "leave-btn", class: "small", onclick: () => leave() }, "Leave the spot");
    }
    if (!leaving) {
      return h("button", { type: "button", id: "leave-btn", class: "small", onclick: () => { leaving = true; renderControls(); document.getElementById("leave-confirm")?.focus(); } }, "Leave the spot…");
    }
    const s = st();
    const spot = myWagerSpot();
    const set = spot && s.settings[spot];
    return h("div", { class: "leave-ask", id: "leave-ask", role: "alertdialog", "aria-labelledby": "leave-q" },
      h("p", { id: "leave-q" }, `Your ${money(s.wagers[spot] || 0)} wager stays in play: `,
        set ? "your hand is set; " : "the house way sets your hand at once; ", "the result goes to your wallet. Leave now?"),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger small", id: "leave-confirm", onclick: () => leave() }, "Leave; play it out"),
        h("button", { type: "button", class: "small", id: "leave-cancel", onclick: () => { leaving = false; renderControls(); document.getElementById("leave-btn")?.focus(); } }, "Stay")));
  }

  async function leave() {
    const s = st();
    const spot = mySeat();
    const inPlay = spot !== null && !!s.wagers[spot] && !ended(s);
    try {
      const r = await api("POST", `/api/tables/${table.id}/leave`);
      leaving = false;
      if (inPlay) { leftMidRound = roundId; players[spot] = username; }
      announce(r.hand_set ? "You left the spot; the house way set your hand" : "You left the spot");
      clearMsg();
      await fetchTable();
    } catch (err) { fail(err); }
  }

  function renderControls() {
    const seated = mySeat();
    const s = st();
    const phase = ended(s) ? (table.round && table.round.id !== roundId ? table.round.phase : null) : livePhase();
    const wagered = seated !== null && !!s.wagers[seated] && !ended(s);
    const canWager = seated !== null && !wagered && (phase === null || phase === "betting") && table.status === "open";
    const poor = wallet.balance !== null && wallet.balance < table.min_wager;
    const offered = wagered && dragonTurn(s) === seated ? [roundId, s.dragon.spot] : null; // the dragon hand: your turn
    const k = [!!session.user, seated, wagered ? s.wagers[seated] : null, wagered ? s.sides[seated] || null : null, offers().length, wagered && offers().length ? phase : null, canWager, table.min_wager, table.max_wager, leaving, poor, leftMidRound !== null && leftMidRound === roundId && !ended(s), offered];
    patch(controls, k, () => {
      const out = [h("h2", { id: "controls-title", class: "sr-only" }, "Your spot")];
      if (!session.user) {
        out.push(h("p", {}, "Watching. ", h("a", { href: "#/lobby" }, "Log in"), " to play."));
        return out;
      }
      if (seated === null) {
        if (leftMidRound !== null && leftMidRound === roundId && !ended(s)) out.push(h("p", { id: "left-note" }, "You left the spot: your wager plays out and its result goes to your wallet."));
        if (poor) {
          out.push(h("p", { id: "wallet-hint", class: "hint-money" }, `Your wallet has ${money(wallet.balance)}: this table's minimum wager is ${money(table.min_wager)}. Ask the operator to credit your wallet, then sit.`));
        } else {
          out.push(h("p", {}, "Choose a free spot on the table to sit."));
        }
        return out;
      }
      if (canWager) {
        if (table.mode === "practice") out.push(h("p", { class: "practice-note", id: "practice-money" }, "Practice table: free help, real money from your wallet."));
        out.push(betForm(leaveButton(false)));
      } else if (wagered) {
        const mySides = Object.entries(s.sides[seated] || {});
        out.push(h("div", { class: "row seat-actions" }, h("p", { id: "my-wager" }, h("span", { class: "wager-word" }, "Your wager "), chip(s.wagers[seated]), ` ${money(s.wagers[seated])}`,
          mySides.length ? h("span", { id: "my-side", title: mySides.map(([n, a]) => `${offerTitle(n)} ${money(a)}`).join(", ") },
            ` + ${money(mySides.reduce((x, [, a]) => x + a, 0))} side`, h("span", { class: "sr-only" }, `: ${mySides.map(([n, a]) => `${offerTitle(n)} ${money(a)}`).join(", ")}`)) : null), leaveButton(true)));
        if (offered) out.push(dragonOffer(s, seated, { table: () => table, roundId: () => roundId, fail, clearMsg, done: scheduleFetch }));
        const late = phase === "betting" ? offers().filter((o) => !(s.sides[seated] || {})[o.name]) : [];
        if (late.length) {
          out.push(h("div", { class: "row late-side", id: "late-side", role: "group", "aria-labelledby": "late-side-q" },
            h("span", { id: "late-side-q" }, "Add a side wager before betting closes:"),
            late.map((o) => {
              const a = Math.min(o.max_wager, Math.max(o.min_wager, sideBet[o.name] || 0));
              return h("button", { type: "button", class: "small", id: `late-side-${o.name}`, onclick: () => lateSide(o, a) }, `${offerTitle(o.name)} ${money(a)}`);
            })));
        }
      } else {
        out.push(h("div", { class: "row seat-actions" }, h("p", {}, `Spot ${seated}: a round is in play; you can wager when it is over.`), leaveButton(false)));
      }
      return out;
    });
  }

  async function sit(n) {
    try {
      await api("POST", `/api/tables/${table.id}/sit`, { spot: n });
      announce(`You sit at spot ${n}`);
      clearMsg();
      await fetchTable();
      const f = document.getElementById("wager-amount");
      if (f) f.focus({ preventScroll: true });
    } catch (err) { fail(err); }
  }

  // ------------------------------------------------------------------ your hand
  /** Who is still setting (other than you), in words: "spot 4 (bob)", or "" when nobody is. */
  function stillSetting() {
    const s = st();
    if (!s.dealt || (s.dealer && !faceUp()) || ended(s)) return "";
    const mine = myDealtSpot();
    const waiting = s.dealt.spots.filter((n) => n !== mine && !s.settings[n]);
    return waiting.map((n) => {
      const who = seatOf(n).player || players[n];
      return `spot ${n}${who ? ` (${who})` : ""}`;
    }).join(", ");
  }

  const hand = handView(handPanel, {
    // a round over, seated at another spot than the one dealt: that hand is no longer your seat's
    table: () => table, roundId: () => roundId, cards: () => (ended(st()) && ![null, myDealtSpot()].includes(mySeat()) ? null : myCards()), spot: myDealtSpot, state: st, ended,
    stillSetting, practice: !!practicePanel, showEv: () => showEv(), fail: (err) => fail(err), clearMsg,
    onSetting: (open) => seat.classList.toggle("setting", open),
  });

  // ------------------------------------------------------------------ practice help
  function fetchEv() {
    if (evFor === roundId && evPromise) return evPromise;
    evFor = roundId;
    evPromise = api("GET", `/api/web/tables/${table.id}/ev`).then((r) => ({ r }), (err) => ({ err }));
    return evPromise;
  }

  function evTable(a) {
    const rows = a.settings.map((s, i) => ({ ...s, i })).sort((x, y) => y.ev - x.ev);
    const n = (v) => Number(v).toLocaleString("en-US");
    return h("table", { class: "list ev", id: "ev-table" },
      h("caption", {}, `Exact EV per unit wagered over all ${n(a.dealer_hands)} dealer hands (commission ${table.commission_posted} of each win)`),
      h("thead", {}, h("tr", {}, ["High", "Low", "EV", "Win / push / loss", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows.map((s) => h("tr", { class: s.i === a.optimal ? "best" : "" },
        h("td", { class: "cards-text" }, cardsText(sortCards(s.high))), h("td", { class: "cards-text" }, cardsText(sortCards(s.low))),
        h("td", { class: "num" }, (s.ev >= 0 ? "+" : "−") + Math.abs(s.ev).toFixed(4)),
        h("td", { class: "num wpl" }, h("span", {}, n(s.win)), h("span", {}, ` / ${n(s.push)}`), h("span", {}, ` / ${n(s.loss)}`)),
        h("td", {}, [s.i === a.optimal ? "best" : "", s.i === a.house_way ? "house way" : "", s.foul ? "foul" : ""].filter(Boolean).join(", "))))));
  }

  async function showEv() {
    const evBox = document.getElementById("ev");
    openSide(true);
    practicePanel.scrollIntoView({ block: "start" });
    const started = Date.now();
    const progress = h("p", { id: "ev-progress", role: "status" }, h("progress", { "aria-label": "Computing the exact EV" }), " Computing the exact EV over every dealer hand…");
    evBox.replaceChildren(progress);
    const t = setInterval(() => { progress.lastChild.textContent = ` Computing the exact EV over every dealer hand… ${Math.round((Date.now() - started) / 1000)} s`; }, 1000);
    const { r, err } = await fetchEv();
    clearInterval(t);
    if (err) { evFor = null; evPromise = null; evBox.replaceChildren(h("p", { class: "error" }, errorText(err))); return; }
    if (!r.available) { evBox.replaceChildren(h("p", { id: "ev-unavailable" }, "The exact EV is not available: the analysis table is not compiled on this server.")); return; }
    evBox.replaceChildren(evTable(r.analysis));
  }

  function renderPractice() {
    if (!practicePanel) return;
    practicePanel.replaceChildren(h("h2", { id: "practice-title" }, "Practice help"),
      h("p", {}, "Practice table: help with setting is offered (never at a casino table). The wagers are real money from your wallet: a practice table differs from a casino table only by its help."),
      h("div", { id: "ev", "aria-live": "polite" }));
  }

  // ------------------------------------------------------------------ results and wallet
  function resultLine(r, mine, sides) {
    const who = `Spot ${r.spot}${r.spot === mine ? " (you)" : ""}`;
    return h("li", { id: `result-${r.spot}`, class: r.outcome, "data-outcome": r.outcome, "data-reason": r.reason || "", "data-returned": r.returned },
      h("strong", {}, `${who}: ${outcomeWord(r)}`), ` — ${settledWords(r)}. `, h("span", { class: "muted" }, `Wager ${money(r.wager)}.`),
      sides.map((e) => h("span", { class: "side-line", "data-name": e.name, "data-returned": e.returned }, ` ${sideWords(e)}.`)));
  }

  function renderResults() {
    const s = st();
    const mine = myWagerSpot();
    patch(resultsPanel, [roundId, roundNumber, s.results.length, s.sideResults.length, s.envy.length, !!s.totals, !!s.voided, mine], () => {
      const out = [h("h2", { id: "results-title" }, roundNumber ? `Results, ${roundName(roundNumber).toLowerCase()}` : "Results")];
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
    });
    const r = mine ? s.results.find((x) => x.spot === mine) : null;
    const mySide = r ? s.sideResults.filter((e) => e.spot === mine) : [];
    const myEnvy = r ? s.envy.filter((e) => e.spot === mine) : [];
    const myDragon = r && s.dragon && s.dragon.result && s.dragon.result.by === mine ? s.dragon.result : null;
    patch(myResult, [roundId, r ? [r.outcome, r.text] : null, s.voided ? 1 : 0, mySide.map((e) => [e.name, e.returned]), myEnvy.length, myDragon ? myDragon.returned : null], () => {
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
        "; ", h("span", { class: "net" }, `net ${signed(net)}`)];
    });
    myResult.hidden = !myResult.childNodes.length;
    myResult.className = r ? `my-result ${r.outcome}` : "my-result";
  }

  async function renderWallet() {
    walletPanel.hidden = !session.user; // watching, logged out: no wallet (nor its label)
    if (!session.user) { walletPanel.replaceChildren(); return; }
    try {
      const l = await api("GET", "/api/web/ledger");
      setBalance(l.balance);
      const entries = roundId ? l.entries.filter((e) => e.reference === roundId).sort((a, b) => a.entry_id - b.entry_id) : [];
      const net = entries.reduce((a, e) => a + e.amount, 0);
      walletPanel.replaceChildren(h("h2", { id: "wallet-title" }, "Your wallet"),
        h("p", {}, "Balance: ", h("strong", { id: "wallet-balance", "data-balance": "", "data-cents": l.balance }, money(l.balance))));
      if (entries.length) {
        walletPanel.append(h("p", {}, `${roundName(roundNumber)}:`),
          h("ul", { id: "ledger", "data-net": net }, walletLines(entries, st().sides).map((x) => h("li", { "data-amount": x.amount, "data-label": x.label },
            `${signed(x.amount)} ${x.label}${x.memo ? ` (${memoText(x.memo, roundName(roundNumber).toLowerCase())})` : ""}`))),
          h("p", {}, `Net this round: ${signed(net)}`));
      }
    } catch (err) { walletPanel.replaceChildren(h("h2", { id: "wallet-title" }, "Your wallet"), h("p", { class: "error" }, errorText(err))); }
  }
  function scheduleWallet() {
    clearTimeout(walletTimer);
    walletTimer = setTimeout(renderWallet, 150);
  }

  // ------------------------------------------------------------------ updates
  async function fetchTable() {
    try {
      table = await api("GET", `/api/tables/${id}`);
      renderTableState();
    } catch (err) { fail(err); }
  }
  function scheduleFetch() {
    clearTimeout(fetchTimer);
    fetchTimer = setTimeout(fetchTable, 120);
  }

  function renderTableState() {
    renderPosted(); renderMeters(); renderStatus(); renderSpots(); renderControls(); hand.render(); tick();
  }
  function renderAll() {
    renderPosted(); renderMeters(); renderStatus(); renderDealer(); renderDice(); renderNews(); renderSpots(); renderControls(); hand.render(); renderResults(); tick();
  }

  function log(msg) {
    logList.append(h("li", {}, describe(msg, roundNumber)));
    while (logList.children.length > 80) logList.firstChild.remove();
    logList.scrollTop = logList.scrollHeight;
  }

  /** The packets go out one by one, counterclockwise from the starting position (``e.order``):
   * each position that gets one lights up and its cards slide in from the dealer's side. */
  function animateDeal(e) {
    if (reducedMotion()) return;
    e.order.forEach((p, i) => {
      const el = felt.querySelector(`[data-position="${p}"]`);
      if (!el) return;
      const row = el.querySelector(".cards");
      if (row) { row.style.setProperty("--deal-delay", `${i * 140}ms`); row.classList.add("dealing"); }
      setTimeout(() => {
        el.classList.remove("got-packet");
        void el.offsetWidth;
        el.classList.add("got-packet");
      }, 140 * i);
    });
  }

  function newRound(msg) {
    roundId = msg.round_id; roundNumber = msg.round_number ?? null; events = []; hand.newRound(); players = {};
    evPromise = null; evFor = null; leaving = false;
    logList.replaceChildren();
    renderPractice();
  }

  function onEvent(msg, live) {
    if (msg.round_id && msg.round_id !== roundId) newRound(msg);
    if (msg.round_number) roundNumber = msg.round_number;
    events.push(msg);
    if (msg.type === "wager-placed" && live) players[msg.spot] = seatOf(msg.spot).player || undefined;
    log(msg);
    if (!live) return;
    renderStatus(); renderDealer(); renderDice(); renderNews(); renderSpots(); renderControls(); hand.render(); renderResults(); tick();
    const news = sideNews(msg, table);
    if (news) announce(news);
    if (msg.type === "dealt") {
      animateDeal(msg);
      const cards = myCards();
      announce("Cards dealt. " + (cards ? `Your cards: ${cards.map(cardName).join(", ")}` : ""));
      if (cards && practicePanel) fetchEv();
    }
    if (msg.type === "dealer-set" || msg.type === "start-chosen") announce(describe(msg));
    if (msg.type.startsWith("dragon-") && msg.type !== "dragon-set") {
      const mine = mySeat();
      announce(dragonTurn(st()) === mine && mine !== null ? `The dragon hand is offered to you: wager from ${money(table.min_wager)} to ${money(st().wagers[mine] || 0)}, or decline` : `${describe(msg)} ${dragonStatus(st(), mine) ? `(${dragonStatus(st(), mine)})` : ""}`.trim());
    }
    if (msg.type === "round-settled" || msg.type === "voided" || msg.type === "wager-placed") scheduleWallet();
    scheduleFetch();
  }

  // ------------------------------------------------------------------ the feed
  function showConn(text) { if (conn.textContent !== text) conn.textContent = text; conn.hidden = !text; }
  function connect() {
    if (closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // the session cookie goes with the upgrade (same origin): no token in the URL
    const url = `${proto}://${location.host}/ws/tables/${id}`;
    const sock = new WebSocket(url);
    ws = sock;
    sock.onmessage = (m) => {
      if (ws !== sock) return;
      const t0 = performance.now();
      const msg = JSON.parse(m.data);
      handle(msg);
      // how long each message took to show (read by benchmarks/bench_browser.py)
      const timings = (window.paigowTimings ||= []);
      timings.push([msg.type, performance.now() - t0]);
      if (timings.length > 500) timings.shift();
    };
    const handle = (msg) => {
      if (msg.type === "hello") {
        attempt = 0; connected = true; showConn("");
        root.dataset.live = "1";
        table = msg.table;
        const keepLow = hand.chosen();
        const prevRound = roundId;
        events = []; roundId = null; roundNumber = null; players = {};
        logList.replaceChildren();
        if (msg.round) {
          roundId = msg.round.id; roundNumber = msg.round.number;
          players = {};
          for (const [spot, who] of Object.entries(msg.round.players || {})) players[spot] = who;
          for (const e of msg.round.log) onEvent({ ...e, round_id: msg.round.id, round_number: msg.round.number }, false);
        }
        hand.resync(roundId === prevRound ? keepLow : []);
        renderAll(); renderPractice(); renderWallet();
        root.dataset.ready = "1";
        if (window.paigowReadyMs === undefined) window.paigowReadyMs = performance.now() - navStart;
      } else if (msg.type === "table") {
        table = msg.table;
        // a wager can arrive before the table state that seats its player (one feed refresh
        // sends round events first): learn who played each wagered spot as soon as it is known
        for (const e of events) {
          if (e.type === "wager-placed" && e.round_id === roundId && players[e.spot] === undefined) {
            players[e.spot] = seatOf(e.spot).player || undefined;
          }
        }
        renderTableState();
      } else if (msg.type === "wallet") {
        setBalance(msg.balance);
        scheduleWallet();
      } else if (msg.type === "error") {
        // the session ended (expired, idle, logged out elsewhere or by the operator): say why
        if (session.user && SESSION_ENDED.includes(msg.code)) { closed = true; sessionEnded(msg.code); return; }
        fail(msg);
      } else if (msg.type === "meter") {
        onMeter(msg); // a progressive bank's live meter: not one of the round's events
      } else if (msg.type !== "pong") {
        onEvent(msg, true);
      }
    };
    sock.onclose = () => {
      if (closed || ws !== sock) return;
      connected = false;
      delete root.dataset.live;
      const wait = BACKOFF_S[Math.min(attempt, BACKOFF_S.length - 1)] * (0.8 + Math.random() * 0.4);
      attempt += 1;
      showConn(`Connection lost: reconnecting in ${wait.toFixed(0)} s…`);
      retryTimer = setTimeout(connect, wait * 1000);
    };
  }
  const online = () => { if (!connected && !closed) { clearTimeout(retryTimer); attempt = 0; connect(); } };
  window.addEventListener("online", online);

  renderAll();
  renderPractice();
  fetchReturns();
  connect();

  return () => {
    closed = true;
    clearInterval(ticker);
    clearTimeout(fetchTimer);
    clearTimeout(walletTimer);
    clearTimeout(retryTimer);
    clearTimeout(returnsTimer);
    window.removeEventListener("online", online);
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("paigow:balance", onBalance);
    document.body.classList.remove("at-table");
    if (ws) ws.close();
  };
}
