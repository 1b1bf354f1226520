"""Exact analysis against a slow reference that deals the dealer's hands and sets them with the
core's house way, and the statistics and simulation that share the compiled table."""

from __future__ import annotations

import math
import random
from itertools import combinations
from math import comb

import numpy as np
import pytest

from paigow.analysis import kernels as K
from paigow.analysis.analyze import DEALER_HANDS, analyze
from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.runner import Runner, TableSpec
from paigow.analysis.simulate import simulate
from paigow.analysis.stats import compute_stats
from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel, best_five
from paigow.ruleset import FoulRule
from paigow.setting import Setting, all_settings
from paigow.settlement import Outcome, compare, outcome_of, settle

HANDS = [
    "Ts 5h 5c Kd 9h Th Jk",
    "Ks Qd 9h 7c 5s 4d 2h",
    "Jk As Ad Ac Ah Kd Ks",
    "9s 8s 7d 6h 5c Kd 2h",
]


def _reference_outcomes(
    player: tuple[Card, ...], dealers: list[tuple[Card, ...]], way: HouseWay
) -> list[list[Outcome]]:
    """For each of the 21 settings, its outcome against each dealer hand, by the core alone (a
    foul setting compared as it stands; the analysis values fouls separately)."""
    dealer_values = [way.set_hand(d).setting.value() for d in dealers]
    out = []
    for s in all_settings(player):
        v = s.value()
        out.append(
            [
                outcome_of(compare(v.high.key, d.high.key), compare(v.low.key, d.low.key))
                for d in dealer_values
            ]
        )
    return out


def _engine_counts(
    compiled: CompiledHouseWay, player: tuple[Card, ...], dealers: list[tuple[Card, ...]]
) -> tuple[np.ndarray, np.ndarray]:
    """The engine's counting (compiled table + dominance counts) over an explicit list of dealer
    hands."""
    t = compiled.tables
    hist = np.zeros((len(t.five_keys), len(t.two_keys)), dtype=np.int64)
    for d in dealers:
        hi, lo = compiled.dealer_ranks(d)
        hist[hi, lo] += 1
    settings = all_settings(player)
    ph = np.array([t.rank5_of(s.high) for s in settings], dtype=np.int64)
    pl = np.array([t.rank2_of(s.low) for s in settings], dtype=np.int64)
    return K.dominance_counts(hist, ph, pl)


@pytest.mark.parametrize("hand", HANDS)
def test_exact_on_an_explicit_list_of_dealer_hands(compiled: CompiledHouseWay, hand: str) -> None:
    player = parse_cards(hand)
    rest = [c for c in FULL_DECK if c not in player]
    rnd = random.Random(hand)
    dealers = [tuple(rnd.sample(rest, 7)) for _ in range(400)]
    dealers += [tuple(rest[:7]), tuple(rest[-7:])]  # and some structured ones
    dealers += [d for d in combinations(rest[-9:], 7)][:36]
    wins, losses = _engine_counts(compiled, player, dealers)
    reference = _reference_outcomes(player, dealers, compiled.way)
    for i, outcomes in enumerate(reference):
        assert wins[i] == outcomes.count(Outcome.WIN), i
        assert losses[i] == outcomes.count(Outcome.LOSS), i


@pytest.mark.parametrize("hand", HANDS[:2])
def test_exact_analysis_within_statistical_bounds_of_the_reference(
    compiled: CompiledHouseWay, hand: str
) -> None:
    player = parse_cards(hand)
    result = analyze(player, compiled)
    # the foul settings lose under the Indiana rule, as settle() says
    for s in result.settings:
        if s.foul:
            dealer = compiled.way.set_hand(
                tuple(random.Random(1).sample([c for c in FULL_DECK if c not in player], 7))
            ).setting
            assert settle(s.setting, dealer, 100, Commission("0.05")).outcome is Outcome.LOSS
    rest = [c for c in FULL_DECK if c not in player]
    rnd = random.Random(f"sample-{hand}")
    n = 3000
    dealers = [tuple(rnd.sample(rest, 7)) for _ in range(n)]
    reference = _reference_outcomes(player, dealers, compiled.way)
    for s, outcomes in zip(result.settings, reference, strict=True):
        assert s.win + s.push + s.loss == DEALER_HANDS == comb(46, 7)
        if s.foul:
            assert (s.win, s.push) == (0, 0)
            continue
        for kind, exact in ((Outcome.WIN, s.win), (Outcome.LOSS, s.loss)):
            p = exact / DEALER_HANDS
            observed = outcomes.count(kind) / n
            bound = 5 * math.sqrt(max(p * (1 - p), 1e-9) / n) + 1e-9
            assert abs(observed - p) <= bound, (kind, observed, p)


def test_analysis_marks_house_way_optimal_and_fouls(compiled: CompiledHouseWay) -> None:
    cards = parse_cards("Ts 5h 5c Kd 9h Th Jk")
    result = analyze(cards, compiled, Commission("0.05"))
    hw = compiled.way.set_hand(cards).setting
    assert result.settings[result.house_way].setting.same_hands(hw)
    assert result.house_way_rule == "two-pair.keep-king"
    best = max(s.ev for s in result.settings)
    assert result.settings[result.optimal].ev == best
    assert result.ev_given_up == best - result.settings[result.house_way].ev >= 0
    fouls = [s for s in result.settings if s.foul]
    assert fouls and all(s.loss == DEALER_HANDS and s.ev == -1 for s in fouls)
    data = result.to_dict()
    assert data["dealer_hands"] == 53_524_680 and len(data["settings"]) == 21
    assert set(data["settings"][0]) >= {"high", "low", "foul", "win", "push", "loss", "ev"}
    # EV per unit after commission
    s = result.settings[result.house_way]
    assert math.isclose(float(s.ev), (s.win * 0.95 - s.loss) / DEALER_HANDS, rel_tol=1e-12)
    # under the reset rule a foul is played as the house way's setting
    reset = analyze(cards, compiled, foul=FoulRule.RESET)
    for r in reset.settings:
        if r.foul:
            assert (r.win, r.push, r.loss) == (s.win, s.push, s.loss)


def test_analysis_is_exact_integers_and_commission_changes_ev(compiled: CompiledHouseWay) -> None:
    cards = parse_cards(HANDS[1])
    a = analyze(cards, compiled, Commission("0.05"))
    b = analyze(cards, compiled, Commission("0"))
    for x, y in zip(a.settings, b.settings, strict=True):
        assert (x.win, x.push, x.loss) == (y.win, y.push, y.loss)
        assert y.ev >= x.ev
    assert analyze(cards, compiled, workers=1).settings == a.settings


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_stats_totals_and_categories(compiled: CompiledHouseWay, table_folder) -> None:  # type: ignore[no-untyped-def]
    spec = TableSpec.of(compiled.way, Wheel.SECOND, table_folder)
    stats = compute_stats(spec, Runner(workers=2))
    assert stats.total == comb(53, 7) == 154_143_080
    assert sum(stats.categories.values()) == stats.total
    assert sum(stats.dealer_high.values()) == stats.total
    assert sum(stats.dealer_low.values()) == stats.total
    assert (
        stats.categories["five aces"] == 1128
    )  # four aces and the joker, any three others: C(48,2)
    assert list(stats.categories) == [
        "five aces",
        "royal flush",
        "straight flush",
        "four of a kind",
        "full house",
        "flush",
        "straight",
        "three of a kind",
        "two pair",
        "one pair",
        "high card",
    ]
    # the dealer never plays a better high hand than the best five cards, and high card hands
    # are exactly the same set
    assert stats.dealer_high["high card"] == stats.categories["high card"]
    # the categories agree with the core's evaluator on a random sample of hands
    rnd = random.Random(99)
    counts = dict.fromkeys(stats.categories, 0)
    n = 6000
    for _ in range(n):
        counts[best_five(rnd.sample(FULL_DECK, 7))[0].category.label] += 1
    for name, c in counts.items():
        p = stats.categories[name] / stats.total
        assert abs(c / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-9, name


def test_simulation_reproducible_and_contains_exact_ev(
    compiled: CompiledHouseWay, table_folder
) -> None:  # type: ignore[no-untyped-def]
    spec = TableSpec.of(compiled.way, Wheel.SECOND, table_folder)
    a = simulate(spec, 1_000_000, Runner(workers=2), seed=5)
    b = simulate(spec, 1_000_000, Runner(workers=1), seed=5)
    c = simulate(spec, 1_000_000, Runner(workers=2), seed=6)
    assert (a.win, a.push, a.loss) == (b.win, b.push, b.loss)
    assert (a.win, a.push, a.loss) != (c.win, c.push, c.loss)
    assert a.win + a.push + a.loss == 1_000_000
    lo, hi = a.ci95
    assert lo < a.house_edge < hi and 0.0 < a.house_edge < 0.06
    # one fixed player hand against random dealer hands: the CI contains the exact EV
    for hand in HANDS[:2]:
        cards = parse_cards(hand)
        exact = analyze(cards, compiled)
        ev = float(exact.settings[exact.house_way].ev)
        sim = simulate(spec, 1_000_000, Runner(workers=2), seed=8, player_hand=cards)
        lo, hi = sim.ci95
        assert lo <= -ev <= hi, (hand, lo, -ev, hi)


def test_setting_value_matches_dealer_ranks(compiled: CompiledHouseWay) -> None:
    cards = parse_cards("Qs Qh 9c 9d 5s 3h 2c")
    hi, lo = compiled.dealer_ranks(cards)
    s = Setting.from_low(cards, ["9c", "9d"]).value()
    assert compiled.tables.five_keys[hi] == s.high.key and compiled.tables.two_keys[lo] == s.low.key
