// Chips: their faces ("$5", "$1K"), their colours by value (as casino chips: $5 red, $25 green,
// $100 black, $500 purple, $1,000 orange), the rack's denominations and the chip on the felt.
import { money } from "./api.js";
import { h } from "./dom.js";

/** The rack's denominations, in cents. */
export const DENOMINATIONS = [500, 2500, 10000, 50000, 100000];

/** A chip's face: "$5", "$250", "$1K", "$2.5K", "$12.50" (the exact amount is its name). */
export function chipLabel(cents) {
  if (cents % 100) return money(cents);
  const whole = cents / 100;
  if (whole < 1000) return `$${whole}`;
  const k = Math.floor(whole / 100);
  return `$${Math.floor(k / 10)}${k % 10 ? `.${k % 10}` : ""}${whole % 100 ? "+" : ""}K`;
}

/** The colour class of a chip worth ``cents``: the largest denomination it reaches ($5 and
 * less: red). */
export function chipColour(cents) {
  const d = [...DENOMINATIONS].reverse().find((x) => cents >= x) || DENOMINATIONS[0];
  return `v${d}`;
}

function face(cents) {
  const label = chipLabel(cents);
  return h("span", { class: `chip-face${label.length > 4 ? " long" : ""}`, "aria-hidden": "true" }, label);
}

/** The chip that stands for a wager on the felt. */
export function chip(cents, id) {
  return h("span", { class: `chip ${chipColour(cents)}`, id, role: "img", "aria-label": `wager ${money(cents)}` }, face(cents));
}

/** A rack chip: a button that adds ``cents`` to the bet. */
export function chipButton(cents, onclick) {
  return h("button", { type: "button", class: `chip chip-btn ${chipColour(cents)}`, id: `add-${cents}`, "aria-label": `Add ${money(cents)}`, onclick }, face(cents));
}
