"""Side wagers in the simulation: the kernel deals the main simulation's rounds (replayed here in
Python from the same generator), counts each hand as the Python classifier and house way do, and
its 95% interval holds the exact return (needs the compiled house way)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from typer.testing import CliRunner

from paigow.analysis import kernels as K
from paigow.analysis.bonus_counts import BonusCounts
from paigow.analysis.bonus_sim import BonusSimChunk, bonus_sim_chunk, simulate_bonus
from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.edge import push_mask
from paigow.analysis.runner import Runner, TableSpec
from paigow.bonus import PayTable, bonus_hand, low_hand_category
from paigow.cards import Card
from paigow.cli import app

#: Exact returns (docs/side-wagers.md; checked by test_bonus_analysis's exhaustive test).
EXACT = {
    "tiger-9": Fraction(-8601581, 38535770),
    "dealer-bonus": Fraction(-200298, 2752555),
    "queens-dragon": Fraction(-6491, 64766),
}


def python_deals(seed: int, rounds: int) -> list[tuple[list[Card], list[Card]]]:
    """The player's and dealer's cards of each round, replayed from the generator in Python."""
    state = K.seed_state(seed)
    deck = list(range(53))
    deals = []
    for _ in range(rounds):
        for i in range(14):
            j = i + int(K.below(state, 53 - i))
            deck[i], deck[j] = deck[j], deck[i]
        deals.append(([Card(c) for c in deck[:7]], [Card(c) for c in deck[7:14]]))
    return deals


def test_the_kernel_deals_the_main_simulation_rounds(compiled: CompiledHouseWay) -> None:
    seed, rounds = 123_456_789, 400
    deals = python_deals(seed, rounds)
    # the main simulation's win / push / loss on these deals
    outcome = np.zeros(3, dtype=np.int64)
    for player, dealer in deals:
        ph, pl = compiled.dealer_ranks(player)
        dh, dl = compiled.dealer_ranks(dealer)
        outcome[0 if ph > dh and pl > dl else 2 if ph <= dh and pl <= dl else 1] += 1
    fixed = np.zeros(0, dtype=np.int64)
    spec = TableSpec.of(compiled.way, compiled.wheel, compiled.path.parent)
    mode, bits, low_trig = push_mask(spec, "none")  # no push rule: [w, p, l, 0]
    main = K.simulate_chunk(
        seed, rounds, compiled.table, K.BINOM, fixed, 0, 0, mode, bits, low_trig
    )
    assert list(main) == [*outcome, 0]
    # and the bonus kernel counts each hand as the Python classifier and house way do
    player, dealer = bonus_sim_chunk(BonusSimChunk(spec, seed, rounds))
    keys = compiled.tables.two_keys
    for arr, who in ((player, 0), (dealer, 1)):
        got = BonusCounts.from_array(arr, keys, "standard", "second")
        hands = [d[who] for d in deals]
        assert got.signatures == dict(Counter(bonus_hand(h).held for h in hands))
        lows = Counter(low_hand_category(compiled.way.set_hand(h).setting.low) for h in hands)
        assert got.dealer_low == dict(lows)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_the_interval_holds_the_exact_return(compiled: CompiledHouseWay, name: str) -> None:
    spec = TableSpec.of(compiled.way, compiled.wheel, compiled.path.parent)
    (result,) = simulate_bonus(spec, 1_500_000, Runner(2), 2026, [PayTable.load(name)])
    assert result.rounds == 1_500_000
    assert result.holds(EXACT[name]), result.line(EXACT[name])
    lo, hi = result.ci95
    assert 0 < hi - lo < 0.03


def test_simulate_cli_settles_side_wagers(
    compiled: CompiledHouseWay, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paigow.analysis.bonus_counts import deck_counts
    from paigow.cards import parse_cards

    small = deck_counts(parse_cards("9s 9h 8s 7h 5s 4h 3s 2h Kd Qd Ad Jk 6c"), compiled.way)
    monkeypatch.setattr("paigow.cli.bonus_commands.bonus_counts", lambda *_: small)
    runner = CliRunner()
    args = ["simulate", "--rounds", "20000", "--seed", "3", "--bonus", "tiger-9", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (bet,) = json.loads(result.stdout)["bonus"]
    assert bet["pay_table"] == "tiger-9" and bet["rounds"] == 20000
    assert bet["ci95"][0] <= bet["return"] <= bet["ci95"][1]
    assert "holds" in bet and "exact_fraction" in bet
    bad = runner.invoke(
        app, [*args[:5], "--bonus", "tiger-9", "--player-hand", "As Ks Qs Js Ts 9s 8s"]
    )
    assert bad.exit_code == 2 and "house-way players" in " ".join(bad.stderr.split())
