"""The compiled strategy: every class's optimal setting against a brute force on reduced decks,
the edge from the same run, resuming, Dask against one process, and (when the full strategy
is compiled) agreement with ``analyze`` on random hands and whole rank patterns."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paigow.analysis import kernels as K
from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.kernels import strategy_classes as KS
from paigow.analysis.program import compile_way
from paigow.analysis.runner import Runner, TableSpec
from paigow.analysis.strategy import compute, rule_costs
from paigow.cards import Card
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.setting import LOW_POSITIONS, all_settings

STANDARD = HouseWay.preset("standard")

DECKS = {
    "JQKA+joker": [i for i in range(52) if i // 4 + 2 >= 11] + [52],
    "TJQK": [i for i in range(52) if 10 <= i // 4 + 2 <= 13],
}


@pytest.fixture(scope="module")
def spec(compiled: CompiledHouseWay, table_folder: Path) -> TableSpec:
    return TableSpec.of(compiled.way, Wheel.SECOND, table_folder)


#: The brute force and the class run of a reduced deck, each once a process: several tests read
#: the same ones (the 17-card deck's by five tests), and both are pure functions of the table's
#: file, the deck and the commission. The tests only read them.
_BRUTE: dict[tuple[Any, ...], dict[int, tuple]] = {}
_CLASSES: dict[tuple[Any, ...], Any] = {}


def _classes(spec: TableSpec, rate: Commission, deck: list[int]) -> Any:
    """``compute(spec, Runner(workers=2), rate, deck)``, once a process."""
    key = (spec, rate.rate, tuple(deck))
    if key not in _CLASSES:
        _CLASSES[key] = compute(spec, Runner(workers=2), rate, deck)
    return _CLASSES[key]


def _brute(compiled: CompiledHouseWay, deck: list[int], rate: Fraction) -> dict[int, tuple]:
    """:func:`_brute_force`, once a process for a table file, a deck and a commission."""
    key = (str(compiled.path), tuple(deck), rate)
    if key not in _BRUTE:
        _BRUTE[key] = _brute_force(compiled, deck, rate)
    return _BRUTE[key]


def _brute_force(compiled: CompiledHouseWay, deck: list[int], rate: Fraction) -> dict[int, tuple]:
    """For every hand of ``deck`` (by colex index): the best EV numerator, the set of its optimal
    settings' (high, low) ranks, the house way's setting ranks and the EV numerator they give."""
    hands = list(itertools.combinations(sorted(deck), 7))
    t = compiled.tables
    ranks = [compiled.dealer_ranks([Card(c) for c in h]) for h in hands]
    hs = np.array([r[0] for r in ranks])
    ls = np.array([r[1] for r in ranks])
    pos = {c: i for i, c in enumerate(sorted(deck))}
    bits = np.array([sum(1 << pos[c] for c in h) for h in hands], dtype=np.int64)
    out = {}
    for i, p in enumerate(hands):
        d = (bits & bits[i]) == 0
        dh, dl = hs[d], ls[d]
        evs = []
        for s in all_settings([Card(c) for c in p]):
            ph, pl = t.rank5_of(s.high), t.rank2_of(s.low)
            if s.is_foul:
                w, lo = 0, int(d.sum())
            else:
                w = int(np.sum((ph > dh) & (pl > dl)))
                lo = int(np.sum((ph <= dh) & (pl <= dl)))
            evs.append(((w * (rate.denominator - rate.numerator) - lo * rate.denominator), ph, pl))
        best = max(e[0] for e in evs)
        idx = int(sum(int(K.BINOM[c, k + 1]) for k, c in enumerate(p)))
        hw_ev = next(e[0] for e in evs if (e[1], e[2]) == (hs[i], ls[i]))
        out[idx] = (best, {(e[1], e[2]) for e in evs if e[0] == best}, (hs[i], ls[i]), hw_ev)
    return out


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
@pytest.mark.parametrize("name", list(DECKS))
def test_every_class_matches_brute_force(
    compiled: CompiledHouseWay, spec: TableSpec, name: str
) -> None:
    deck = DECKS[name]
    rate = Commission("0.05")
    res = _classes(spec, rate, deck)
    brute = _brute(compiled, deck, rate.rate)
    t = compiled.tables
    assert res.sums[3] == comb(len(deck), 7) and len(res.rows) == res.sums[4]
    assert list(res.rows[:, KS.C_COLEX]) == sorted(res.rows[:, KS.C_COLEX])
    for row in res.rows:
        idx = int(row[KS.C_COLEX])
        best_ev, best_ranks, hw_ranks, _ = brute[idx]
        hand = _hand_of(idx)
        i, j = LOW_POSITIONS[int(row[KS.C_BEST])]
        high = [Card(c) for k, c in enumerate(hand) if k not in (i, j)]
        ranks = (t.rank5_of(high), t.rank2_of([Card(hand[i]), Card(hand[j])]))
        assert ranks in best_ranks, [Card(c).code for c in hand]
        if hw_ranks in best_ranks:  # ties go to the house way's setting
            assert ranks == hw_ranks
        den, num = rate.rate.denominator, rate.rate.numerator
        ev = int(row[KS.C_WB]) * (den - num) - int(row[KS.C_LB]) * den
        assert ev == best_ev
        i, j = LOW_POSITIONS[int(row[KS.C_HW])]
        high = [Card(c) for k, c in enumerate(hand) if k not in (i, j)]
        assert (t.rank5_of(high), t.rank2_of([Card(hand[i]), Card(hand[j])])) == hw_ranks
        rule = compile_way(compiled.way).outcomes[int(row[KS.C_RULE])]
        assert rule == compiled.way.set_hand([Card(c) for c in hand]).rule
    # the edge from the same run, and the rule costs add up
    edge = res.edge()
    assert edge.deals == comb(len(deck), 7) * comb(len(deck) - 7, 7)
    costs = rule_costs(res.sums, rate, compile_way(compiled.way).outcomes, len(deck))
    assert sum(c.hands for c in costs) == comb(len(deck), 7)
    assert all(c.given_up >= 0 and c.differ <= c.hands for c in costs)
    weights = res.rows[:, KS.C_WEIGHT].astype(np.int64)
    differ = res.rows[:, KS.C_BEST] != res.rows[:, KS.C_HW]
    assert sum(c.differ for c in costs) == int(weights[differ].sum())


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
@pytest.mark.parametrize(
    "source", ["standard", "standard-file", pytest.param("file", marks=pytest.mark.full_deck)]
)
def test_rule_costs_against_brute_force(table_folder: Path, tmp_path: Path, source: str) -> None:
    """Each rule's hands, the hands where the optimal setting differs and the EV given up equal a
    brute force over every hand of a reduced deck: for a preset, and for an operator's house-way
    file loaded as ``--house-way FILE`` loads it (``strategy explain --house-way FILE`` takes the
    file, and asks for the build, which takes the full deck). ``file`` (the full_deck lane) is a
    house way of its own, with a compiled table of its own to build (a minute); in the suite,
    ``standard-file`` is the standard house way written out as an operator's file, whose table
    is the standard's (a table is known by its name and its rules' digest)."""
    from typer.testing import CliRunner

    from paigow.cli import app

    path = tmp_path / "riverboat.toml"
    path.write_text(
        'name = "riverboat"\n[two_pair]\naces = "split"\nhigh_high = "keep"\n'
        'high_middle = "keep-if-king"\nhigh_low = "keep"\nmiddle_middle = "split"\n'
        'middle_low = "keep"\nlow_low = "keep"\n[quads]\nlow = "split"\nmiddle = "keep"\n'
        'high = "keep"\n'
    )
    if source == "standard-file":
        path.write_text(STANDARD.to_toml())
    way = HouseWay.load(source if source == "standard" else str(path))
    if source == "standard-file":
        assert way == STANDARD and way is not STANDARD
    if source == "file":
        assert way.name == "riverboat" and way.to_dict() != HouseWay.preset("standard").to_dict()
    spec = TableSpec.of(way, Wheel.SECOND, table_folder)
    compiled = spec.open()
    deck = DECKS["JQKA+joker"]
    rate = Commission("0.05")
    # the operator's file runs the classes itself; the preset shares the other tests' run
    if source == "standard":
        costs = _classes(spec, rate, deck).rule_costs()
    else:
        costs = compute(spec, Runner(workers=2), rate, deck).rule_costs()
    unit = rate.rate.denominator * comb(len(deck) - 7, 7)
    expect: dict[str, tuple[int, int, Fraction]] = {}
    for idx, (best, _, _, hw_ev) in _brute(compiled, deck, rate.rate).items():
        rule = way.set_hand([Card(c) for c in _hand_of(idx)]).rule
        hands, differ, given = expect.get(rule, (0, 0, Fraction(0)))
        expect[rule] = (hands + 1, differ + (best > hw_ev), given + Fraction(best - hw_ev, unit))
    assert {c.rule: (c.hands, c.differ, c.given_up) for c in costs if c.hands} == expect
    assert sum(d for _, d, _ in expect.values()) > 0  # some rule costs something here
    if source != "standard":
        result = CliRunner().invoke(app, ["strategy", "explain", "--house-way", str(path)])
        assert result.exit_code == 2 and "paigow strategy build" in result.output, result.output


def _hand_of(idx: int) -> list[int]:
    """The seven cards (ascending) of a colex index."""
    out = []
    for k in range(7, 0, -1):
        c = k - 1
        while int(K.BINOM[c + 1, k]) <= idx:
            c += 1
        out.append(c)
        idx -= int(K.BINOM[c, k])
    return out[::-1]


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
def test_resume_and_dask_give_identical_rows(spec: TableSpec, tmp_path: Path) -> None:
    deck = DECKS["JQKA+joker"]
    rate = Commission("0.05")
    straight = compute(spec, Runner(workers=1), rate, deck)
    work = tmp_path / "work"
    with pytest.raises(InterruptedError):
        compute(spec, Runner(workers=1), rate, deck, work, stop_after=5)
    assert len((work / "chunks.checkpoint.jsonl").read_text().splitlines()) == 5
    resumed = compute(spec, Runner(workers=2), rate, deck, work)
    assert np.array_equal(straight.rows, resumed.rows) and straight.sums == resumed.sums
    dask = compute(spec, Runner(workers=2, scheduler="local"), rate, deck)
    assert np.array_equal(straight.rows, dask.rows) and straight.sums == dask.sums


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
@pytest.mark.parametrize("name", list(DECKS))
def test_every_hand_maps_to_its_class(
    compiled: CompiledHouseWay, spec: TableSpec, name: str
) -> None:
    """Each hand of a reduced deck finds its class, and the class's optimal setting carried over
    by the suit relabelling is optimal for the hand (brute force), as the per-hand table does."""
    deck = DECKS[name]
    rate = Commission("0.05")
    res = _classes(spec, rate, deck)
    brute = _brute(compiled, deck, rate.rate)
    keys = np.ascontiguousarray(res.rows[:, KS.C_COLEX], dtype=np.int64)
    canon = np.empty(7, dtype=np.int64)
    new_suit = np.empty(4, dtype=np.int64)
    t = compiled.tables
    for idx, (_, best_ranks, hw_ranks, _) in brute.items():
        hand = np.array(_hand_of(idx), dtype=np.int64)
        cls = KS.class_of_hand(hand, keys, K.BINOM, canon, new_suit)
        assert cls >= 0
        q = KS.map_setting(hand, canon, new_suit, int(res.rows[cls, KS.C_BEST]))
        i, j = LOW_POSITIONS[q]
        high = [Card(int(c)) for k, c in enumerate(hand) if k not in (i, j)]
        ranks = (t.rank5_of(high), t.rank2_of([Card(int(hand[i])), Card(int(hand[j]))]))
        assert ranks in best_ranks
        q = KS.map_setting(hand, canon, new_suit, int(res.rows[cls, KS.C_HW]))
        i, j = LOW_POSITIONS[q]
        high = [Card(int(c)) for k, c in enumerate(hand) if k not in (i, j)]
        assert (t.rank5_of(high), t.rank2_of([Card(int(hand[i])), Card(int(hand[j]))])) == hw_ranks


# ---------------------------------------------------------------- the full-deck compiled strategy
@pytest.fixture(scope="module")
def strategy(spec: TableSpec):  # type: ignore[no-untyped-def]
    from paigow.analysis.strategy import CompiledStrategy, strategy_path

    if not strategy_path(spec, Commission("0.05")).exists():
        pytest.skip(
            "no compiled strategy here: run `paigow strategy build` (about 7 min on 2 cores)"
        )
    return CompiledStrategy.open(spec, Commission("0.05"))


def _agrees(compiled: CompiledHouseWay, strategy, cards: list[Card]) -> None:  # type: ignore[no-untyped-def]
    from paigow.analysis.analyze import analyze_fast

    a = analyze_fast(cards, compiled)
    assert a is not None
    ans = strategy.lookup(cards)
    best = a.settings[a.optimal]
    assert ans.ev == best.ev, [c.code for c in cards]
    t = compiled.tables
    ranks = (t.rank5_of(ans.setting.high), t.rank2_of(ans.setting.low))
    if a.optimal == a.house_way:  # ties go to the house way's setting
        hw = a.settings[a.house_way].setting
        assert ranks == (t.rank5_of(hw.high), t.rank2_of(hw.low))
    assert ans.house_way_ev == a.settings[a.house_way].ev
    assert ans.rule == a.house_way_rule


def test_analyze_fast_equals_analyze(compiled: CompiledHouseWay, strategy) -> None:  # type: ignore[no-untyped-def]
    import random

    from paigow.analysis.analyze import analyze, analyze_fast
    from paigow.cards import FULL_DECK

    rnd = random.Random(11)
    for _ in range(6):
        cards = rnd.sample(FULL_DECK, 7)
        fast = analyze_fast(cards, compiled)
        assert fast is not None
        assert fast.to_dict() == analyze(cards, compiled).to_dict()


def test_strategy_agrees_with_analyze_on_random_hands(compiled: CompiledHouseWay, strategy) -> None:  # type: ignore[no-untyped-def]
    import random

    from paigow.cards import FULL_DECK

    rnd = random.Random(2026)
    for _ in range(300):
        _agrees(compiled, strategy, rnd.sample(FULL_DECK, 7))


@pytest.mark.parametrize("ranks", ["AKQJT9", "QQ88A53", "77744K2", "A5432K"])
def test_strategy_agrees_with_analyze_on_whole_rank_patterns(
    compiled: CompiledHouseWay,
    strategy,  # type: ignore[no-untyped-def]
    ranks: str,
) -> None:
    from paigow.cards import FULL_DECK

    by_rank: dict[str, list[Card]] = {}
    for c in FULL_DECK[:52]:
        by_rank.setdefault(c.code[0], []).append(c)
    need = dict.fromkeys(ranks, 0)
    for ch in ranks:
        need[ch] += 1
    pools = [list(itertools.combinations(by_rank[r], n)) for r, n in need.items()]
    hands = [[c for g in combo for c in g] for combo in itertools.product(*pools)]
    if len(ranks) == 6:
        hands = [[*h, FULL_DECK[52]] for h in hands]  # and the joker
    rows = strategy.lookup_indices(np.array([[c.index for c in h] for h in hands]))
    # every hand of the pattern: the per-hand table and the class rows agree
    for h, row in zip(hands, rows, strict=True):
        ans = strategy.answer(h, row)
        assert ans.setting_index == int(row[0])
        _agrees(compiled, strategy, h)
    assert len(hands) > 100


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_lookups_from_class_rows(compiled: CompiledHouseWay, spec: TableSpec) -> None:
    """The lookup path (per-hand table, class rows, EVs, the house way's setting) over the classes
    of a reduced deck, every hand against the brute force."""
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.strategy import CompiledStrategy

    deck = DECKS["JQKA+joker"]
    rate = Commission("0.05")
    res = _classes(spec, rate, deck)
    brute = _brute(compiled, deck, rate.rate)
    keys = np.ascontiguousarray(res.rows[:, KS.C_COLEX])
    small = np.ascontiguousarray(
        res.rows[:, [KS.C_BEST, KS.C_HW, KS.C_RULE, KS.C_WEIGHT]], dtype=np.uint8
    )
    counts = np.ascontiguousarray(res.rows[:, [KS.C_WB, KS.C_LB, KS.C_WH, KS.C_LH]])
    per_hand = np.zeros(HANDS, dtype=np.uint8)
    canon = np.empty(7, dtype=np.int64)
    new_suit = np.empty(4, dtype=np.int64)
    k64 = keys.astype(np.int64)
    for idx in brute:
        hand = np.array(_hand_of(idx), dtype=np.int64)
        cls = KS.class_of_hand(hand, k64, K.BINOM, canon, new_suit)
        per_hand[idx] = KS.map_setting(hand, canon, new_suit, int(small[cls, 0]))
    meta = {"rule_ids": list(res.rule_ids)}
    strat = CompiledStrategy(Path("-"), meta, keys, small, counts, per_hand, rate)
    hands = np.array([_hand_of(idx) for idx in brute])[:, ::-1]  # any order
    rows = strat.lookup_indices(hands)
    t = compiled.tables
    den, num = rate.rate.denominator, rate.rate.numerator
    for hand, row, (best_ev, best_ranks, hw_ranks, _) in zip(
        hands, rows, brute.values(), strict=True
    ):
        ans = strat.answer([Card(int(c)) for c in hand], row)
        s = ans.setting
        assert (t.rank5_of(s.high), t.rank2_of(s.low)) in best_ranks
        hw = ans.house_way
        assert (t.rank5_of(hw.high), t.rank2_of(hw.low)) == hw_ranks
        assert int(row[3]) * (den - num) - int(row[4]) * den == best_ev
        assert ans.ev_given_up >= 0


def test_foxwoods_strategy_agrees_with_analyze(table_folder: Path) -> None:
    """The other preset: its compiled strategy against `analyze` on random hands (once built)."""
    import random

    from paigow.analysis.compiled import CacheError
    from paigow.analysis.strategy import CompiledStrategy, strategy_path
    from paigow.cards import FULL_DECK
    from paigow.house_way import HouseWay

    way = HouseWay.preset("foxwoods")
    try:
        fox = CompiledHouseWay.open(way, Wheel.SECOND, table_folder, build_missing=False)
    except CacheError:
        pytest.skip("no compiled foxwoods house way here")
    spec = TableSpec.of(way, Wheel.SECOND, table_folder)
    if not strategy_path(spec, Commission("0.05")).exists():
        pytest.skip("no foxwoods strategy here: `paigow strategy build --house-way foxwoods`")
    strat = CompiledStrategy.open(spec, Commission("0.05"))
    rnd = random.Random(7)
    for _ in range(150):
        _agrees(fox, strat, rnd.sample(FULL_DECK, 7))
