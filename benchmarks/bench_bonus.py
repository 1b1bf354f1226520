"""Benchmark of the side wagers' analysis (issue 20).

1. The one-time compile of the bonus counts: every one of the 154,143,080 hands' bonus
   categories and the dealer's low hand, from the compiled house way, with two workers.
2. One pay table's exact return from the counts (`analyze`), for every preset, and reading the
   cached counts: target well under a second.
3. The kernel (`kernels.bonus.bonus_codes`) against the Python classifier
   (`paigow.bonus.bonus_hand`) on the same sample of full-deck hands: hands/s side by side, the
   ratio, and that both name the same categories for every hand of the sample.
4. The side-wager simulation (`simulate_bonus`, every preset at once) in rounds/s, two workers.

Wall clock and this process's CPU time are printed side by side, with what other processes used
meanwhile (`_machine.py`).

    .venv/bin/python benchmarks/bench_bonus.py            # about 30 s on two cores
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _machine import Contention

from paigow.analysis import bonus_counts as AB
from paigow.analysis.bonus_return import analyze
from paigow.analysis.bonus_sim import simulate_bonus
from paigow.analysis.compiled import HANDS, CompiledHouseWay
from paigow.analysis.kernels import bonus_hand as KB
from paigow.analysis.runner import Runner, TableSpec
from paigow.bonus import BONUS_PRESETS, PayTable, bonus_hand
from paigow.cards import Card
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


def machine() -> str:
    model = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    return f"{os.cpu_count()} CPUs ({model or platform.processor()})"


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, wall seconds, this process's CPU seconds, all threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def sample_hands(n: int, seed: int) -> np.ndarray:
    """``n`` random seven-card hands of the 53-card deck, as card indices (joker 52)."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 53))
    return np.sort(np.argpartition(keys, 7, axis=1)[:, :7], axis=1).astype(np.int64)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=20_000, help="sample for kernel vs Python")
    ap.add_argument("--rounds", type=int, default=4_000_000, help="rounds of the simulation")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=20, help="timings of each analyze")
    args = ap.parse_args()

    load = Contention()
    idle = load.idle_check()
    load.start()
    way, wheel = HouseWay.preset("standard"), Wheel.SECOND
    print("paigow side-wager benchmark")
    print(f"  {machine()}; python {platform.python_version()}")
    print(f"  {idle}\n")
    rows: list[tuple[str, str, str, str]] = []

    # 1. the one-time compile, into a temporary file (the cached one is left alone)
    compiled = CompiledHouseWay.open(way, wheel, workers=2)
    KB.bonus_codes(sample_hands(10, 0))  # load the numba kernels outside the timings
    counts, wall, cpu = timed(lambda: AB.count_all(compiled, workers=2))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bonus.json"
        AB.write_counts(path, counts, way, wheel)
        _, read_wall, read_cpu = timed(lambda: AB.read_counts(path, way, wheel))
    print(f"compile: all {HANDS:,} hands' bonus categories in {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(
        f"  {1e9 * cpu / HANDS:.0f} ns of CPU a hand; reading the cached counts {read_wall * 1e3:.0f} ms"
    )
    rows.append(("compile the bonus counts, 2 workers", f"{wall:.1f} s", f"{cpu:.1f} s", "once"))
    rows.append(
        ("read the cached counts", f"{read_wall * 1e3:.0f} ms", f"{read_cpu * 1e3:.0f} ms", "")
    )

    # 2. one pay table's exact return from the counts
    print("\nexact return from the counts (best of repeats; house edge):")
    worst = 0.0
    for name in BONUS_PRESETS:
        table = PayTable.preset(name)
        best = min(timed(lambda t=table: analyze(t, counts))[1] for _ in range(args.repeats))
        result = analyze(table, counts)
        worst = max(worst, best)
        print(f"  {name:<22} {best * 1e3:7.2f} ms   {100 * float(-result.paid_return):.4f}%")
    rows.append(
        (
            "one pay table's exact return (slowest preset)",
            f"{worst * 1e3:.2f} ms",
            "",
            "PASS" if worst < 0.1 else "FAIL",
        )
    )

    # 3. the kernel against the Python classifier, on the same hands
    hands = sample_hands(args.hands, args.seed)
    cards = [tuple(Card(int(i)) for i in h) for h in hands]  # converted outside the timing
    codes, k_wall, k_cpu = timed(lambda: KB.bonus_codes(hands))
    helds, p_wall, p_cpu = timed(lambda: [bonus_hand(c).held for c in cards])
    agree = all(AB.held_of(int(code)) == held for code, held in zip(codes, helds, strict=True))
    big = sample_hands(2_000_000, args.seed + 1)
    _, kb_wall, _ = timed(lambda: KB.bonus_codes(big))
    k_rate, p_rate, kb_rate = len(hands) / k_wall, len(hands) / p_wall, len(big) / kb_wall
    print(f"\nclassifier on the same {len(hands):,} hands (both agree on every hand: {agree}):")
    print(f"  {'':<34} {'hands/s':>14} {'wall':>9} {'CPU':>9}")
    print(f"  {'kernel bonus_codes':<34} {k_rate:>14,.0f} {k_wall:>8.3f}s {k_cpu:>8.3f}s")
    print(f"  {'Python bonus_hand':<34} {p_rate:>14,.0f} {p_wall:>8.3f}s {p_cpu:>8.3f}s")
    print(
        f"  kernel / Python: {k_rate / p_rate:,.0f}x; kernel on 2,000,000 hands: {kb_rate:,.0f} hands/s"
    )
    rows.append(("kernel hands/s (2M sample, one core)", f"{kb_rate:,.0f}", "", ""))
    rows.append(("Python bonus_hand hands/s", f"{p_rate:,.0f}", "", ""))
    rows.append(
        ("kernel / Python, same hands", f"{k_rate / p_rate:,.0f}x", "", "PASS" if agree else "FAIL")
    )

    # 4. the side-wager simulation
    spec = TableSpec.of(way, wheel)
    spec.open()
    tables = [PayTable.preset(n) for n in BONUS_PRESETS]
    simulate_bonus(spec, 50_000, Runner(workers=2), args.seed, tables)  # warm up
    sims, s_wall, s_cpu = timed(
        lambda: simulate_bonus(spec, args.rounds, Runner(workers=2), args.seed, tables)
    )
    print(f"\nsimulation, {len(tables)} side wagers on every round, 2 workers:")
    print(
        f"  {args.rounds:,} rounds in {s_wall:.2f} s wall, {s_cpu:.2f} s CPU: {args.rounds / s_wall:,.0f} rounds/s"
    )
    missed = [
        t.name
        for s, t in zip(sims, tables, strict=True)
        if not s.holds(analyze(t, counts).paid_return)
    ]
    note = (
        f" (not: {', '.join(missed)}: each 95% interval misses one time in twenty)"
        if missed
        else ""
    )
    print(
        f"  95% intervals holding the exact return: {len(sims) - len(missed)} of {len(sims)}{note}"
    )
    rows.append(
        (
            "bonus simulation rounds/s, 2 workers",
            f"{args.rounds / s_wall:,.0f}",
            f"{s_cpu:.1f} s",
            "",
        )
    )

    line, _quiet = load.report()
    print(f"\n{line}")
    print(f"\n{'measure':<46} {'wall / value':>14} {'CPU':>9}  result")
    for name, value, cpu_text, verdict in rows:
        print(f"{name:<46} {value:>14} {cpu_text:>9}  {verdict}")
    return 0 if all(v != "FAIL" for *_, v in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
