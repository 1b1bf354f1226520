"""Benchmark of the exact edge (issue 6).

1. House way against house way over all 8,250,459,031,214,400 deals, from scratch (a fresh
   checkpoint), with two workers: target under a minute.
2. Resuming: an optimal-player run stopped after some chunks and started again gives the same
   counts as one run straight through (on a reduced deck, where the brute-force tests also check
   it). The optimal player's full-deck build is benchmarked by ``bench_strategy.py``.

    .venv/bin/python benchmarks/bench_edge.py
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from paigow.analysis import strategy as O
from paigow.analysis.edge import house_way_edge
from paigow.analysis.runner import Runner, TableSpec
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.parse_args()
    spec = TableSpec.of(HouseWay.preset("standard"), Wheel.SECOND)
    spec.open()
    rate = Commission("0.05")
    rows: list[tuple[str, str, str, str]] = []
    print(f"machine: {os.cpu_count()} cores; cache {spec.folder}")

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        r = house_way_edge(spec, Runner(workers=2), rate, checkpoint=Path(tmp) / "hw.jsonl")
        seconds = time.perf_counter() - t
    print(
        f"house way vs house way: deals {r.deals:,} win {r.win:,} push {r.push:,} loss {r.loss:,}"
    )
    print(f"  house edge {100 * float(r.house_edge):.6f}% in {seconds:.1f} s")
    rows.append(
        (
            "house way, exact, 2 workers",
            f"{seconds:.1f} s",
            "< 60 s",
            "PASS" if seconds < 60 else "FAIL",
        )
    )

    print("the optimal player's build and projections: benchmarks/bench_strategy.py")

    deck = [i for i in range(52) if i // 4 + 2 >= 11] + [52]
    with tempfile.TemporaryDirectory() as tmp:
        whole = O.optimal_edge(
            spec, Runner(workers=2), rate, deck=deck, checkpoint=Path(tmp) / "a.jsonl"
        )
        ck = Path(tmp) / "b.jsonl"
        try:
            O.optimal_edge(spec, Runner(workers=2), rate, deck=deck, checkpoint=ck, stop_after=20)
        except InterruptedError as exc:
            print(f"resume demo (17-card deck): stopped: {exc}")
        resumed = O.optimal_edge(spec, Runner(workers=2), rate, deck=deck, checkpoint=ck)
        same = (whole.win, whole.push, whole.loss) == (resumed.win, resumed.push, resumed.loss)
        print(
            f"  resumed run equals the straight run: {same} ({resumed.win:,} / {resumed.push:,} / {resumed.loss:,})"
        )
        rows.append(
            (
                "resume from checkpoints",
                "same counts" if same else "DIFFERENT",
                "same",
                "PASS" if same else "FAIL",
            )
        )

    print()
    print(f"{'measure':<42} {'value':>12} {'target':>8}  result")
    for name, value, target, verdict in rows:
        print(f"{name:<42} {value:>12} {target:>8}  {verdict}")
    return 0 if all(v == "PASS" for *_, v in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
