// Round events in words (the table's live log and game recall).
import { cardsText } from "./cards.js";
import { money } from "./api.js";

export function positionName(p) {
  return p === 1 ? "the dealer" : `spot ${p - 1}`;
}

/** The positions counted from the dealer (1) counterclockwise up to ``total``. */
export function countPath(total) {
  const out = [];
  for (let i = 0; i < total; i++) out.push((i % 7) + 1);
  return out;
}

export function describe(e) {
  switch (e.type) {
    case "round-started":
      return `Round opened: commission ${(Number(e.commission) * 100).toFixed(2).replace(/\.?0+$/, "")}% posted, limits ${money(e.min_wager)}–${money(e.max_wager)}, house way ${e.house_way}, start by ${e.start === "dice" ? "three dice" : "random number"}.`;
    case "wager-placed":
      return `Spot ${e.spot} wagers ${money(e.amount)}.`;
    case "shuffled":
      return `The deck of 53 cards is shuffled (${e.source}).`;
    case "start-chosen": {
      const shown = e.method === "dice" ? `Dice ${e.dice.join(" + ")} = ${e.number}` : `Random number ${e.number}`;
      return `${shown}: counting ${e.number} from the dealer counterclockwise, the first packet goes to ${positionName(e.position)}.`;
    }
    case "dealt":
      return `Seven packets of seven go out counterclockwise to ${e.order.map(positionName).join(", ")}; packets on spots without a wager and the four leftover cards are discarded unseen. In play: dealer${e.spots.length ? ", spot " + e.spots.join(", spot ") : ""}.`;
    case "hand-set": {
      const who = e.by === "player" ? "the player" : `the house way${e.reason ? ` (${e.reason})` : ""}`;
      if (e.high) {
        return `Spot ${e.spot} is set by ${who}: ${cardsText(e.high)} / ${cardsText(e.low)}${e.foul ? " — FOUL" : ""}.`;
      }
      return `Spot ${e.spot} is set by ${who}.`;
    }
    case "dealer-set":
      return `The dealer reveals and sets by the house way (rule ${e.rule}): ${cardsText(e.high)} (${e.high_name}) / ${cardsText(e.low)} (${e.low_name}).`;
    case "spot-settled":
      return `Spot ${e.spot}: high ${e.high}, low ${e.low} — ${e.outcome.toUpperCase()}${e.foul ? " (foul)" : ""}; wager ${money(e.wager)}, win ${money(e.win)}, commission ${money(e.commission)}, returned ${money(e.returned)}.`;
    case "round-settled":
      return `Round settled: wagered ${money(e.wagered)}, returned ${money(e.returned)}, commission ${money(e.commission)}.`;
    case "voided":
      return `The round is void (${e.reason}); every wager is returned.`;
    default:
      return e.type;
  }
}

/** The round's state after ``events`` (as a viewer saw them). */
export function derive(events) {
  const st = { wagers: {}, settings: {}, results: [], start: null, dealt: null, dealer: null, totals: null, voided: null, started: null };
  for (const e of events) {
    switch (e.type) {
      case "round-started": st.started = e; break;
      case "wager-placed": st.wagers[e.spot] = e.amount; break;
      case "start-chosen": st.start = e; break;
      case "dealt": st.dealt = e; break;
      case "hand-set": st.settings[e.spot] = { ...(st.settings[e.spot] || {}), ...e }; break;
      case "dealer-set":
        st.dealer = e;
        for (const [spot, s] of Object.entries(e.settings || {})) st.settings[spot] = { ...s, spot: Number(spot) };
        break;
      case "spot-settled": st.results.push(e); break;
      case "round-settled": st.totals = e; break;
      case "voided": st.voided = e; break;
      default: break;
    }
  }
  return st;
}
