"""The exact edge: brute force over every disjoint pair on reduced decks (both player
strategies), resuming from checkpoints, and the full deck against the simulation."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from paigow.analysis import kernels as K
from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.edge import house_way_edge
from paigow.analysis.kernels import is_foul
from paigow.analysis.runner import Runner, TableSpec
from paigow.analysis.simulate import simulate
from paigow.analysis.strategy import optimal_edge
from paigow.cards import FULL_DECK, Card
from paigow.cli import app
from paigow.commission import Commission
from paigow.ranking import Wheel, evaluate_five, evaluate_two
from paigow.setting import all_settings, low_outranks_high
from tests.helpers.edges import DEALS, HOUSE_WAY_COUNTS

# Reduced decks closed under suit relabelling: all four suits of some ranks (with the joker or not)
DECKS = {
    "JQKA+joker": [i for i in range(52) if i // 4 + 2 >= 11] + [52],
    "TJQK": [i for i in range(52) if 10 <= i // 4 + 2 <= 13],
}


@pytest.fixture(scope="module")
def spec(compiled: CompiledHouseWay, table_folder: Path) -> TableSpec:
    return TableSpec.of(compiled.way, Wheel.SECOND, table_folder)


def _points(
    compiled: CompiledHouseWay, deck: list[int]
) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, np.ndarray]:
    hands = list(itertools.combinations(sorted(deck), 7))
    hs, ls = [], []
    for h in hands:
        hi, lo = compiled.dealer_ranks([Card(c) for c in h])
        hs.append(hi)
        ls.append(lo)
    pos = {c: i for i, c in enumerate(sorted(deck))}
    bits = np.array([sum(1 << pos[c] for c in h) for h in hands], dtype=np.int64)
    return hands, np.array(hs), np.array(ls), bits


def _brute_house_way(compiled: CompiledHouseWay, deck: list[int]) -> tuple[int, int, int]:
    hands, hs, ls, bits = _points(compiled, deck)
    win = loss = deals = 0
    for i in range(len(hands)):
        d = (bits & bits[i]) == 0
        win += int(np.sum((hs[i] > hs[d]) & (ls[i] > ls[d])))
        loss += int(np.sum((hs[i] <= hs[d]) & (ls[i] <= ls[d])))
        deals += int(d.sum())
    return deals, win, loss


def _brute_optimal(
    compiled: CompiledHouseWay, deck: list[int], rate: Fraction
) -> tuple[int, int, int]:
    hands, hs, ls, bits = _points(compiled, deck)
    t = compiled.tables
    win = loss = deals = 0
    for i, p in enumerate(hands):
        d = (bits & bits[i]) == 0
        dh, dl = hs[d], ls[d]
        best = None
        for s in all_settings([Card(c) for c in p]):
            ph, pl = t.rank5_of(s.high), t.rank2_of(s.low)
            if s.is_foul:
                w, lo = 0, int(d.sum())
            else:
                w = int(np.sum((ph > dh) & (pl > dl)))
                lo = int(np.sum((ph <= dh) & (pl <= dl)))
            key = (w * (1 - rate) - lo, (ph, pl) == (hs[i], ls[i]))
            if best is None or key > best[0]:
                best = (key, w, lo)
        assert best is not None
        win += best[1]
        loss += best[2]
        deals += int(d.sum())
    return deals, win, loss


@pytest.mark.parametrize("name", list(DECKS))
def test_house_way_edge_equals_brute_force(
    compiled: CompiledHouseWay, spec: TableSpec, name: str, tmp_path: Path
) -> None:
    deck = DECKS[name]
    r = house_way_edge(spec, Runner(workers=2), deck=deck, checkpoint=tmp_path / "ck.jsonl")
    deals, win, loss = _brute_house_way(compiled, deck)
    assert r.deals == deals == comb(len(deck), 7) * comb(len(deck) - 7, 7)
    assert (r.win, r.loss, r.push) == (win, loss, deals - win - loss)


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
@pytest.mark.parametrize("name", list(DECKS))
def test_optimal_edge_equals_brute_force(
    compiled: CompiledHouseWay, spec: TableSpec, name: str, tmp_path: Path
) -> None:
    deck = DECKS[name]
    rate = Commission("0.05")
    r = optimal_edge(spec, Runner(workers=2), rate, deck=deck, checkpoint=tmp_path / "ck.jsonl")
    deals, win, loss = _brute_optimal(compiled, deck, rate.rate)
    assert (r.deals, r.win, r.loss) == (deals, win, loss)
    hw = house_way_edge(spec, Runner(workers=2), deck=deck, checkpoint=tmp_path / "hw.jsonl")
    assert r.house_edge <= hw.house_edge  # the optimal player does at least as well


def test_runs_resume_from_checkpoints(spec: TableSpec, tmp_path: Path) -> None:
    deck = DECKS["JQKA+joker"]
    full = house_way_edge(spec, Runner(workers=1), deck=deck, checkpoint=tmp_path / "a.jsonl")
    ck = tmp_path / "b.jsonl"
    with pytest.raises(InterruptedError):
        house_way_edge(spec, Runner(workers=1), deck=deck, checkpoint=ck, stop_after=10)
    assert len(ck.read_text().splitlines()) == 10
    with ck.open("a") as f:
        f.write(
            '{"chunk": "3:1',
        )  # a line cut short by a kill: ignored, that chunk runs again
    resumed = house_way_edge(spec, Runner(workers=1), deck=deck, checkpoint=ck)
    assert (resumed.win, resumed.push, resumed.loss) == (full.win, full.push, full.loss)
    ock = tmp_path / "o.jsonl"
    with pytest.raises(InterruptedError):
        optimal_edge(spec, Runner(workers=1), deck=deck, checkpoint=ock, stop_after=5)
    a = optimal_edge(spec, Runner(workers=1), deck=deck, checkpoint=ock)
    b = optimal_edge(spec, Runner(workers=1), deck=deck, checkpoint=tmp_path / "o2.jsonl")
    assert (a.win, a.push, a.loss) == (b.win, b.push, b.loss)


def test_the_suites_published_counts_are_the_docs_for_every_push_rule() -> None:
    """The counts the suite saves in place of counting every deal (tests/conftest.py) are those
    docs/cli.md publishes, one set for each push rule a table can have: a rule without them
    would start a full-deck count in a test process's background worker at the first look at
    such a table's floor."""
    from paigow.ruleset import PushRule

    docs = (Path(__file__).parents[1] / "docs" / "cli.md").read_text("utf-8")
    assert set(HOUSE_WAY_COUNTS) == {p.value for p in PushRule}
    for push, (win, pushes) in HOUSE_WAY_COUNTS.items():
        assert f"{win:,}" in docs and f"{pushes:,}" in docs, push
        assert win > 0 and pushes > 0 and win + pushes < DEALS


def test_foul_rule_on_keys_matches_core() -> None:
    import random

    rnd = random.Random(4)
    for _ in range(4000):
        seven = rnd.sample(FULL_DECK, 7)
        for s in all_settings(seven)[::3]:
            hi, lo = evaluate_five(s.high), evaluate_two(s.low)
            assert is_foul(hi.key, lo.key) == low_outranks_high(hi, lo)


@pytest.mark.full_deck  # a minute of two cores, cold: the full-deck lane's; the suite checks the
# same kernel against brute force on reduced decks (above) and the floor reads these counts saved
def test_full_deck_exact_edge_and_simulation(compiled: CompiledHouseWay, spec: TableSpec) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["edge", "--json"])
    assert result.exit_code == 0, result.stdout
    data = json.loads(result.stdout)
    assert data["deals"] == 8_250_459_031_214_400 == comb(53, 7) * comb(46, 7)
    assert data["win"] + data["push"] + data["loss"] == data["deals"]
    # the published counts (docs/cli.md; the floor's tests read them as `paigow edge` saves them)
    assert (data["win"], data["push"]) == HOUSE_WAY_COUNTS["none"]
    edge = data["house_edge"]
    assert 0.02 < edge < 0.035
    sim = simulate(spec, 20_000_000, Runner(workers=2), seed=2024)
    lo, hi = sim.ci95
    assert lo <= edge <= hi
    # the second run resumes from the finished checkpoint at once, with the same answer
    again = json.loads(runner.invoke(app, ["edge", "--json"]).stdout)
    assert (again["win"], again["push"], again["loss"]) == (data["win"], data["push"], data["loss"])
    assert again["seconds"] < 5
    assert K.BINOM[53, 7] == comb(53, 7)
