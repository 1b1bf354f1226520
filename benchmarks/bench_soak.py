"""A soak: paced play for ``--minutes`` (30) on two ``paigow serve`` processes over one
PostgreSQL database (a fresh schema of the server at 127.0.0.1:5432), with the client of
``bench_people.py`` (``--tables`` 10 x 6 players, 0.5-3 s of thought, 4 s betting, 15 s
setting; players split between the two processes). Every ``--every`` seconds (60) each
process's resident memory (VmRSS), open files (``/proc/PID/fd``), PostgreSQL connections (its
TCP sockets to port 5432) and open WebSockets (its ``paigow_websockets_open`` gauge, read from
``/metrics``), and the database's size (the schema's tables, indexes and TOAST), are sampled; at
the end the table of samples and each series' least-squares slope per hour are printed (and
written to ``--out`` as JSON, samples as they come), and ``--plot`` draws them (matplotlib).
Nothing may grow without bound: the slope over the last two thirds of the run (after warm-up) is
printed beside the whole run's; the database grows by the rounds play must keep.

    nohup .venv/bin/python benchmarks/bench_soak.py --out /tmp/soak.json \
        --plot docs/soak.png > /tmp/soak.log 2>&1 &
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_people as bp

TRACED: Path | None = None
"""``--tracemalloc``: the folder of the servers' snapshots (``_traced.py``)."""


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> tuple[int, set[str]]:
    """Open files of ``pid`` and the inodes of its sockets."""
    n, sockets = 0, set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        n += 1
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[8:-1])
    return n, sockets


def pg_connections(pid: int) -> int:
    """``pid``'s TCP connections to port 5432 (its sockets matched in /proc/PID/net/tcp*)."""
    _, inodes = fds(pid)
    count = 0
    for name in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{name}").read_text().splitlines()[1:]:
            parts = line.split()
            if parts[2].endswith(":1538") and parts[3] == "01" and parts[9] in inodes:
                count += 1
    return count


def websockets(url: str) -> int:
    """The server's ``paigow_websockets_open`` gauge (its ``/metrics``, open to 127.0.0.1)."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:  # nosec B310  # our server
        for line in r.read().decode().splitlines():
            if line.startswith("paigow_websockets_open"):  # {process="..."} on a worker
                return int(float(line.split()[-1]))
    return -1


def schema_kib(schema: str | None) -> int:
    """The PostgreSQL schema's size (its relations with their indexes and TOAST), KiB."""
    import psycopg

    query = (
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'"
    )
    with psycopg.connect(bp.PG_ADMIN) as c:
        row = c.execute(query, (schema,)).fetchone()
    return int(row[0]) // 1024 if row else 0


def plot(samples: list[dict[str, Any]], path: Path, servers: int) -> None:
    """Each series against the minutes of the run, one panel each (matplotlib, PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mins = [r["t_s"] / 60 for r in samples]
    panels = [
        ("rss_kib", "resident memory (MiB)", 1 / 1024),
        ("fds", "open files", 1.0),
        ("pg", "database connections", 1.0),
        ("ws", "WebSockets open", 1.0),
    ]
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(17, 3.4))
    for ax, (key, title, scale) in zip(axes, panels, strict=False):
        for i in range(servers):
            ax.plot(mins, [r[f"{key}_{i}"] * scale for r in samples], label=f"process {i + 1}")
        ax.set_title(title)
        ax.set_xlabel("minutes")
        ax.set_ylim(bottom=0)
    axes[0].legend()
    axes[-1].plot(mins, [r["db_kib"] / 1024 for r in samples], color="tab:green")
    axes[-1].set_title("database (MiB)")
    axes[-1].set_xlabel("minutes")
    axes[-1].set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def slope_per_hour(ts: list[float], ys: list[float]) -> float:
    """Least-squares slope of ``ys`` against ``ts`` (seconds), per hour."""
    n = len(ts)
    if n < 2:
        return 0.0
    mt, my = sum(ts) / n, sum(ys) / n
    den = sum((t - mt) ** 2 for t in ts)
    return (
        0.0
        if den == 0
        else 3600 * sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / den
    )


async def sample_loop(
    servers: list[bp.Server],
    every: float,
    until: float,
    samples: list[dict[str, Any]],
    out: Path | None,
    schema: str | None,
) -> None:
    t0 = time.time()
    while True:
        row: dict[str, Any] = {"t_s": round(time.time() - t0), "load": bp.loadavg()}
        for i, s in enumerate(servers):
            row[f"rss_kib_{i}"] = rss_kib(s.pid)
            row[f"fds_{i}"] = fds(s.pid)[0]
            row[f"pg_{i}"] = pg_connections(s.pid)
            row[f"ws_{i}"] = await asyncio.to_thread(websockets, s.url)
            row[f"cpu_s_{i}"] = round(bp.cpu_s(s.pid), 1)
        row["db_kib"] = await asyncio.to_thread(schema_kib, schema)
        if TRACED is not None:  # each server's Python allocations, a snapshot a sample
            for s in servers:
                os.kill(s.pid, signal.SIGUSR2)
        samples.append(row)
        print(json.dumps(row), flush=True)
        if out is not None:
            out.write_text(json.dumps({"samples": samples}, indent=1))
        if time.time() >= until:
            return
        await asyncio.sleep(min(every, max(0.0, until - time.time())))


async def run(
    args: argparse.Namespace, servers: list[bp.Server], schema: str | None
) -> dict[str, Any]:
    start = time.time()
    until = start + args.minutes * 60
    samples: list[dict[str, Any]] = []
    out = Path(args.out) if args.out else None
    sampler = asyncio.create_task(sample_loop(servers, args.every, until, samples, out, schema))
    tally, wall = await bp.play([s.url for s in servers], args.tables, 6, 0, until - 25)
    await sampler
    series: dict[str, Any] = {}
    keys = [k for k in samples[0] if k not in ("t_s", "load")]
    # the slopes over the samples taken while every player played (the last ones come as the
    # players leave, from 25 s before the end)
    playing = [r for r in samples if r["t_s"] <= args.minutes * 60 - 30] or samples
    cut = len(playing) // 3
    for k in keys:
        ts = [float(r["t_s"]) for r in playing]
        ys = [float(r[k]) for r in playing]
        series[k] = {
            "first": ys[0],
            "last": ys[-1],
            "max": max(float(r[k]) for r in samples),
            "slope_per_h": round(slope_per_hour(ts, ys), 1),
            "slope_per_h_after_warmup": round(slope_per_hour(ts[cut:], ys[cut:]), 1),
        }
    return {
        "minutes": args.minutes,
        "tables": args.tables,
        "players": args.tables * 6,
        "database": "postgresql (one schema, two serve processes)",
        "player_rounds": tally.rounds,
        "wall_s": round(wall),
        "hands_late": tally.late_refused + tally.late_timeout,
        "cards_unseen": tally.unseen,
        "ws_refused": tally.ws_refused,
        "ws_dropped": tally.ws_dropped,
        "errors": dict(tally.errors),
        "notes": tally.notes[:5],
        "wager_p99_ms": bp.pct(tally.latency["wager"], 0.99),
        "set_p99_ms": bp.pct(tally.latency["set"], 0.99),
        "series": series,
        "samples": samples,
    }


def traced_growth(servers: list[bp.Server], folder: Path) -> dict[str, Any]:
    """Each server's traced Python memory, its snapshot a third of the way in (after warm-up)
    against its last (:func:`_traced.compare`)."""
    from _traced import compare

    out: dict[str, Any] = {}
    for i, s in enumerate(servers):
        snaps = sorted(folder.glob(f"{s.pid}.*.snap"), key=lambda p: int(p.name.split(".")[1]))
        if len(snaps) >= 2:
            out[f"server_{i}"] = compare(snaps[len(snaps) // 3], snaps[-1])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--every", type=float, default=60)
    ap.add_argument("--out", metavar="FILE")
    ap.add_argument("--plot", metavar="PNG", help="draw the samples (matplotlib)")
    ap.add_argument("--cheap-hash", action="store_true")
    ap.add_argument(
        "--tracemalloc",
        action="store_true",
        help="trace the servers' Python allocations; compare the sample a third of the way in "
        "(after warm-up) with the last",
    )
    args = ap.parse_args()
    env = bp.server_env(dict(bp.CHEAP_HASH) if args.cheap_hash else {})
    env["PAIGOW_METRICS_ALLOW"] = "127.0.0.1"  # the sampler reads each one's WebSockets
    url, schema, tmp = bp.database("postgresql")
    bp.create_operator(url, tmp, env)
    global TRACED
    launcher = None
    if args.tracemalloc:  # the servers' Python allocations traced (slower: compare, not time)
        TRACED = Path(tmp) / "snapshots"
        env["PAIGOW_BENCH_TRACEMALLOC"] = str(TRACED)
        launcher = Path(__file__).with_name("_traced.py")
    servers = [bp.start_server(url, env, launcher) for _ in range(2)]
    try:
        report = asyncio.run(run(args, servers, schema))
    finally:
        for s in servers:
            s.stop()
        bp.drop_schema(schema)
    if TRACED is not None:
        report["tracemalloc"] = traced_growth(servers, TRACED)
        print(json.dumps(report["tracemalloc"], indent=1))
    report["server_errors"] = sum(
        1 for s in servers for ln in s.lines if ln.startswith(("ERROR", "Traceback"))
    )
    print("t_s  " + "  ".join(k for k in report["samples"][0] if k != "t_s"))
    for row in report["samples"]:
        print("  ".join(str(v) for v in row.values()))
    for k, v in report["series"].items():
        print(
            f"{k:>10}: first {v['first']:.0f} last {v['last']:.0f} max {v['max']:.0f} "
            f"slope/h {v['slope_per_h']:+.1f} (after warm-up {v['slope_per_h_after_warmup']:+.1f})"
        )
    print(json.dumps({k: v for k, v in report.items() if k not in ("samples", "series")}))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1))
    if args.plot:
        plot(report["samples"], Path(args.plot), len(servers))
    return 1 if report["errors"] or report["server_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
