"""What a round with side wagers costs above a plain one, and how much of it is the bots' separate
side-wager request (issue 46): real servers (PostgreSQL, two processes, or SQLite), ``paigow
bots`` flat out (20 tables x 6 players), three columns interleaved ``--repeat`` times:

``plain``       the tables offer no side wager;
``side``        they offer them and the bots place them as ``paigow bots`` does (60% of the
                players a round, 30% of those by the separate request after the main wager);
``with-main``   the same side wagers, every one sent with its main wager (no separate request).

Each run's figure is the servers' (and PostgreSQL's) CPU over the whole run divided by the
rounds settled (set-up included: the same in every column), and the rounds a second while every
bot plays; the medians are printed side by side with each column's ratio to ``plain``.

    .venv/bin/python benchmarks/bench_side_cost.py --repeat 4 --rounds 25
    .venv/bin/python benchmarks/bench_side_cost.py --tree base=/tmp/base/src --tree new=src

Exit status 1 if a run's ledger did not balance or a round did not replay.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench_service as bench
from _machine import Contention

from paigow.cli.bots import run_bots

COLUMNS = {"plain": (False, 0.3), "side": (True, 0.3), "with-main": (True, 0.0)}
"""column -> (side wagers offered, share placed by the separate request)."""


def one_run(tree: Path, backend: str, column: str, args: argparse.Namespace) -> dict[str, Any]:
    side, later = COLUMNS[column]
    password = secrets.token_urlsafe(12)
    served = bench.serve(tree, backend, args.processes, dict(bench.CHEAP_HASH), password)
    try:
        cpu0, pg0 = served.cpu_s(), bench.postgres_cpu_s() if backend == "postgresql" else None
        report = run_bots(
            bench.bots_config(served, args, password, side_wagers=side, side_later_rate=later)
        )
        cpu1, pg1 = served.cpu_s(), bench.postgres_cpu_s() if backend == "postgresql" else None
    finally:
        audit = bench.stop(served, tree)
    rounds = int(report["rounds"])
    ok = bool(report["ledger_balanced"]) and not report["replay_mismatches"] and audit.get("ok")
    return {
        "servers_ms": 1000 * (cpu1 - cpu0) / rounds,
        "db_ms": None if pg0 is None or pg1 is None else 1000 * (pg1 - pg0) / rounds,
        "rounds_per_s": report.get("steady_rounds_per_s"),
        "requests_a_round": report["requests"] / rounds,
        "ok": ok,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=25, help="rounds a player, each run")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    src = Path(__file__).resolve().parents[1] / "src"
    trees = [(n, Path(p)) for n, p in (t.split("=", 1) for t in args.tree)] or [("this", src)]
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    ok = True
    print(Contention().idle_check(), flush=True)
    for i in range(args.repeat):
        for name, tree in trees:
            for column in COLUMNS:
                started = time.perf_counter()
                r = one_run(tree, args.backend, column, args)
                ok &= bool(r["ok"])
                runs.setdefault((name, column), []).append(r)
                shown = {k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()}
                took = time.perf_counter() - started
                print(f"[{name} {column}] run {i + 1}/{args.repeat} ({took:.0f} s): {shown}")
    figures = ("servers_ms", "db_ms", "rounds_per_s", "requests_a_round")
    print(
        f"\n{args.backend}, {args.tables} tables x 6 bots, {args.rounds} rounds a player: medians"
    )
    head = f"{'':34}" + "".join(f"{n + ' ' + c:>20}" for n, _ in trees for c in COLUMNS)
    print(head)
    for fig in figures:
        cells = []
        for name, _ in trees:
            for column in COLUMNS:
                values = [r[fig] for r in runs[(name, column)] if r[fig] is not None]
                cells.append(f"{statistics.median(values):20.1f}" if values else f"{'n/a':>20}")
        print(f"{fig:34}" + "".join(cells))
    for name, _ in trees:
        plain = runs[(name, "plain")]
        for column in ("side", "with-main"):
            for fig in ("servers_ms", "db_ms"):
                a = [r[fig] for r in plain if r[fig] is not None]
                b = [r[fig] for r in runs[(name, column)] if r[fig] is not None]
                if a and b:
                    ratio = statistics.median(b) / statistics.median(a) - 1
                    print(f"{name}: {column} / plain, {fig}: {ratio:+.1%}")
    print("checks:", "PASS" if ok else "FAIL (a ledger, a replay or the audit)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
