// What a lobby card says of a table's game beyond its commission and limits: its push rule, the
// dealer's hand face up, the dragon hand and its side wagers (each with its limits).
import { h } from "./dom.js";
import { pushPosted } from "./describe.js";
import { offerTitle, offerLimits } from "./side.js";

/** The lobby card's rows (dt/dd pairs) for a table of GET /api/tables. */
export function variantRows(t) {
  const rows = [];
  if (t.push_posted) rows.push(["Push rule", pushPosted(t.push_posted), "push"]);
  if (t.face_up) rows.push(["Dealer's hand", "dealt face up", "face-up"]);
  if (t.dragon) rows.push(["Dragon hand", "offered: an empty spot's cards", "dragon"]);
  const sides = t.side_wagers || [];
  if (sides.length) rows.push(["Side wagers", sides.map((o) => `${offerTitle(o.name)} (${offerLimits(o)})`).join(", "), "side"]);
  return rows.flatMap(([k, v, field]) => [h("dt", {}, k), h("dd", { "data-field": field }, v)]);
}
