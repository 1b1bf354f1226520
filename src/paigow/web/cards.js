// Cards as text: rank and suit spelled out (never colour alone).
const RANK_TEXT = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_NAME = {
  2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
  T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};
const SUIT = { c: ["♣", "clubs"], d: ["♦", "diamonds"], h: ["♥", "hearts"], s: ["♠", "spades"] };

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

function fill(el, code, small) {
  el.classList.add("card");
  if (small) el.classList.add("small");
  if (isJoker(code)) el.classList.add("joker");
  else if ("dh".includes(code[1].toLowerCase())) el.classList.add("red");
  el.dataset.card = code;
  const face = document.createElement("span");
  face.className = "face";
  face.textContent = cardText(code);
  const c = document.createElement("span");
  c.className = "code";
  c.textContent = code;
  el.append(face, c);
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

export function cardRow(codes, opts = {}) {
  const row = document.createElement("span");
  row.className = "cards";
  for (const c of codes) row.append(cardEl(c, opts));
  return row;
}

/** ``n`` face-down cards, announced as such. */
export function backs(n) {
  const row = document.createElement("span");
  row.className = "cards";
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", `${n} cards, face down`);
  for (let i = 0; i < n; i++) {
    const b = document.createElement("span");
    b.className = "card back";
    b.setAttribute("aria-hidden", "true");
    row.append(b);
  }
  const t = document.createElement("span");
  t.className = "sr-only";
  t.textContent = `${n} cards, face down`;
  row.append(t);
  return row;
}
