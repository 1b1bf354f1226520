// Your wallet in the side column: the balance, and the round on display's lines from the ledger
// (each wager, win, commission and side wager apart) with the round's net. Read from the ledger
// when a wager goes down, a round settles or is void, or the wallet's balance moves.
import { api, money, session, setBalance, signed } from "./api.js";
import { h, errorText } from "./dom.js";
import { roundName } from "./describe.js";
import { memoText, walletLines } from "./wallet_lines.js";

/** The wallet panel. ``ctx``: ``state()``. */
export function walletView(ctx) {
  const el = h("section", { class: "panel", id: "wallet", "aria-labelledby": "wallet-title" });
  let timer = null;

  async function render() {
    el.hidden = !session.user; // watching, logged out: no wallet (nor its label)
    if (!session.user) { el.replaceChildren(); return; }
    try {
      const l = await api("GET", "/api/web/ledger");
      setBalance(l.balance);
      const { roundId, roundNumber, round } = ctx.state();
      const entries = roundId ? l.entries.filter((e) => e.reference === roundId).sort((a, b) => a.entry_id - b.entry_id) : [];
      const net = entries.reduce((a, e) => a + e.amount, 0);
      el.replaceChildren(h("h2", { id: "wallet-title" }, "Your wallet"),
        h("p", {}, "Balance: ", h("strong", { id: "wallet-balance", "data-balance": "", "data-cents": l.balance }, money(l.balance))));
      if (entries.length) {
        el.append(h("p", {}, `${roundName(roundNumber)}:`),
          h("ul", { id: "ledger", "data-net": net }, walletLines(entries, round.sides).map((x) => h("li", { "data-amount": x.amount, "data-label": x.label },
            `${signed(x.amount)} ${x.label}${x.memo ? ` (${memoText(x.memo, roundName(roundNumber).toLowerCase())})` : ""}`))),
          h("p", {}, `Net this round: ${signed(net)}`));
      }
    } catch (err) { el.replaceChildren(h("h2", { id: "wallet-title" }, "Your wallet"), h("p", { class: "error" }, errorText(err))); }
  }

  return {
    el, render,
    /** Read the ledger again soon (several changes at once read it once). */
    later() { clearTimeout(timer); timer = setTimeout(render, 150); },
    stop() { clearTimeout(timer); },
  };
}
