// The floor's Status column: a table's actual hold against its bands, said as it is (never
// "within band" for a hold outside its band, nor while the theoretical hold is still computing).
import { h } from "./dom.js";

/** The status of one row of GET /api/admin/floor: [key, words]. */
export function bandStatus(x, minHands) {
  if (x.flagged) return ["flagged", "FLAGGED: outside the 99.9% band"];
  if (x.theoretical.status === "failed") return ["failed", "no band: the theoretical hold failed"];
  if (x.theoretical.status !== "ready") return ["computing", "no band yet: theoretical hold computing"];
  if (!x.hands) return ["none", "no hands yet"];
  if (x.inside_999 === false) {
    return ["outside-999", x.hands < minHands
      ? `outside the 99.9% band (flagged after ${minHands} hands; ${x.hands} so far)`
      : "outside the 99.9% band"];
  }
  if (x.inside_95 === false) return ["outside-95", "outside the 95% band"];
  return ["within", "within the 95% band"];
}

/** The Status cell's content. */
export function statusCell(x, minHands) {
  const [key, words] = bandStatus(x, minHands);
  if (key === "flagged") return h("strong", { class: "flag", "data-status": key }, words);
  const outside = key.startsWith("outside");
  return h(outside ? "strong" : "span", { class: outside ? "outside" : "", "data-status": key }, words);
}

/** What the chart was drawn from: it redraws when a round settles or the theoretical hold arrives. */
export function chartKey(x) {
  return `${x.rounds}:${x.theoretical.status}`;
}
