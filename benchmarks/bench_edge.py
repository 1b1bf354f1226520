"""Benchmark of the exact edge (issue 6).

1. House way against house way over all 8,250,459,031,214,400 deals, from scratch (a fresh
   checkpoint), with two workers: target under a minute.
2. The optimal player: the rate measured on a random sample of player-hand classes, projected to
   all of them on this machine (two workers) and on a 32-core cluster (32 workers at this
   machine's per-core rate); targets under a day and under an hour. The basis of the projection
   is printed.
3. Resuming: a run stopped after some chunks and started again gives the same counts as one
   run straight through (on a reduced deck, where the brute-force tests also check it), and on
   the full deck a stopped optimal run keeps its finished chunks.

    .venv/bin/python benchmarks/bench_edge.py [--sample-chunks 60] [--per-chunk 40]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from paigow.analysis import optimal as O
from paigow.analysis.edge import FULL_DECK_INDICES, house_way_edge
from paigow.analysis.runner import Runner, TableSpec
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample-chunks", type=int, default=60)
    ap.add_argument("--per-chunk", type=int, default=40)
    args = ap.parse_args()
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

    t = time.perf_counter()
    O._structures(spec, FULL_DECK_INDICES, True)
    build = time.perf_counter() - t
    print(
        f"optimal player: dominance structures ready in {build:.1f} s (built once, then memory-mapped)"
    )
    classes = int(O.count_classes(np.arange(53, dtype=np.int64), 7))
    sample = list(O.iter_sample(spec, rate, per_chunk=args.per_chunk, chunks=args.sample_chunks))
    # warm-up (numba, and the page cache of the structures) on another random sample
    warm = list(
        O.iter_sample(spec, rate, per_chunk=args.per_chunk, chunks=args.sample_chunks, seed=2)
    )
    Runner(workers=2).map(O.optimal_chunk_task, warm)
    for workers in (1, 2):
        t = time.perf_counter()
        res = Runner(workers=workers).map(O.optimal_chunk_task, sample)
        dt = time.perf_counter() - t
        n = sum(v[4] for _, v in res)
        per_s = n / dt
        hours = classes / per_s / 3600
        print(
            f"  {workers} worker(s): {n} player-hand classes from {len(sample)} random chunks in {dt:.2f} s = {per_s:.0f} classes/s"
        )
        print(f"    projection: {classes:,} classes / {per_s:.0f} per s = {hours:.2f} h")
        if workers == 1:
            per_core = per_s
        else:
            rows.append(
                (
                    "optimal player, projected, this machine",
                    f"{hours:.2f} h",
                    "< 24 h",
                    "PASS" if hours < 24 else "FAIL",
                )
            )
    cluster_h = classes / (per_core * 32) / 3600
    print(
        f"  32-core cluster at this machine's per-core rate ({per_core:.0f}/s): {cluster_h:.2f} h"
    )
    rows.append(
        (
            "optimal player, projected, 32 cores",
            f"{cluster_h:.2f} h",
            "< 1 h",
            "PASS" if cluster_h < 1 else "FAIL",
        )
    )

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
        full_ck = Path(tmp) / "full.jsonl"
        try:
            O.optimal_edge(spec, Runner(workers=2), rate, checkpoint=full_ck, stop_after=4)
        except InterruptedError as exc:
            print(
                f"  full deck optimal run stopped after 4 chunks: {exc}; {len(full_ck.read_text().splitlines())} chunks kept in the checkpoint"
            )

    print()
    print(f"{'measure':<42} {'value':>12} {'target':>8}  result")
    for name, value, target, verdict in rows:
        print(f"{name:<42} {value:>12} {target:>8}  {verdict}")
    return 0 if all(v == "PASS" for *_, v in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
