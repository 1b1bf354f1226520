// Your wager: the betting circles (the main wager and, at a table with side wagers, a circle for
// each), the amount, the chip rack, "Place wager"; once the main wager is down and betting is
// still open, the side wagers not yet placed, one button each. The side wagers being built are
// remembered per table (as the last main wager is).
import { api, key, money, parseCents, setBalance } from "./api.js";
import { h, announce } from "./dom.js";
import { DENOMINATIONS, chip, chipButton } from "./chips.js";
import { offerLimits, offerTitle } from "./side.js";
import { offers } from "./table_state.js";
import { limitsText } from "./table_status.js";

/** The play money shown at a practice table (``#play-balance``). */
export function showPlayBalance(cents) {
  const el = document.getElementById("play-balance");
  if (el && cents !== null && cents !== undefined) { el.textContent = money(cents); el.dataset.cents = String(cents); }
}

/** The wager's controls for table ``id``. ``ctx``: ``state()``, ``fail(err, words)``,
 * ``clearMsg()`` and ``placed()`` (a wager went down: the table's state is worth fetching). */
export function betView(id, ctx) {
  const wagerKey = `paigow.wager.${id}`;
  let sideBet = {}; // the side wagers being built: name -> cents
  try { sideBet = JSON.parse(localStorage.getItem(`paigow.side.${id}`) || "{}") || {}; } catch { sideBet = {}; }

  /** The form: circles, amount, chips and "Place wager", with ``leaveBtn`` beside "Minimum". */
  function form(leaveBtn) {
    const table = ctx.state().table;
    const remembered = Number(localStorage.getItem(wagerKey));
    const start = remembered >= table.min_wager && remembered <= table.max_wager ? remembered : table.min_wager;
    let fromChips = false; // the first chip replaces the suggested amount: chips count from zero
    const amount = h("input", { id: "wager-amount", inputmode: "decimal", autocomplete: "off", value: (start / 100).toFixed(2), required: true, "aria-describedby": "wager-limits" });
    const sideOffers = offers(ctx.state());
    let target = "main"; // where the rack's chips go: the main wager or a side wager's name
    for (const name of Object.keys(sideBet)) if (!sideOffers.some((o) => o.name === name)) delete sideBet[name];
    const circle = sideOffers.length
      ? h("button", { type: "button", class: "bet-circle main", id: "bet-main", "aria-pressed": "true", onclick: () => aim("main") })
      : h("div", { class: "bet-circle main", id: "bet-main", "aria-hidden": "true" });
    const sideCircles = sideOffers.map((o) => h("button", { type: "button", class: "bet-circle bonus", id: `bet-side-${o.name}`, "data-name": o.name, "aria-pressed": "false", onclick: () => aim(o.name) }));
    const showCircle = () => {
      const cents = parseCents(amount.value);
      circle.replaceChildren(Number.isFinite(cents) && cents > 0 ? chip(cents) : h("span", { class: "bet-word" }, "Bet"));
      if (sideOffers.length) circle.setAttribute("aria-label", `Main wager ${Number.isFinite(cents) && cents > 0 ? money(cents) : "none"}${target === "main" ? "; the chips go here" : ""}`);
      sideOffers.forEach((o, i) => {
        const c = sideCircles[i];
        const a = sideBet[o.name] || 0;
        const word = offerTitle(o.name);
        c.replaceChildren(...(a ? [chip(a), h("span", { class: "circle-tag", "aria-hidden": "true" }, word.length > 7 ? `${word.slice(0, 4)}.` : word)] : []), a ? "" : h("span", { class: "bet-word" }, h("span", { class: "word-long" }, word),
          h("span", { class: "word-short" }, word.length > 7 ? `${word.slice(0, 4)}.` : word), h("span", { class: "circle-cap" }, offerLimits(o, true))));
        c.title = `${offerTitle(o.name)} side wager, ${offerLimits(o)}`;
        c.setAttribute("aria-pressed", target === o.name ? "true" : "false");
        c.setAttribute("aria-label", `${offerTitle(o.name)} side wager ${a ? money(a) : "none"} (${offerLimits(o)})${target === o.name ? "; the chips go here" : ""}`);
        c.dataset.cents = a;
      });
      if (sideOffers.length) circle.setAttribute("aria-pressed", target === "main" ? "true" : "false");
    };
    /** Chips go to ``name`` from now on; a fixed side wager (its one amount) is put on or taken off. */
    const aim = (name) => {
      const o = sideOffers.find((x) => x.name === name);
      if (o && o.min_wager === o.max_wager) {
        sideBet[name] = target === name && sideBet[name] ? 0 : o.min_wager;
      }
      target = name;
      showCircle();
    };
    amount.addEventListener("input", () => { fromChips = true; target = "main"; showCircle(); });
    const setAmount = (cents) => { amount.value = cents ? `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}` : ""; showCircle(); };
    const addChip = (d) => {
      const o = sideOffers.find((x) => x.name === target);
      if (o) { sideBet[o.name] = Math.min(o.max_wager, (sideBet[o.name] || 0) + d); showCircle(); return; }
      const now = fromChips ? parseCents(amount.value) : 0;
      fromChips = true;
      setAmount(Math.min(ctx.state().table.max_wager, (Number.isFinite(now) ? now : 0) + d));
    };
    showCircle();
    return h("form", {
      id: "wager-form", class: "bet",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const t = ctx.state().table;
        const cents = parseCents(amount.value);
        if (!Number.isFinite(cents)) { ctx.fail(new Error(`Type the wager in dollars, like 10 or 12.50 (${limitsText(t)}).`)); return; }
        const side = {};
        for (const o of sideOffers) {
          const a = sideBet[o.name] || 0;
          if (!a) continue;
          if (a < o.min_wager || a > o.max_wager) { ctx.fail(new Error(`The ${offerTitle(o.name)} side wager at this table is ${offerLimits(o)}: ${money(a)} is outside it.`)); return; }
          side[o.name] = a;
        }
        const sideTotal = Object.values(side).reduce((x, y) => x + y, 0);
        try {
          const body = { amount: cents, idempotency_key: key() };
          if (sideTotal) body.side = side;
          const r = await api("POST", `/api/tables/${t.id}/wager`, body);
          localStorage.setItem(wagerKey, String(cents));
          localStorage.setItem(`paigow.side.${t.id}`, JSON.stringify(side));
          if (r.play_money) showPlayBalance(r.balance); else setBalance(r.balance); // practice: play money
          const sideWords = Object.entries(r.side || {}).map(([n, a]) => ` and ${offerTitle(n)} ${money(a)}`).join("");
          announce(`Wager of ${money(r.amount)}${sideWords} accepted; ${r.play_money ? "play money" : "balance"} ${money(r.balance)}`);
          ctx.clearMsg();
          ctx.placed();
        } catch (err) {
          if (err.code === "insufficient-funds") { try { setBalance((await api("GET", "/api/me")).balance); } catch { /* keep the last */ } }
          ctx.fail(err, { amount: money(cents + sideTotal) });
        }
      },
    },
    h("div", { class: "bet-row" },
      h("div", { class: "bet-circles", role: sideOffers.length ? "group" : null, "aria-label": sideOffers.length ? "Your wagers: choose a circle, then add chips" : null }, circle, sideCircles),
      h("label", { class: "bet-amount" }, h("span", {}, "Wager ", h("span", { id: "wager-limits", class: "muted" }, `(${money(table.min_wager)}–${money(table.max_wager)})`)), amount),
      h("button", { type: "submit", class: "primary", id: "wager-btn" }, "Place wager")),
    h("div", { class: "chip-rack", role: "group", "aria-label": "Chips: each adds its value to the bet" },
      DENOMINATIONS.filter((d) => d <= table.max_wager).map((d) => chipButton(d, () => addChip(d))),
      h("button", { type: "button", id: "wager-clear", class: "small", onclick: () => { fromChips = true; sideBet = {}; target = "main"; setAmount(0); amount.focus(); } }, "Clear bet")),
    h("div", { class: "row seat-actions" },
      h("button", { type: "button", id: "wager-min", class: "small", onclick: () => { fromChips = true; setAmount(ctx.state().table.min_wager); } }, "Minimum"), leaveBtn));
  }

  /** A side wager placed after the main wager, while betting is open (idempotent). */
  async function lateSide(o, cents) {
    const t = ctx.state().table;
    try {
      const r = await api("POST", `/api/tables/${t.id}/side-wagers`, { side: { [o.name]: cents }, idempotency_key: key() });
      if (r.play_money) showPlayBalance(r.balance); else setBalance(r.balance);
      announce(`${offerTitle(o.name)} side wager of ${money(cents)} accepted; ${r.play_money ? "play money" : "balance"} ${money(r.balance)}`);
      ctx.clearMsg();
      ctx.placed();
    } catch (err) {
      ctx.fail(err, { amount: money(cents) });
    }
  }

  /** The side wagers not yet on ``mine`` (your wager's sides), one button each, or null. */
  function lateRow(mine) {
    const late = offers(ctx.state()).filter((o) => !mine[o.name]);
    if (!late.length) return null;
    return h("div", { class: "row late-side", id: "late-side", role: "group", "aria-labelledby": "late-side-q" },
      h("span", { id: "late-side-q" }, "Add a side wager before betting closes:"),
      late.map((o) => {
        const a = Math.min(o.max_wager, Math.max(o.min_wager, sideBet[o.name] || 0));
        return h("button", { type: "button", class: "small", id: `late-side-${o.name}`, onclick: () => lateSide(o, a) }, `${offerTitle(o.name)} ${money(a)}`);
      }));
  }

  return { form, lateRow };
}
