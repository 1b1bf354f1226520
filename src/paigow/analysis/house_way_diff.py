"""Two house ways side by side (``paigow house-way diff A B``): the hands B sets otherwise than A
(a high or a low hand of another strength), by the pair of rule ids that set them (A's, B's),
each with an example hand and, on request, what that difference alone is worth to the house
(A's exact edge with only those hands set B's way, for the dealer and the house-way player
alike, less A's own: what changing those hands from A to B would do).

Over every hand from the two compiled tables (:func:`diff_ways`), or over any hands given
(:func:`diff_hands`: reduced decks, samples).

>>> from paigow.cards import parse_cards
>>> from paigow.house_way import HouseWay
>>> d = diff_hands(HouseWay.preset("standard"), HouseWay.preset("foxwoods"),
...                [parse_cards("Qs Qh 4c 4d As 9h 3c"), parse_cards("Ks Qd 9h 7c 5s 4d 2h")])
>>> d.differ, [(p.a_rule, p.b_rule, p.hands) for p in d.pairs]
(1, [('two-pair.keep-ace', 'two-pair.split', 1)])
>>> d.pairs[0].settings()
('Qs Qh 4d 4c 3c / As 9h', 'As Qs Qh 9h 3c / 4d 4c')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import HANDS, CompiledHouseWay, hand_text
from paigow.analysis.kernels import diff as KD
from paigow.analysis.program import Program, compile_way
from paigow.cards import Card, parse_cards
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

NO_RULE = "(no rule)"  # a hand a house way leaves without a rule (only a file that is unfit)


@dataclass(frozen=True)
class PairDifference:
    """Hands set otherwise, all set by A's rule id ``a_rule`` and by B's ``b_rule``."""

    a_rule: str
    b_rule: str
    hands: int
    example: tuple[Card, ...]  # the seven cards of one of them
    a_way: HouseWay
    b_way: HouseWay
    wheel: Wheel = Wheel.SECOND
    worth: Fraction | None = None  # to the house: A's edge with these hands set B's way, less A's

    def settings(self) -> tuple[str, str]:
        """The example's setting by A and by B (high / low), by the reference reading."""
        a = self.a_way.set_hand(self.example, self.wheel).setting
        b = self.b_way.set_hand(self.example, self.wheel).setting
        return str(a), str(b)

    def to_dict(self) -> dict[str, Any]:
        a, b = self.settings()
        return {
            "a_rule": self.a_rule,
            "b_rule": self.b_rule,
            "hands": self.hands,
            "example": " ".join(c.code for c in self.example),
            "a_setting": a,
            "b_setting": b,
            "worth_to_house": None if self.worth is None else float(self.worth),
            "worth_to_house_exact": None if self.worth is None else str(self.worth),
            "per_100_wagered": None if self.worth is None else round(float(100 * self.worth), 6),
        }


@dataclass(frozen=True)
class WayDiff:
    """Where B sets hands otherwise than A: how many, of how many, by rule pair (most first)."""

    a: HouseWay
    b: HouseWay
    hands: int  # the hands compared
    differ: int
    pairs: tuple[PairDifference, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.name,
            "b": self.b.name,
            "a_digest": self.a.digest,
            "b_digest": self.b.digest,
            "hands": self.hands,
            "hands_set_otherwise": self.differ,
            "pairs": [p.to_dict() for p in self.pairs],
        }


def _outcome_names(program: Program) -> tuple[str, ...]:
    return (*program.outcomes, NO_RULE)


def _pairs(
    a: HouseWay,
    b: HouseWay,
    wheel: Wheel,
    counts: np.ndarray,
    example: Callable[[int, int], tuple[Card, ...]],
) -> tuple[PairDifference, ...]:
    """The rule pairs of ``counts[a, b]`` (outcome numbers), those sharing both ids together,
    most hands first (then by the ids)."""
    names_a, names_b = _outcome_names(compile_way(a)), _outcome_names(compile_way(b))
    found: dict[tuple[str, str], list[Any]] = {}
    for oa, ob in zip(*np.nonzero(counts), strict=True):
        key = (names_a[oa], names_b[ob])
        n = int(counts[oa, ob])
        if key in found:
            found[key][0] += n
        else:
            found[key] = [n, example(int(oa), int(ob))]
    listed = [PairDifference(ra, rb, n, ex, a, b, wheel) for (ra, rb), (n, ex) in found.items()]
    return tuple(sorted(listed, key=lambda p: (-p.hands, p.a_rule, p.b_rule)))


def diff_hands(
    a: HouseWay, b: HouseWay, hands: Sequence[Sequence[Card]], wheel: Wheel = Wheel.SECOND
) -> WayDiff:
    """Where ``b`` sets ``hands`` (each seven cards) otherwise than ``a``, by rule pair; the
    example of each pair is the first such hand given."""
    pa, pb = compile_way(a), compile_way(b)
    rows = np.array(
        [sorted((c.index for c in h), reverse=True) for h in hands], dtype=np.int64
    ).reshape(-1, 7)
    shape = (len(pa.outcomes) + 1, len(pb.outcomes) + 1)
    counts = np.zeros(shape, dtype=np.int64)
    first = np.full(shape, -1, dtype=np.int64)
    differ = int(KD.diff_hands(rows, pa.prog, pb.prog, wheel is Wheel.LOWEST, counts, first))

    def example(oa: int, ob: int) -> tuple[Card, ...]:
        return tuple(hands[int(first[oa, ob])])

    return WayDiff(a, b, len(hands), differ, _pairs(a, b, wheel, counts, example))


def _slices(
    ta: CompiledHouseWay,
    tb: CompiledHouseWay,
    workers: int,
    progress: Callable[[int], None] | None = None,
    copy: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Every hand through :func:`~paigow.analysis.kernels.diff.diff_slice`, a slice per highest
    card: the hands set otherwise, their counts by outcome pair and the first hand of each (of
    the lowest slice that has one); ``copy``/``out`` as the kernel's."""
    pa, pb = compile_way(ta.way), compile_way(tb.way)
    lowest = ta.wheel is Wheel.LOWEST
    shape = (len(pa.outcomes) + 1, len(pb.outcomes) + 1)
    counts = np.zeros((53, *shape), dtype=np.int64)
    first = np.full((53, *shape), -1, dtype=np.int64)
    flags = np.zeros(shape[0] * shape[1], dtype=np.uint8) if copy is None else copy
    target = np.zeros(0, dtype=np.uint8) if out is None else out

    def run(top: int) -> int:
        KD.diff_slice(
            top, pa.prog, pb.prog, lowest, ta.table, tb.table, K.BINOM, counts[top], first[top],
            flags, target,
        )  # fmt: skip
        return int(K.BINOM[top, 6])  # the hands of this slice

    done = run(6)  # alone: it compiles the kernel on a first run
    if progress is not None:
        progress(done)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for future in as_completed([pool.submit(run, top) for top in range(52, 6, -1)]):
            if progress is not None:
                progress(future.result())
    firsts = np.full(shape, -1, dtype=np.int64)
    for top in range(52, 5, -1):  # the lowest slice's hand wins
        firsts = np.where(first[top] >= 0, first[top], firsts)
    by_pair: np.ndarray = counts.sum(axis=0)
    return int(by_pair.sum()), by_pair, firsts


def diff_ways(
    a: HouseWay,
    b: HouseWay,
    wheel: Wheel = Wheel.SECOND,
    workers: int = 2,
    folder: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> WayDiff:
    """Where ``b`` sets any of the 154,143,080 hands otherwise than ``a``, by rule pair (both
    compiled tables opened, built where missing: about a minute each); ``progress(n)`` with
    the hands done."""
    ta = CompiledHouseWay.open(a, wheel, folder, workers=workers)
    tb = CompiledHouseWay.open(b, wheel, folder, workers=workers)
    differ, counts, first = _slices(ta, tb, workers, progress)

    def example(oa: int, ob: int) -> tuple[Card, ...]:
        return tuple(parse_cards(hand_text(int(first[oa, ob]))))

    return WayDiff(a, b, HANDS, differ, _pairs(a, b, wheel, counts, example))


def pair_worth(
    diff: WayDiff,
    wheel: Wheel = Wheel.SECOND,
    workers: int = 2,
    commission: Commission | None = None,
    folder: Path | None = None,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> WayDiff:
    """``diff`` with what each rule pair (the first ``limit``) is worth to the house: A's exact
    edge with only that pair's hands set B's way (for the dealer and the house-way player
    alike), less A's own; a table of 462 MB in memory, and one exact edge each (about as long
    as a house way's edge)."""
    from paigow.analysis.edge import table_edge

    ta = CompiledHouseWay.open(diff.a, wheel, folder, workers=workers)
    tb = CompiledHouseWay.open(diff.b, wheel, folder, workers=workers)
    names_a = _outcome_names(compile_way(diff.a))
    names_b = _outcome_names(compile_way(diff.b))
    n5, n2 = len(ta.tables.five_keys), len(ta.tables.two_keys)
    if progress is not None:
        progress(f"the exact edge of {diff.a.name}")
    own = table_edge(np.asarray(ta.table), n5, n2, workers, commission)
    hybrid = np.array(ta.table)
    pairs = list(diff.pairs)
    for n, pair in enumerate(pairs[:limit]):
        if progress is not None:
            progress(f"{pair.a_rule} / {pair.b_rule} ({n + 1} of {len(pairs[:limit])})")
        copy = np.array(
            [ra == pair.a_rule and rb == pair.b_rule for ra in names_a for rb in names_b],
            dtype=np.uint8,
        )
        _slices(ta, tb, workers, copy=copy, out=hybrid)
        worth = table_edge(hybrid, n5, n2, workers, commission).house_edge - own.house_edge
        pairs[n] = replace(pair, worth=worth)
        hybrid[:] = ta.table
    return replace(diff, pairs=tuple(pairs))


__all__ = ["NO_RULE", "PairDifference", "WayDiff", "diff_hands", "diff_ways", "pair_worth"]
