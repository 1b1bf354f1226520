"""Batch five-card evaluation on one core: paigow's numba kernels against eval7, treys and
phevaluator, run side by side in this process on the same joker-free five-card hands.

Target (the analysis engine's issue): at least 20,000,000 hands per second on one core.

    .venv/bin/python benchmarks/bench_eval.py [--hands 2000000] [--peer-hands 500000]

The process is pinned to one CPU before anything is timed. Our kernels are timed over the whole
batch after a warm-up call (which loads or compiles them); each peer is called once per hand
from Python on the same hands, converted to its own card type outside the timed loop (none of
them has a batch API). Every timing is repeated; the table shows the median and the best rate.

The same run checks that all evaluators ORDER hands alike: on random pairs of hands, and over
all 2,598,960 joker-free five-card hands (unless --no-exhaustive). treys and phevaluator rank
1 = best (lower is better): their ranks are negated before comparing. The comparison uses the
wheel set lowest (A-2-3-4-5 below 6-5-4-3-2, as in those libraries); under the Indiana default
(A-2-3-4-5 second-highest) only the hands holding A-2-3-4-5 straights may be ordered otherwise.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from _machine import Contention

TARGET = 20_000_000  # hands per second on one core
NAMES = [r + s for r in "23456789TJQKA" for s in "cdhs"]  # index = (rank - 2) * 4 + suit
ALL_HANDS = 2_598_960  # C(52, 5)


# ------------------------------------------------------------------------------ helpers
def pin_one_core() -> str:
    """Pin this process (and the threads it starts from now on) to one CPU."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity on this platform)"
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})
    return f"pinned to CPU {cpus[-1]} of {len(cpus)}"


def random_hands(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random joker-free five-card hands, (n, 5) int64, cards in random order."""
    out = np.empty((0, 5), dtype=np.int64)
    while len(out) < n:
        draw = rng.integers(0, 52, size=(int((n - len(out)) * 1.3) + 16, 5), dtype=np.int64)
        distinct = (np.diff(np.sort(draw, axis=1), axis=1) > 0).all(axis=1)
        out = np.concatenate([out, draw[distinct]])
    return np.ascontiguousarray(out[:n])


def all_hands() -> np.ndarray:
    """All C(52, 5) joker-free five-card hands, (2598960, 5) int64."""
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(52), 5)),
        dtype=np.int64,
        count=5 * ALL_HANDS,
    )
    return flat.reshape(-1, 5)


def timings(fn: Callable[[], Any], repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


@dataclass
class Row:
    name: str
    how: str
    hands: int
    seconds: list[float]

    @property
    def median_rate(self) -> float:
        return self.hands / statistics.median(self.seconds)

    @property
    def best_rate(self) -> float:
        return self.hands / min(self.seconds)


def load(module: str) -> Any | None:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


# ------------------------------------------------------------------------------ peers
class Peer:
    """One peer evaluator: converts our (n, 5) hands to its inputs, evaluates them one call at
    a time, and reports strengths with higher = better."""

    name: str
    how: str

    def convert(self, hands: np.ndarray) -> list[Any]:
        raise NotImplementedError

    def run(self, converted: list[Any]) -> list[int]:
        raise NotImplementedError

    def strengths(self, hands: np.ndarray, chunk: int = 250_000) -> np.ndarray:
        parts = []
        for start in range(0, len(hands), chunk):
            values = np.array(self.run(self.convert(hands[start : start + chunk])), np.int64)
            parts.append(values if self.higher_is_better else -values)
        return np.concatenate(parts)

    higher_is_better = True


class Eval7(Peer):
    name = "eval7"
    how = "eval7.evaluate(list of eval7.Card)"

    def __init__(self, mod: Any) -> None:
        self.evaluate = mod.evaluate
        self.cards = [mod.Card(n) for n in NAMES]

    def convert(self, hands: np.ndarray) -> list[Any]:
        c = self.cards
        return [[c[a], c[b], c[d], c[e], c[f]] for a, b, d, e, f in hands.tolist()]

    def run(self, converted: list[Any]) -> list[int]:
        evaluate = self.evaluate
        return [evaluate(h) for h in converted]


class Treys(Peer):
    name = "treys"
    how = "treys.Evaluator().evaluate(2 cards, 3 cards)"
    higher_is_better = False

    def __init__(self, mod: Any) -> None:
        self.evaluate = mod.Evaluator().evaluate
        self.cards = [mod.Card.new(n) for n in NAMES]

    def convert(self, hands: np.ndarray) -> list[Any]:
        c = self.cards
        return [([c[a], c[b]], [c[d], c[e], c[f]]) for a, b, d, e, f in hands.tolist()]

    def run(self, converted: list[Any]) -> list[int]:
        evaluate = self.evaluate
        return [evaluate(h, b) for h, b in converted]


class PhEvaluator(Peer):
    name = "phevaluator"
    how = "phevaluator.evaluate_cards(*card ids)"
    higher_is_better = False

    def __init__(self, mod: Any, five: bool = False) -> None:
        ev = importlib.import_module("phevaluator.evaluator")
        card = importlib.import_module("phevaluator.card").Card
        # phevaluator's card ids are ours: rank index * 4 + suit, suits c d h s
        if [card(n).id_ for n in NAMES] != list(range(52)):
            raise RuntimeError("phevaluator's card ids are not (rank - 2) * 4 + suit")
        self.evaluate = ev.evaluate_5cards if five else ev.evaluate_cards
        if five:
            self.name = "phevaluator (5)"
            self.how = "phevaluator.evaluate_5cards(*card ids)"

    def convert(self, hands: np.ndarray) -> list[Any]:
        out: list[Any] = hands.tolist()
        return out

    def run(self, converted: list[Any]) -> list[int]:
        evaluate = self.evaluate
        return [evaluate(*h) for h in converted]


def peers() -> tuple[list[Peer], list[str]]:
    found: list[Peer] = []
    missing = []
    if (m := load("eval7")) is not None:
        found.append(Eval7(m))
    else:
        missing.append("eval7")
    if (m := load("treys")) is not None:
        found.append(Treys(m))
    else:
        missing.append("treys")
    if (m := load("phevaluator")) is not None:
        found.extend([PhEvaluator(m), PhEvaluator(m, five=True)])
    else:
        missing.append("phevaluator")
    return found, missing


# ------------------------------------------------------------------------------ order checks
def describe(hand: Sequence[int]) -> str:
    return " ".join(NAMES[c] for c in hand)


def is_wheel(hands: np.ndarray) -> np.ndarray:
    """Rows whose five ranks are A-2-3-4-5 (straights and straight flushes)."""
    ranks = np.sort(hands >> 2, axis=1)
    out: np.ndarray = (ranks == np.array([0, 1, 2, 3, 12])).all(axis=1)
    return out


def monotone_violations(ours: np.ndarray, peer: np.ndarray) -> np.ndarray:
    """Positions (into the arrays) of adjacent pairs, in our order, that the peer orders
    otherwise; empty when the peer's order is exactly ours (ties included) over all pairs."""
    order = np.lexsort((peer, ours))
    o, p = ours[order], peer[order]
    do, dp = np.diff(o), np.diff(p)
    bad = np.flatnonzero(((do == 0) & (dp != 0)) | ((do > 0) & (dp <= 0)))
    return np.stack([order[bad], order[bad + 1]], axis=1)


def pair_disagreements(ours: np.ndarray, peer: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    i, j = pairs[:, 0], pairs[:, 1]
    a = np.sign(ours[i] - ours[j])
    b = np.sign(peer[i] - peer[j])
    out: np.ndarray = pairs[a != b]
    return out


# ------------------------------------------------------------------------------ main
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=2_000_000, help="hands for our kernels")
    ap.add_argument("--peer-hands", type=int, default=500_000, help="hands for each peer")
    ap.add_argument("--repeats", type=int, default=5, help="timings of each evaluator")
    ap.add_argument("--pairs", type=int, default=20_000, help="random pairs for the order check")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument(
        "--no-exhaustive", action="store_true", help="skip the order check over all hands"
    )
    args = ap.parse_args(argv)

    pinned = pin_one_core()
    load = Contention()
    idle = load.idle_check()
    load.start()
    from paigow.analysis import kernels as K
    from paigow.analysis.tables import rank_tables
    from paigow.cards import Card
    from paigow.ranking import evaluate_five

    rng = np.random.default_rng(args.seed)
    hands = random_hands(args.hands, rng)
    hands_u8 = hands.astype(np.uint8)
    found, missing = peers()

    print("paigow batch five-card evaluation: one core, same joker-free hands for every evaluator")
    print(f"  python {sys.version.split()[0]}, numpy {np.__version__}, {pinned}")
    print(f"  {args.hands:,} random hands for our kernels, {args.peer_hands:,} for each peer")
    print(f"  (seed {args.seed}); {args.repeats} timings each, rates from the median and the best")
    print(f"  {idle}")
    if missing:
        print(
            f"  not installed, skipped: {', '.join(missing)} (pip install -r benchmarks/requirements.txt)"
        )
    print()

    # -- timing
    tables = rank_tables("second")
    t = time.perf_counter()
    K.key5_batch(hands[:16], False)
    K.rank5_batch(hands[:16], tables.rank5, K.BINOM)
    K.key5_batch(hands_u8[:16], False)
    K.rank5_batch(hands_u8[:16], tables.rank5, K.BINOM)
    warm = time.perf_counter() - t
    rows = [
        Row(
            "paigow key5_batch",
            "kernels.key5_batch(int64 (n, 5)) -> keys",
            len(hands),
            timings(lambda: K.key5_batch(hands, False), args.repeats),
        ),
        Row(
            "paigow key5_batch u8",
            "kernels.key5_batch(uint8 (n, 5)) -> keys",
            len(hands),
            timings(lambda: K.key5_batch(hands_u8, False), args.repeats),
        ),
        Row(
            "paigow rank5_batch",
            "kernels.rank5_batch(int64 (n, 5), dense table)",
            len(hands),
            timings(lambda: K.rank5_batch(hands, tables.rank5, K.BINOM), args.repeats),
        ),
        Row(
            "paigow rank5_batch u8",
            "kernels.rank5_batch(uint8 (n, 5), dense table)",
            len(hands),
            timings(lambda: K.rank5_batch(hands_u8, tables.rank5, K.BINOM), args.repeats),
        ),
    ]
    ours = {r.name: r for r in rows}
    peer_sample = hands[: args.peer_hands]
    for p in found:
        converted = p.convert(peer_sample)
        p.run(converted[:1000])
        rows.append(
            Row(p.name, p.how, len(converted), timings(functools.partial(p.run, converted), 3))
        )
        del converted
    core = [tuple(Card(c) for c in h) for h in hands[:50_000].tolist()]
    rows.append(
        Row(
            "paigow evaluate_five",
            "paigow.ranking.evaluate_five (pure-Python core)",
            len(core),
            timings(lambda: [evaluate_five(h) for h in core], 1),
        )
    )

    key5 = ours["paigow key5_batch"].median_rate
    rank5 = ours["paigow rank5_batch"].median_rate
    print(f"Throughput (numba warm-up / cache load before timing: {warm:.2f} s)")
    head = f"{'evaluator':<22} {'hands':>10} {'median/s':>13} {'best/s':>13} {'key5 x':>8} {'rank5 x':>8}  call"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r.name:<22} {r.hands:>10,} {r.median_rate:>13,.0f} {r.best_rate:>13,.0f} "
            f"{key5 / r.median_rate:>8.2f} {rank5 / r.median_rate:>8.2f}  {r.how}"
        )
    print(
        "  'key5 x' / 'rank5 x': our int64 key5_batch / rank5_batch median rate divided by the\n"
        "  row's (how many times faster ours is); peers pay one Python call per hand, ours one\n"
        "  call per batch."
    )
    print()

    # -- order agreement
    print("Order agreement (strengths: higher = better; treys and phevaluator ranks negated)")
    pairs = rng.integers(0, args.peer_hands, size=(args.pairs, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    sample = peer_sample
    ours_low = K.key5_batch(sample, True)
    ours_second = K.key5_batch(sample, False)
    wheel_sample = is_wheel(sample)
    serious = 0
    lines = []
    for p in found:
        if p.name == "phevaluator (5)":
            continue
        s = p.strengths(sample)
        bad_low = pair_disagreements(ours_low, s, pairs)
        bad_second = pair_disagreements(ours_second, s, pairs)
        non_wheel = bad_second[~(wheel_sample[bad_second[:, 0]] | wheel_sample[bad_second[:, 1]])]
        serious += len(bad_low) + len(non_wheel)
        lines.append(
            f"  {p.name:<12} {len(pairs):,} random pairs: wheel lowest {len(bad_low)} disagree; "
            f"wheel second {len(bad_second)} disagree ({len(non_wheel)} without an A-2-3-4-5)"
        )
        for i, j in bad_low[:3]:
            lines.append(f"      DISAGREE: {describe(sample[i])}  vs  {describe(sample[j])}")
    # our dense ranks against our keys
    dense = K.rank5_batch(sample, tables.rank5, K.BINOM).astype(np.int64)
    bad_dense = monotone_violations(ours_second, dense)
    serious += len(bad_dense)
    lines.append(
        f"  rank5_batch  dense ranks order {len(sample):,} hands as key5_batch: "
        f"{'yes' if len(bad_dense) == 0 else f'NO ({len(bad_dense)} violations)'}"
    )
    print("\n".join(lines))

    if not args.no_exhaustive and found:
        t = time.perf_counter()
        every = all_hands()
        low = K.key5_batch(every, True)
        second = K.key5_batch(every, False)
        wheel = is_wheel(every)
        print(
            f"  all {ALL_HANDS:,} joker-free hands ({len(np.unique(low)):,} classes ours, "
            f"{int(wheel.sum()):,} hold A-2-3-4-5):"
        )
        for p in found:
            if p.name == "phevaluator (5)":
                continue
            s = p.strengths(every)
            bad = monotone_violations(low, s)
            bad_nw = monotone_violations(second[~wheel], s[~wheel])
            bad_w = monotone_violations(second, s)
            only_wheel = bool(wheel[bad_w].any(axis=1).all())
            serious += len(bad) + len(bad_nw) + (0 if only_wheel else 1)
            verdict = "same order" if len(bad) == 0 else f"DIFFERENT ({len(bad)} boundaries)"
            verdict2 = "same order" if len(bad_nw) == 0 else f"DIFFERENT ({len(bad_nw)})"
            print(
                f"    {p.name:<12} {len(np.unique(s)):,} classes; wheel lowest: {verdict}; "
                f"wheel second: {len(bad_w)} breaks in our order, "
                f"{'all' if only_wheel else 'NOT all'} at A-2-3-4-5 hands (expected: the rule); "
                f"A-2-3-4-5 hands set aside: {verdict2}"
            )
            for i, j in bad[:3]:
                print(f"      DISAGREE: {describe(every[i])}  vs  {describe(every[j])}")
        print(f"  (exhaustive check {time.perf_counter() - t:.1f} s)")
        del every
    print()

    # -- summary
    best_batch = max(ours.values(), key=lambda r: r.median_rate)
    print("Target: batch five-card evaluation >= 20,000,000 hands/s on one core (median rate)")
    for r in ours.values():
        verdict = "PASS" if r.median_rate >= TARGET else "FAIL"
        print(f"  {r.name:<22} {r.median_rate:>13,.0f} hands/s  {verdict}")
    overall = "PASS" if best_batch.median_rate >= TARGET else "FAIL"
    print(f"  best batch path: {best_batch.name} -> {overall}")
    agree = "PASS" if serious == 0 else "FAIL"
    print(f"  order agreement with the peers: {agree}")
    print(f"  {load.report(cores_used=1)[0]}")
    return 0 if overall == "PASS" and agree == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
