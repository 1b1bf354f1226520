"""The numba batch kernels agree exactly with the core's evaluator and house way."""

from __future__ import annotations

import itertools
import multiprocessing
import random
from math import comb

import numpy as np
import pytest

from paigow.analysis import kernels as K
from paigow.analysis.kernels import way_program as KP
from paigow.analysis.program import compile_way
from paigow.analysis.tables import rank_tables
from paigow.cards import FULL_DECK, Card
from paigow.house_way import HouseWay
from paigow.ranking import Wheel, best_five, evaluate_five, evaluate_two


def _core_keys(args: tuple[int, int, str]) -> list[int]:
    """Core keys of the colex slice of five-card hands whose highest card is ``top``."""
    top, _, wheel = args
    w = Wheel(wheel)
    out = []
    for d in range(3, top):
        for c in range(2, d):
            for b in range(1, c):
                for a in range(b):
                    out.append(
                        evaluate_five(
                            [
                                FULL_DECK[a],
                                FULL_DECK[b],
                                FULL_DECK[c],
                                FULL_DECK[d],
                                FULL_DECK[top],
                            ],
                            w,
                        ).key
                    )
    return out


@pytest.mark.full_deck
@pytest.mark.parametrize("wheel", ["second", "lowest"])
def test_five_card_kernel_matches_core_on_every_hand(wheel: str) -> None:
    keys = K.all_five_card_keys(wheel == "lowest")
    assert len(keys) == comb(53, 5) == 2_869_685
    with multiprocessing.get_context("fork").Pool(2) as pool:
        parts = pool.map(_core_keys, [(top, 0, wheel) for top in range(4, 53)], chunksize=1)
    core = np.fromiter(itertools.chain.from_iterable(parts), dtype=np.int64, count=len(keys))
    mismatch = np.flatnonzero(core != keys)
    assert mismatch.size == 0, f"{mismatch.size} hands differ, first colex index {mismatch[:5]}"


def test_two_card_kernel_matches_core_on_every_hand() -> None:
    for a, b in itertools.combinations(FULL_DECK, 2):
        assert K.key2(a.index, b.index) == evaluate_two((a, b)).key
        assert K.key2(b.index, a.index) == evaluate_two((a, b)).key


def test_colex_index_is_a_bijection_on_five_cards() -> None:
    seen = set()
    for hand in itertools.islice(itertools.combinations(range(53), 5), 0, None, 997):
        seen.add(K.colex5(*hand, K.BINOM))
    assert all(0 <= i < comb(53, 5) for i in seen)
    assert len(seen) == len(range(0, comb(53, 5), 997))


def test_batch_kernels_and_dense_ranks() -> None:
    rng = np.random.default_rng(7)
    hands = np.array([rng.choice(53, 5, replace=False) for _ in range(20_000)], dtype=np.int64)
    keys = K.key5_batch(hands, False)
    t = rank_tables(Wheel.SECOND)
    ranks = K.rank5_batch(hands, t.rank5, K.BINOM)
    for i in range(0, len(hands), 37):
        cards = [Card(int(c)) for c in hands[i]]
        assert keys[i] == evaluate_five(cards).key
        assert t.five_keys[ranks[i]] == keys[i]
    assert np.all(t.five_keys[ranks] == keys)
    two = hands[:, :2]
    assert np.all(
        K.key2_batch(two) == [evaluate_two([Card(int(a)), Card(int(b))]).key for a, b in two]
    )


def test_best_of_seven_batch_and_category_match_core() -> None:
    rnd = random.Random(11)
    hands = np.array([rnd.sample(range(53), 7) for _ in range(4000)], dtype=np.int64)
    keys = K.best7_batch(hands, False)
    for h, k in zip(hands, keys, strict=True):
        value, _ = best_five([Card(int(c)) for c in h])
        assert k == value.key
        assert K.best7_category(h) == value.category
    # the direct category kernel against the max-of-21 kernel on a larger sample
    rng = np.random.default_rng(3)
    many = np.argsort(rng.random((300_000, 53)), axis=1)[:, :7].astype(np.int64)
    cats = np.array([K.best7_category(h) for h in many])
    assert np.array_equal(cats, K.best7_batch(many, False) >> 25)


@pytest.mark.slow  # 4-5 s each on two busy cores: the full suite's (the quick lane under 3 min)
@pytest.mark.parametrize("preset", ["standard", "foxwoods"])
def test_house_way_kernel_matches_core(preset: str) -> None:
    way = HouseWay.preset(preset)
    program = compile_way(way)
    work = KP.work_array()
    t = rank_tables(Wheel.SECOND)
    rnd = random.Random(f"hw-{preset}")
    hands = [rnd.sample(range(53), 7) for _ in range(6000)]
    # plus hands rich in the rare rules: joker, quads, two sets of three, straights and flushes
    hands += [sorted(rnd.sample(range(36, 53), 7)) for _ in range(1500)]
    hands += [[52, *rnd.sample(range(52), 6)] for _ in range(1500)]
    for h in hands:
        s = np.array(sorted(h, reverse=True), dtype=np.int64)
        hi, lo, rule = K.dense_setting(s, program.prog, False, t.rank5, t.rank2, K.BINOM, work)
        core = way.set_hand([Card(c) for c in h])
        v = core.setting.value()
        assert (t.five_keys[hi], t.two_keys[lo], program.outcomes[rule]) == (
            v.high.key,
            v.low.key,
            core.rule,
        ), [Card(c).code for c in h]
