// A table on one screen: the status bar, the felt (the dealer across from six spots) and your
// seat (the wager, your seven cards, your result) always in view; the posted rules, the round's
// results, your wallet, the practice help and the events in a side panel (a drawer on a phone).
// A table with side wagers adds a bonus circle beside the main wager, its pay tables in the side
// panel, the live meter and the showdown's bonus hands and Envy and jackpot news on the felt.
// A table offering the dragon hand shows it on its empty spot and the offer in your seat.
//
// This module wires the page: the state (table_state.js, one reducer over the feed's messages),
// one panel each for the status bar (table_status.js), the felt (table_felt.js), your seat
// (table_seat.js, with table_bet.js and hand.js), the side column (table_side.js) and your
// wallet (table_wallet.js); the feed (the table's WebSocket, reconnected with a backoff); and
// what an event says aloud.
import { api, session, sessionEnded, SESSION_ENDED, money, wallet, setBalance } from "./api.js";
import { h, announce } from "./dom.js";
import { cardName } from "./cards.js";
import { describe, dragonTurn } from "./describe.js";
import { dragonStatus } from "./dragon.js";
import { sideNews } from "./side.js";
import { initialState, myCards, mySeat, reduce } from "./table_state.js";
import { statusView } from "./table_status.js";
import { feltView } from "./table_felt.js";
import { seatView } from "./table_seat.js";
import { sideView } from "./table_side.js";
import { walletView } from "./table_wallet.js";

const BACKOFF_S = [0.5, 1, 2, 4, 8];
const MONEY_ERRORS = ["no-money", "insufficient-funds"];

export async function tableView(root, shell, id) {
  const navStart = window.paigowNavStart ?? 0;
  window.paigowReadyMs = undefined;
  const first = await api("GET", `/api/tables/${id}`);
  const me = session.user ? await shell.refreshWho() : null;
  if (me && wallet.balance === null) setBalance(me.balance);
  let state = initialState(first, me ? me.username : null);
  let closed = false;
  let ws = null;
  let attempt = 0;
  let retryTimer = null;
  let fetchTimer = null;
  let connected = false;
  document.body.classList.add("at-table");

  const current = () => state;
  const status = statusView({ state: current, onInfo: () => side.toggle() });
  const walletPanel = walletView({ state: current });
  const side = sideView({ state: current, infoBtn: status.infoBtn }, walletPanel.el);
  const seat = seatView(id, {
    state: current, dispatch, fail: status.fail, clearMsg: status.clearMsg, refresh: fetchTable, later: scheduleFetch,
    practice: side.practice, showEv: () => side.showEv(),
  });
  const felt = feltView({ state: current, sit: (n) => seat.sit(n) });
  root.append(h("div", { class: "table-app", id: "table-app" }, status.el, h("div", { class: "game", id: "game" }, felt.el, seat.el), side.el));

  function render() {
    side.render(); felt.render(); status.render(); seat.render(); status.tick();
  }

  /** The state after ``action`` (reduce), and the page drawn from it. */
  function dispatch(action) {
    const prev = state;
    state = reduce(state, action);
    if (action.type === "hello") {
      seat.hand.resync(state.roundId === prev.roundId ? seat.hand.chosen() : []);
      side.renderPractice();
    } else if (state.roundId !== prev.roundId) {
      seat.hand.newRound();
      side.newRound();
    }
    render();
  }

  /** The table's state from the API (after your own moves), now or soon. */
  async function fetchTable() {
    try {
      dispatch({ type: "table-fetched", table: await api("GET", `/api/tables/${id}`) });
    } catch (err) { status.fail(err); }
  }
  function scheduleFetch() {
    clearTimeout(fetchTimer);
    fetchTimer = setTimeout(fetchTable, 120);
  }

  /** The wallet changed: a "too little money" error is stale once the wallet covers the minimum. */
  const onBalance = () => {
    if (MONEY_ERRORS.includes(status.errorCode()) && wallet.balance !== null && wallet.balance >= state.table.min_wager) status.clearMsg();
    seat.render();
  };
  document.addEventListener("paigow:balance", onBalance);

  /** What a live round event does beyond the state: says it aloud, deals, reads the wallet. */
  function afterEvent(msg) {
    const news = sideNews(msg, state.table);
    if (news) announce(news);
    if (msg.type === "dealt") {
      felt.animateDeal(msg);
      const cards = myCards(state);
      announce("Cards dealt. " + (cards ? `Your cards: ${cards.map(cardName).join(", ")}` : ""));
      if (cards && side.practice) side.fetchEv();
    }
    if (msg.type === "dealer-set" || msg.type === "start-chosen") announce(describe(msg));
    if (msg.type.startsWith("dragon-") && msg.type !== "dragon-set") {
      const mine = mySeat(state);
      const s = state.round;
      announce(dragonTurn(s) === mine && mine !== null ? `The dragon hand is offered to you: wager from ${money(state.table.min_wager)} to ${money(s.wagers[mine] || 0)}, or decline` : `${describe(msg)} ${dragonStatus(s, mine) ? `(${dragonStatus(s, mine)})` : ""}`.trim());
    }
    if (msg.type === "round-settled" || msg.type === "voided" || msg.type === "wager-placed") walletPanel.later();
    scheduleFetch();
  }

  // ------------------------------------------------------------------ the feed
  function handle(msg) {
    if (msg.type === "hello") {
      attempt = 0; connected = true; status.showConn("");
      root.dataset.live = "1";
      dispatch(msg);
      walletPanel.render();
      root.dataset.ready = "1";
      if (window.paigowReadyMs === undefined) window.paigowReadyMs = performance.now() - navStart;
    } else if (msg.type === "table") {
      dispatch(msg);
    } else if (msg.type === "wallet") {
      setBalance(msg.balance);
      walletPanel.later();
    } else if (msg.type === "error") {
      // the session ended (expired, idle, logged out elsewhere or by the operator): say why
      if (session.user && SESSION_ENDED.includes(msg.code)) { closed = true; sessionEnded(msg.code); return; }
      status.fail(msg);
    } else if (msg.type === "meter") {
      const before = state;
      dispatch(msg); // a progressive bank's live meter: the felt and the pay tables
      if (state !== before) side.onMeter();
    } else if (msg.type !== "pong") {
      dispatch(msg);
      afterEvent(msg);
    }
  }

  function connect() {
    if (closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // the session cookie goes with the upgrade (same origin): no token in the URL
    const sock = new WebSocket(`${proto}://${location.host}/ws/tables/${id}`);
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
    sock.onclose = () => {
      if (closed || ws !== sock) return;
      connected = false;
      delete root.dataset.live;
      const wait = BACKOFF_S[Math.min(attempt, BACKOFF_S.length - 1)] * (0.8 + Math.random() * 0.4);
      attempt += 1;
      status.showConn(`Connection lost: reconnecting in ${wait.toFixed(0)} s…`);
      retryTimer = setTimeout(connect, wait * 1000);
    };
  }
  const online = () => { if (!connected && !closed) { clearTimeout(retryTimer); attempt = 0; connect(); } };
  window.addEventListener("online", online);

  render();
  side.renderPractice();
  side.fetchReturns();
  connect();

  return () => {
    closed = true;
    status.stop();
    side.stop();
    walletPanel.stop();
    clearTimeout(fetchTimer);
    clearTimeout(retryTimer);
    window.removeEventListener("online", online);
    document.removeEventListener("paigow:balance", onBalance);
    document.body.classList.remove("at-table");
    if (ws) ws.close();
  };
}
