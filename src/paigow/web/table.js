// A table: the dealer and six spots, wagers, dice, packets, setting a hand, the reveal, results.
import { api, session, key, money, parseCents, signed } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { cardEl, cardRow, backs, cardsText } from "./cards.js";
import { describe, derive, countPath, positionName } from "./describe.js";
import { refreshWho } from "./app.js";

const PHASE_TEXT = {
  betting: "Betting", shuffled: "Shuffling", starting: "Choosing the starting position",
  setting: "Players set their hands", dealer: "The dealer has set; settling",
  settled: "Settled", voided: "Void",
};

export async function tableView(root, id) {
  let table = await api("GET", `/api/tables/${id}`);
  const me = session.token ? await refreshWho() : null;
  const username = me ? me.username : null;
  let events = [];
  let roundId = null;
  let handKey = null; // the round whose cards are on the buttons
  let selected = [];
  let evaluation = null;
  let skew = 0;
  let closed = false;
  let ws = null;
  let fetchTimer = null;

  // ------------------------------------------------------------------ skeleton
  const posted = h("div", { class: "posted", id: "posted", role: "region", "aria-label": "Posted at this table" });
  const dealerBox = h("div", { class: "dealer", id: "dealer", "data-position": 1 });
  const diceBox = h("div", { id: "dice", "aria-live": "polite" });
  const spotsBox = h("div", { class: "spots", id: "spots" });
  const felt = h("section", { class: "felt", "aria-label": "The layout: the dealer and six spots, spot 1 at the dealer's far right" }, dealerBox, diceBox, spotsBox);
  const handPanel = h("section", { class: "panel", id: "hand-panel", "aria-labelledby": "hand-title" });
  const practicePanel = h("section", { class: "panel", id: "practice", "aria-labelledby": "practice-title" });
  const resultsPanel = h("section", { class: "panel", id: "results-panel", "aria-labelledby": "results-title" });
  const status = h("section", { class: "panel", id: "status" });
  const controls = h("section", { class: "panel", id: "controls", "aria-label": "Your spot and wager" });
  const walletPanel = h("section", { class: "panel", id: "wallet", "aria-labelledby": "wallet-title" });
  const logList = h("ol", { class: "log", id: "log" });
  const logPanel = h("section", { class: "panel", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Table events"),
    h("div", { "aria-live": "polite", "aria-relevant": "additions", id: "log-live" }, logList));
  const countdown = h("span", { class: "countdown", id: "countdown", role: "timer", "aria-live": "off" });
  const phaseText = h("p", { id: "phase" });
  const statusMsg = h("p", { id: "status-msg", role: "alert" });
  status.append(h("h2", {}, "Round"), phaseText, h("p", {}, countdown), statusMsg);

  root.append(
    h("h1", {}, `Table ${table.id}: ${table.name}`),
    posted,
    h("div", { class: "table-page" },
      h("div", {}, felt, handPanel, table.mode === "practice" ? practicePanel : null, resultsPanel),
      h("div", {}, status, controls, walletPanel, logPanel,
        h("p", {}, h("a", { href: `#/recall/${table.id}` }, "Recall: the last ten rounds")))),
  );

  const st = () => derive(events);
  const mySpot = () => {
    const s = table.spots.find((x) => x.player && x.player === username);
    return s ? s.spot : null;
  };
  const myCards = () => {
    const d = st().dealt;
    if (!d || !d.your_cards) return null;
    const spot = mySpot();
    if (spot && d.your_cards[String(spot)]) return d.your_cards[String(spot)];
    const vals = Object.values(d.your_cards);
    return vals.length ? vals[0] : null;
  };
  const myDealtSpot = () => {
    const d = st().dealt;
    if (!d || !d.your_cards) return null;
    return Number(Object.keys(d.your_cards)[0]);
  };
  const fail = (err) => { statusMsg.className = "error"; statusMsg.textContent = errorText(err); };

  // ------------------------------------------------------------------ posted
  function renderPosted() {
    posted.replaceChildren(
      h("span", { id: "posted-commission" }, `Commission ${table.commission_posted} of each win (posted, 9-1(f))`),
      h("span", { id: "posted-limits" }, `Limits ${money(table.min_wager)} – ${money(table.max_wager)}`),
      h("span", {}, `House way: ${table.house_way}`),
      h("span", {}, `Start: ${table.start === "dice" ? "three dice" : "random number"}`),
      h("span", { id: "posted-mode" }, table.mode === "practice" ? "Practice table" : "Casino table"),
      h("span", {}, table.foul === "loses" ? "A foul hand loses" : "A foul is reset by the house way"),
      ...(table.status !== "open" ? [h("span", { class: "error" }, `Table ${table.status}`)] : []),
    );
  }

  // ------------------------------------------------------------------ layout
  function renderDealer() {
    const s = st();
    dealerBox.replaceChildren(h("h3", {}, "Dealer (position 1, the bank)"));
    if (s.dealer) {
      dealerBox.append(
        h("div", { class: "hands", id: "dealer-hand" },
          h("div", {}, "High: ", cardRow(s.dealer.high, { small: true }), " ", h("strong", {}, s.dealer.high_name)),
          h("div", {}, "Low: ", cardRow(s.dealer.low, { small: true }), " ", h("strong", {}, s.dealer.low_name))),
        h("p", { id: "dealer-rule" }, `Set by the house way, rule ${s.dealer.rule}`));
    } else if (s.dealt) {
      dealerBox.append(backs(7));
    }
    dealerBox.classList.toggle("start", !!(s.start && s.start.position === 1));
  }

  function renderDice() {
    const s = st();
    if (!s.start) { diceBox.replaceChildren(); return; }
    const e = s.start;
    const path = countPath(e.number);
    diceBox.replaceChildren(
      h("div", { class: "dice", id: "dice-shown" },
        e.method === "dice" ? e.dice.map((d) => h("span", { class: "die", "aria-label": `die ${d}` }, String(d))) : h("span", { class: "die", "aria-label": `random number ${e.number}` }, String(e.number)),
        h("strong", {}, e.method === "dice" ? ` = ${e.number}` : " (random number)")),
      h("p", { class: "count", id: "count" }, "Count from the dealer: ",
        path.map((p, i) => h("span", { class: i === path.length - 1 ? "hit" : "" }, `${i + 1}:${p === 1 ? "D" : p - 1}${i < path.length - 1 ? " → " : ""}`)),
        h("span", {}, ` — first packet to ${positionName(e.position)}`)));
  }

  function renderSpots() {
    const s = st();
    const seated = mySpot();
    const dealtSpots = s.dealt ? s.dealt.spots : [];
    const mine = myDealtSpot();
    spotsBox.replaceChildren();
    for (const spot of table.spots) {
      const n = spot.spot;
      const el = h("div", { class: "spot", id: `spot-${n}`, "data-position": n + 1, role: "group", "aria-label": `Spot ${n}` });
      if (n === seated || n === mine) el.classList.add("mine");
      if (s.start && s.start.position === n + 1) el.classList.add("start");
      el.append(h("div", { class: "name" }, `Spot ${n}`, n === 1 ? " (dealer's far right)" : ""));
      el.append(h("div", {}, spot.player ? (spot.player === username ? `${spot.player} (you)` : spot.player) : "empty"));
      if (s.wagers[n]) el.append(h("div", {}, h("span", { class: "chip" }, money(s.wagers[n]))));
      if (dealtSpots.includes(n)) {
        const set = s.settings[n];
        if (n === mine && myCards()) {
          if (set && set.high) el.append(h("div", {}, "High ", cardRow(set.high, { small: true })), h("div", {}, "Low ", cardRow(set.low, { small: true })));
          else el.append(cardRow(myCards(), { small: true }));
        } else if (set && set.high) {
          el.append(h("div", {}, "High ", cardRow(set.high, { small: true })), h("div", {}, "Low ", cardRow(set.low, { small: true })));
        } else {
          el.append(backs(7));
        }
        if (set) el.append(h("div", {}, set.foul ? "FOUL" : "", set.by === "player" ? " set" : ` set by house way${set.reason ? ` (${set.reason})` : ""}`));
      }
      const r = s.results.find((x) => x.spot === n);
      if (r) el.append(h("div", { class: "result" }, h("strong", {}, r.outcome.toUpperCase()), r.commission ? ` (commission ${money(r.commission)})` : ""));
      if (!spot.occupied && session.token && seated === null && table.status === "open") {
        el.append(h("button", { type: "button", id: `sit-${n}`, onclick: () => sit(n) }, `Sit at spot ${n}`));
      }
      spotsBox.append(el);
    }
  }

  // ------------------------------------------------------------------ controls
  function renderControls() {
    const seated = mySpot();
    controls.replaceChildren(h("h2", {}, "Your spot"));
    if (!session.token) {
      controls.append(h("p", {}, "Watching. ", h("a", { href: "#/lobby" }, "Log in"), " to play."));
      return;
    }
    if (seated === null) {
      controls.append(h("p", {}, "Choose a free spot on the layout to sit."));
      return;
    }
    const s = st();
    const phase = table.round ? table.round.phase : null;
    const wagered = !!s.wagers[seated] && roundId && table.round && table.round.id === roundId;
    controls.append(h("p", {}, `You sit at spot ${seated}.`));
    if (!wagered && (phase === null || phase === "betting") && table.status === "open") {
      const amount = h("input", { id: "wager-amount", type: "number", min: table.min_wager / 100, max: table.max_wager / 100, step: "0.01", value: (table.min_wager / 100).toFixed(2), required: true });
      controls.append(h("form", {
        id: "wager-form",
        onsubmit: async (ev) => {
          ev.preventDefault();
          try {
            const r = await api("POST", `/api/tables/${table.id}/wager`, { amount: parseCents(amount.value), idempotency_key: key() });
            announce(`Wager of ${money(r.amount)} accepted; balance ${money(r.balance)}`);
            statusMsg.textContent = "";
            refreshWho();
            scheduleFetch();
          } catch (err) { fail(err); }
        },
      }, h("div", { class: "row" }, h("label", {}, `Wager ($${(table.min_wager / 100).toFixed(2)}–$${(table.max_wager / 100).toFixed(2)})`, amount),
        h("button", { type: "submit", class: "primary", id: "wager-btn" }, "Place wager"))));
    } else if (wagered) {
      controls.append(h("p", { id: "my-wager" }, `Your wager: ${money(s.wagers[seated])}`));
    }
    controls.append(h("button", { type: "button", id: "leave-btn", onclick: async () => {
      try { await api("POST", `/api/tables/${table.id}/leave`); announce("You left the spot"); await fetchTable(); } catch (err) { fail(err); }
    } }, "Leave the spot"));
  }

  async function sit(n) {
    try {
      await api("POST", `/api/tables/${table.id}/sit`, { spot: n });
      announce(`You sit at spot ${n}`);
      await fetchTable();
      const f = document.getElementById("wager-amount");
      if (f) f.focus();
    } catch (err) { fail(err); }
  }

  // ------------------------------------------------------------------ your hand
  function renderHand(force = false) {
    const cards = myCards();
    const k = cards ? `${roundId}:${cards.join(",")}` : null;
    const s = st();
    const spot = myDealtSpot();
    const mySet = spot ? s.settings[spot] : null;
    if (!force && k === handKey && !(mySet && mySet.high && !handPanel.dataset.set)) return;
    handKey = k;
    handPanel.dataset.set = mySet && mySet.high ? "1" : "";
    handPanel.replaceChildren(h("h2", { id: "hand-title" }, "Your hand"));
    if (!cards) {
      handPanel.append(h("p", {}, session.token ? "Your seven cards appear here, face up, once dealt." : "Log in to play."));
      selected = []; evaluation = null;
      return;
    }
    if (mySet && mySet.high) {
      handPanel.append(h("div", { class: "hands", id: "my-setting" },
        h("div", {}, "High hand: ", cardRow(mySet.high)),
        h("div", {}, "Low hand: ", cardRow(mySet.low)),
        h("p", {}, mySet.by === "player" ? "You set this hand." : `The house way set this hand${mySet.reason ? ` (${mySet.reason})` : ""}.`,
          mySet.foul ? h("strong", { class: "error" }, " FOUL: this hand loses.") : "")));
      return;
    }
    handPanel.append(h("p", { id: "hand-help" }, "Choose the two cards of the low hand: click them, or Tab to a card and press Space or Enter (keys 1–7 also work). The other five are the high hand."));
    const buttons = h("div", { class: "cards", id: "my-cards", role: "group", "aria-label": "Your seven cards" });
    cards.forEach((c, i) => {
      const b = cardEl(c, { button: true });
      b.id = `card-${c}`;
      b.setAttribute("aria-label", `${b.getAttribute("aria-label")}, card ${i + 1}`);
      b.setAttribute("aria-pressed", selected.includes(c) ? "true" : "false");
      b.addEventListener("click", () => toggle(c));
      buttons.append(b);
    });
    buttons.addEventListener("keydown", (ev) => {
      const n = Number(ev.key);
      if (n >= 1 && n <= 7) { ev.preventDefault(); toggle(cards[n - 1]); buttons.children[n - 1].focus(); }
    });
    const live = h("div", { id: "live-eval", "aria-live": "polite" });
    const foulBox = h("div", { id: "foul-box" });
    const setBtn = h("button", { type: "button", class: "primary", id: "set-btn", disabled: true, onclick: () => submit(false) }, "Set hand");
    handPanel.append(buttons, live, foulBox, h("div", { class: "row" }, setBtn));
    updateSelection();
  }

  function toggle(c) {
    if (selected.includes(c)) selected = selected.filter((x) => x !== c);
    else if (selected.length < 2) selected = [...selected, c];
    else { announce("The low hand has two cards: unselect one first"); return; }
    updateSelection();
  }

  async function updateSelection() {
    const cards = myCards();
    for (const b of document.querySelectorAll("#my-cards button.card")) {
      b.setAttribute("aria-pressed", selected.includes(b.dataset.card) ? "true" : "false");
    }
    const live = document.getElementById("live-eval");
    const foulBox = document.getElementById("foul-box");
    const setBtn = document.getElementById("set-btn");
    if (!live) return;
    foulBox.replaceChildren();
    evaluation = null;
    setBtn.disabled = selected.length !== 2;
    if (selected.length !== 2) {
      live.replaceChildren(h("p", {}, `Low hand: ${selected.length} of 2 cards chosen${selected.length ? ` (${cardsText(selected)})` : ""}.`));
      return;
    }
    const want = selected.join(",");
    try {
      const r = await api("POST", "/api/web/evaluate", { cards, low: selected, wheel: table.wheel });
      if (selected.join(",") !== want) return;
      evaluation = r;
      live.replaceChildren(h("div", { class: "hands" },
        h("div", {}, "High hand: ", cardRow(r.high, { small: true }), " ", h("strong", { id: "high-name" }, r.high_name)),
        h("div", {}, "Low hand: ", cardRow(r.low, { small: true }), " ", h("strong", { id: "low-name" }, r.low_name))));
      if (r.foul) {
        foulBox.replaceChildren(h("div", { class: "foul", id: "foul-warning", role: "alert" },
          "Foul: the low hand outranks the high hand. ", table.foul === "loses" ? "Under Indiana's rule (68 IAC 10-9-13(a)) a foul hand loses." : "The house way will set it instead."));
        setBtn.textContent = "Set hand (foul)…";
      } else {
        setBtn.textContent = "Set hand";
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
    if (selected.length !== 2) return;
    if (!confirmFoul && evaluation && evaluation.foul) { askFoul(); return; }
    try {
      const r = await api("POST", `/api/tables/${table.id}/set`, { low: selected, confirm_foul: confirmFoul, round_id: roundId });
      announce(`Hand set: ${cardsText(r.high)} / ${cardsText(r.low)}${r.foul ? ", a foul" : ""}`);
      statusMsg.textContent = "";
    } catch (err) {
      if (err.status === 409 && /foul/i.test(`${err.code} ${err.message}`)) { askFoul(); return; }
      fail(err);
    }
  }

  // ------------------------------------------------------------------ practice help
  function renderPractice() {
    if (table.mode !== "practice") return;
    const hintBox = h("div", { id: "hint", "aria-live": "polite" });
    const evBox = h("div", { id: "ev", "aria-live": "polite", class: "scroll" });
    practicePanel.replaceChildren(h("h2", { id: "practice-title" }, "Practice help"),
      h("p", {}, "Practice table: help with setting is offered here (never at a casino table)."),
      h("div", { class: "row" },
        h("button", { type: "button", id: "hint-btn", onclick: async () => {
          try {
            const r = await api("GET", `/api/tables/${table.id}/hint`);
            hintBox.replaceChildren(h("p", {}, `House way (${r.house_way}, rule ${r.rule}): high `, cardRow(r.high, { small: true }), ` ${r.high_name}; low `, cardRow(r.low, { small: true }), ` ${r.low_name}. `,
              h("button", { type: "button", id: "use-hint", onclick: () => { selected = [...r.low]; updateSelection(); } }, "Use this setting")));
          } catch (err) { hintBox.replaceChildren(h("p", { class: "error" }, errorText(err))); }
        } }, "House way suggestion"),
        h("button", { type: "button", id: "ev-btn", onclick: async () => {
          evBox.replaceChildren(h("p", {}, "Computing the exact EV over every dealer hand…"));
          try {
            const r = await api("GET", `/api/web/tables/${table.id}/ev`);
            if (!r.available) { evBox.replaceChildren(h("p", { id: "ev-unavailable" }, "The exact EV is not available: the analysis table is not compiled on this server.")); return; }
            const a = r.analysis;
            const rows = a.settings.map((s, i) => ({ ...s, i })).sort((x, y) => y.ev - x.ev);
            evBox.replaceChildren(h("table", { class: "list", id: "ev-table" },
              h("caption", {}, `Exact EV per unit wagered over all ${a.dealer_hands.toLocaleString("en-US")} dealer hands (commission ${a.commission})`),
              h("thead", {}, h("tr", {}, ["High", "Low", "EV", "Win / push / loss", ""].map((t) => h("th", { scope: "col" }, t)))),
              h("tbody", {}, rows.map((s) => h("tr", {},
                h("td", {}, cardsText(s.high)), h("td", {}, cardsText(s.low)), h("td", {}, s.ev.toFixed(4)),
                h("td", {}, `${s.win} / ${s.push} / ${s.loss}`),
                h("td", {}, [s.i === a.optimal ? "optimal" : "", s.i === a.house_way ? "house way" : "", s.foul ? "foul" : ""].filter(Boolean).join(", ")))))));
          } catch (err) { evBox.replaceChildren(h("p", { class: "error" }, errorText(err))); }
        } }, "Exact EV of every setting")),
      hintBox, evBox);
  }

  // ------------------------------------------------------------------ results and wallet
  function renderResults() {
    const s = st();
    resultsPanel.replaceChildren(h("h2", { id: "results-title" }, "Results"));
    if (s.voided) { resultsPanel.append(h("p", {}, describe(s.voided))); return; }
    if (!s.results.length) { resultsPanel.append(h("p", {}, "Spot by spot from the far right (spot 1), once the dealer has set.")); return; }
    const mine = myDealtSpot();
    resultsPanel.append(h("div", { class: "scroll" }, h("table", { class: "list results", id: "results" },
      h("thead", {}, h("tr", {}, ["Spot", "High", "Low", "Outcome", "Wager", "Win", "Commission", "Returned"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, s.results.map((r) => h("tr", { id: `result-${r.spot}`, "data-outcome": r.outcome, "data-returned": r.returned },
        h("td", {}, `${r.spot}${r.spot === mine ? " (you)" : ""}`), h("td", {}, r.high), h("td", {}, r.low),
        h("td", { class: r.outcome }, r.outcome.toUpperCase() + (r.foul ? " (foul)" : "")),
        h("td", {}, money(r.wager)), h("td", {}, money(r.win)), h("td", {}, money(r.commission)), h("td", {}, money(r.returned))))))));
    if (s.totals) resultsPanel.append(h("p", {}, describe(s.totals)));
  }

  async function renderWallet() {
    walletPanel.replaceChildren(h("h2", { id: "wallet-title" }, "Your wallet"));
    if (!session.token) return;
    try {
      const l = await api("GET", "/api/web/ledger");
      const entries = roundId ? l.entries.filter((e) => e.reference === roundId) : [];
      const net = entries.reduce((a, e) => a + e.amount, 0);
      walletPanel.append(h("p", {}, "Balance: ", h("strong", { id: "wallet-balance", "data-cents": l.balance }, money(l.balance))));
      if (entries.length) {
        walletPanel.append(h("p", {}, "Ledger entries for this round:"),
          h("ul", { id: "ledger", "data-net": net }, entries.slice().reverse().map((e) => h("li", { "data-amount": e.amount },
            `#${e.transaction_id} ${e.kind}: ${signed(e.amount)}${e.memo ? ` (${e.memo})` : ""}`))),
          h("p", {}, `Net this round: ${signed(net)}`));
      }
      const b = document.getElementById("balance");
      if (b) { b.textContent = money(l.balance); b.dataset.cents = l.balance; }
    } catch (err) { walletPanel.append(h("p", { class: "error" }, errorText(err))); }
  }

  // ------------------------------------------------------------------ status and countdown
  function renderStatus() {
    const r = table.round;
    phaseText.textContent = r ? `Round ${r.number}: ${PHASE_TEXT[r.phase] || r.phase}` : "Waiting for the first wager.";
    if (r && r.deadline !== null && r.time_left_s !== null) skew = r.deadline - r.time_left_s - Date.now() / 1000;
  }
  function tick() {
    const r = table.round;
    if (!r || r.deadline === null || !["betting", "setting"].includes(r.phase)) { countdown.textContent = ""; return; }
    const left = Math.max(0, r.deadline - (Date.now() / 1000 + skew));
    const label = r.phase === "betting" ? "Betting closes in" : "Time to set";
    countdown.textContent = `${label}: ${left.toFixed(0)} s`;
    countdown.classList.toggle("low", left < 10);
    if (r.phase === "setting") countdown.title = "At the time limit the house way sets any hand not set";
  }
  const ticker = setInterval(tick, 250);

  async function fetchTable() {
    try {
      table = await api("GET", `/api/tables/${id}`);
      renderAll();
    } catch (err) { fail(err); }
  }
  function scheduleFetch() {
    clearTimeout(fetchTimer);
    fetchTimer = setTimeout(fetchTable, 120);
  }

  function renderAll() {
    renderPosted(); renderStatus(); renderDealer(); renderDice(); renderSpots(); renderControls(); renderHand(); renderResults(); tick();
  }

  function log(text) {
    logList.append(h("li", {}, text));
    while (logList.children.length > 80) logList.firstChild.remove();
    logList.scrollTop = logList.scrollHeight;
  }

  function animatePackets(e) {
    e.order.forEach((p, i) => setTimeout(() => {
      const el = document.querySelector(`[data-position="${p}"]`);
      if (el) el.classList.add("got-packet");
    }, 120 * i));
  }

  function onEvent(msg, live) {
    if (msg.round_id && msg.round_id !== roundId) {
      roundId = msg.round_id; events = []; selected = []; evaluation = null;
      logList.replaceChildren();
      if (table.mode === "practice") renderPractice();
    }
    events.push(msg);
    log(describe(msg));
    if (!live) return;
    renderAll();
    if (msg.type === "dealt") { animatePackets(msg); announce("Cards dealt. " + (myCards() ? `Your cards: ${cardsText(myCards())}` : "")); }
    if (msg.type === "dealer-set") announce(describe(msg));
    if (msg.type === "start-chosen") announce(describe(msg));
    if (msg.type === "round-settled" || msg.type === "voided") { renderWallet(); refreshWho(); }
    if (msg.type === "wager-placed") renderWallet();
    scheduleFetch();
  }

  // ------------------------------------------------------------------ the feed
  function connect() {
    if (closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const url = `${proto}://${location.host}/ws/tables/${id}${session.token ? `?token=${encodeURIComponent(session.token)}` : ""}`;
    ws = new WebSocket(url);
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "hello") {
        table = msg.table;
        events = []; roundId = null; handKey = null;
        logList.replaceChildren();
        if (msg.round) {
          roundId = msg.round.id;
          for (const e of msg.round.log) onEvent({ ...e, round_id: msg.round.id }, false);
        }
        renderAll(); renderPractice(); renderWallet();
        root.dataset.ready = "1";
      } else if (msg.type === "table") {
        table = msg.table; renderAll();
      } else if (msg.type === "error") {
        fail(msg.detail);
      } else if (msg.type !== "pong") {
        onEvent(msg, true);
      }
    };
    ws.onclose = () => { if (!closed) setTimeout(connect, 1000); };
  }
  renderAll();
  renderPractice();
  connect();

  return () => {
    closed = true;
    clearInterval(ticker);
    clearTimeout(fetchTimer);
    if (ws) ws.close();
  };
}
