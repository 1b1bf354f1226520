"""Benchmark of the exact edge's counting kernel alone (issue 21), in CPU seconds on one thread:
every chunk of the house way's edge on a reduced deck, and a sample of the full deck's chunks
(one per size of the card set T, its highest card fixed), without and with a push rule.

Meant to compare two versions of the kernels side by side: run it once per source tree (each
with its own numba cache, so that neither reads the other's compiled code), e.g.

    NUMBA_CACHE_DIR=/tmp/nb-a PYTHONPATH=/path/to/a/src .venv/bin/python \\
        benchmarks/bench_edge_kernel.py --json a.json
    NUMBA_CACHE_DIR=/tmp/nb-b PYTHONPATH=/path/to/b/src .venv/bin/python \\
        benchmarks/bench_edge_kernel.py --json b.json --compare a.json

It prints each set's CPU seconds (the best of ``--repeat`` runs, after a warm-up that compiles
or loads the kernels) and the counts, which must agree to the unit between versions
(``--compare`` checks them and prints the ratio of the times). Uses the compiled standard house
way (built if missing); the full deck's sample is a few seconds of one core per push rule.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from paigow.analysis.edge import EdgeChunk, chunks_for, edge_chunk
from paigow.analysis.runner import TableSpec
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import PushRule

REDUCED = tuple([i for i in range(52) if i // 4 + 2 >= 9] + [52])  # 9 to ace and the joker
#: A sample of the full deck's chunks: (|T|, index of T's highest card); the dense histograms
#: (|T| <= 2) and the sorted points (|T| >= 3) both.
FULL_SAMPLE = ((1, 52), (2, 52), (3, 40), (4, 36), (5, 32), (6, 30))


def timed(chunks: list[EdgeChunk], repeat: int) -> tuple[float, list[list[int]]]:
    """The best CPU seconds of ``repeat`` runs over ``chunks``, and their counts."""
    best = float("inf")
    counts: list[list[int]] = []
    for _ in range(repeat):
        t = time.process_time()
        counts = [edge_chunk(c)[1] for c in chunks]
        best = min(best, time.process_time() - t)
    return best, counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--push",
        nargs="*",
        default=[PushRule.NONE.value, PushRule.NINE_HIGH_LOW.value],
        help="push rules to time (default: none and nine-high-low)",
    )
    ap.add_argument("--no-full", action="store_true", help="only the reduced deck")
    ap.add_argument("--json", type=Path, help="write the figures and counts here")
    ap.add_argument("--compare", type=Path, help="a previous --json to compare against")
    args = ap.parse_args()
    spec = TableSpec.of(HouseWay.preset("standard"), Wheel.SECOND)
    spec.open()
    warm = [c for c in chunks_for(spec, REDUCED) if c.k == 6][:2]
    results: dict[str, Any] = {}
    for push in args.push:
        rule = PushRule(push)
        sets = {"reduced": chunks_for(spec, REDUCED, rule)}
        if not args.no_full:
            sets["full"] = [EdgeChunk(spec, k, top, push=push) for k, top in FULL_SAMPLE]
        timed([EdgeChunk(spec, c.k, c.top, c.deck, push) for c in warm], 1)  # compile or load
        for name, chunks in sets.items():
            seconds, counts = timed(chunks, args.repeat)
            results[f"{push}/{name}"] = {"cpu_s": seconds, "counts": counts}
            print(f"{push:>20} {name:>8}: {len(chunks):4d} chunks {seconds:8.3f} CPU s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.compare:
        before = json.loads(args.compare.read_text())
        same = True
        for key, r in results.items():
            if key not in before:
                continue
            b = before[key]
            ok = b["counts"] == r["counts"]
            same &= ok
            ratio = r["cpu_s"] / b["cpu_s"]
            print(
                f"{key:>30}: {b['cpu_s']:8.3f} -> {r['cpu_s']:8.3f} CPU s "
                f"(x{ratio:.3f}), counts {'equal' if ok else 'DIFFERENT'}"
            )
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
