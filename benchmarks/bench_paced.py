"""Tables at the pace of people, measured by the server's own clock, at several room sizes.

For each ``--tables`` count (50, 100, 200) a fresh database and server(s) and the paced client of
``bench_people.py``: T tables x 6 players, each thinking 0.5-3 s before its wager and before
setting, each watching its table over a WebSocket, all from this one address, the tables at 4 s
betting and 15 s setting; each player reads its table before sitting (as the page does) and its
hand once dealt (as a page opened mid-round does). Recorded per size: tables, players, hands set
late, the server's p50/p99 per step from its ``Server-Timing`` header (sit, wager, hand, set,
table: the opening burst of sits, snapshots and hand reads included) with the client's p99
beside it, and both sides' CPU seconds during play (the servers' from ``/proc``, the client's
own). SQLite with one process, or PostgreSQL (a fresh schema of 127.0.0.1:5432) with two
(``--database postgresql``, ``--processes``).

    .venv/bin/python benchmarks/bench_paced.py --tables 50 100 200 --out /tmp/paced.json
    .venv/bin/python benchmarks/bench_paced.py --database postgresql --tables 100

Log-ins use cheap password hashing (the log-in burst is measured apart, by ``bench_people.py``).
Goals (issue 51): server p99 under 100 ms for every write and 50 ms for every read.
With ``--open-over SECONDS`` the tables open one after another over that time, as a room's do
(each table's six players arrive together and play as soon as they are in; no table waits for
the room, so the tables are not in step). By default every player comes at once and play begins
when all are in (every table in step: the worst case), and the opening (every player's log-in,
table read, WebSocket hello and sit, all sent at once) is measured apart as well: the servers'
CPU for it (a player's share, and that CPU over the processes: the least time in which the
event loops can have answered the whole burst), and each step's server p50/p99 over the
requests after it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_people as bp

STEPS = ("sit", "wager", "hand", "set", "table")
READS = ("hand", "table")


def spy(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    """``py-spy record`` of process ``pid`` for ``seconds`` (100 samples a second, collapsed
    stacks, idle threads left out) to ``out``."""
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    cmd = [exe, "record", "-p", str(pid), "-d", str(int(seconds)), "-r", "100", "-f", "raw"]
    return subprocess.Popen(
        [*cmd, "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )


def one(
    tables: int,
    rounds: int,
    database: str,
    processes: int,
    profile: tuple[Path, float] | None,
    src: str | None = None,
    open_over: float = 0.0,
) -> dict[str, Any]:
    """One room size on a fresh database and fresh servers; its figures (and, with
    ``profile`` = (folder, seconds), each server's py-spy profile of its first seconds).
    ``src``: another source tree serves (e.g. main's, to compare under the same load);
    ``open_over``: the tables open one after another over that many seconds (0: at once)."""
    env = bp.server_env(dict(bp.CHEAP_HASH))
    if src:
        env["PYTHONPATH"] = src
    url, schema, tmp = bp.database(database)
    bp.create_operator(url, tmp, env)
    servers = [bp.start_server(url, env) for _ in range(processes)]
    spies = (
        [
            spy(s.pid, profile[1], profile[0] / f"paced-{database}-{tables}-{i}.txt")
            for i, s in enumerate(servers)
        ]
        if profile
        else []
    )
    bp.Person.read_table = bp.Person.read_hand = True
    marks: list[tuple[float, os.times_result]] = []
    opening: list[float] = []

    def mark() -> None:
        marks.append((sum(bp.cpu_s(s.pid) for s in servers), os.times()))

    try:
        tally, wall = asyncio.run(
            bp.play(
                [s.url for s in servers],
                tables,
                6,
                rounds,
                None,
                on_ready=mark,
                on_start=lambda: opening.append(sum(bp.cpu_s(s.pid) for s in servers)),
                open_over=open_over,
            )
        )
        server_cpu = sum(bp.cpu_s(s.pid) for s in servers) - marks[0][0]
        opening_cpu = marks[0][0] - opening[0]
        end = os.times()
    except BaseException:
        for s in servers:
            print("".join(s.lines[-30:]), file=sys.stderr)
        raise
    finally:
        for sp in spies:
            sp.wait()
        for s in servers:
            s.stop()
        bp.drop_schema(schema)
    start = marks[0][1]
    client_cpu = (end.user + end.system) - (start.user + start.system)
    steps = {
        k: {
            "n": len(tally.server[k]),
            "server_p50_ms": bp.pct(tally.server[k], 0.5),
            "server_p99_ms": bp.pct(tally.server[k], 0.99),
            "client_p99_ms": bp.pct(tally.latency[k], 0.99),
            "n_play": len(tally.server_play[k]),
            "play_server_p50_ms": bp.pct(tally.server_play[k], 0.5),
            "play_server_p99_ms": bp.pct(tally.server_play[k], 0.99),
        }
        for k in STEPS
    }

    def met(p99: str, n: str) -> bool:
        return all(v[p99] < (50 if k in READS else 100) for k, v in steps.items() if v[n])

    goals, goals_play = met("server_p99_ms", "n"), met("play_server_p99_ms", "n_play")
    return {
        "tables": tables,
        "players": tables * 6,
        "rounds": rounds,
        "open_over_s": open_over,
        "database": database,
        "processes": processes,
        "sit_s": round(tally.login_s, 1),
        "play_s": round(wall, 1),
        "player_rounds": tally.rounds,
        "hands_late": tally.late_refused + tally.late_timeout,
        "busy_retried": tally.busy_retried,
        "cards_unseen": tally.unseen,
        "ws_refused": tally.ws_refused,
        "ws_dropped": tally.ws_dropped,
        "server_cpu_s": round(server_cpu, 1),
        # the opening (every player's log-in, table read, WebSocket hello and sit, sent at
        # once): the servers' CPU for it, a player's share, and so the least time in which
        # the servers' event loops can have answered the whole burst
        "opening_cpu_s": round(opening_cpu, 2),
        "opening_cpu_ms_per_player": round(opening_cpu * 1000 / (tables * 6), 2),
        "opening_floor_s": round(opening_cpu / processes, 2),
        "client_cpu_s": round(client_cpu, 1),
        "steps": steps,
        "goals_met": goals,
        "goals_met_after_the_opening": goals_play,
        "errors": dict(tally.errors),
        "notes": tally.notes[:5],
        "server_errors": sum(
            1 for s in servers for ln in s.lines if ln.startswith(("ERROR", "Traceback"))
        ),
        "load_after": bp.loadavg(),
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    """The figures as docs/benchmarks.md's table: server p50 / p99 per step."""
    head = (
        "| tree | db, processes | tables x 6, rounds | late | "
        + " | ".join(STEPS)
        + " | CPU s server / client | opening: CPU ms a player, floor s | after it: "
        + " / ".join(k for k in STEPS if k not in ("sit", "table"))
        + " p99 |"
    )
    out = [head, "|" + "---|" * (len(STEPS) + 7)]
    for r in rows:
        cells = [
            f"{r['steps'][k]['server_p50_ms']} / {r['steps'][k]['server_p99_ms']}"
            if r["steps"][k]["n"]
            else "-"
            for k in STEPS
        ]
        out.append(
            f"| {r.get('tree', 'this')} | {r['database']}, {r['processes']} | "
            f"{r['tables']} x {r['rounds']}"
            + (f", opening over {r['open_over_s']:g} s" if r.get("open_over_s") else "")
            + " | "
            f"{r['hands_late']} | "
            + " | ".join(cells)
            + f" | {r['server_cpu_s']} / {r['client_cpu_s']} | "
            f"{r.get('opening_cpu_ms_per_player', '-')}, {r.get('opening_floor_s', '-')} | "
            + " / ".join(
                str(r["steps"][k].get("play_server_p99_ms", "-"))
                for k in STEPS
                if k not in ("sit", "table")
            )
            + " |"
        )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[50, 100, 200])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--processes", type=int, help="servers (default: 1 on SQLite, 2 on PostgreSQL)")
    ap.add_argument("--out", metavar="FILE")
    ap.add_argument(
        "--open-over",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the tables open one after another over this time, as a room's do (default 0: "
        "every player at once and every table in step, the worst case)",
    )
    ap.add_argument(
        "--profile",
        metavar="DIR",
        help="py-spy each server's first --profile-s seconds (the opening) into DIR",
    )
    ap.add_argument("--profile-s", type=float, default=30)
    ap.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=SRC",
        help="serve this source tree too (repeatable), each size run by each tree in turn",
    )
    args = ap.parse_args()
    profile = (Path(args.profile), args.profile_s) if args.profile else None
    if profile:
        profile[0].mkdir(parents=True, exist_ok=True)
    processes = args.processes or (2 if args.database == "postgresql" else 1)
    rows = []
    trees = [tuple(t.split("=", 1)) for t in args.tree] or [("this", "")]
    for t in args.tables:
        for name, src in trees:
            row = one(
                t, args.rounds, args.database, processes, profile, src or None, args.open_over
            )
            row["tree"] = name
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.out:
                Path(args.out).write_text(json.dumps(rows, indent=1))
    print(markdown(rows))
    return 0 if all(r["goals_met"] and not r["errors"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
