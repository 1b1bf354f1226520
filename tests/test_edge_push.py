"""The exact edge under a push rule: the masked counting against a brute force over every disjoint
pair on reduced decks (a flag per dense low rank, and a flag per hand), and each rule's trigger as
the kernels read it against the core's on random hands."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paigow.analysis import edge as E
from paigow.analysis import kernels as K
from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.edge import house_way_edge, push_mask
from paigow.analysis.kernels import trigger as KT
from paigow.analysis.runner import Runner, TableSpec
from paigow.cards import FULL_DECK, Card
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import PushRule
from paigow.variants import pai_gow_top, push_triggered

DECKS = {
    "JQKA+joker": [i for i in range(52) if i // 4 + 2 >= 11] + [52],
    "TJQK": [i for i in range(52) if 10 <= i // 4 + 2 <= 13],
}
WAY = HouseWay.preset("standard")


@pytest.fixture(scope="module")
def spec(compiled: CompiledHouseWay, table_folder: Path) -> TableSpec:
    return TableSpec.of(compiled.way, Wheel.SECOND, table_folder)


def _index(hand: tuple[int, ...]) -> int:
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(hand)))


def _hand_flag(hand: tuple[int, ...]) -> bool:
    """A suit-blind flag of a hand (its ranks alone), standing in for a pai gow by top card."""
    ranks = sorted(c // 4 if c != 52 else 13 for c in hand)
    return sum(r * r for r in ranks) % 3 == 0


Flag = Callable[[tuple[int, ...], int], bool]


def _stand_in(
    compiled: CompiledHouseWay, deck: list[int], mode: str, first_low: int
) -> tuple[int, np.ndarray, np.ndarray, Flag]:
    """A stand-in trigger as the kernels read it (mode, bits, low_trig), and the same as the flag
    of a hand (its cards, its dense low rank) for the brute force: ``low``, every third dense low
    rank from ``first_low``; ``hand``, a flag per hand of ``deck`` (:func:`_hand_flag`)."""
    n2 = len(compiled.tables.two_keys)
    low_trig = np.zeros(n2, dtype=np.uint8)
    bits = np.zeros(1, dtype=np.uint8)
    if mode == "low":
        low_trig[first_low::3] = 1
        return KT.MODE_LOW, bits, low_trig, lambda h, lo: bool(low_trig[lo])
    bits = np.zeros((comb(53, 7) + 7) // 8, dtype=np.uint8)
    for h in itertools.combinations(sorted(deck), 7):
        if _hand_flag(h):
            k = _index(h)
            bits[k >> 3] |= 1 << (k & 7)
    return KT.MODE_HAND, bits, low_trig, lambda h, lo: _hand_flag(h)


def _hands(
    compiled: CompiledHouseWay, deck: list[int], flag: Flag | None
) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every seven-card hand of ``deck`` and, by hand, the house way's dense ranks, the trigger
    flag, and the hand's cards as a bit set (for disjointness)."""
    hands = list(itertools.combinations(sorted(deck), 7))
    hs, ls, fl = [], [], []
    for h in hands:
        hi, lo = compiled.dealer_ranks([Card(c) for c in h])
        hs.append(hi)
        ls.append(lo)
        fl.append(bool(flag(h, lo)) if flag else False)
    pos = {c: i for i, c in enumerate(sorted(deck))}
    bits = np.array([sum(1 << pos[c] for c in h) for h in hands], dtype=np.int64)
    return hands, np.array(hs), np.array(ls), np.array(fl), bits


def _brute(compiled: CompiledHouseWay, deck: list[int], flag: Flag) -> tuple[int, int, int, int]:
    hands, hs_a, ls_a, fl_a, bits = _hands(compiled, deck, flag)
    win = loss = deals = 0
    for i in range(len(hands)):
        disjoint = (bits & bits[i]) == 0
        d = disjoint & ~fl_a
        win += int(np.sum((hs_a[i] > hs_a[d]) & (ls_a[i] > ls_a[d])))
        loss += int(np.sum((hs_a[i] <= hs_a[d]) & (ls_a[i] <= ls_a[d])))
        deals += int(disjoint.sum())
    return deals, win, loss, int(fl_a.sum())


@pytest.mark.parametrize("name", list(DECKS))
@pytest.mark.parametrize("mode", ["low", "hand"])
def test_masked_edge_equals_brute_force(
    compiled: CompiledHouseWay,
    spec: TableSpec,
    name: str,
    mode: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deck = DECKS[name]
    kind, bits, low_trig, flag = _stand_in(compiled, deck, mode, 0)
    monkeypatch.setattr(E, "push_mask", lambda spec, push: (kind, bits, low_trig))
    r = house_way_edge(
        spec,
        Runner(workers=2),
        deck=deck,
        checkpoint=tmp_path / "ck.jsonl",
        push=PushRule.QUEEN_HIGH_PAI_GOW,  # any rule: the mask above stands in for its trigger
    )
    deals, win, loss, flagged = _brute(compiled, deck, flag)
    assert 0 < flagged < comb(len(deck), 7)
    assert r.deals == deals
    assert (r.win, r.loss, r.push) == (win, loss, deals - win - loss)
    assert r.pushed_by_rule == flagged * comb(len(deck) - 7, 7)
    plain = house_way_edge(spec, Runner(workers=2), deck=deck, checkpoint=tmp_path / "p.jsonl")
    assert r.win < plain.win and r.loss < plain.loss


@pytest.mark.parametrize("rule", [r for r in PushRule if r is not PushRule.NONE])
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_the_kernels_trigger_is_the_cores(
    compiled: CompiledHouseWay, spec: TableSpec, rule: PushRule
) -> None:
    mode, bits, low_trig = push_mask(spec, rule.value)
    rnd = random.Random(rule.value)
    found = 0
    for _ in range(3000):
        seven = rnd.sample(FULL_DECK, 7)
        if rule is not PushRule.NINE_HIGH_LOW and rnd.random() < 0.5:
            # a pai gow of the rule's top card half of the time: the rare case tried often
            top = 12 if rule is PushRule.QUEEN_HIGH_PAI_GOW else 14
            seven = _pai_gow(rnd, top)
        setting = WAY.set_hand(seven).setting
        want = push_triggered(rule, seven, setting)
        idx = _index(tuple(c.index for c in seven))
        _, lo = compiled.dealer_ranks(seven)
        got = KT.flagged(mode, idx, lo, bits, low_trig)
        assert bool(got) == want, (rule, seven)
        found += want
    assert found > 20


def _pai_gow(rnd: random.Random, top: int) -> list[Card]:
    while True:
        seven = rnd.sample(FULL_DECK, 7)
        if pai_gow_top(seven) == top:
            return seven
        ranks = [*rnd.sample(range(2, top), 6), top]
        cards = [Card((r - 2) * 4 + rnd.randrange(4)) for r in ranks]
        if top == 14 and rnd.random() < 0.3:
            cards[-1] = Card(52)
        if pai_gow_top(cards) == top:
            return cards


@pytest.mark.full_deck  # half a minute of one worker; in the suite, the hands of
# test_the_kernels_trigger_is_the_cores stand for it (the kernels' trigger against the core's)
def test_pai_gow_bits_count_every_pai_gow() -> None:
    """Over all 154,143,080 hands the pai gow bits by top card add up to the hands whose best
    five cards are high card (an independent count: the five-card kernels)."""
    total = 0
    for want in range(7, 13):  # nine .. ace
        bits = np.zeros((comb(53, 7) + 7) // 8, dtype=np.uint8)
        total += sum(KT.pai_gow_bits(top, want, bits, K.BINOM) for top in range(6, 53))
    assert total == 24_780_420


def _patch_masks(
    monkeypatch: pytest.MonkeyPatch, compiled: CompiledHouseWay, deck: list[int], mode: str
) -> Flag:
    """A stand-in trigger (:func:`_stand_in`) for every reader of the push rule's mask (the
    dealer's view and the house way's edge), the caches emptied; returns the flag of a hand for
    the brute force."""
    from paigow.analysis import optimal as O
    from paigow.analysis import pushed as P

    kind, bits, low_trig, flag = _stand_in(compiled, deck, mode, 1)
    monkeypatch.setattr(P, "push_mask", lambda spec, push: (kind, bits, low_trig))
    monkeypatch.setattr(E, "push_mask", lambda spec, push: (kind, bits, low_trig))
    P.dealer_view.cache_clear()
    O.structures.cache_clear()
    return flag


def _brute_optimal_push(
    compiled: CompiledHouseWay, deck: list[int], rate: Any, flag: Flag
) -> tuple[int, int, int]:
    from paigow.setting import all_settings

    hands, hs_a, ls_a, fl_a, bits = _hands(compiled, deck, flag)
    t = compiled.tables
    win = loss = deals = 0
    for i, p in enumerate(hands):
        disjoint = (bits & bits[i]) == 0
        d = disjoint & ~fl_a
        dh, dl = hs_a[d], ls_a[d]
        best = None
        for s in all_settings([Card(c) for c in p]):
            ph, pl = t.rank5_of(s.high), t.rank2_of(s.low)
            if s.is_foul:
                w, lo = 0, int(disjoint.sum())  # a foul loses, the push rule or not
            else:
                w = int(np.sum((ph > dh) & (pl > dl)))
                lo = int(np.sum((ph <= dh) & (pl <= dl)))
            key = (w * (1 - rate) - lo, (ph, pl) == (hs_a[i], ls_a[i]))
            if best is None or key > best[0]:
                best = (key, w, lo)
        assert best is not None
        win += best[1]
        loss += best[2]
        deals += int(disjoint.sum())
    return deals, win, loss


@pytest.mark.exhaustive  # the dealer's view is a copy of the whole table (minutes when loaded)
@pytest.mark.parametrize("mode", ["low", "hand"])
def test_optimal_edge_under_a_push_rule_equals_brute_force(
    compiled: CompiledHouseWay,
    spec: TableSpec,
    mode: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from paigow.analysis import optimal as O
    from paigow.analysis import pushed as P
    from paigow.analysis.strategy import optimal_edge
    from paigow.commission import Commission

    # TJQK (11,440 hands; JQKA+joker's 19,448 took twice as long): the joker under a push rule
    # is test_face_up_edge_equals_brute_force[JQKA+joker-low]'s (the same dealer's view), and
    # the optimal edge with the joker test_edge.py's test_optimal_edge_equals_brute_force
    deck = DECKS["TJQK"]
    flag = _patch_masks(monkeypatch, compiled, deck, mode)
    rate = Commission("0.05")
    try:
        r = optimal_edge(spec, Runner(workers=2), rate, deck=deck, push="queen-high-pai-gow")
        view = P.dealer_view(spec, "queen-high-pai-gow")
    finally:
        P.dealer_view.cache_clear()
        O.structures.cache_clear()
    deals, win, loss = _brute_optimal_push(compiled, deck, rate.rate, flag)
    assert view.moved > 0
    assert (r.deals, r.win, r.loss) == (deals, win, loss)


def _brute_face_up(
    compiled: CompiledHouseWay, deck: list[int], flag: Flag | None = None
) -> tuple[int, int, int]:
    """Each player hand against each disjoint dealer hand, shown face up: a win if a setting
    that is not a foul beats both of the dealer's hands, a loss if every one loses both."""
    from paigow.setting import all_settings

    hands, hs_a, ls_a, fl_a, bits = _hands(compiled, deck, flag)
    t = compiled.tables
    win = loss = deals = 0
    for i, p in enumerate(hands):
        disjoint = (bits & bits[i]) == 0
        d = disjoint & ~fl_a
        dh, dl = hs_a[d], ls_a[d]
        pts = [
            (t.rank5_of(s.high), t.rank2_of(s.low))
            for s in all_settings([Card(c) for c in p])
            if not s.is_foul
        ]
        ph = np.array([a for a, _ in pts])[:, None]
        pl = np.array([b for _, b in pts])[:, None]
        win += int(np.sum(np.any((ph > dh) & (pl > dl), axis=0)))
        loss += int(np.sum(np.all((ph <= dh) & (pl <= dl), axis=0)))
        deals += int(disjoint.sum())
    return deals, win, loss


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        # no push rule: the joker deck alone (TJQK's plain case ran the same code on a deck
        # without the joker)
        ("JQKA+joker", "none"),
        # under a push rule the dealer's view is a copy of the whole table (minutes when loaded)
        pytest.param("TJQK", "hand", marks=pytest.mark.exhaustive),
        pytest.param("JQKA+joker", "low", marks=pytest.mark.exhaustive),
    ],
)
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_face_up_edge_equals_brute_force(
    compiled: CompiledHouseWay,
    spec: TableSpec,
    name: str,
    mode: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a push rule, and under each kind of trigger (a stand-in, :func:`_patch_masks`)."""
    from paigow.analysis import optimal as O
    from paigow.analysis import pushed as P
    from paigow.analysis.faceup import face_up_edge

    deck = DECKS[name]
    push, flag = PushRule.NONE, None
    if mode != "none":
        push, flag = PushRule.ACE_HIGH_PAI_GOW, _patch_masks(monkeypatch, compiled, deck, mode)
    try:
        r = face_up_edge(
            spec, Runner(workers=2), deck=deck, push=push, checkpoint=tmp_path / "f.jsonl"
        )
    finally:
        if flag is not None:
            P.dealer_view.cache_clear()
            O.structures.cache_clear()
    assert (r.deals, r.win, r.loss) == _brute_face_up(compiled, deck, flag)
    hw = house_way_edge(
        spec, Runner(workers=2), deck=deck, push=push, checkpoint=tmp_path / "h.jsonl"
    )
    assert r.win >= hw.win and r.loss <= hw.loss  # seeing the dealer's hand never hurts
