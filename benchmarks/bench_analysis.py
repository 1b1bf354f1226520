"""The analysis engine against the issue's targets, with pygow-poker run side by side.

    .venv/bin/python benchmarks/bench_analysis.py [--skip-build] [--rounds 50000000]

Steps, each in a fresh subprocess of this script (so that each one's peak memory is its own):

  build      compile the house way for all 154,143,080 hands into a temporary folder inside the
             cache folder ($PAIGOW_CACHE_DIR, else the user cache), 2 workers. With --skip-build
             the table in the cache folder is used, and built there only if it is missing.
  stats      compute_stats over all hands, Runner(workers=2).
  analyze    analyze() of --hands random hands (after one warm-up hand): best and median.
  simulate   house way against house way, --rounds rounds, Runner(workers=2) and workers=1.
  pygow      pygow-poker (the other pai gow poker package on PyPI) dealing and setting rounds
             by its house way, its printing sent to /dev/null, for --pygow-seconds.

Numba kernels are loaded (or compiled, on a first run) by a warm-up call before each timing;
that time is printed too, and the build's target is judged with it included.

Memory. The compiled table is memory-mapped, and the kernel counts its resident pages in the
process's RSS (as file-backed pages, RssFile). The parent polls the child's /proc/<pid>/status
every 20 ms for RssAnon + RssShmem (memory that is not a mapped file); at the end of its step the
child reads VmHWM (the kernel's peak RSS, as ru_maxrss) and splits its file-backed resident
pages, from /proc/self/smaps, into the table's mapping (matched by inode) and everything else
(shared libraries: numpy, llvmlite, ...). Memory beyond the table = peak(RssAnon + RssShmem) +
other file-backed pages; VmHWM and the table's resident pages are printed beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _machine import Contention

MARK = "@@RESULT "
MB = 1_000_000
MiB = 1 << 20
TARGET_BUILD_S = 180.0
TARGET_FILE_B = 600 * MB
TARGET_STATS_S = 60.0
TARGET_ANALYZE_S = 1.0
TARGET_SIM_RPS = 5_000_000
TARGET_MEM_B = 2_000 * MB


# ------------------------------------------------------------------------------ memory
def status_kib(pid: int | str) -> dict[str, int]:
    """The memory lines of /proc/<pid>/status, in bytes (empty once the process is gone)."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key.startswith(("Vm", "Rss")) and rest.strip().endswith("kB"):
                    out[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return out


def smaps_split(inode: int | None) -> tuple[int, int]:
    """(resident bytes of the mappings of the file with ``inode``, resident bytes of all other
    file-backed mappings) of this process, from /proc/self/smaps."""
    table = other = 0
    kind = "anon"
    with open("/proc/self/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if not parts[0].endswith(":"):  # a mapping's header: range perms offset dev inode
                ino = int(parts[4]) if len(parts) > 4 else 0
                kind = "table" if inode and ino == inode else ("file" if ino else "anon")
            elif parts[0] == "Rss:":
                size = int(parts[1]) * 1024
                if kind == "table":
                    table += size
                elif kind == "file":
                    other += size
    return table, other


def memory_report(table_path: Path | None) -> dict[str, int]:
    """This process's memory at the end of its step (run in the child)."""
    st = status_kib("self")
    inode = table_path.stat().st_ino if table_path and table_path.exists() else None
    table, other = smaps_split(inode)
    return {
        "vmhwm": st.get("VmHWM", 0),
        "table_rss_end": table,
        "other_file_rss_end": other,
        "anon_end": st.get("RssAnon", 0) + st.get("RssShmem", 0),
    }


class Sampler(threading.Thread):
    """Polls a child's /proc/<pid>/status and keeps the peaks."""

    def __init__(self, proc: subprocess.Popen[str], every: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.proc, self.every = proc, every
        self.peak_anon = self.peak_file = self.peak_rss = 0

    def run(self) -> None:
        while self.proc.poll() is None:
            st = status_kib(self.proc.pid)
            if st:
                self.peak_anon = max(self.peak_anon, st.get("RssAnon", 0) + st.get("RssShmem", 0))
                self.peak_file = max(self.peak_file, st.get("RssFile", 0))
                self.peak_rss = max(self.peak_rss, st.get("VmRSS", 0))
            time.sleep(self.every)


# ------------------------------------------------------------------------------ child steps
def _setup(args: argparse.Namespace, need_table: bool = True) -> tuple[Any, Any, Path, Any]:
    """The house way, the wheel, the table's path and its TableSpec. A step that times work on
    the table refuses to start without it (opening would build it inside the timing)."""
    from paigow.analysis.compiled import cache_path
    from paigow.analysis.runner import TableSpec
    from paigow.house_way import HouseWay
    from paigow.ranking import Wheel

    way, wheel = HouseWay.load(args.house_way), Wheel(args.wheel)
    folder = Path(args.folder)
    path = cache_path(way, wheel, folder)
    if need_table and not path.exists():
        raise SystemExit(
            f"no compiled table at {path}: its name depends on the kernels' source, which may "
            "have changed since the build step; rerun the benchmark"
        )
    return way, wheel, path, TableSpec.of(way, wheel, folder)


def step_build(args: argparse.Namespace) -> tuple[dict[str, Any], Path | None]:
    import numpy as np

    from paigow.analysis import kernels as K
    from paigow.analysis.compiled import build, kernel_params
    from paigow.analysis.program import compile_way
    from paigow.analysis.tables import rank_tables
    from paigow.ranking import Wheel

    way, wheel, path, _ = _setup(args, need_table=False)
    t = time.perf_counter()
    tables = rank_tables(wheel)
    prog = kernel_params(way)
    scratch = np.zeros(3 * 8, dtype=np.uint8)  # the one hand whose highest card is index 6
    reach = np.zeros(len(compile_way(way).outcomes), dtype=np.int64)
    stats = np.array([0, -1, 0, -1, -1], dtype=np.int64)
    K.build_slice(
        6, scratch, prog, wheel is Wheel.LOWEST, tables.rank5, tables.rank2, K.BINOM,
        tables.five_keys, reach, stats,
    )  # fmt: skip
    warm = time.perf_counter() - t
    t = time.perf_counter()
    build(way, wheel, path, workers=args.workers)
    seconds = time.perf_counter() - t
    return {
        "warmup_s": warm,
        "seconds": seconds,
        "size": path.stat().st_size,
        "path": str(path),
    }, path


def step_stats(args: argparse.Namespace) -> tuple[dict[str, Any], Path | None]:
    import numpy as np

    from paigow.analysis import kernels as K
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.runner import Runner
    from paigow.analysis.stats import compute_stats

    _, _, path, spec = _setup(args)
    t = time.perf_counter()
    spec.open()
    open_s = time.perf_counter() - t
    t = time.perf_counter()
    K.stats_slice(6, np.zeros(11, dtype=np.int64))
    warm = time.perf_counter() - t
    t = time.perf_counter()
    result = compute_stats(spec, Runner(workers=args.workers))
    seconds = time.perf_counter() - t
    if result.total != HANDS:
        raise AssertionError(f"stats counted {result.total} hands")
    return {"open_s": open_s, "warmup_s": warm, "seconds": seconds, "total": result.total}, path


def step_analyze(args: argparse.Namespace) -> tuple[dict[str, Any], Path | None]:
    import numpy as np

    from paigow.analysis.analyze import analyze
    from paigow.cards import Card

    _, _, path, spec = _setup(args)
    compiled = spec.open()
    rng = np.random.default_rng(args.seed)
    hands = [
        tuple(Card(int(c)) for c in rng.choice(53, 7, replace=False)) for _ in range(args.hands + 1)
    ]
    t = time.perf_counter()
    analyze(hands[0], compiled, workers=args.workers)
    warm = time.perf_counter() - t
    times, given_up = [], []
    for hand in hands[1:]:
        t = time.perf_counter()
        result = analyze(hand, compiled, workers=args.workers)
        times.append(time.perf_counter() - t)
        given_up.append(float(result.ev_given_up))
    return {
        "warmup_s": warm,
        "times": times,
        "hands": [" ".join(c.code for c in h) for h in hands[1:]],
        "given_up": given_up,
    }, path


def step_simulate(args: argparse.Namespace) -> tuple[dict[str, Any], Path | None]:
    from paigow.analysis.runner import Runner
    from paigow.analysis.simulate import simulate

    _, _, path, spec = _setup(args)
    spec.open()
    runner = Runner(workers=args.workers)
    t = time.perf_counter()
    simulate(spec, 10_000, runner, seed=1)
    warm = time.perf_counter() - t
    t = time.perf_counter()
    r = simulate(spec, args.rounds, runner, seed=args.seed)
    wall = time.perf_counter() - t
    return {
        "warmup_s": warm,
        "seconds": r.seconds,
        "wall_s": wall,
        "rounds": r.rounds,
        "rate": r.rounds_per_second,
        "house_edge": r.house_edge,
        "ci95": list(r.ci95),
        "push_rate": r.push / r.rounds,
    }, path


def _pygow_modules() -> tuple[Any, Any]:
    """pygow-poker's modules. Its package folder is named ``pygow-poker`` (not importable) and
    its __init__ runs an interactive game, so its folder goes on sys.path and its modules
    ``game`` and ``house_strat`` are imported by name, as they import each other."""
    from importlib import import_module, metadata

    folder = Path(str(metadata.distribution("pygow-poker").locate_file("pygow-poker")))
    sys.path.insert(0, str(folder))
    return import_module("game"), import_module("house_strat")


class _Silent(io.TextIOBase):
    """A stdout that discards what is written, counting the error lines pygow-poker prints."""

    def __init__(self) -> None:
        super().__init__()
        self.error_lines = 0

    def write(self, text: str) -> int:
        self.error_lines += text.count("Error")
        return len(text)


def step_pygow(args: argparse.Namespace) -> tuple[dict[str, Any], Path | None]:
    import random

    game, house = _pygow_modules()
    deck, house_strat, winner = game.DECK, house.house_strat, game.determine_winner
    rng = random.Random(args.seed)
    rounds = errors = 0
    outcomes: dict[str, int] = {}
    started = time.perf_counter()
    silent = _Silent()
    with contextlib.redirect_stdout(silent):
        while time.perf_counter() - started < args.pygow_seconds:
            for _ in range(100):
                cards = deck.copy()
                rng.shuffle(cards)
                player, dealer = tuple(cards[:7]), tuple(cards[7:14])
                try:
                    out = winner(house_strat(player), house_strat(dealer))
                    outcomes[out] = outcomes.get(out, 0) + 1
                except Exception:  # its setter fails on some hands (see its source)
                    errors += 1
                rounds += 1
    seconds = time.perf_counter() - started
    return {
        "rounds": rounds,
        "seconds": seconds,
        "rate": rounds / seconds,
        "errors": errors,
        "printed_errors": silent.error_lines,
        "outcomes": outcomes,
    }, None


STEPS = {
    "build": step_build,
    "stats": step_stats,
    "analyze": step_analyze,
    "simulate": step_simulate,
    "pygow": step_pygow,
}


def child(args: argparse.Namespace) -> int:
    result, path = STEPS[args.child](args)
    result["memory"] = memory_report(path)
    print(MARK + json.dumps(result), flush=True)
    return 0


# ------------------------------------------------------------------------------ parent
def run_step(step: str, args: argparse.Namespace, folder: Path, **over: Any) -> dict[str, Any]:
    opts = {
        "house_way": args.house_way,
        "wheel": args.wheel,
        "folder": str(folder),
        "workers": 2,
        "rounds": args.rounds,
        "hands": args.hands,
        "seed": args.seed,
        "pygow_seconds": args.pygow_seconds,
        **over,
    }
    cmd = [sys.executable, __file__, "--child", step]
    for k, v in opts.items():
        cmd += [f"--{k.replace('_', '-')}", str(v)]
    print(f"  running {step} {' '.join(f'{k}={v}' for k, v in over.items())} ...", flush=True)
    started = time.perf_counter()
    load = Contention()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    sampler = Sampler(proc)
    sampler.start()
    out, _ = proc.communicate()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"step {step} failed ({proc.returncode}):\n{out}")
    line = next(x for x in out.splitlines() if x.startswith(MARK))
    result: dict[str, Any] = json.loads(line[len(MARK) :])
    mem = result["memory"]
    mem["peak_anon"] = sampler.peak_anon
    mem["peak_file"] = sampler.peak_file
    mem["beyond_table"] = sampler.peak_anon + mem["other_file_rss_end"]
    result["process_s"] = time.perf_counter() - started
    m = load.measure(cores_used=1 if step == "pygow" else int(opts["workers"]))
    result["others"] = m[0] / (m[2] * (os.cpu_count() or 1)) if m else 0.0
    result["quiet"] = m[3] if m else True
    return result


def others(r: dict[str, Any]) -> str:
    return f"{r['others']:>6.0%}{' ' if r['quiet'] else '*'}"


def busy(results: dict[str, dict[str, Any]], *keys: str) -> str:
    """' (machine busy)' if another process competed during any of these steps."""
    return "" if all(results[k]["quiet"] for k in keys if k in results) else " (machine busy)"


def mb(b: float) -> str:
    return f"{b / MB:,.0f} MB"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def machine() -> str:
    model = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    mem = ""
    with contextlib.suppress(OSError), open("/proc/meminfo") as f:
        mem = f"{int(f.readline().split()[1]) / (1 << 20):.0f} GiB RAM"
    return f"{os.cpu_count()} CPUs ({model or platform.processor()}), {mem}"


def source_digest() -> str:
    """A digest of paigow's Python source: the table's name depends on the kernels' source, so
    an edit during the run makes later steps look for another table."""
    import paigow

    h = hashlib.sha256()
    for f in sorted(Path(paigow.__file__).parent.rglob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def parent(args: argparse.Namespace) -> int:
    import numba
    import numpy as np

    from paigow.analysis.compiled import FILE_SIZE, cache_dir, cache_path
    from paigow.house_way import HouseWay
    from paigow.ranking import Wheel

    way, wheel = HouseWay.load(args.house_way), Wheel(args.wheel)
    base = cache_dir()
    base.mkdir(parents=True, exist_ok=True)
    temp: Path | None = None
    if args.skip_build:
        folder = base
    else:
        temp = folder = Path(tempfile.mkdtemp(prefix="bench-", dir=base))
    table = cache_path(way, wheel, folder)

    load = Contention()
    idle = load.idle_check()
    load.start()
    digest = source_digest()
    print("paigow analysis benchmark")
    print(
        f"  {machine()}; python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}"
    )
    print(f"  paigow source {digest}; house way {way.name!r}, wheel {wheel.value}")
    print(f"  table {table}")
    print(f"  seed {args.seed}; each step in a fresh subprocess; memory: see the note at the end")
    print(f"  {idle}\n")
    results: dict[str, dict[str, Any]] = {}
    try:
        if not args.skip_build or not table.exists():
            results["build"] = run_step("build", args, folder)
        results["stats"] = run_step("stats", args, folder)
        results["analyze"] = run_step("analyze", args, folder)
        results["sim2"] = run_step("simulate", args, folder, workers=2)
        results["sim1"] = run_step("simulate", args, folder, workers=1)
        if args.pygow_seconds > 0:
            try:
                _pygow_modules()
            except Exception as exc:  # not installed
                print(f"  pygow-poker skipped: {exc} (pip install -r benchmarks/requirements.txt)")
            else:
                results["pygow"] = run_step("pygow", args, folder)
        size = table.stat().st_size
    finally:
        if temp is not None and not args.keep:
            shutil.rmtree(temp, ignore_errors=True)
    print()
    report(args, results, size, FILE_SIZE)
    print(f"  {load.report()[0]}")
    if source_digest() != digest:
        print("  WARNING: paigow's source changed during the run; rerun the benchmark")
    return 0 if all(ok for _, _, ok in summary_rows(results, size)) else 1


def summary_rows(results: dict[str, dict[str, Any]], size: int) -> list[tuple[str, str, bool]]:
    rows: list[tuple[str, str, bool]] = []
    if "build" in results:
        b = results["build"]
        total = b["seconds"] + b["warmup_s"]
        rows.append(
            (
                "build all hands <= 180 s",
                f"{total:.1f} s{busy(results, 'build')}",
                total <= TARGET_BUILD_S,
            )
        )
    rows.append(("table file <= 600 MB", mb(size), size <= TARGET_FILE_B))
    s = results["stats"]
    rows.append(
        (
            "stats over all hands <= 60 s",
            f"{s['seconds']:.1f} s{busy(results, 'stats')}",
            s["seconds"] <= TARGET_STATS_S,
        )
    )
    times = results["analyze"]["times"]
    med = statistics.median(times)
    rows.append(
        (
            "analyze one hand <= 1 s (median)",
            f"median {med:.3f} s, best {min(times):.3f} s{busy(results, 'analyze')}",
            med <= TARGET_ANALYZE_S,
        )
    )
    r2 = results["sim2"]["rate"]
    rows.append(
        (
            "simulate >= 5,000,000 rounds/s, 2 cores",
            f"{r2:,.0f}/s{busy(results, 'sim2')}",
            r2 >= TARGET_SIM_RPS,
        )
    )
    worst = max(
        ((k, v["memory"]["beyond_table"]) for k, v in results.items() if k != "pygow"),
        key=lambda kv: kv[1],
    )
    rows.append(
        (
            "peak memory beyond the table <= 2 GB",
            f"worst {mb(worst[1])} ({worst[0]})",
            worst[1] <= TARGET_MEM_B,
        )
    )
    return rows


def report(
    args: argparse.Namespace, results: dict[str, dict[str, Any]], size: int, expected: int
) -> None:
    print("Steps")
    head = f"{'step':<24} {'warm-up':>8} {'time':>10} {'others':>7}  result"
    print(head)
    print("-" * 108)
    if "build" in results:
        b = results["build"]
        print(
            f"{'build (2 workers)':<24} {b['warmup_s']:>7.2f}s {b['seconds']:>9.1f}s {others(b)}  "
            f"154,143,080 hands, {b['size']:,} bytes ({b['size'] / MiB:.0f} MiB); "
            f"{154_143_080 / b['seconds']:,.0f} hands/s"
        )
    else:
        print(f"{'build':<24} {'':>8} {'skipped':>10} {'':>7}  existing table, {size:,} bytes")
    if size != expected:
        print(f"  WARNING: the table has {size:,} bytes, expected {expected:,}")
    s = results["stats"]
    print(
        f"{'stats (2 workers)':<24} {s['warmup_s']:>7.2f}s {s['seconds']:>9.1f}s {others(s)}  "
        f"{s['total']:,} hands ({s['total'] / s['seconds']:,.0f} hands/s); table opened in {s['open_s']:.2f} s"
    )
    a = results["analyze"]
    times = a["times"]
    print(
        f"{'analyze (2 workers)':<24} {a['warmup_s']:>7.2f}s {statistics.median(times):>9.3f}s "
        f"{others(a)}  "
        f"median of {len(times)} hands; best {min(times):.3f} s, worst {max(times):.3f} s"
    )
    for key, label in (("sim2", "simulate (2 workers)"), ("sim1", "simulate (1 worker)")):
        r = results[key]
        lo, hi = r["ci95"]
        print(
            f"{label:<24} {r['warmup_s']:>7.2f}s {r['seconds']:>9.1f}s {others(r)}  "
            f"{r['rounds']:,} rounds, "
            f"{r['rate']:,.0f} rounds/s; house edge {r['house_edge']:.5f} "
            f"[{lo:.5f}, {hi:.5f}], pushes {r['push_rate']:.4f}"
        )
    if "pygow" in results:
        p = results["pygow"]
        print(
            f"{'pygow-poker (1 core)':<24} {'':>8} {p['seconds']:>9.1f}s {others(p)}  "
            f"{p['rounds']:,} rounds, "
            f"{p['rate']:,.0f} rounds/s; {p['errors']} rounds raised, "
            f"{p['printed_errors']} errors printed (silenced)"
        )
    print(
        "  others: the share of the machine's CPUs that other processes used during the step;\n"
        "  * marks a step during which they competed for the cores it ran on (its time is low)."
    )
    print()

    print("Peers side by side (rounds dealt and set by the house way, both hands)")
    if "pygow" in results:
        p = results["pygow"]["rate"]
        r1, r2 = results["sim1"]["rate"], results["sim2"]["rate"]
        print(f"  {'':<34} {'rounds/s':>14} {'ours / peer':>12}")
        print(f"  {'paigow simulate, 2 workers':<34} {r2:>14,.0f} {r2 / p:>12,.0f}")
        print(f"  {'paigow simulate, 1 worker':<34} {r1:>14,.0f} {r1 / p:>12,.0f}")
        print(f"  {'pygow-poker, 1 core (Python)':<34} {p:>14,.0f} {1:>12}")
        print(
            "  pygow-poker: deck copy + random.shuffle, house_strat() on both hands, "
            "determine_winner();\n  its prints discarded. paigow: compiled table lookups "
            "(the house way precomputed by the build)."
        )
        print(f"  pygow-poker outcomes: {results['pygow']['outcomes']}")
    else:
        print("  pygow-poker not run")
    print()

    print("Memory (each step in its own process)")
    head = (
        f"  {'step':<22} {'VmHWM':>10} {'table RSS':>10} {'anon peak':>10} "
        f"{'libs RSS':>10} {'beyond table':>13}"
    )
    print(head)
    names = {
        "build": "build",
        "stats": "stats",
        "analyze": "analyze",
        "sim2": "simulate, 2 workers",
        "sim1": "simulate, 1 worker",
        "pygow": "pygow-poker",
    }
    for key, label in names.items():
        if key not in results:
            continue
        m = results[key]["memory"]
        table_rss = max(m["table_rss_end"], m["peak_file"] - m["other_file_rss_end"])
        print(
            f"  {label:<22} {mb(m['vmhwm']):>10} {mb(table_rss):>10} {mb(m['peak_anon']):>10} "
            f"{mb(m['other_file_rss_end']):>10} {mb(m['beyond_table']):>13}"
        )
    print(
        "  VmHWM: the kernel's peak resident set (= ru_maxrss), table included.\n"
        "  table RSS: the table's resident pages (smaps at the end of the step, or the peak of\n"
        "  RssFile less the other file pages, whichever is larger; the build unmaps its table).\n"
        "  anon peak: peak RssAnon + RssShmem, polled every 20 ms from the parent.\n"
        "  libs RSS: other file-backed resident pages (shared libraries) at the end of the step.\n"
        "  beyond table = anon peak + libs RSS: what the step holds besides the mapped table."
    )
    print()

    print("Targets")
    rows = summary_rows(results, size)
    for name, value, ok in rows:
        print(f"  {name:<42} {value:<48} {verdict(ok)}")
    print("  (batch five-card evaluation: see benchmarks/bench_eval.py)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--skip-build", action="store_true", help="use the cached table (build if missing)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary table folder")
    ap.add_argument("--rounds", type=int, default=50_000_000, help="simulated rounds")
    ap.add_argument("--hands", type=int, default=20, help="hands to analyze")
    ap.add_argument(
        "--pygow-seconds", type=float, default=10.0, help="time for pygow-poker (0: skip)"
    )
    ap.add_argument("--house-way", default="standard")
    ap.add_argument("--wheel", default="second")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--child", choices=sorted(STEPS), help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
