// A table: the dealer across from six spots, chips, the deal, setting a hand, the reveal, results.
import { api, session, key, money, parseCents, signed, wallet, setBalance } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { cardEl, cardRow, backs, cardsText, cardName, sortCards } from "./cards.js";
import { describe, derive, countPath, positionName } from "./describe.js";

const PHASE_TEXT = {
  betting: "Betting is open", shuffled: "Shuffling", starting: "Choosing the starting position",
  setting: "Players set their hands", dealer: "The dealer reveals and sets; settling",
  settled: "Settled", voided: "Void",
};
const OUTCOME = { win: "WIN", push: "PUSH", loss: "LOSS" };
const BACKOFF_S = [0.5, 1, 2, 4, 8];
const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Replace ``el``'s children by ``build()`` only when ``k`` differs from what it shows now. */
function patch(el, k, build) {
  const sig = typeof k === "string" ? k : JSON.stringify(k);
  if (el.dataset.sig === sig) return false;
  el.dataset.sig = sig;
  el.replaceChildren(...[build()].flat().filter((x) => x !== null && x !== undefined && x !== false));
  return true;
}

/** A chip's face: "$5", "$250", "$1K", "$2.5K", "$12.50" (the exact amount is its name). */
export function chipLabel(cents) {
  if (cents % 100) return money(cents);
  const whole = cents / 100;
  if (whole < 1000) return `$${whole}`;
  const k = Math.floor(whole / 100);
  return `$${Math.floor(k / 10)}${k % 10 ? `.${k % 10}` : ""}${whole % 100 ? "+" : ""}K`;
}

function chip(cents, id) {
  const label = chipLabel(cents);
  return h("span", { class: `chip${label.length > 5 ? " long" : ""}`, id, role: "img", "aria-label": `wager ${money(cents)}` }, h("span", { "aria-hidden": "true" }, label));
}

export async function tableView(root, shell, id) {
  const navStart = window.paigowNavStart ?? 0;
  window.paigowReadyMs = undefined;
  let table = await api("GET", `/api/tables/${id}`);
  const me = session.token ? await shell.refreshWho() : null;
  const username = me ? me.username : null;
  const wagerKey = `paigow.wager.${id}`;
  let events = [];
  let roundId = null;
  let roundNumber = null;
  let players = {}; // spot -> who wagered there in the round shown (as far as known)
  let low = []; // the cards in your low hand
  let handKey = null;
  let evaluation = null;
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

  // ------------------------------------------------------------------ skeleton
  const posted = h("div", { class: "posted", id: "posted", role: "region", "aria-label": "Posted at this table" });
  const phaseText = h("span", { id: "phase" });
  const countdown = h("span", { class: "countdown", id: "countdown", role: "timer", "aria-live": "off" });
  const conn = h("span", { id: "conn", class: "conn", role: "status" });
  const statusMsg = h("p", { id: "status-msg", role: "alert" });
  const status = h("section", { class: "statusbar", id: "status", "aria-label": "Round status" },
    h("div", { class: "status-line" }, phaseText, countdown, conn), statusMsg);
  const dealerBox = h("div", { class: "dealer", id: "dealer", "data-position": 1, role: "group", "aria-label": "Dealer, position 1, the bank" });
  const diceBox = h("div", { id: "dice", class: "dice-box", "aria-live": "polite" });
  const spotsBox = h("div", { class: "spots", id: "spots" });
  const spotEls = {};
  for (let n = 1; n <= 6; n++) {
    spotEls[n] = h("div", { class: "spot", id: `spot-${n}`, "data-position": n + 1, role: "group", "aria-label": `Spot ${n}${n === 1 ? ", at the dealer's far right" : ""}` });
    spotsBox.append(spotEls[n]);
  }
  const felt = h("section", { class: "felt", id: "felt", "aria-label": "The table: the dealer across from six spots, spot 1 at the dealer's far right" }, dealerBox, diceBox, spotsBox);
  const handPanel = h("section", { class: "panel hand-panel", id: "hand-panel", "aria-labelledby": "hand-title", hidden: true });
  const practicePanel = table.mode === "practice" ? h("section", { class: "panel", id: "practice", "aria-labelledby": "practice-title" }) : null;
  const resultsPanel = h("section", { class: "panel", id: "results-panel", "aria-labelledby": "results-title" });
  const controls = h("section", { class: "panel", id: "controls", "aria-labelledby": "controls-title" });
  const walletPanel = h("section", { class: "panel", id: "wallet", "aria-labelledby": "wallet-title" });
  const logList = h("ol", { class: "log", id: "log", tabindex: 0, "aria-label": "Table events, oldest first" });
  const logPanel = h("section", { class: "panel", id: "log-panel", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Table events"),
    h("div", { "aria-live": "polite", "aria-relevant": "additions", id: "log-live" }, logList));
  const links = h("p", { class: "links" }, h("a", { href: `#/recall/${table.id}` }, "Recall: the last ten rounds"), " · ", h("a", { href: "#/rules", id: "rules-link" }, "How to play (the rules)"));

  root.append(
    h("h1", {}, `Table ${table.id}: ${table.name}`),
    posted,
    status,
    h("div", { class: "table-page" },
      h("div", { class: "col-main" }, felt, handPanel, practicePanel, resultsPanel),
      h("div", { class: "col-side" }, controls, walletPanel, logPanel, links)),
  );

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
    const seat = mySeat();
    return spots.includes(seat) ? seat : spots[0];
  };
  const myCards = () => {
    const spot = myDealtSpot();
    return spot ? sortCards(st().dealt.your_cards[String(spot)]) : null;
  };
  const ended = (s) => !!(s.totals || s.voided);
  /** Whether spot ``n`` shows the round on display: not after a settled round it did not play. */
  const showsRound = (n, s) => {
    if (!ended(s)) return true;
    const who = players[n];
    return who === undefined || who === (seatOf(n).player || null);
  };
  const limitsText = () => `${money(table.min_wager)} to ${money(table.max_wager)}`;
  const fail = (err, ctx = {}) => {
    statusMsg.className = "error";
    statusMsg.textContent = errorText(err, { balance: wallet.balance === null ? undefined : money(wallet.balance), limits: limitsText(), minimum: money(table.min_wager), ...ctx });
  };
  const clearMsg = () => { statusMsg.textContent = ""; statusMsg.className = ""; };

  // ------------------------------------------------------------------ posted
  function renderPosted() {
    patch(posted, [table.commission_posted, table.min_wager, table.max_wager, table.house_way, table.start, table.mode, table.foul, table.status], () => [
      h("span", { id: "posted-commission" }, `Commission ${table.commission_posted} of each win (posted, 9-1(f))`),
      h("span", { id: "posted-limits" }, `Limits ${money(table.min_wager)} – ${money(table.max_wager)}`),
      h("span", {}, `House way: ${table.house_way}`),
      h("span", {}, `Start: ${table.start === "dice" ? "three dice" : "random number"}`),
      h("span", { id: "posted-mode" }, table.mode === "practice" ? "Practice table" : "Casino table"),
      h("span", {}, table.foul === "loses" ? "A foul hand loses" : "A foul is reset by the house way"),
      table.status !== "open" ? h("span", { class: "error" }, `Table ${table.status}`) : null,
    ]);
  }

  // ------------------------------------------------------------------ the felt
  function renderDealer() {
    const s = st();
    const d = s.dealer;
    const k = [roundId, !!s.dealt, d ? [d.high, d.low, d.rule] : null, s.start ? s.start.position : null, s.voided ? 1 : 0];
    patch(dealerBox, k, () => {
      const out = [h("h2", { class: "seat-name" }, "Dealer")];
      if (d) {
        out.push(h("div", { class: "hands", id: "dealer-hand" },
          h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), cardRow(d.high, { small: true }), h("strong", {}, d.high_name)),
          h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), cardRow(d.low, { small: true }), h("strong", {}, d.low_name))),
        h("p", { id: "dealer-rule", class: "rule" }, `Set by the house way (${table.house_way}), rule ${d.rule}`));
      } else if (s.dealt && !s.voided) {
        out.push(backs(7), h("p", { class: "rule" }, "Face down until every player has set"));
      } else {
        out.push(h("p", { class: "muted" }, "The bank: the house"));
      }
      return out;
    });
    dealerBox.classList.toggle("start", !!(s.start && s.start.position === 1));
  }

  function renderDice() {
    const s = st();
    const e = s.start;
    patch(diceBox, e ? [roundId, e.number, e.position] : null, () => {
      if (!e) return [];
      const path = countPath(e.number);
      return [
        h("div", { class: "dice", id: "dice-shown" },
          e.method === "dice" ? e.dice.map((d) => h("span", { class: "die", role: "img", "aria-label": `die ${d}` }, String(d))) : h("span", { class: "die", role: "img", "aria-label": `random number ${e.number}` }, String(e.number)),
          h("strong", {}, e.method === "dice" ? ` = ${e.number}` : " (random number)")),
        h("p", { class: "count", id: "count" }, "Counting from the dealer: ",
          path.map((p, i) => h("span", { class: i === path.length - 1 ? "hit" : "" }, `${i + 1}:${p === 1 ? "D" : p - 1}${i < path.length - 1 ? " → " : ""}`)),
          h("span", {}, ` — first packet to ${positionName(e.position)}`)),
      ];
    });
  }

  function spotContent(n, s) {
    const seat = seatOf(n);
    const mine = myDealtSpot();
    const you = seat.player && seat.player === username;
    const show = showsRound(n, s);
    const wager = show ? s.wagers[n] : undefined;
    const dealt = show && s.dealt && s.dealt.spots.includes(n);
    const set = dealt ? s.settings[n] : null;
    const result = show ? s.results.find((x) => x.spot === n) : null;
    const cards = dealt && n === mine ? myCards() : null;
    const k = [seat.player, you, wager, dealt, set ? [set.high, set.low, set.by, set.foul] : null, cards, result ? result.outcome : null,
      !seat.occupied && !!session.token && mySeat() === null && table.status === "open", s.start ? s.start.position === n + 1 : false];
    return [k, () => {
      const out = [h("h2", { class: "seat-name" }, `Spot ${n}`)];
      out.push(h("p", { class: "player" }, seat.player ? (you ? `${seat.player} (you)` : seat.player) : "empty"));
      if (wager) out.push(chip(wager, `chip-${n}`));
      if (dealt) {
        if (set && set.high) {
          out.push(h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), cardRow(set.high, { small: true, fan: true })),
            h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), cardRow(set.low, { small: true, fan: true })));
        } else if (cards) {
          out.push(cardRow(cards, { small: true, fan: true }));
        } else {
          out.push(backs(7));
        }
        if (set) out.push(h("p", { class: "set-by" }, set.foul ? h("strong", { class: "foul-tag" }, "FOUL ") : "", set.by === "player" ? "set" : `set by the house way${set.reason ? ` (${set.reason})` : ""}`));
      }
      if (result) out.push(h("p", { class: `result ${result.outcome}` }, OUTCOME[result.outcome] + (result.foul ? " (foul)" : "")));
      if (!seat.occupied && session.token && mySeat() === null && table.status === "open") {
        out.push(h("button", { type: "button", id: `sit-${n}`, class: "sit", onclick: () => sit(n) }, `Sit at spot ${n}`));
      }
      return out;
    }];
  }

  function renderSpots() {
    const s = st();
    const seated = mySeat();
    for (let n = 1; n <= 6; n++) {
      const el = spotEls[n];
      const [k, build] = spotContent(n, s);
      patch(el, k, build);
      el.classList.toggle("mine", n === seated);
      el.classList.toggle("start", !!(s.start && s.start.position === n + 1));
    }
  }

  // ------------------------------------------------------------------ status and countdown
  /** The phase of the round on display, from its events (ahead of the table's state) or the table. */
  function livePhase() {
    const s = st();
    if (s.voided) return "voided";
    if (s.totals) return "settled";
    if (roundId && events.length) {
      const own = s.dealer ? "dealer" : s.dealt ? "setting" : s.start ? "starting" : "betting";
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
    if (phase && !ended(s)) return `Round ${roundNumber ?? (r ? r.number : "")}: ${PHASE_TEXT[phase] || phase}.`;
    if (r && r.id !== roundId) return `Round ${r.number}: ${PHASE_TEXT[r.phase] || r.phase}.`;
    if (s.voided) return `Round ${roundNumber ?? ""} void: every wager was returned. The next round opens with the first wager.`;
    if (s.totals) return `Round ${roundNumber ?? ""} settled: results below. The next round opens with the first wager.`;
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

  // ------------------------------------------------------------------ controls
  function renderControls() {
    const seated = mySeat();
    const s = st();
    const phase = ended(s) ? (table.round && table.round.id !== roundId ? table.round.phase : null) : livePhase();
    const wagered = seated !== null && !!s.wagers[seated] && !ended(s);
    const canWager = seated !== null && !wagered && (phase === null || phase === "betting") && table.status === "open";
    const k = [!!session.token, seated, wagered ? s.wagers[seated] : null, canWager, table.min_wager, table.max_wager];
    patch(controls, k, () => {
      const out = [h("h2", { id: "controls-title" }, "Your spot")];
      if (!session.token) {
        out.push(h("p", {}, "Watching. ", h("a", { href: "#/lobby" }, "Log in"), " to play."));
        return out;
      }
      if (seated === null) {
        out.push(h("p", {}, "Choose a free spot on the table to sit."));
        return out;
      }
      out.push(h("p", {}, `You sit at spot ${seated}.`));
      if (canWager) {
        const remembered = Number(localStorage.getItem(wagerKey));
        const start = remembered >= table.min_wager && remembered <= table.max_wager ? remembered : table.min_wager;
        const amount = h("input", { id: "wager-amount", inputmode: "decimal", autocomplete: "off", value: (start / 100).toFixed(2), required: true, "aria-describedby": "wager-limits" });
        out.push(h("form", {
          id: "wager-form",
          onsubmit: async (ev) => {
            ev.preventDefault();
            const cents = parseCents(amount.value);
            if (!Number.isFinite(cents)) { fail(new Error(`Type the wager in dollars, like 10 or 12.50 (${limitsText()}).`)); return; }
            if (cents < table.min_wager || cents > table.max_wager) { fail({ code: "outside-limits" }); return; }
            try {
              const r = await api("POST", `/api/tables/${table.id}/wager`, { amount: cents, idempotency_key: key() });
              localStorage.setItem(wagerKey, String(cents));
              setBalance(r.balance);
              announce(`Wager of ${money(r.amount)} accepted; balance ${money(r.balance)}`);
              clearMsg();
              scheduleFetch();
            } catch (err) {
              if (err.code === "insufficient-funds") { try { setBalance((await api("GET", "/api/me")).balance); } catch { /* keep the last */ } }
              fail(err, { amount: money(cents) });
            }
          },
        }, h("div", { class: "row" },
          h("label", {}, "Wager in dollars", amount, h("span", { id: "wager-limits", class: "muted" }, limitsText())),
          h("button", { type: "submit", class: "primary", id: "wager-btn" }, "Place wager")),
        h("div", { class: "chip-rack", role: "group", "aria-label": "Add chips to the wager" },
          [500, 2500, 10000, 50000].filter((d) => d <= table.max_wager).map((d) => h("button", {
            type: "button", class: "chip chip-btn", id: `add-${d}`, "aria-label": `Add ${money(d)}`,
            onclick: () => {
              const now = parseCents(amount.value);
              const next = Math.min(table.max_wager, (Number.isFinite(now) ? now : 0) + d);
              amount.value = `${Math.floor(next / 100)}.${String(next % 100).padStart(2, "0")}`;
            },
          }, chipLabel(d))),
          h("button", { type: "button", id: "wager-min", onclick: () => { amount.value = (table.min_wager / 100).toFixed(2); } }, "Minimum"))));
      } else if (wagered) {
        out.push(h("p", { id: "my-wager" }, "Your wager: ", chip(s.wagers[seated]), ` ${money(s.wagers[seated])}`));
      }
      out.push(h("button", { type: "button", id: "leave-btn", onclick: async () => {
        try { await api("POST", `/api/tables/${table.id}/leave`); announce("You left the spot"); clearMsg(); await fetchTable(); } catch (err) { fail(err); }
      } }, "Leave the spot"));
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
      if (f) f.focus();
    } catch (err) { fail(err); }
  }

  // ------------------------------------------------------------------ your hand
  function renderHand(force = false) {
    const cards = myCards();
    const s = st();
    const spot = myDealtSpot();
    const mySet = spot ? s.settings[spot] : null;
    const k = cards ? `${roundId}:${cards.join(",")}:${mySet && mySet.high ? `set${s.dealer ? "-shown" : ""}` : "open"}` : null;
    if (!force && k === handKey) return;
    const fresh = handKey === null || !k || handKey.split(":").slice(0, 2).join(":") !== k.split(":").slice(0, 2).join(":");
    handKey = k;
    if (!cards) {
      handPanel.hidden = true;
      handPanel.replaceChildren();
      low = []; evaluation = null;
      return;
    }
    handPanel.hidden = false;
    if (fresh) { low = low.filter((c) => cards.includes(c)); evaluation = null; }
    handPanel.replaceChildren(h("h2", { id: "hand-title" }, `Your hand, spot ${spot}`));
    if (mySet && mySet.high) {
      const highName = h("strong", { id: "my-high-name" });
      const lowName = h("strong", { id: "my-low-name" });
      api("POST", "/api/web/evaluate", { cards, low: mySet.low, wheel: table.wheel })
        .then((r) => { highName.textContent = r.high_name; lowName.textContent = r.low_name; }, () => {});
      handPanel.append(h("div", { class: "hands", id: "my-setting" },
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High hand"), cardRow(sortCards(mySet.high)), highName),
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low hand"), cardRow(sortCards(mySet.low)), lowName),
        h("p", {}, mySet.by === "player" ? `You set this hand${s.dealer ? "." : "; waiting for the dealer."}` : `The house way set this hand${mySet.reason ? ` (${mySet.reason})` : ""}.`,
          mySet.foul ? h("strong", { class: "error" }, " FOUL: this hand loses.") : "")));
      return;
    }
    const highBox = h("div", { class: "slots", id: "high-slots", "data-box": "high" });
    const lowBox = h("div", { class: "slots", id: "low-slots", "data-box": "low" });
    const box = (which, title, slots) => h("div", { class: `box ${which}`, id: `${which}-box` },
      h("h3", {}, title, " ", h("strong", { id: `${which}-name`, class: "hand-name" }), h("span", { id: `${which}-count`, class: "muted" })), slots);
    const group = h("div", { id: "my-cards", role: "group", "aria-label": "Your seven cards: the high hand and the low hand", "aria-describedby": "hand-help" },
      box("high", "High hand (five cards)", highBox), box("low", "Low hand (two cards)", lowBox));
    cards.forEach((c, i) => {
      const b = cardEl(c, { button: true });
      b.id = `card-${c}`;
      b.draggable = true;
      b.setAttribute("aria-label", `${cardName(c)}, card ${i + 1}`);
      b.addEventListener("click", () => toggle(c));
      b.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", c); ev.dataTransfer.effectAllowed = "move"; });
      b.addEventListener("keydown", (ev) => {
        if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
          const all = [...group.querySelectorAll("button.card")];
          const j = all.indexOf(b) + (ev.key === "ArrowRight" ? 1 : -1);
          if (all[j]) { ev.preventDefault(); all[j].focus(); }
        } else if (ev.key === "ArrowDown" && !low.includes(c)) { ev.preventDefault(); toggle(c); }
        else if (ev.key === "ArrowUp" && low.includes(c)) { ev.preventDefault(); toggle(c); }
      });
      highBox.append(b);
    });
    for (const [el, which] of [[highBox, "high"], [lowBox, "low"]]) {
      el.parentElement.addEventListener("dragover", (ev) => { ev.preventDefault(); el.parentElement.classList.add("over"); });
      el.parentElement.addEventListener("dragleave", () => el.parentElement.classList.remove("over"));
      el.parentElement.addEventListener("drop", (ev) => {
        ev.preventDefault();
        el.parentElement.classList.remove("over");
        const c = ev.dataTransfer.getData("text/plain");
        if (!cards.includes(c)) return;
        if (which === "low" && !low.includes(c)) { low = low.length >= 2 ? [low[1], c] : [...low, c]; updateSelection(); }
        if (which === "high" && low.includes(c)) { low = low.filter((x) => x !== c); updateSelection(); }
      });
    }
    group.addEventListener("keydown", (ev) => {
      const n = Number(ev.key);
      if (n >= 1 && n <= 7) { ev.preventDefault(); toggle(cards[n - 1]); document.getElementById(`card-${cards[n - 1]}`)?.focus(); }
    });
    const foulBox = h("div", { id: "foul-box" });
    const setBtn = h("button", { type: "button", class: "primary", id: "set-btn", disabled: true, onclick: () => submit(false) }, "Set hand");
    handPanel.append(
      h("p", { id: "hand-help", class: "muted" }, "Move two cards to the low hand: click or tap a card, drag it, or Tab to it and press Space (keys 1–7 pick a card by place; arrows move). The other five are the high hand."),
      group, h("div", { id: "live-eval", "aria-live": "polite", class: "sr-only" }), foulBox, h("div", { class: "row" }, setBtn));
    updateSelection();
    if (fresh) {
      const target = handPanel;
      requestAnimationFrame(() => {
        const r = target.getBoundingClientRect();
        if (r.top < 0 || r.bottom > window.innerHeight) target.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" });
      });
    }
  }

  function toggle(c) {
    if (low.includes(c)) low = low.filter((x) => x !== c);
    else if (low.length < 2) low = [...low, c];
    else { announce("The low hand has two cards: move one back first"); return; }
    updateSelection();
    document.getElementById(`card-${c}`)?.focus();
  }

  async function updateSelection() {
    const cards = myCards();
    const highBox = document.getElementById("high-slots");
    const lowBox = document.getElementById("low-slots");
    if (!highBox || !cards) return;
    const focused = document.activeElement;
    for (const c of cards) {
      const b = document.getElementById(`card-${c}`);
      const inLow = low.includes(c);
      b.setAttribute("aria-pressed", inLow ? "true" : "false");
      const want = inLow ? lowBox : highBox;
      if (b.parentElement !== want) want.append(b);
    }
    // keep each box in sorted order
    for (const boxEl of [highBox, lowBox]) {
      const bs = [...boxEl.children].sort((a, b) => cards.indexOf(a.dataset.card) - cards.indexOf(b.dataset.card));
      bs.forEach((b) => boxEl.append(b));
    }
    if (focused && focused.id && focused.id.startsWith("card-")) focused.focus();
    const highName = document.getElementById("high-name");
    const lowName = document.getElementById("low-name");
    document.getElementById("high-count").textContent = low.length === 2 ? "" : ` ${7 - low.length} cards: move ${2 - low.length} to the low hand`;
    document.getElementById("low-count").textContent = low.length === 2 ? "" : ` ${low.length} of 2`;
    const foulBox = document.getElementById("foul-box");
    const setBtn = document.getElementById("set-btn");
    const live = document.getElementById("live-eval");
    foulBox.replaceChildren();
    evaluation = null;
    setBtn.disabled = low.length !== 2;
    setBtn.textContent = "Set hand";
    if (low.length !== 2) {
      highName.textContent = ""; lowName.textContent = "";
      live.textContent = `Low hand: ${low.length} of 2 cards${low.length ? ` (${cardsText(low)})` : ""}.`;
      return;
    }
    const want = low.join(",");
    highName.textContent = "…"; lowName.textContent = "…";
    try {
      const r = await api("POST", "/api/web/evaluate", { cards, low, wheel: table.wheel });
      if (low.join(",") !== want) return;
      evaluation = r;
      highName.textContent = r.high_name;
      lowName.textContent = r.low_name;
      live.textContent = `High hand ${r.high_name}; low hand ${r.low_name}${r.foul ? "; a foul" : ""}.`;
      if (r.foul) {
        foulBox.replaceChildren(h("div", { class: "foul", id: "foul-warning", role: "alert" },
          h("strong", {}, "Foul: "), "the low hand outranks the high hand. ", table.foul === "loses" ? "Under Indiana's rule (68 IAC 10-9-13(a)) a foul hand loses." : "The house way will set it instead."));
        setBtn.textContent = "Set hand (foul)…";
      }
    } catch (err) { fail(err); }
  }

  function askFoul() {
    const foulBox = document.getElementById("foul-box");
    foulBox.replaceChildren(h("div", { class: "foul", id: "foul-confirm", role: "alertdialog", "aria-labelledby": "foul-q" },
      h("p", { id: "foul-q" }, h("strong", {}, "This setting is a foul"), table.foul === "loses" ? " and loses your wager. Play it anyway?" : ". The house way will set your hand instead. Continue?"),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger", id: "confirm-foul", onclick: () => submit(true) }, "Play the foul hand"),
        h("button", { type: "button", id: "cancel-foul", onclick: () => { updateSelection(); document.querySelector("#my-cards button")?.focus(); } }, "Choose again"))));
    document.getElementById("confirm-foul").focus();
  }

  async function submit(confirmFoul) {
    if (low.length !== 2) return;
    if (!confirmFoul && evaluation && evaluation.foul) { askFoul(); return; }
    try {
      const r = await api("POST", `/api/tables/${table.id}/set`, { low, confirm_foul: confirmFoul, round_id: roundId });
      announce(`Hand set: ${cardsText(r.high)} / ${cardsText(r.low)}${r.foul ? ", a foul" : ""}`);
      clearMsg();
    } catch (err) {
      if (err.status === 409 && /foul/i.test(`${err.code} ${err.message}`)) { askFoul(); return; }
      fail(err);
    }
  }

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
        h("td", {}, cardsText(sortCards(s.high))), h("td", {}, cardsText(sortCards(s.low))),
        h("td", { class: "num" }, (s.ev >= 0 ? "+" : "−") + Math.abs(s.ev).toFixed(4)),
        h("td", { class: "num" }, `${n(s.win)} / ${n(s.push)} / ${n(s.loss)}`),
        h("td", {}, [s.i === a.optimal ? "best" : "", s.i === a.house_way ? "house way" : "", s.foul ? "foul" : ""].filter(Boolean).join(", "))))));
  }

  function renderPractice() {
    if (!practicePanel) return;
    const hintBox = h("div", { id: "hint", "aria-live": "polite" });
    const evBox = h("div", { id: "ev", "aria-live": "polite", class: "scroll" });
    practicePanel.replaceChildren(h("h2", { id: "practice-title" }, "Practice help"),
      h("p", {}, "Practice table: help with setting is offered here (never at a casino table)."),
      h("div", { class: "row" },
        h("button", { type: "button", id: "hint-btn", onclick: async () => {
          try {
            const r = await api("GET", `/api/tables/${table.id}/hint`);
            hintBox.replaceChildren(h("div", { class: "hint" }, h("p", {}, `House way (${r.house_way}, rule ${r.rule}):`),
              h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), cardRow(sortCards(r.high), { small: true }), h("strong", {}, r.high_name)),
              h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), cardRow(sortCards(r.low), { small: true }), h("strong", {}, r.low_name)),
              h("button", { type: "button", id: "use-hint", onclick: () => { low = [...r.low]; updateSelection(); } }, "Use this setting")));
          } catch (err) { hintBox.replaceChildren(h("p", { class: "error" }, errorText(err))); }
        } }, "House way suggestion"),
        h("button", { type: "button", id: "ev-btn", onclick: async () => {
          const started = Date.now();
          const progress = h("p", { id: "ev-progress", role: "status" }, h("progress", { "aria-label": "Computing the exact EV" }), " Computing the exact EV over every dealer hand…");
          evBox.replaceChildren(progress);
          const t = setInterval(() => { progress.lastChild.textContent = ` Computing the exact EV over every dealer hand… ${Math.round((Date.now() - started) / 1000)} s`; }, 1000);
          const { r, err } = await fetchEv();
          clearInterval(t);
          if (err) { evFor = null; evPromise = null; evBox.replaceChildren(h("p", { class: "error" }, errorText(err))); return; }
          if (!r.available) { evBox.replaceChildren(h("p", { id: "ev-unavailable" }, "The exact EV is not available: the analysis table is not compiled on this server.")); return; }
          evBox.replaceChildren(evTable(r.analysis));
        } }, "Exact EV of every setting")),
      hintBox, evBox);
  }

  // ------------------------------------------------------------------ results and wallet
  function resultLine(r, mine) {
    const who = `Spot ${r.spot}${r.spot === mine ? " (you)" : ""}`;
    let money_ = "";
    if (r.outcome === "win") money_ = `won ${money(r.win)}, commission ${money(r.commission)}, returned ${money(r.returned)}`;
    else if (r.outcome === "push") money_ = `push, returned ${money(r.returned)}`;
    else money_ = `lost ${money(r.wager)}${r.foul ? " (foul)" : ""}`;
    return h("li", { id: `result-${r.spot}`, class: r.outcome, "data-outcome": r.outcome, "data-returned": r.returned },
      h("strong", {}, `${who}: ${OUTCOME[r.outcome]}`), ` — ${money_}. `, h("span", { class: "muted" }, `High ${r.high}, low ${r.low}; wager ${money(r.wager)}.`));
  }

  function renderResults() {
    const s = st();
    const mine = myDealtSpot();
    patch(resultsPanel, [roundId, s.results.length, !!s.totals, !!s.voided, mine], () => {
      const out = [h("h2", { id: "results-title" }, "Results")];
      if (s.voided) out.push(h("p", {}, describe(s.voided)));
      else if (!s.results.length) out.push(h("p", { class: "muted" }, "Spot by spot from spot 1, once the dealer has set."));
      else {
        out.push(h("ul", { class: "results", id: "results" }, s.results.map((r) => resultLine(r, mine))));
        if (s.totals) out.push(h("p", { class: "muted" }, describe(s.totals)));
      }
      return out;
    });
  }

  function entryLabel(e, i, group) {
    if (e.kind === "wager") return "wager placed";
    if (e.kind === "void" || /void/.test(e.kind)) return "wager returned (void)";
    if (e.amount < 0 && /commission/.test(e.memo || "")) return "commission";
    if (e.amount > 0) {
      const positives = group.filter((x) => x.amount > 0 && !/commission/.test(x.memo || ""));
      return positives.length > 1 && positives.indexOf(e) > 0 ? "win paid" : "stake returned";
    }
    return e.kind;
  }

  async function renderWallet() {
    if (!session.token) { walletPanel.replaceChildren(); return; }
    try {
      const l = await api("GET", "/api/web/ledger");
      setBalance(l.balance);
      const entries = roundId ? l.entries.filter((e) => e.reference === roundId).sort((a, b) => a.entry_id - b.entry_id) : [];
      const net = entries.reduce((a, e) => a + e.amount, 0);
      const groups = {};
      for (const e of entries) (groups[e.transaction_id] ||= []).push(e);
      walletPanel.replaceChildren(h("h2", { id: "wallet-title" }, "Your wallet"),
        h("p", {}, "Balance: ", h("strong", { id: "wallet-balance", "data-balance": "", "data-cents": l.balance }, money(l.balance))));
      if (entries.length) {
        walletPanel.append(h("p", {}, `This round (${roundNumber ? `round ${roundNumber}` : "the last"}):`),
          h("ul", { id: "ledger", "data-net": net }, entries.map((e) => h("li", { "data-amount": e.amount },
            `${signed(e.amount)} ${entryLabel(e, 0, groups[e.transaction_id])}${e.memo ? ` (${e.memo.replace(/ (win|push|loss)( commission)?$/, "")})` : ""}`))),
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
    renderPosted(); renderStatus(); renderSpots(); renderControls(); tick();
  }
  function renderAll() {
    renderPosted(); renderStatus(); renderDealer(); renderDice(); renderSpots(); renderControls(); renderHand(); renderResults(); tick();
  }

  function log(msg) {
    logList.append(h("li", {}, msg.text || describe(msg)));
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
    roundId = msg.round_id; roundNumber = msg.round_number ?? null; events = []; low = []; evaluation = null; players = {};
    evPromise = null; evFor = null;
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
    renderStatus(); renderDealer(); renderDice(); renderSpots(); renderControls(); renderHand(); renderResults(); tick();
    if (msg.type === "dealt") {
      animateDeal(msg);
      const cards = myCards();
      announce("Cards dealt. " + (cards ? `Your cards: ${cards.map(cardName).join(", ")}` : ""));
      if (cards && practicePanel) fetchEv();
    }
    if (msg.type === "dealer-set" || msg.type === "start-chosen") announce(describe(msg));
    if (msg.type === "round-settled" || msg.type === "voided" || msg.type === "wager-placed") scheduleWallet();
    scheduleFetch();
  }

  // ------------------------------------------------------------------ the feed
  function showConn(text) { if (conn.textContent !== text) conn.textContent = text; conn.hidden = !text; }
  function connect() {
    if (closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const url = `${proto}://${location.host}/ws/tables/${id}${session.token ? `?token=${encodeURIComponent(session.token)}` : ""}`;
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
        const keepLow = low;
        const prevRound = roundId;
        events = []; roundId = null; roundNumber = null; players = {};
        logList.replaceChildren();
        if (msg.round) {
          roundId = msg.round.id; roundNumber = msg.round.number;
          players = {};
          for (const [spot, who] of Object.entries(msg.round.players || {})) players[spot] = who;
          for (const e of msg.round.log) onEvent({ ...e, round_id: msg.round.id, round_number: msg.round.number }, false);
        }
        if (roundId === prevRound) low = keepLow;
        handKey = null;
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
        fail(msg);
      } else if (msg.type === "meter") {
        // a progressive bank's live meter: not one of the round's events (the page's meter
        // display is the browser's side-wager work, still to come)
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
  connect();

  return () => {
    closed = true;
    clearInterval(ticker);
    clearTimeout(fetchTimer);
    clearTimeout(walletTimer);
    clearTimeout(retryTimer);
    window.removeEventListener("online", online);
    if (ws) ws.close();
  };
}
