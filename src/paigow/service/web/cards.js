// Cards: SVG faces drawn here (all 52 and the joker), each named for screen readers; text forms.
const RANK_TEXT = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_NAME = {
  2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
  T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};
const RANK_VALUE = { T: 10, J: 11, Q: 12, K: 13, A: 14 };
const SUIT = { c: ["♣", "clubs"], d: ["♦", "diamonds"], h: ["♥", "hearts"], s: ["♠", "spades"] };
const SUIT_ORDER = { s: 0, h: 1, d: 2, c: 3 };
const SVG_NS = "http://www.w3.org/2000/svg";

export function isJoker(code) {
  return code.toLowerCase() === "jk";
}

/** "A♠" (or "JOKER"). */
export function cardText(code) {
  if (isJoker(code)) return "JOKER";
  const r = code[0].toUpperCase();
  const s = code[1].toLowerCase();
  return (RANK_TEXT[r] || r) + SUIT[s][0];
}

/** "ace of spades" (or "joker"). */
export function cardName(code) {
  if (isJoker(code)) return "joker";
  return `${RANK_NAME[code[0].toUpperCase()]} of ${SUIT[code[1].toLowerCase()][1]}`;
}

export function cardsText(codes) {
  return codes.map(cardText).join(" ");
}

/** 2..14 (the joker counts as an ace, 14, placed before the aces). */
export function rankValue(code) {
  if (isJoker(code)) return 14.5;
  const r = code[0].toUpperCase();
  return RANK_VALUE[r] || Number(r);
}

/** Highest first, pairs (and trips, quads) together, the joker with the aces. */
export function sortCards(codes) {
  return [...codes].sort((a, b) => rankValue(b) - rankValue(a)
    || (isJoker(a) ? -1 : isJoker(b) ? 1 : SUIT_ORDER[a[1].toLowerCase()] - SUIT_ORDER[b[1].toLowerCase()]));
}

// ------------------------------------------------------------------ SVG faces
// Pip positions (x, y, flipped) on a 60 x 84 card for ranks 2..10.
const PIPS = {
  2: [[30, 18], [30, 66, 1]],
  3: [[30, 18], [30, 42], [30, 66, 1]],
  4: [[19, 18], [41, 18], [19, 66, 1], [41, 66, 1]],
  5: [[19, 18], [41, 18], [30, 42], [19, 66, 1], [41, 66, 1]],
  6: [[19, 18], [41, 18], [19, 42], [41, 42], [19, 66, 1], [41, 66, 1]],
  7: [[19, 18], [41, 18], [30, 30], [19, 42], [41, 42], [19, 66, 1], [41, 66, 1]],
  8: [[19, 18], [41, 18], [30, 30], [19, 42], [41, 42], [30, 54, 1], [19, 66, 1], [41, 66, 1]],
  9: [[19, 18], [41, 18], [19, 34], [41, 34], [30, 42], [19, 50, 1], [41, 50, 1], [19, 66, 1], [41, 66, 1]],
  10: [[19, 18], [41, 18], [30, 26], [19, 34], [41, 34], [19, 50, 1], [41, 50, 1], [30, 58, 1], [19, 66, 1], [41, 66, 1]],
};

function svgEl(tag, attrs, text) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** The SVG face of ``code`` (decorative: the element around it carries the name). */
export function cardSvg(code) {
  const svg = svgEl("svg", { viewBox: "0 0 60 84", class: "face-svg", "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("rect", { x: 0.75, y: 0.75, width: 58.5, height: 82.5, rx: 5, class: "card-bg" }));
  if (isJoker(code)) {
    svg.append(
      svgEl("text", { x: 5, y: 14, class: "idx joker-idx" }, "J"),
      svgEl("text", { x: 5, y: 26, class: "idx joker-idx" }, "K"),
      svgEl("path", { d: "M30 24 l5 11 12 1 -9 8 3 12 -11 -6 -11 6 3 -12 -9 -8 12 -1z", class: "joker-star" }),
      svgEl("text", { x: 30, y: 72, class: "joker-word", "text-anchor": "middle" }, "JOKER"),
    );
    return svg;
  }
  const r = code[0].toUpperCase();
  const s = code[1].toLowerCase();
  const sym = SUIT[s][0];
  const red = s === "h" || s === "d";
  const g = svgEl("g", { class: red ? "red" : "black" });
  const rank = RANK_TEXT[r] || r;
  // corner indices: top left and, turned, bottom right
  const corner = svgEl("g", {});
  corner.append(
    svgEl("text", { x: 8, y: 15, class: "idx", "text-anchor": "middle" }, rank),
    svgEl("text", { x: 8, y: 26, class: "idx-suit", "text-anchor": "middle" }, sym),
  );
  const corner2 = corner.cloneNode(true);
  corner2.setAttribute("transform", "rotate(180 30 42)");
  g.append(corner, corner2);
  const n = Number(r) || (r === "T" ? 10 : 0);
  if (n >= 2) {
    for (const [x, y, flip] of PIPS[n]) {
      g.append(svgEl("text", { x, y: y + 5, class: "pip", "text-anchor": "middle", transform: flip ? `rotate(180 ${x} ${y})` : "" }, sym));
    }
  } else if (r === "A") {
    g.append(svgEl("text", { x: 30, y: 54, class: "pip-ace", "text-anchor": "middle" }, sym));
  } else {
    g.append(
      svgEl("rect", { x: 15, y: 16, width: 30, height: 52, rx: 3, class: "court" }),
      svgEl("text", { x: 30, y: 44, class: "court-rank", "text-anchor": "middle" }, r),
      svgEl("text", { x: 30, y: 62, class: "court-suit", "text-anchor": "middle" }, sym),
    );
  }
  svg.append(g);
  return svg;
}

function fill(el, code, small) {
  el.classList.add("card");
  if (small) el.classList.add("small");
  if (isJoker(code)) el.classList.add("joker");
  else if ("dh".includes(code[1].toLowerCase())) el.classList.add("red");
  el.dataset.card = code;
  el.append(cardSvg(code));
  el.setAttribute("aria-label", cardName(code));
  el.title = cardName(code);
  return el;
}

/** A face-up card (a span), or a button when ``button`` is set. */
export function cardEl(code, { button = false, small = false } = {}) {
  const el = document.createElement(button ? "button" : "span");
  if (button) {
    el.type = "button";
    el.setAttribute("aria-pressed", "false");
  } else {
    el.setAttribute("role", "img");
  }
  return fill(el, code, small);
}

/** A row of cards, sorted as "Your hand" is (``keep``: in the order given). */
export function cardRow(codes, opts = {}) {
  const row = document.createElement("span");
  row.className = "cards" + (opts.fan ? " fan" : "");
  for (const c of opts.keep ? codes : sortCards(codes)) row.append(cardEl(c, opts));
  return row;
}

/** ``n`` face-down cards, announced as such. */
export function backs(n, { small = true } = {}) {
  const row = document.createElement("span");
  row.className = "cards fan";
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", `${n} cards, face down`);
  for (let i = 0; i < n; i++) {
    const b = document.createElement("span");
    b.className = "card back" + (small ? " small" : "");
    b.setAttribute("aria-hidden", "true");
    row.append(b);
  }
  return row;
}
