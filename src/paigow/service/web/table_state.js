// The table page's state: the table as the server last described it, the round on display (its
// events as this viewer saw them, and the state they add up to), who played each spot, and the
// two things only this page knows (the mid-round leave question, the round you left with a wager
// in play). One reducer, ``reduce(state, action)``, updates it from the feed's messages and the
// page's own answers; the selectors below read it. No DOM here: the panels render from it.
import { sortCards } from "./cards.js";
import { derive } from "./describe.js";

/** The state before the feed's first message: ``table`` from the API, ``username`` (or null). */
export function initialState(table, username) {
  return { table, username, events: [], round: derive([]), roundId: null, roundNumber: null, players: {}, epoch: 0, leaving: false, leftMidRound: null };
}

/** The seat at spot ``n`` as the table describes it. */
export const seatOf = (state, n) => state.table.spots.find((x) => x.spot === n) || { spot: n, player: null, occupied: false };

/** The side wagers the table offers. */
export const offers = (state) => state.table.side_wagers || [];

/** Whether a round's state ``s`` (from :func:`derive`) is over: settled or void. */
export const ended = (s) => !!(s.totals || s.voided);

/** The spot you sit at, or null. */
export function mySeat(state) {
  const s = state.table.spots.find((x) => x.player && x.player === state.username);
  return s ? s.spot : null;
}

/** The spot your cards were dealt to in the round shown (your seat's when it has cards), or null. */
export function myDealtSpot(state) {
  const d = state.round.dealt;
  if (!d || !d.your_cards) return null;
  const spots = Object.keys(d.your_cards).map(Number);
  const seated = mySeat(state);
  return spots.includes(seated) ? seated : spots[0];
}

/** Your seven cards in the round shown, sorted, or null. */
export function myCards(state) {
  const spot = myDealtSpot(state);
  return spot ? sortCards(state.round.dealt.your_cards[String(spot)]) : null;
}

/** The spot you wagered on in the round shown (seated or not). */
export function myWagerSpot(state) {
  const s = state.round;
  const d = myDealtSpot(state);
  if (d) return d;
  const { players, username } = state;
  const seated = mySeat(state);
  if (seated !== null && s.wagers[seated] && players[seated] === username) return seated;
  const found = Object.keys(s.wagers).map(Number).find((n) => players[n] === username && username);
  return found ?? null;
}

/** A spot with a wager in play this round but nobody seated: its player left mid-round. */
export const inPlayWithoutPlayer = (state, n) => !ended(state.round) && !!state.round.wagers[n] && !seatOf(state, n).occupied;

/** Whether spot ``n`` shows the round on display: not after a settled round it did not play. */
export function showsRound(state, n) {
  if (!ended(state.round)) return true;
  const who = state.players[n];
  return who === undefined || who === (seatOf(state, n).player || null);
}

/** The phase of the round on display, from its events (ahead of the table's state) or the table. */
export function livePhase(state) {
  const s = state.round;
  const { table, roundId } = state;
  if (s.voided) return "voided";
  if (s.totals) return "settled";
  if (roundId && state.events.length) {
    // a face-up dealer sets right after the deal: the players set after it
    const own = s.dealer && !table.face_up ? "dealer" : s.dealt ? "setting" : s.start ? "starting" : "betting";
    const order = ["betting", "shuffled", "starting", "setting", "dealer"];
    const r = table.round;
    if (r && r.id === roundId && order.indexOf(r.phase) > order.indexOf(own)) return r.phase;
    return own;
  }
  return table.round ? table.round.phase : null;
}

/** Who is still setting (other than you), in words: "spot 4 (bob)", or "" when nobody is. */
export function stillSetting(state) {
  const s = state.round;
  if (!s.dealt || (s.dealer && !state.table.face_up) || ended(s)) return "";
  const mine = myDealtSpot(state);
  const waiting = s.dealt.spots.filter((n) => n !== mine && !s.settings[n]);
  return waiting.map((n) => {
    const who = seatOf(state, n).player || state.players[n];
    return `spot ${n}${who ? ` (${who})` : ""}`;
  }).join(", ");
}

/** One round event added: a new round starts afresh (its events, players and the leave question). */
function addEvent(state, msg, live) {
  let next = state;
  if (msg.round_id && msg.round_id !== state.roundId) {
    next = { ...next, roundId: msg.round_id, roundNumber: msg.round_number ?? null, events: [], players: {}, leaving: false, epoch: next.epoch + 1 };
  }
  if (msg.round_number) next = { ...next, roundNumber: msg.round_number };
  next = { ...next, events: [...next.events, msg] };
  if (msg.type === "wager-placed" && live) next.players = { ...next.players, [msg.spot]: seatOf(next, msg.spot).player || undefined };
  return next;
}

/** The state after ``action``: one of the feed's messages (``hello``, ``table``, ``meter`` or a
 * round event) or the page's own (``table-fetched``: the table from the API; ``leave-question``:
 * the mid-round leave question ``open`` or not; ``you-left``: you left ``spot``, ``inPlay``
 * with a wager in play). Messages that change nothing here (``wallet``, ``error``, ``pong``)
 * give ``state`` back as it is. */
export function reduce(state, action) {
  let next;
  switch (action.type) {
    case "hello": {
      next = { ...state, table: action.table, events: [], roundId: null, roundNumber: null, players: {}, epoch: state.epoch + 1 };
      const r = action.round;
      if (r) {
        next = { ...next, roundId: r.id, roundNumber: r.number, players: { ...(r.players || {}) } };
        for (const e of r.log) next = addEvent(next, { ...e, round_id: r.id, round_number: r.number }, false);
      }
      break;
    }
    case "table": {
      next = { ...state, table: action.table };
      // a wager can arrive before the table state that seats its player (one feed refresh
      // sends round events first): learn who played each wagered spot as soon as it is known
      const players = { ...next.players };
      for (const e of next.events) {
        if (e.type === "wager-placed" && e.round_id === next.roundId && players[e.spot] === undefined) {
          players[e.spot] = seatOf(next, e.spot).player || undefined;
        }
      }
      return { ...next, players };
    }
    case "table-fetched": return { ...state, table: action.table };
    case "meter": // a progressive bank's live meter: not one of the round's events
      if (!offers(state).some((o) => o.bank === action.bank)) return state;
      return { ...state, table: { ...state.table, meters: { ...(state.table.meters || {}), [action.bank]: action.meter } } };
    case "leave-question": return { ...state, leaving: action.open };
    case "you-left": {
      next = { ...state, leaving: false };
      if (action.inPlay) next = { ...next, leftMidRound: state.roundId, players: { ...state.players, [action.spot]: state.username } };
      return next;
    }
    case "wallet": case "error": case "pong": return state;
    default: next = addEvent(state, action, true);
  }
  return { ...next, round: derive(next.events) };
}
