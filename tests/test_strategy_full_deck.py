"""The optimal player's build kernel on the full 53-card deck, checked in the suite without the
20-minute build of every class: for random hands and for every hand of several whole rank
patterns, under both presets,

- the counts that the build takes from the dominance structures (``hand_counts``, also behind
  ``analyze_fast``) equal the counts of ``analyze`` (a separate count over the compiled house way);
- the build's choice among the 21 settings (the candidates no other setting beats on both hands,
  the best EV after commission, ties to the house way's setting) is ``analyze``'s optimal setting,
  and its house way's setting and rule are the dealer's.

The structures are built once into the test cache (about half a minute and 3.5 GB per house way).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest

from paigow.analysis import kernels as K
from paigow.analysis.analyze import HandAnalysis, analyze, analyze_fast
from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.edge import FULL_DECK_INDICES
from paigow.analysis.kernels import strategy_classes as KS
from paigow.analysis.kernels import way_program as KP
from paigow.analysis.kernels.optimal_counts import hand_counts
from paigow.analysis.optimal import Structures, structures
from paigow.analysis.program import compile_way
from paigow.analysis.runner import TableSpec
from paigow.cards import FULL_DECK, Card
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

# 3.5 GB of structures per house way, built in about a minute cold: the full_deck lane's (the
# suite checks the same build kernel class by class on reduced decks: test_strategy.py)
pytestmark = pytest.mark.full_deck

RATE = Commission("0.05").rate
DEALER_HANDS = comb(46, 7)


def _pattern(ranks: str, joker: bool) -> list[list[Card]]:
    """Every hand of a rank pattern (suits free), with the joker when asked."""
    by_rank: dict[str, list[Card]] = {}
    for c in FULL_DECK[:52]:
        by_rank.setdefault(c.code[0], []).append(c)
    need: dict[str, int] = {}
    for ch in ranks:
        need[ch] = need.get(ch, 0) + 1
    pools = [list(itertools.combinations(by_rank[r], n)) for r, n in need.items()]
    hands = [[c for g in combo for c in g] for combo in itertools.product(*pools)]
    return [[*h, FULL_DECK[52]] for h in hands] if joker else hands


class Kernel:
    """The build's per-class step (``strategy_chunk``'s body) for one hand."""

    def __init__(self, compiled: CompiledHouseWay, st: Structures) -> None:
        self.c, self.st = compiled, st
        self.program = compile_way(compiled.way)
        self.work = KP.work_array()

    def counts(self, p: K.Arr, sel: K.Arr, nsel: int) -> tuple[K.Arr, K.Arr]:
        st = self.st
        wins = np.zeros(21, dtype=np.int64)
        losses = np.zeros(21, dtype=np.int64)
        hand_counts(
            p, self.c.table, K.BINOM, *st.kernel_args(), self._ph, self._pl, sel, nsel, wins,
            losses,
        )  # fmt: skip
        return wins, losses

    def row(self, seven: list[Card]) -> tuple[int, int, str, Fraction]:
        """(best setting, house way's setting, its rule, best EV); settings index the 21
        ways over the cards sorted by index, as the build's rows do."""
        t = self.c.tables
        p = np.array(sorted(c.index for c in seven), dtype=np.int64)
        self._ph = np.empty(21, dtype=np.int64)
        self._pl = np.empty(21, dtype=np.int64)
        KS.setting_ranks(p, K.BINOM, t.rank5, t.rank2, self._ph, self._pl)
        lowest = self.c.wheel is Wheel.LOWEST
        hw, rule = KS.house_way_setting(p, self.program.prog, lowest, self.work)
        sel = np.empty(21, dtype=np.int64)
        nsel = KS.candidates(self._ph, self._pl, t.five_keys, t.two_keys, hw, sel)
        wins, losses = self.counts(p, sel, nsel)
        b = KS.best_of(sel, nsel, wins, losses, RATE.numerator, RATE.denominator, hw)
        ev = (Fraction(int(wins[b])) * (1 - RATE) - int(losses[b])) / DEALER_HANDS
        return int(b), int(hw), self.program.outcomes[int(rule)], ev


def _check(kernel: Kernel, seven: list[Card], a: HandAnalysis) -> None:
    """The kernel's row for ``seven`` (sorted by index) against ``a``, its analysis."""
    best, hw, rule, ev = kernel.row(seven)
    assert hw == a.house_way and rule == a.house_way_rule, [c.code for c in seven]
    assert ev == a.settings[a.optimal].ev, [c.code for c in seven]
    assert a.settings[best].ev == ev
    if a.settings[hw].ev == ev:  # ties go to the house way's setting
        assert best == hw


@pytest.fixture(
    scope="module",
    # foxwoods: its own compiled table and structures besides (minutes)
    params=["standard", "foxwoods"],
)
def preset(request: pytest.FixtureRequest, table_folder: Path) -> tuple[CompiledHouseWay, Kernel]:
    way = HouseWay.preset(request.param)
    compiled = CompiledHouseWay.open(way, Wheel.SECOND, table_folder)
    spec = TableSpec.of(way, Wheel.SECOND, table_folder)
    st = structures(spec, FULL_DECK_INDICES, True)
    return compiled, Kernel(compiled, st)


def _sorted(hand: list[Card]) -> list[Card]:
    return sorted(hand, key=lambda c: c.index)


def test_random_hands_against_analyze(preset: tuple[CompiledHouseWay, Kernel]) -> None:
    compiled, kernel = preset
    rnd = random.Random(2026)
    for _ in range(16):
        seven = _sorted(rnd.sample(FULL_DECK, 7))
        slow = analyze(seven, compiled)
        fast = analyze_fast(seven, compiled)
        assert fast is not None and fast.to_dict() == slow.to_dict()
        _check(kernel, seven, slow)


@pytest.mark.parametrize(
    ("ranks", "joker"),
    [("AKQJTT", True), ("AA5432", True), ("QQ88A53", False), ("77744K2", False)],
)
def test_whole_rank_patterns(
    preset: tuple[CompiledHouseWay, Kernel], ranks: str, joker: bool
) -> None:
    """Every hand of the pattern against ``analyze_fast`` (the same counts, all 21 settings),
    and a sample of them against ``analyze`` itself."""
    compiled, kernel = preset
    hands = [_sorted(h) for h in _pattern(ranks, joker)]
    assert len(hands) > 100
    sample = set(random.Random(ranks).sample(range(len(hands)), 8))
    for i, seven in enumerate(hands):
        a = analyze_fast(seven, compiled)
        assert a is not None
        if i in sample:
            assert a.to_dict() == analyze(seven, compiled).to_dict()
        _check(kernel, seven, a)
