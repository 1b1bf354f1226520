// The wallet panel's lines for one round: each ledger entry named for what it is. A wager's win
// (the main wager's, the dragon's, a side wager's) is split into the stake returned and the win
// paid, each wager by its own memo (never "win paid" for a second wager's stake).

const OUTCOME = / (win|push|loss|won|jackpot|envy)( commission)?$/;

/** The memo as shown: the spot and the wager, without the outcome ("spot 1 dragon"). */
export function memoText(memo, roundWords) {
  return (memo || "").replace(OUTCOME, "").replace(/^round \S+/, roundWords);
}

/** ``entries``: the round's ledger entries (in order); ``sides``: the round's side wagers by spot
 * and name (their stakes, in cents). Returns [{ amount, label, memo }] in order. */
export function walletLines(entries, sides = {}) {
  const seen = new Map(); // memo -> positive entries so far
  const out = [];
  for (const e of entries) {
    const memo = e.memo || "";
    const line = (amount, label) => out.push({ amount, label, memo });
    if (e.kind === "wager") { line(e.amount, "wager placed"); continue; }
    if (e.kind === "void" || /void/.test(e.kind)) { line(e.amount, "wager returned (void)"); continue; }
    if (e.amount < 0 && / commission$/.test(memo)) { line(e.amount, "commission"); continue; }
    if (e.amount <= 0) { line(e.amount, e.kind); continue; }
    if (/ jackpot$/.test(memo)) { line(e.amount, "jackpot paid"); continue; }
    if (/ envy$/.test(memo)) { line(e.amount, "Envy paid"); continue; }
    const side = /^spot (\d+) (\S+) won$/.exec(memo);
    if (side) { // one entry: the side wager's stake and its win together
      const stake = (sides[side[1]] || {})[side[2]] || 0;
      const back = Math.min(stake, e.amount);
      if (back) line(back, "stake returned");
      if (e.amount - back) line(e.amount - back, "win paid");
      continue;
    }
    const n = seen.get(memo) || 0;
    seen.set(memo, n + 1);
    line(e.amount, n ? "win paid" : "stake returned");
  }
  return out;
}
