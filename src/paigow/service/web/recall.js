// Game recall: the table's last ten rounds, each replayable step by step.
import { api, session, money } from "./api.js";
import { h, announce, errorText } from "./dom.js";
import { cardRow } from "./cards.js";
import { describe, derive, pushPosted, roundName } from "./describe.js";
import { dragonStatus, dragonWords } from "./dragon.js";
import { offerTitle, sideWords } from "./side.js";

/** A spot's side wagers in a recalled round: each one's stake, then its bonus hand and pay. */
function sideLines(s, spot) {
  const placed = Object.entries(s.sides[spot] || {});
  if (!placed.length) return null;
  const settled = s.sideResults.filter((e) => String(e.spot) === String(spot));
  return h("ul", { class: "recall-side", id: `recall-side-${spot}` }, placed.map(([name, amount]) => {
    const r = settled.find((e) => e.name === name);
    return h("li", {}, r ? sideWords(r) : `${offerTitle(name)}: ${money(amount)}`);
  }));
}

/** The dragon hand in a recalled round: the packet's spot, the offer, its setting and result. */
function dragonBlock(s) {
  const d = s.dragon;
  const r = d.result;
  return h("div", { class: "recall-dragon", id: "recall-dragon" },
    h("h3", {}, `Dragon hand (spot ${d.spot}'s cards) — ${dragonStatus(s, null) || "offered"}`),
    d.setting && d.setting.high ? h("div", {}, cardRow(d.setting.high, { small: true }), " / ", cardRow(d.setting.low, { small: true })) : null,
    r ? h("p", {}, h("strong", { "data-reason": r.reason || "" }, r.reason ? "PUSH BY RULE" : r.outcome.toUpperCase()), `: ${dragonWords(r)}`) : null);
}

export async function recallView(root, shell, id, roundId) {
  root.append(h("h1", {}, `Recall: table ${id}`), h("p", {}, h("a", { href: `#/table/${id}` }, `Back to table ${id}`)));
  await shell.refreshWho();
  if (!session.user) {
    root.append(h("p", { class: "panel" }, "Log in to read the table's rounds."));
    return null;
  }
  const table = await api("GET", `/api/tables/${id}`);
  root.append(h("div", { class: "posted" }, `Commission ${table.commission_posted} (posted)`, " · ",
    ...(table.push_posted ? [pushPosted(table.push_posted), " · "] : []), ...(table.face_up ? ["Dealer face up", " · "] : []), ...(table.dragon ? ["Dragon hand offered", " · "] : []), `Limits ${money(table.min_wager)} – ${money(table.max_wager)}`, " · ", `House way ${table.house_way_label || table.house_way}`));
  const rounds = await api("GET", `/api/tables/${id}/rounds`);
  const listBox = h("section", { class: "panel", "aria-labelledby": "rounds-title" }, h("h2", { id: "rounds-title" }, "The last ten rounds"));
  const replayBox = h("section", { class: "panel", id: "replay", "aria-labelledby": "replay-title" });
  root.append(listBox, replayBox);
  if (!rounds.length && !roundId) { listBox.append(h("p", {}, "No rounds yet.")); return null; }
  listBox.append(h("ul", { id: "rounds" }, rounds.map((r) => h("li", {},
    h("button", { type: "button", id: `round-${r.number}`, "data-round": r.id, onclick: () => open(r) },
      `${roundName(r.number)}: ${r.phase}, ${Object.entries(r.players).map(([s, n]) => `spot ${s} ${n}`).join(", ") || "no players"}${r.ended_at ? `, ${new Date(r.ended_at * 1000).toLocaleString()}` : ""}`)))));

  let timer = null;
  function open(r, atEnd = false) {
    clearInterval(timer);
    const events = r.events;
    let step = 0;
    const stepText = h("p", { id: "step-text", "aria-live": "polite" });
    const steps = h("ol", { class: "log", id: "steps", tabindex: 0, "aria-label": "Steps so far" });
    const state = h("div", { class: "replay-state", id: "replay-state" });
    const btn = (label, bid, fn) => h("button", { type: "button", id: bid, onclick: fn }, label);
    const show = () => {
      stepText.textContent = `Step ${step} of ${events.length}${step ? `: ${describe(events[step - 1], r.number)}` : ""}`;
      steps.replaceChildren(...events.slice(0, step).map((e, i) => h("li", { class: i === step - 1 ? "step current" : "step", "aria-current": i === step - 1 ? "step" : null }, describe(e, r.number))));
      // the list shows the step the counter names: scrolled inside itself to the current step
      const current = steps.querySelector(".current");
      if (current) steps.scrollTop = Math.max(0, current.offsetTop - steps.offsetTop - steps.clientHeight + current.offsetHeight + 4);
      const s = derive(events.slice(0, step));
      state.replaceChildren(
        h("div", {}, h("h3", {}, "Dealer"), s.dealer ? h("div", {}, cardRow(s.dealer.high, { small: true }), " / ", cardRow(s.dealer.low, { small: true }), h("p", {}, `${s.dealer.high_name} / ${s.dealer.low_name} (rule ${s.dealer.rule})`)) : h("p", {}, s.dealt ? "Dealt, face down" : "—")),
        ...Object.keys(s.wagers).map((spot) => {
          const set = s.settings[spot];
          const res = s.results.find((x) => String(x.spot) === String(spot));
          const cards = s.dealt && s.dealt.your_cards && s.dealt.your_cards[spot];
          return h("div", {}, h("h3", {}, `Spot ${spot} (${r.players[spot] || "?"}) — ${money(s.wagers[spot])}`),
            set && set.high ? h("div", {}, cardRow(set.high, { small: true }), " / ", cardRow(set.low, { small: true })) : cards ? cardRow(cards, { small: true }) : null,
            res ? h("p", { class: "recall-result" }, h("strong", { "data-reason": res.reason || "" }, res.reason ? "PUSH BY RULE" : res.outcome.toUpperCase()), `: ${(res.text || "").replace(/^spot \d+: /, "") || `returned ${money(res.returned)}`}`) : null,
            sideLines(s, spot));
        }),
        ...(s.dragon ? [dragonBlock(s)] : [])); // replaceChildren would print a null
    };
    const go = (n) => { step = Math.max(0, Math.min(events.length, n)); show(); };
    const way = r.house_way ? h("p", { class: "hint", id: "round-house-way", "data-digest": r.house_way.digest },
      `Dealt under the house way ${r.house_way.label} (digest of its rules ${r.house_way.digest})`) : null;
    replayBox.replaceChildren(h("h2", { id: "replay-title", "data-round": r.id }, roundName(r.number)), ...(way ? [way] : []),
      h("div", { class: "row", role: "toolbar", "aria-label": "Replay" },
        btn("First", "step-first", () => go(0)), btn("Previous step", "step-prev", () => go(step - 1)),
        btn("Next step", "step-next", () => go(step + 1)), btn("Last", "step-last", () => go(events.length)),
        btn("Play", "step-play", () => { clearInterval(timer); timer = setInterval(() => { if (step >= events.length) clearInterval(timer); else go(step + 1); }, 700); })),
      stepText, state, steps);
    go(atEnd ? events.length : 0);
    announce(`${roundName(r.number)} loaded: ${events.length} steps`);
    document.getElementById("step-next").focus();
  }
  if (roundId) { // a round named in the address (the statement's link): opened at once
    const found = rounds.find((x) => x.id === roundId);
    try {
      open(found || await api("GET", `/api/rounds/${encodeURIComponent(roundId)}`), true);
    } catch (err) {
      replayBox.replaceChildren(h("p", { class: "error", id: "recall-error" }, errorText(err)));
    }
  }
  return () => clearInterval(timer);
}
