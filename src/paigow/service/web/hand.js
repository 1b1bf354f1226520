// Your hand: the seven cards dealt to you moved between the high and the low box (a click or a
// tap, a drag, or keys), both hands named as you go, a foul warned and confirmed, the setting
// sent; once set, your two hands and whom the table still waits for; at a practice table, the
// house way's suggestion (at a face-up table also the setting that does best against the
// dealer's, shown before you set).
import { api } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { cardEl, cardRow, cardsText, cardName, sortCards } from "./cards.js";

/** The hand panel in ``handPanel``. ``ctx`` is what the table knows: ``table()``, ``roundId()``,
 * ``cards()`` (your cards, sorted, or null), ``spot()`` (the spot they were dealt to),
 * ``state()`` (the round's state), ``ended(state)``, ``stillSetting()`` (who else is still
 * setting, in words), ``practice`` (a practice table), ``showEv()``, ``fail(err)``,
 * ``clearMsg()`` and ``onSetting(open)`` (your hand is open to set, or not). */
export function handView(handPanel, ctx) {
  let low = []; // the cards in your low hand
  let handKey = null;
  let evaluation = null;

  function mySettingLine(mySet, s) {
    if (mySet.by !== "player") return `The house way set this hand${mySet.reason ? ` (${{ left: "you left", asked: "at your request" }[mySet.reason] || mySet.reason})` : ""}.`;
    if ((s.dealer && !ctx.table().face_up) || ctx.ended(s)) return "You set this hand.";
    const others = ctx.stillSetting();
    return others ? `You set this hand; waiting for ${others} to set.` : "You set this hand; waiting for the dealer.";
  }

  function renderHand(force = false) {
    const cards = ctx.cards();
    const s = ctx.state();
    const spot = ctx.spot();
    const mySet = spot ? s.settings[spot] : null;
    // the cards that make your bonus hand, marked once your side wager is settled
    const marked = (s.sideResults || []).filter((e) => e.spot === spot && e.cards && (e.target || "player") === "player").flatMap((e) => e.cards);
    const k = cards ? `${ctx.roundId()}:${cards.join(",")}:${mySet && mySet.high ? `set${s.dealer ? "-shown" : ""}${ctx.ended(s) ? "-ended" : ""}:${ctx.stillSetting()}:${marked.join(",")}` : "open"}` : null;
    if (!force && k === handKey) return;
    const fresh = handKey === null || !k || handKey.split(":").slice(0, 2).join(":") !== k.split(":").slice(0, 2).join(":");
    handKey = k;
    ctx.onSetting(!!cards && !(mySet && mySet.high));
    if (!cards) {
      handPanel.hidden = true;
      handPanel.replaceChildren();
      low = []; evaluation = null;
      return;
    }
    handPanel.hidden = false;
    if (fresh) { low = low.filter((c) => cards.includes(c)); evaluation = null; }
    handPanel.replaceChildren(h("h2", { id: "hand-title" }, `Your hand, spot ${spot}`));
    if (mySet && mySet.high) {
      const highName = h("strong", { id: "my-high-name", class: "hname" });
      const lowName = h("strong", { id: "my-low-name", class: "hname" });
      api("POST", "/api/web/evaluate", { cards, low: mySet.low, wheel: ctx.table().wheel })
        .then((r) => { highName.textContent = r.high_name; lowName.textContent = r.low_name; }, () => {});
      const mark = (row) => {
        for (const el of row.querySelectorAll(".card[data-card]")) {
          if (marked.includes(el.dataset.card)) { el.classList.add("bonus"); el.setAttribute("aria-label", `${el.getAttribute("aria-label")}, in the bonus hand`); }
        }
        return row;
      };
      handPanel.append(h("div", { class: "hands", id: "my-setting" },
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "High"), mark(cardRow(sortCards(mySet.high))), highName),
        h("div", { class: "hand-line" }, h("span", { class: "lbl" }, "Low"), mark(cardRow(sortCards(mySet.low))), lowName),
        h("p", { id: "my-set-line", class: "set-line" }, mySettingLine(mySet, s),
          mySet.foul ? h("strong", { class: "error" }, " FOUL: this hand loses.") : "")));
      return;
    }
    const highBox = h("div", { class: "slots", id: "high-slots", "data-box": "high" });
    const lowBox = h("div", { class: "slots", id: "low-slots", "data-box": "low" });
    const box = (which, title, slots) => h("div", { class: `box ${which}`, id: `${which}-box` },
      h("h3", {}, title, " ", h("strong", { id: `${which}-name`, class: "hand-name" }), h("span", { id: `${which}-count`, class: "muted" })), slots);
    const group = h("div", { id: "my-cards", role: "group", "aria-label": "Your seven cards: the high hand and the low hand", "aria-describedby": "hand-help" },
      box("high", "High (five)", highBox), box("low", "Low (two)", lowBox));
    cards.forEach((c, i) => {
      const b = cardEl(c, { button: true });
      b.id = `card-${c}`;
      b.draggable = true;
      b.setAttribute("aria-label", `${cardName(c)}, card ${i + 1}`);
      b.addEventListener("click", () => toggle(c));
      b.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", c); ev.dataTransfer.effectAllowed = "move"; });
      b.addEventListener("keydown", (ev) => {
        if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
          const all = [...group.querySelectorAll("button.card")];
          const j = all.indexOf(b) + (ev.key === "ArrowRight" ? 1 : -1);
          if (all[j]) { ev.preventDefault(); all[j].focus(); }
        } else if (ev.key === "ArrowDown" && !low.includes(c)) { ev.preventDefault(); toggle(c); }
        else if (ev.key === "ArrowUp" && low.includes(c)) { ev.preventDefault(); toggle(c); }
      });
      highBox.append(b);
    });
    for (const [el, which] of [[highBox, "high"], [lowBox, "low"]]) {
      el.parentElement.addEventListener("dragover", (ev) => { ev.preventDefault(); el.parentElement.classList.add("over"); });
      el.parentElement.addEventListener("dragleave", () => el.parentElement.classList.remove("over"));
      el.parentElement.addEventListener("drop", (ev) => {
        ev.preventDefault();
        el.parentElement.classList.remove("over");
        const c = ev.dataTransfer.getData("text/plain");
        if (!cards.includes(c)) return;
        if (which === "low" && !low.includes(c)) { low = low.length >= 2 ? [low[1], c] : [...low, c]; updateSelection(); }
        if (which === "high" && low.includes(c)) { low = low.filter((x) => x !== c); updateSelection(); }
      });
    }
    group.addEventListener("keydown", (ev) => {
      const n = Number(ev.key);
      if (n >= 1 && n <= 7) { ev.preventDefault(); toggle(cards[n - 1]); document.getElementById(`card-${cards[n - 1]}`)?.focus(); }
    });
    const foulBox = h("div", { id: "foul-box" });
    const setBtn = h("button", { type: "button", class: "primary", id: "set-btn", disabled: true, onclick: () => submit(false) }, "Set hand");
    // at every table the player may ask the house to set the hand (recorded as such)
    const houseBtn = h("button", { type: "button", id: "house-set-btn", class: "small", "aria-label": "Let the house set my hand by the house way", onclick: houseSets }, "House sets it");
    const practiceBtns = ctx.practice ? [
      h("button", { type: "button", id: "hint-btn", class: "small", "aria-label": "House way suggestion", onclick: showHint }, "House way"),
      h("button", { type: "button", id: "ev-btn", class: "small", onclick: ctx.showEv }, "Exact EV…"),
    ] : [];
    handPanel.append(
      h("p", { id: "hand-help", class: "muted help" }, h("span", { class: "help-short" }, "Tap two cards for the low hand."),
        h("span", { class: "sr-only" }, " The other five are the high hand. Click or tap a card, drag it, or Tab to it and press Space (keys 1–7 pick a card by place; arrows move).")),
      group, h("div", { id: "live-eval", "aria-live": "polite", class: "sr-only" }), foulBox,
      h("div", { id: "hint", "aria-live": "polite" }),
      h("div", { class: "row hand-actions" }, setBtn, houseBtn, ...practiceBtns));
    updateSelection();
  }

  function toggle(c) {
    if (low.includes(c)) low = low.filter((x) => x !== c);
    else if (low.length < 2) low = [...low, c];
    else { announce("The low hand has two cards: move one back first"); return; }
    updateSelection();
    document.getElementById(`card-${c}`)?.focus();
  }

  async function updateSelection() {
    const cards = ctx.cards();
    const highBox = document.getElementById("high-slots");
    const lowBox = document.getElementById("low-slots");
    if (!highBox || !cards) return;
    const focused = document.activeElement;
    for (const c of cards) {
      const b = document.getElementById(`card-${c}`);
      const inLow = low.includes(c);
      b.setAttribute("aria-pressed", inLow ? "true" : "false");
      const want = inLow ? lowBox : highBox;
      if (b.parentElement !== want) want.append(b);
    }
    // keep each box in sorted order
    for (const boxEl of [highBox, lowBox]) {
      const bs = [...boxEl.children].sort((a, b) => cards.indexOf(a.dataset.card) - cards.indexOf(b.dataset.card));
      bs.forEach((b) => boxEl.append(b));
    }
    if (focused && focused.id && focused.id.startsWith("card-")) focused.focus();
    const highName = document.getElementById("high-name");
    const lowName = document.getElementById("low-name");
    document.getElementById("high-count").textContent = low.length === 2 ? "" : ` ${7 - low.length} cards`;
    document.getElementById("low-count").textContent = low.length === 2 ? "" : ` ${low.length} of 2`;
    const foulBox = document.getElementById("foul-box");
    const setBtn = document.getElementById("set-btn");
    const live = document.getElementById("live-eval");
    foulBox.replaceChildren();
    evaluation = null;
    setBtn.disabled = low.length !== 2;
    setBtn.textContent = "Set hand";
    if (low.length !== 2) {
      highName.textContent = ""; lowName.textContent = "";
      live.textContent = `Low hand: ${low.length} of 2 cards${low.length ? ` (${cardsText(low)})` : ""}.`;
      return;
    }
    const want = low.join(",");
    highName.textContent = "…"; lowName.textContent = "…";
    try {
      const r = await api("POST", "/api/web/evaluate", { cards, low, wheel: ctx.table().wheel });
      if (low.join(",") !== want) return;
      evaluation = r;
      highName.textContent = r.high_name;
      lowName.textContent = r.low_name;
      live.textContent = `High hand ${r.high_name}; low hand ${r.low_name}${r.foul ? "; a foul" : ""}.`;
      if (r.foul) {
        foulBox.replaceChildren(h("div", { class: "foul", id: "foul-warning", role: "alert" },
          h("strong", {}, "Foul: "), "the low hand outranks the high hand; ", ctx.table().foul === "loses" ? "a foul hand loses (Indiana, 68 IAC 10-9-13(a))." : "the house way will set it instead."));
        setBtn.textContent = "Set hand (foul)…";
      }
    } catch (err) { ctx.fail(err); }
  }

  function askFoul() {
    const foulBox = document.getElementById("foul-box");
    foulBox.replaceChildren(h("div", { class: "foul", id: "foul-confirm", role: "alertdialog", "aria-labelledby": "foul-q" },
      h("p", { id: "foul-q" }, h("strong", {}, "This setting is a foul"), ctx.table().foul === "loses" ? " and loses your wager. Play it anyway?" : ". The house way will set your hand instead. Continue?"),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger small", id: "confirm-foul", onclick: () => submit(true) }, "Play the foul hand"),
        h("button", { type: "button", class: "small", id: "cancel-foul", onclick: () => { updateSelection(); document.querySelector("#my-cards button")?.focus(); } }, "Choose again"))));
    document.getElementById("confirm-foul").focus({ preventScroll: true });
  }

  async function submit(confirmFoul) {
    if (low.length !== 2) return;
    if (!confirmFoul && evaluation && evaluation.foul) { askFoul(); return; }
    try {
      const r = await api("POST", `/api/tables/${ctx.table().id}/set`, { low, confirm_foul: confirmFoul, round_id: ctx.roundId() });
      announce(`Hand set: ${cardsText(r.high)} / ${cardsText(r.low)}${r.foul ? ", a foul" : ""}`);
      ctx.clearMsg();
    } catch (err) {
      if (err.status === 409 && /foul/i.test(`${err.code} ${err.message}`)) { askFoul(); return; }
      ctx.fail(err);
    }
  }

  async function houseSets() {
    try {
      const r = await api("POST", `/api/tables/${ctx.table().id}/set-house-way`, { round_id: ctx.roundId() });
      announce(`The house set your hand: ${cardsText(r.high)} / ${cardsText(r.low)}`);
      ctx.clearMsg();
    } catch (err) { ctx.fail(err); }
  }

  async function showHint() {
    const hintBox = document.getElementById("hint");
    try {
      const r = await api("GET", `/api/tables/${ctx.table().id}/hint`);
      hintBox.replaceChildren(h("div", { class: "hint" },
        h("p", {}, `House way (${r.house_way}, rule ${r.rule}): high `, h("strong", {}, cardsText(sortCards(r.high))), ` (${r.high_name}), low `, h("strong", {}, cardsText(sortCards(r.low))), ` (${r.low_name})`),
        h("button", { type: "button", id: "use-hint", class: "small", onclick: () => { low = [...r.low]; hintBox.replaceChildren(); updateSelection(); } }, "Use this setting"),
        r.best ? h("p", { id: "best-hint" }, `Best against the dealer's setting (a certain ${r.best.outcome}${r.best.pushed_by_rule ? ", the dealer's hand pushes every wager" : ""}): `,
          h("strong", {}, `${cardsText(sortCards(r.best.high))} / ${cardsText(sortCards(r.best.low))}`), " ",
          h("button", { type: "button", id: "use-best", class: "small", onclick: () => { low = [...r.best.low]; hintBox.replaceChildren(); updateSelection(); } }, "Use the best")) : null));
    } catch (err) { hintBox.replaceChildren(h("p", { class: "error" }, errorText(err))); }
  }

  return {
    render: renderHand,
    /** A new round: nothing chosen yet. */
    newRound() { low = []; evaluation = null; },
    /** The cards chosen for the low hand (kept across a reconnection to the same round). */
    chosen() { return low; },
    /** After a resync: keep ``keep`` as the low cards and draw the panel afresh. */
    resync(keep) { low = keep; evaluation = null; handKey = null; },
  };
}
