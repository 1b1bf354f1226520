"""Benchmark of the table service against issue 9's goals: real servers, real clients, side by side.

Each source tree given (``--tree NAME=PATH``; default: this checkout, and the baseline when
``--tree`` names it) serves in turn with the same clients, and the figures are printed beside
the goals, one column per tree. Scenarios (``--scenarios``, all by default):

``saturated``  bots play flat out (``paigow bots``: 20 tables x 6 players, ``--rounds`` 30
               each, house-way settings, some fouls and bad requests). The headline figures:
               the servers' and PostgreSQL's CPU milliseconds a round, marginal between a run of
               ``--short-rounds`` and one of ``--rounds`` (set-up cancels; a busy machine
               disturbs CPU time far less than wall-clock time). Beside them: rounds settled per second
               while every bot plays (from when the last one sat down to when the first one
               finished; from the first log-in beside it), wager/set latency, the server's CPU
               milliseconds per round (and PostgreSQL's own), and whether the ledger balances,
               every round replays and ``paigow audit verify`` passes. SQLite: the serving
               process's CPU split (play): the steps themselves (``_step_cpu.py`` times each
               group of steps where it runs, on the event loop: "step CPU a round"), its
               event loop in all, the writer thread (BEGIN and COMMIT), its other threads.
               ``--side on``: the tables offer side wagers (Fortune with Envy, a progressive
               all of them share) and the bots place them as ``paigow bots`` does;
               ``--side both``: the plain column and one with side wagers in play
               (``NAME+side``). SQLite with one process;
               PostgreSQL with ``--processes`` (``serve --workers N`` where the tree has it,
               else N separate servers). Cheap password hashing here (setup is not measured).
``paced``      people's pace: every bot acts after a random 0.5-3 s (``--paced-tables`` x 6
               players, 600 WebSockets with ``--full``: 100 tables), for ``--paced-seconds``:
               wager, set and read (GET a table, GET /api/me) latency; WebSocket delivery
               latency from the event's commit (the server stamps ``committed_at``; a tree that
               does not stamp shows n/a); how late each dealer step ran after it fell due (all
               seated players wagered or the betting time passed; all hands set or the setting
               time passed; settle after the dealer's hand); hands set by time-out. Meanwhile 10
               logins per second (the server's own argon2id parameters) with their latency,
               from when every bot has logged in (the bots log in all at once at the start,
               retrying a 503 after its Retry-After; that burst is reported apart, and play
               starts after it too). The server's own time per request (its Server-Timing
               header) and how late the bots' event loop runs are printed beside.
``reads``      ``--reads-rate`` unauthenticated ``GET /api/tables`` per second (open loop over
               64 keep-alive connections, latency counted from when each request was due) with
               ``/api/health`` probed 20 times a second, on the tables of the paced scenario.

    .venv/bin/python benchmarks/bench_service.py                               # this tree
    git worktree add /tmp/base 9f1c085
    .venv/bin/python benchmarks/bench_service.py --tree base=/tmp/base/src --tree new=src
    .venv/bin/python benchmarks/bench_service.py --full                        # 100 paced tables
    .venv/bin/python benchmarks/bench_service.py --metrics-cost --backend sqlite \
        --tables 4 --rounds 12                                 # metrics on / off, side by side

Exit status 1 if anything was lost or paid twice (ledger, replays, audit) or a request failed
unexpectedly. The goals are judged for the last tree; on a machine shared with other work the
figures are low (the script says how busy the machine was).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
PG_BASE = "postgresql://postgres@127.0.0.1:5432/test"
PG_ADMIN = "host=127.0.0.1 port=5432 dbname=test user=postgres"
CHEAP_HASH = {"PAIGOW_ARGON2_MEMORY_KIB": "1024", "PAIGOW_ARGON2_TIME_COST": "1"}

GOALS = [
    ("saturated sqlite rounds/s (1 process)", ">= 50"),
    ("saturated postgresql rounds/s", ">= 50"),
    ("paced wager p99 ms", "< 100"),
    ("paced set p99 ms", "< 100"),
    ("paced read p99 ms", "< 50"),
    ("paced event delivery p99 ms", "< 200"),
    ("paced dealer step lateness max ms", "<= 250"),
    ("paced hands set by time-out", "0"),
    ("login p50 ms (10/s)", "< 100"),
    ("login p99 ms (10/s)", "< 300"),
    ("GET /api/tables per s (asked)", ">= 500"),
    ("/api/health p99 ms meanwhile", "< 50"),
]


def _own_cpu() -> float:
    """CPU seconds this process (the bots) has used."""
    t = os.times()
    return t.user + t.system


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))], 1)


# ----------------------------------------------------------------------------- servers
@dataclass
class Served:
    urls: list[str]
    procs: list[subprocess.Popen[str]]
    url_db: str
    schema: str | None
    tmp: str

    def cpu_s(self) -> float:
        """CPU seconds used so far by the server processes and their children."""
        return sum(_proc_cpu_s(pid) or 0.0 for pid in self.pids())

    def steps_cpu_s(self) -> float | None:
        """SQLite: the CPU seconds its steps have taken so far (``_step_cpu.py``'s running
        total; None: not timed)."""
        try:
            value = float((Path(self.tmp) / "steps-cpu").read_text())
        except (OSError, ValueError):
            return None
        return None if value != value else value  # nan: the tree has no group commit

    def pids(self) -> set[int]:
        """The server processes and their children (``serve --workers``' workers)."""
        todo = [p.pid for p in self.procs]
        seen: set[int] = set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            with contextlib.suppress(OSError):
                for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
                    todo.append(int(child))
        return seen


def _proc_cpu_s(pid: int) -> float | None:
    """The CPU seconds (user and system) process ``pid`` has used, or None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _threads_cpu_s(pid: int) -> dict[int, float]:
    """The CPU seconds each thread of process ``pid`` has used, by thread id (none: gone)."""
    out: dict[int, float] = {}
    hz = os.sysconf("SC_CLK_TCK")
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(task.name)] = (int(fields[11]) + int(fields[12])) / hz
    return out


def thread_split(
    pid: int, start: dict[int, float], end: dict[int, float], rounds: int
) -> dict[str, float]:
    """The serving process's CPU milliseconds a round between two samples of its threads
    (:func:`_threads_cpu_s`), split: its event loop (the main thread: HTTP, WebSockets and the
    steps themselves, which run on the loop), SQLite's writer thread (it begins and commits each
    group of steps: the busiest other thread) and the rest (request threads, the pools'
    feeders).

    >>> thread_split(7, {7: 1.0, 8: 2.0, 9: 0.5}, {7: 2.0, 8: 4.0, 9: 0.6, 10: 0.1}, 100)
    {'event loop': 10.0, 'writer': 20.0, 'other threads': 2.0}
    """
    delta = {t: end[t] - start.get(t, 0.0) for t in end}
    loop = delta.pop(pid, 0.0)
    writer = max(delta.values(), default=0.0)
    other = sum(delta.values()) - writer
    per = 1000 / max(rounds, 1)
    return {
        "event loop": round(loop * per, 2),
        "writer": round(writer * per, 2),
        "other threads": round(other * per, 2),
    }


class OwnBackends:
    """The CPU seconds of the PostgreSQL backends serving these servers' connections (their
    ``application_name`` ends with a server process's pid: ``paigow-steps-<pid>`` ...), summed
    over every backend seen, each at its last sample: what other work on the same PostgreSQL
    (a test run) leaves out of the all-of-PostgreSQL figure."""

    def __init__(self) -> None:
        import psycopg

        self.conn = psycopg.connect(PG_ADMIN, autocommit=True)
        self.last: dict[int, float] = {}

    def cpu_s(self, servers: set[int]) -> float:
        rows = self.conn.execute(
            "SELECT pid, application_name FROM pg_stat_activity "
            "WHERE application_name LIKE 'paigow-%'"
        ).fetchall()
        for pid, name in rows:
            tail = str(name).rsplit("-", 1)[-1]
            if tail.isdigit() and int(tail) in servers:
                cpu = _proc_cpu_s(int(pid))
                if cpu is not None:
                    self.last[int(pid)] = cpu
        return sum(self.last.values())

    def close(self) -> None:
        self.conn.close()


def postgres_cpu_s() -> float | None:
    """CPU seconds PostgreSQL's processes have used since it started (its postmaster, the
    children it has reaped and those alive now), or None where no postmaster is seen here."""
    hz = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, str, list[str]]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            head, tail = (d / "stat").read_text().rsplit(")", 1)
            fields = tail.split()
            stats[int(d.name)] = (int(fields[1]), head.split("(", 1)[1], fields)
    roots = [
        p
        for p, (pp, comm, _) in stats.items()
        if comm.startswith("postgres") and not stats.get(pp, (0, "", []))[1].startswith("postgres")
    ]
    if not roots:
        return None
    total = 0.0
    for pid, (ppid, _comm, fields) in stats.items():
        if pid in roots:  # its own time and that of the children it has waited for
            total += sum(int(x) for x in fields[11:15]) / hz
        elif ppid in roots:
            total += (int(fields[11]) + int(fields[12])) / hz
    return total


def _env(tree: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIGOW_ARGON2")}
    env["PYTHONPATH"] = str(tree)
    env.update(extra)
    return env


SERVER_ERRORS: dict[int, int] = defaultdict(int)
"""Error lines (``ERROR``, tracebacks) each server process has written, by its pid."""


def _drain(proc: subprocess.Popen[str]) -> None:
    """Read what a started server writes, on a thread of its own (a full pipe would stop the
    server at its next log line), counting its errors."""
    import threading

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(("ERROR", "Traceback")):
                SERVER_ERRORS[proc.pid] += 1

    threading.Thread(target=read, daemon=True).start()


def _start(cmd: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert proc.stdout is not None
    deadline = time.time() + 120
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("paigow table server: http"):
            _drain(proc)
            return proc, line.split(": ", 1)[1].strip().rstrip("/")
    proc.kill()
    raise RuntimeError("the server did not start")


def serve(
    tree: Path, backend: str, processes: int, env_extra: dict[str, str], password: str
) -> Served:
    env = _env(tree, env_extra)
    tmp = tempfile.mkdtemp(prefix="paigow-bench-")
    schema = None
    if backend == "sqlite":
        url = f"sqlite:///{tmp}/bench.sqlite3"
        processes = 1
    else:
        import psycopg

        schema = "bench_" + uuid.uuid4().hex[:8]
        with psycopg.connect(PG_ADMIN, autocommit=True) as c:
            c.execute(f"CREATE SCHEMA {schema}")
        # a variant may name its own (``--variant unix=PAIGOW_BENCH_PG=postgresql://...``)
        base = env_extra.get("PAIGOW_BENCH_PG") or os.environ.get("PAIGOW_BENCH_PG", PG_BASE)
        url = f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    pw = Path(tmp) / "pw"
    pw.write_text(password)
    py = [sys.executable, "-m", "paigow.cli"]
    subprocess.run(
        [
            *py,
            "admin",
            "create",
            "--database",
            url,
            "--username",
            "bench",
            "--password-file",
            str(pw),
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    base = [*py, "serve", "--port", "0", "--database", url]
    if backend == "sqlite":  # its steps timed (the steps' CPU a round: _step_cpu.py)
        base = [sys.executable, str(Path(__file__).with_name("_step_cpu.py")), *base[3:]]
        env["PAIGOW_BENCH_STEP_CPU"] = str(Path(tmp) / "steps-cpu")
    server = next(
        p
        for p in (tree / "paigow/service/process/server.py", tree / "paigow/service/server.py")
        if p.exists()
    )
    has_workers = "def check_workers" in server.read_text()
    if processes > 1 and has_workers:
        started = [_start([*base, "--workers", str(processes)], env)]
    else:
        started = [_start(base, env) for _ in range(processes)]
    return Served([u for _, u in started], [p for p, _ in started], url, schema, tmp)


def stop(s: Served, tree: Path) -> dict[str, Any]:
    for p in s.procs:
        p.send_signal(signal.SIGTERM)
    for p in s.procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
    verify = subprocess.run(
        [sys.executable, "-m", "paigow.cli", "audit", "verify", "--database", s.url_db, "--json"],
        capture_output=True,
        text=True,
        env=_env(tree, {}),
    )
    report = json.loads(verify.stdout) if verify.stdout.strip() else {"ok": False}
    shutil.rmtree(s.tmp, ignore_errors=True)
    if s.schema is not None:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as c:
            c.execute(f"DROP SCHEMA {s.schema} CASCADE")
    return report


# ----------------------------------------------------------------------------- saturated
def bots_config(s: Served, args: argparse.Namespace, password: str, **changes: Any) -> Any:
    """The bots of a saturated run against ``s``: ``args.tables`` tables of 6 players,
    ``args.rounds`` rounds each, seeded by ``args.seed``, the garbage collector frozen once set
    up; ``changes``: other :class:`BotConfig` settings (``side_wagers=True``, ...)."""
    from paigow.cli.bots_player import BotConfig

    return BotConfig(
        url=",".join(s.urls),
        tables=args.tables,
        players=6,
        rounds=args.rounds,
        operator="bench",
        operator_password=password,
        seed=args.seed,
        freeze_gc=True,
        **changes,
    )


def saturated(
    tree: Path,
    backend: str,
    args: argparse.Namespace,
    variant: dict[str, str] | None = None,
    side: bool = False,
) -> dict[str, Any]:
    """One saturated run of ``tree``'s servers; ``side``: the tables offer side wagers (Fortune
    with Envy, a progressive all of them share) and the bots place them (``paigow bots``' own
    offers and rate)."""
    import threading

    from paigow.cli import bots
    from paigow.cli.bots import run_bots

    password = secrets.token_urlsafe(12)
    env = {**CHEAP_HASH, "PAIGOW_SQLITE_SYNCHRONOUS": args.sqlite_synchronous, **(variant or {})}
    s = serve(tree, backend, args.processes, env, password)
    samples: list[tuple[float, float]] = []
    pg_samples: list[tuple[float, float]] = []
    own_samples: list[tuple[float, float]] = []
    lone_samples: list[tuple[float, float]] = []  # the serving processes alone, children apart
    threads: list[tuple[float, dict[int, float]]] = []  # SQLite: the serving process's threads
    step_samples: list[tuple[float, float]] = []  # SQLite: the CPU its steps took (running)
    backends = OwnBackends() if backend == "postgresql" else None
    done = threading.Event()

    def sample() -> None:  # the servers' (and PostgreSQL's) CPU time, 10 times a second
        while not done.is_set():
            now = time.perf_counter()
            pids = s.pids()
            samples.append((now, sum(_proc_cpu_s(p) or 0.0 for p in pids)))
            lone_samples.append((now, sum(_proc_cpu_s(p.pid) or 0.0 for p in s.procs)))
            if backend == "sqlite":
                threads.append((now, _threads_cpu_s(s.procs[0].pid)))
                if (steps := s.steps_cpu_s()) is not None:
                    step_samples.append((now, steps))
            if backends is not None:
                pg = postgres_cpu_s()
                if pg is not None:
                    pg_samples.append((now, pg))
                with contextlib.suppress(Exception):
                    own_samples.append((now, backends.cpu_s(pids)))
            done.wait(0.1)

    play_span = [float("inf"), 0.0]
    original = bots.Player.play

    async def timed_play(self: Any) -> None:  # when the players played (setup excluded)
        play_span[0] = min(play_span[0], time.perf_counter())
        try:
            await original(self)
        finally:
            play_span[1] = max(play_span[1], time.perf_counter())

    def cpu_at(t: float, series: list[tuple[float, float]] = samples) -> float:
        before = [c for ts, c in series if ts <= t]
        return before[-1] if before else series[0][1]

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    bots.Player.play = timed_play  # type: ignore[method-assign]
    try:
        cpu0, own0 = s.cpu_s(), _own_cpu()
        report = run_bots(bots_config(s, args, password, side_wagers=side))
        cpu, own = s.cpu_s() - cpu0, _own_cpu() - own0
        recorded = recorded_a_round(s.urls[0], report["rounds"]) if variant else None
    finally:
        done.set()
        sampler.join()
        bots.Player.play = original  # type: ignore[method-assign]
        audit = stop(s, tree)
        if backends is not None:
            backends.close()
    play_cpu = cpu_at(play_span[1]) - cpu_at(play_span[0])
    lone_cpu = cpu_at(play_span[1], lone_samples) - cpu_at(play_span[0], lone_samples)
    steady_rounds = report.get("steady_rounds") or 0
    steady_cpu = steady_pg = None
    if steady_rounds and report.get("steady_span"):
        t0, t1 = report["steady_span"]
        steady_cpu = round(1000 * (cpu_at(t1) - cpu_at(t0)) / steady_rounds)
        if pg_samples:
            steady_pg = round(
                1000 * (cpu_at(t1, pg_samples) - cpu_at(t0, pg_samples)) / steady_rounds
            )
    split: dict[str, float] = {}
    if threads:  # the serving process's CPU by thread over the play (SQLite: one process)

        def at(t: float) -> dict[int, float]:
            before = [c for ts, c in threads if ts <= t]
            return before[-1] if before else threads[0][1]

        split = thread_split(s.procs[0].pid, at(play_span[0]), at(play_span[1]), report["rounds"])
    if len(step_samples) > 1:  # the steps themselves, on the event loop (_step_cpu.py)
        steps_cpu = cpu_at(play_span[1], step_samples) - cpu_at(play_span[0], step_samples)
        split["steps"] = round(1000 * steps_cpu / max(report["rounds"], 1), 2)
    lat = report["latency_ms"]
    ok = (
        report["ledger_balanced"]
        and report["replay_mismatches"] == 0
        and not report["errors"]["unexpected"]
        and bool(audit.get("ok"))
    )
    pg_total = pg_samples[-1][1] - pg_samples[0][1] if len(pg_samples) > 1 else None
    own_total = own_samples[-1][1] - own_samples[0][1] if len(own_samples) > 1 else None
    lone_total = (  # SQLite: the serving process alone (its pricing and rating processes apart)
        lone_samples[-1][1] - lone_samples[0][1]
        if backend == "sqlite" and len(lone_samples) > 1
        else None
    )
    return {
        "_totals": (report["rounds"], cpu, pg_total, own_total, lone_total),
        "rounds/s": report.get("steady_rounds_per_s") or report["rounds_per_s"],
        "rounds/s from the first log-in": report["rounds_per_s"],
        "rounds": report["rounds"],
        "steady window s (every player playing)": report.get("steady_window_s"),
        "wager p50/p99 ms": f"{lat['wager']['p50']}/{lat['wager']['p99']}",
        "set p50/p99 ms": f"{lat['set']['p50']}/{lat['set']['p99']}",
        "server CPU ms per round (steady)": steady_cpu,
        **({"PostgreSQL CPU ms per round (steady)": steady_pg} if backend == "postgresql" else {}),
        "server CPU ms per round (play)": round(1000 * play_cpu / max(report["rounds"], 1), 2),
        # SQLite serves in one process: without its children (the floor's background worker,
        # which rates the players' hands: issue 48), what the serving itself costs
        **(
            {
                "serving process alone CPU ms per round (play)": round(
                    1000 * lone_cpu / max(report["rounds"], 1), 2
                )
            }
            if backend == "sqlite"
            else {}
        ),
        **{f"serving process, {k}, CPU ms per round (play)": v for k, v in split.items()},
        "server CPU ms per round (setup included)": round(1000 * cpu / max(report["rounds"], 1)),
        "bots' CPU ms per round (setup and checks included)": round(
            1000 * own / max(report["rounds"], 1)
        ),
        **({"metrics recorded a round": recorded} if recorded is not None else {}),
        "time-outs": report["timeouts"],
        "server log errors": sum(SERVER_ERRORS.pop(p.pid, 0) for p in s.procs),
        "checks": "PASS"
        if ok
        else f"FAIL {report['errors']['unexpected']} {report['error_notes'][:3]}",
        "ok": ok,
    }


def recorded_a_round(url: str, rounds: int) -> float | None:
    """The metrics a server recorded on its step path (steps timed, rounds counted, refusals)
    a round, from its ``/metrics`` (None: it keeps none, or refuses this address)."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    try:
        r = httpx.get(f"{url}/metrics", timeout=10)
    except httpx.HTTPError:
        return None
    if r.status_code != 200 or rounds <= 0:
        return None
    n = 0.0
    for family in text_string_to_metric_families(r.text):
        for x in family.samples:
            if x.name in (
                "paigow_step_seconds_count",
                "paigow_rounds_dealt_total",
                "paigow_rounds_ended_total",
                "paigow_refusals_total",
            ):
                n += x.value
    return round(n / rounds, 1)


def metrics_call_us() -> dict[str, float]:
    """What the step path's metrics cost in this interpreter (µs a call, best of 5 timeit
    runs): a step timed (``step_done``, with its two ``perf_counter`` calls) and a round
    counted, on and off."""
    import timeit

    from paigow.ruleset import Ruleset
    from paigow.service.ops import telemetry

    rules = Ruleset()

    def step() -> None:
        t = time.perf_counter()
        telemetry.step_done("wager", time.perf_counter() - t)

    def count() -> None:
        telemetry.ended("casino", rules, "settled")()

    out: dict[str, float] = {}
    for on in (True, False):
        telemetry.enable(on)
        for name, fn in (("step timed", step), ("round counted", count)):
            best = min(timeit.repeat(fn, number=20_000, repeat=5)) / 20_000
            out[f"{name}, metrics {'on' if on else 'off'}"] = round(best * 1e6, 2)
    telemetry.enable(True)
    return out


OWN_PG = "PostgreSQL CPU ms a round (marginal, the servers' backends)"
LONE = "serving process alone CPU ms a round (marginal)"
Totals = tuple[int, float, float | None, float | None, float | None]
"""A saturated run's rounds, and the CPU seconds of its servers, of all of PostgreSQL, of the
PostgreSQL backends serving its servers and of the serving process alone, without its children
(the pricing and the floor's worker processes; SQLite) (None: not measured)."""


def marginal(short: Totals, long: Totals) -> dict[str, Any]:
    """The CPU one more round costs, between a short and a long run of the same load (log-ins,
    seating, start-up and shut-down cancel out): the servers' and PostgreSQL's milliseconds a
    round (all of PostgreSQL, and its backends that serve these servers alone), the figures a
    busy machine disturbs least.

    >>> marginal((600, 9.0, 6.0, 5.4, None), (1800, 21.0, 12.0, 10.2, None))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'server CPU ms a round (marginal)': 10.0, 'PostgreSQL CPU ms a round (marginal)': 5.0,
     "PostgreSQL CPU ms a round (marginal, the servers' backends)": 4.0}
    >>> marginal((600, 9.0, None, None, 8.0), (1800, 21.0, None, None, 17.6))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'server CPU ms a round (marginal)': 10.0,
     'serving process alone CPU ms a round (marginal)': 8.0}
    """
    rounds = long[0] - short[0]
    out: dict[str, Any] = {
        "server CPU ms a round (marginal)": round(1000 * (long[1] - short[1]) / rounds, 1)
        if rounds > 0
        else None
    }
    if short[2] is not None and long[2] is not None and rounds > 0:
        out["PostgreSQL CPU ms a round (marginal)"] = round(1000 * (long[2] - short[2]) / rounds, 1)
    if short[3] is not None and long[3] is not None and rounds > 0:
        out[OWN_PG] = round(1000 * (long[3] - short[3]) / rounds, 1)
    if short[4] is not None and long[4] is not None and rounds > 0:
        out[LONE] = round(1000 * (long[4] - short[4]) / rounds, 1)
    return out


# ----------------------------------------------------------------------------- paced
@dataclass
class Paced:
    lat: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    srv: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """The server's own time per request (its ``Server-Timing`` header, where the tree sends it)."""
    lag: list[float] = field(default_factory=list)
    """How late the bots' event loop woke from 20 ms sleeps (its own queueing, in ms)."""
    delivery: list[float] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    timeouts: int = 0
    unexpected: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    expected: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    stamped: bool = False
    rounds: int = 0
    logged_in: int = 0
    """Bots logged in so far (play and the measured log-ins at 10/s start once every bot has)."""
    bots: int = 0


def _code(r: Any) -> str:
    """The error code of a refused request (its body's ``code``), or what the body was."""
    try:
        return str(r.json().get("code"))
    except ValueError:
        return repr(r.text[:60])


async def _http(
    http: Any, method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> Any:
    """One request (aiohttp), its answer read whole."""
    from paigow.cli.bots_http import Response

    h = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    async with http.request(method, url, data=data, headers=h) as r:
        return Response(r.status, r.headers, await r.read(), method, url)


async def _timed(stats: Paced, kind: str, coro: Any) -> Any:
    t0 = time.perf_counter()
    r = await coro
    stats.lat[kind].append((time.perf_counter() - t0) * 1000)
    timing = r.headers.get("server-timing", "")
    if timing.startswith("app;dur="):
        stats.srv[kind].append(float(timing[8:]))
    return r


async def _loop_lag(stats: Paced, until: float) -> None:
    """Sample how late the bots' own event loop runs (part of every latency they measure)."""
    while time.time() < until:
        t0 = time.perf_counter()
        await asyncio.sleep(0.02)
        stats.lag.append((time.perf_counter() - t0 - 0.02) * 1000)


class Bot:
    def __init__(
        self, url: str, name: str, password: str, table: dict[str, Any], spot: int
    ) -> None:
        self.url, self.name, self.password, self.table, self.spot = url, name, password, table, spot
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.observer = spot == 1

    async def wait(self, pred: Any, timeout: float, since: int) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        i = since
        while True:
            while i < len(self.messages):
                if pred(self.messages[i]):
                    return self.messages[i]
                i += 1
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 1.0))

    async def run(self, http: Any, stats: Paced, until: float, rng: random.Random) -> None:
        import aiohttp

        from paigow.cards import parse_cards
        from paigow.house_way import HouseWay

        way = HouseWay.preset(str(self.table["house_way"]))
        tid = self.table["id"]
        t0 = time.perf_counter()
        while True:  # all bots log in at once: a full hashing queue says when to retry
            r = await _http(
                http,
                "POST",
                self.url + "/api/auth/login",
                {"username": self.name, "password": self.password},
            )
            if r.status_code != 503:
                break
            stats.expected["bots' log-ins refused while the hashes queued (503)"] += 1
            await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
        stats.lat["bots' log-in"].append((time.perf_counter() - t0) * 1000)
        stats.logged_in += 1
        token = r.json()["token"]
        h = {"Authorization": f"Bearer {token}"}
        ws_url = f"{self.url}/ws/tables/{tid}?token={token}"
        async with http.ws_connect(
            ws_url, max_msg_size=2**20, timeout=aiohttp.ClientWSTimeout(ws_receive=None)
        ) as ws:

            async def reader() -> None:
                with contextlib.suppress(Exception):
                    async for msg in ws:
                        if msg.type is not aiohttp.WSMsgType.TEXT:
                            continue
                        got = time.time()
                        m = json.loads(msg.data)
                        m["_got"] = got
                        if m.get("committed_at"):
                            stats.stamped = True
                            stats.delivery.append((got - m["committed_at"]) * 1000)
                        self.messages.append(m)
                        self.changed.set()
                if time.time() < until:
                    stats.unexpected[f"WebSocket closed ({ws.close_code})"] += 1

            task = asyncio.create_task(reader())
            try:
                # play (sitting first) starts once every bot has logged in: the burst of
                # their hashes is the benchmark's start-up (reported apart), not the pace
                # of people
                while stats.logged_in < stats.bots and time.time() < until:
                    await asyncio.sleep(0.05)
                r = await _http(
                    http, "POST", f"{self.url}/api/tables/{tid}/sit", {"spot": self.spot}, h
                )
                if r.status_code != 200:
                    stats.unexpected[f"sit {r.status_code} {_code(r)}"] += 1
                    return
                while time.time() < until:
                    await self._round(http, h, tid, way, parse_cards, stats, rng, until)
            finally:
                task.cancel()

    async def _round(
        self,
        http: Any,
        h: Any,
        tid: int,
        way: Any,
        parse: Any,
        stats: Paced,
        rng: random.Random,
        until: float,
    ) -> None:
        await asyncio.sleep(rng.uniform(0.5, 3.0))
        mark = len(self.messages)
        body = {"amount": 500 + 100 * rng.randrange(40), "idempotency_key": secrets.token_hex(12)}
        base = self.url
        r = await _timed(
            stats, "wager", _http(http, "POST", f"{base}/api/tables/{tid}/wager", body, h)
        )
        if r.status_code == 409 and r.json().get("code") == "round-in-play":
            stats.expected["wager while a round is in play"] += 1
            await self.wait(lambda m: m.get("type") in ("round-settled", "voided"), 30, mark)
            return
        if r.status_code == 409 and r.json().get("code") == "not-seated":
            # the dealer freed the seat after three rounds without a wager (a bot that was
            # slow three times running): a person would sit down again, and so does the bot
            stats.expected["seat freed after rounds without a wager: sat again"] += 1
            r = await _http(http, "POST", f"{base}/api/tables/{tid}/sit", {"spot": self.spot}, h)
            if r.status_code != 200:
                stats.unexpected[f"sit again {r.status_code} {_code(r)}"] += 1
                await asyncio.sleep(1)
            return
        if r.status_code != 200:
            stats.unexpected[f"wager {r.status_code} {_code(r)}"] += 1
            await asyncio.sleep(1)
            return
        placed = r.json()
        rid = placed["round_id"]
        dealt = await self.wait(
            lambda m: m.get("round_id") == rid and m.get("type") in ("dealt", "voided"), 60, mark
        )
        if dealt is None or dealt["type"] != "dealt":
            stats.unexpected["no deal"] += 1
            return
        cards = dealt.get("your_cards", {}).get(str(placed["spot"]))
        if cards is None:  # the feed must show a player their cards: ask, and count it
            stats.unexpected["dealt without the player's cards"] += 1
            r = await _http(http, "GET", f"{base}/api/tables/{tid}/hand", headers=h)
            cards = r.json().get("cards") if r.status_code == 200 else None
            if cards is None:
                return
        await asyncio.sleep(rng.uniform(0.5, 3.0))
        low = [c.code for c in way.set_hand(parse(cards)).setting.low]
        body2 = {"low": low, "round_id": rid, "idempotency_key": secrets.token_hex(12)}
        r = await _timed(
            stats, "set", _http(http, "POST", f"{base}/api/tables/{tid}/set", body2, h)
        )
        if r.status_code != 200:
            code = r.json().get("code") if r.status_code == 409 else None
            if code in ("not-current-round", "not-setting", "already-set"):
                stats.expected["set too late (the house way set it)"] += 1
            else:
                stats.unexpected[f"set {r.status_code} {code}"] += 1
        await _timed(stats, "read", _http(http, "GET", f"{base}/api/tables/{tid}"))
        await _timed(stats, "read", _http(http, "GET", f"{base}/api/me", headers=h))
        done = await self.wait(
            lambda m: m.get("round_id") == rid and m.get("type") in ("round-settled", "voided"),
            60,
            mark,
        )
        if done is None:
            stats.unexpected["no settlement"] += 1
        elif self.observer:
            self._account(rid, placed["betting_closes_at"], stats, mark)

    def _account(self, rid: str, bet_deadline: float | None, stats: Paced, mark: int) -> None:
        """Per round (one observer per table): time-outs and each dealer step's lateness."""
        ev = [m for m in self.messages[mark:] if m.get("round_id") == rid]
        stats.rounds += 1
        stats.timeouts += sum(
            1 for m in ev if m.get("type") == "hand-set" and m.get("reason") == "timeout"
        )
        at = {m["type"]: m.get("committed_at") for m in ev}
        if not all(at.get(k) for k in ("dealt", "dealer-set", "round-settled")):
            return
        wagers = [m["committed_at"] for m in ev if m.get("type") == "wager-placed"]
        setting_s = float(self.table["setting_time_s"])
        # due: when the last seated player wagered (all six did), else when betting closed
        due_deal = max(wagers) if len(wagers) == 6 or bet_deadline is None else bet_deadline
        sets = [
            m["committed_at"] for m in ev if m.get("type") == "hand-set" and m.get("by") == "player"
        ]
        n_wagers = len([m for m in ev if m.get("type") == "wager-placed"])
        due_dealer = max(sets) if sets and len(sets) == n_wagers else at["dealt"] + setting_s
        stats.lateness += [
            max(0.0, (at["dealt"] - due_deal) * 1000),
            max(0.0, (at["dealer-set"] - due_dealer) * 1000),
            max(0.0, (at["round-settled"] - at["dealer-set"]) * 1000),
        ]


async def _setup_players(
    url: str, password: str, n_tables: int
) -> tuple[list[dict[str, Any]], list[tuple[str, str, dict[str, Any], int]]]:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        r = await http.post("/api/auth/login", json={"username": "bench", "password": password})
        op = {"Authorization": f"Bearer {r.json()['token']}"}
        tables = []
        for i in range(n_tables):
            r = await http.post(
                "/api/admin/tables",
                headers=op,
                json={
                    "name": f"paced {i}",
                    "min_wager": 500,
                    "max_wager": 5000,
                    "betting_time_ms": 2000,
                    "setting_time_ms": 5000,
                },
            )
            tables.append(r.json())
        sem = asyncio.Semaphore(8)
        run = secrets.token_hex(3)

        async def enrol(t: dict[str, Any], spot: int) -> tuple[str, str, dict[str, Any], int]:
            name, pw = f"p{run}t{t['id']}s{spot}", secrets.token_urlsafe(12)
            async with sem:
                r = await http.post(
                    "/api/auth/register", json={"username": name, "password": pw}, headers=op
                )
                assert r.status_code == 201, r.text
                r = await http.post(
                    f"/api/admin/wallets/{name}/credit",
                    headers=op,
                    json={"amount": 10_000_000, "idempotency_key": f"f-{name}"},
                )
                assert r.status_code == 200, r.text
            return name, pw, t, spot

        players = await asyncio.gather(*(enrol(t, s) for t in tables for s in range(1, 7)))
        return tables, list(players)


async def _logins(
    http: Any,
    url: str,
    players: list[tuple[str, str, Any, int]],
    rate: float,
    until: float,
    stats: Paced,
) -> None:
    if rate <= 0:
        return
    while stats.logged_in < len(players) and time.time() < until:
        await asyncio.sleep(0.05)  # not behind the bots' own log-ins, all at once at the start
    tasks = []
    i = 0
    nxt = time.perf_counter()
    while time.time() < until:
        name, pw, _, _ = players[i % len(players)]
        i += 1

        async def one(name: str = name, pw: str = pw) -> None:
            r = await _timed(
                stats,
                "login",
                _http(http, "POST", url + "/api/auth/login", {"username": name, "password": pw}),
            )
            if r.status_code != 200:
                stats.unexpected[f"login {r.status_code} {_code(r)}"] += 1

        tasks.append(asyncio.create_task(one()))
        nxt += 1 / rate
        await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
    await asyncio.gather(*tasks)


async def _reads(url: str, rate: float, seconds: float) -> dict[str, Any]:
    """Open-loop GET /api/tables at ``rate``/s over 64 raw keep-alive connections; /api/health
    20 times a second on a connection of its own. Latency from when each request was due."""
    host, port = url.removeprefix("http://").split(":")
    conns: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
    for _ in range(64):
        conns.put_nowait(await asyncio.open_connection(host, int(port)))
    lat: list[float] = []
    health: list[float] = []
    errors = 0

    async def get(c: tuple[asyncio.StreamReader, asyncio.StreamWriter], path: str) -> int:
        reader, writer = c
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        await reader.readexactly(length)
        return int(head[9:12])

    async def one(due: float) -> None:
        nonlocal errors
        c = await conns.get()
        try:
            if await get(c, "/api/tables") != 200:
                errors += 1
        finally:
            conns.put_nowait(c)
        lat.append((time.perf_counter() - due) * 1000)

    async def probe(end: float) -> None:
        c = await asyncio.open_connection(host, int(port))
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            await get(c, "/api/health")
            health.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.05)
        c[1].close()

    start = time.perf_counter()
    end = start + seconds
    prober = asyncio.create_task(probe(end))
    tasks = []
    n = 0
    while True:
        due = start + n / rate
        if due >= end:
            break
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        tasks.append(asyncio.create_task(one(due)))
        n += 1
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    await prober
    while not conns.empty():
        conns.get_nowait()[1].close()
    return {
        "GET /api/tables per s (asked)": round(rate),
        "GET /api/tables per s (served)": round(len(lat) / elapsed),
        "GET /api/tables p50/p99 ms": f"{pct(lat, 0.5)}/{pct(lat, 0.99)}",
        "/api/health p50 ms meanwhile": pct(health, 0.5),
        "/api/health p99 ms meanwhile": pct(health, 0.99),
        "reads errors": errors,
    }


def paced(
    tree: Path, backend: str, args: argparse.Namespace, variant: dict[str, str] | None = None
) -> dict[str, Any]:
    password = secrets.token_urlsafe(12)
    # every bot connects from 127.0.0.1: the WebSockets allowed per address (256, against one
    # client flooding a server) are raised for a load test from one machine
    env = {"PAIGOW_WS_PER_ADDR": "4096", **(variant or {})}
    s = serve(tree, backend, 1 if backend == "sqlite" else args.processes, env, password)
    stats = Paced()
    out: dict[str, Any] = {}
    try:
        url = s.urls[0]
        _tables, players = asyncio.run(_setup_players(url, password, args.paced_tables))

        async def play() -> None:
            from paigow.cli.bots_http import client_session
            from paigow.service.runtime import settle_memory

            until = time.time() + args.paced_seconds
            rng = random.Random(args.seed)
            bots = [
                Bot(s.urls[i % len(s.urls)], name, pw, t, spot)
                for i, (name, pw, t, spot) in enumerate(players)
            ]
            login_until = until - 5
            stats.bots = len(bots)
            settle_memory()  # no collector's pauses in what the bots measure
            async with client_session() as http:
                await asyncio.gather(
                    *(b.run(http, stats, until, random.Random(rng.random())) for b in bots),
                    _logins(http, url, players, args.login_rate, login_until, stats),
                    _loop_lag(stats, until),
                )

        cpu0, own0 = s.cpu_s(), _own_cpu()
        asyncio.run(play())
        cpu, own = s.cpu_s() - cpu0, _own_cpu() - own0
        bot_logins = stats.lat["bots' log-in"]
        out = {
            "paced rounds (observed)": stats.rounds,
            "paced wager p50/p99 ms": f"{pct(stats.lat['wager'], 0.5)}/{pct(stats.lat['wager'], 0.99)}",
            "paced wager p99 ms": pct(stats.lat["wager"], 0.99),
            "paced set p99 ms": pct(stats.lat["set"], 0.99),
            "paced set p50/p99 ms": f"{pct(stats.lat['set'], 0.5)}/{pct(stats.lat['set'], 0.99)}",
            "paced read p99 ms": pct(stats.lat["read"], 0.99),
            "paced read p50/p99 ms": f"{pct(stats.lat['read'], 0.5)}/{pct(stats.lat['read'], 0.99)}",
            **{
                f"paced {kind} in the server p50/p99 ms": (
                    f"{pct(stats.srv[kind], 0.5)}/{pct(stats.srv[kind], 0.99)}"
                    if stats.srv[kind]
                    else "n/a"
                )
                for kind in ("wager", "set", "read")
            },
            "bots' event loop late p50/p99/max ms": (
                f"{pct(stats.lag, 0.5)}/{pct(stats.lag, 0.99)}/{pct(stats.lag, 1.0)}"
            ),
            "paced event delivery p99 ms": pct(stats.delivery, 0.99) if stats.stamped else "n/a",
            "paced event delivery p50 ms": pct(stats.delivery, 0.5) if stats.stamped else "n/a",
            "paced dealer step lateness p99 ms": pct(stats.lateness, 0.99)
            if stats.stamped
            else "n/a",
            "paced dealer step lateness max ms": (
                round(max(stats.lateness), 1) if stats.lateness else None
            )
            if stats.stamped
            else "n/a",
            "paced hands set by time-out": stats.timeouts,
            "login p50 ms (10/s)": pct(stats.lat["login"], 0.5),
            "login p99 ms (10/s)": pct(stats.lat["login"], 0.99),
            "logins measured (10/s)": len(stats.lat["login"]),
            "bots' log-ins at the start (all at once) p50/max ms": (
                f"{pct(bot_logins, 0.5)}/{pct(bot_logins, 1.0)}"
            ),
            "paced server CPU s": round(cpu, 1),
            "paced bots' CPU s (this process)": round(own, 1),
            "paced unexpected": dict(stats.unexpected) or 0,
            "paced expected refusals": dict(stats.expected) or 0,
        }
        if "reads" in args.scenarios:
            out.update(asyncio.run(_reads(url, args.reads_rate, args.reads_seconds)))
    finally:
        audit = stop(s, tree)
    out["paced checks"] = "PASS" if audit.get("ok") and not stats.unexpected else "FAIL"
    out["ok"] = bool(audit.get("ok")) and not stats.unexpected
    return out


# ----------------------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--tree", action="append", default=[], help="NAME=PATH of a source tree (repeat)"
    )
    ap.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    ap.add_argument("--scenarios", default="saturated,paced,reads")
    ap.add_argument("--tables", type=int, default=20, help="saturated: tables (6 players each)")
    ap.add_argument("--rounds", type=int, default=30, help="saturated: rounds each player plays")
    ap.add_argument(
        "--short-rounds",
        type=int,
        default=10,
        help="saturated: also a run of this many rounds a player, for the marginal CPU a round "
        "(the headline figures; 0: skip)",
    )
    ap.add_argument("--processes", type=int, default=2, help="server processes on PostgreSQL")
    ap.add_argument("--paced-tables", type=int, default=20)
    ap.add_argument("--paced-seconds", type=float, default=40)
    ap.add_argument("--login-rate", type=float, default=10)
    ap.add_argument("--reads-rate", type=float, default=500)
    ap.add_argument("--reads-seconds", type=float, default=10)
    ap.add_argument("--full", action="store_true", help="the issue's paced load: 100 tables, 120 s")
    ap.add_argument(
        "--sqlite-synchronous",
        choices=["FULL", "NORMAL"],
        default="FULL",
        help="saturated SQLite: FULL (the default: every commit waits for fsync) or NORMAL (a "
        "commit survives a killed process, not a power cut)",
    )
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME=ENV=VALUE[,ENV=VALUE]: each tree also serves with these environment settings, "
        "a column each (repeat), e.g. plain=PAIGOW_PG_WIRE=plain",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="saturated: run every column this many times, the columns interleaved (the mean of "
        "each headline figure, each run's and their spread)",
    )
    ap.add_argument(
        "--side",
        choices=["off", "on", "both"],
        default="off",
        help="saturated: the tables offer side wagers and the bots place them (on), or not (off:"
        " the plain game), or a column each (both: the plain figure beside the one with side "
        "wagers in play, a column named NAME+side)",
    )
    ap.add_argument(
        "--metrics-cost",
        action="store_true",
        help="what Prometheus metrics cost: saturated only, each tree served with metrics on and "
        "off (PAIGOW_METRICS), the columns interleaved (--repeat, default 3 here), and the ratio "
        "of the servers' CPU a round, on / off (issue 44's target: within 3%%)",
    )
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.metrics_cost:
        args.variant = [
            f"metrics-{x}=PAIGOW_METRICS={x},PAIGOW_METRICS_ALLOW=127.0.0.1" for x in ("on", "off")
        ]
        args.scenarios = "saturated"
        args.short_rounds = 0  # the play's CPU a round: half the runs of the marginal figure
        if args.repeat == 1:
            args.repeat = 4
    if args.full:
        args.paced_tables, args.paced_seconds = 100, 120
    args.scenarios = args.scenarios.split(",")
    trees = [(n, Path(p).resolve()) for n, _, p in (t.partition("=") for t in args.tree)] or [
        ("this", ROOT / "src")
    ]
    variants = [parse_variant(v) for v in args.variant] or [("", {})]
    sides = {"off": [False], "on": [True], "both": [False, True]}[args.side]
    columns = [
        (
            "/".join(x for x in (tree_name if len(trees) > 1 or not args.variant else "", v) if x),
            tree,
            env,
        )
        for tree_name, tree in trees
        for v, env in variants
    ]
    side_of: dict[str, bool] = {}
    if args.side == "both":
        columns = [(f"{n}+side" if on else n, t, e) for n, t, e in columns for on in sides]
        side_of = {n: n.endswith("+side") for n, _t, _e in columns}
    else:
        side_of = {n: sides[0] for n, _t, _e in columns}
    for label, _tree, env in columns:
        if env:
            print(f"[{label}] serves with {' '.join(f'{k}={v}' for k, v in env.items())}")
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    from _machine import Contention

    machine = Contention()
    print(machine.idle_check(2.0), flush=True)
    results: dict[str, dict[str, Any]] = {n: {} for n, _, _ in columns}
    runs: dict[str, dict[str, list[float]]] = {n: defaultdict(list) for n, _, _ in columns}
    """The headline figures of each run of each column (``--repeat``)."""
    ok = True
    for backend in backends:
        if "saturated" not in args.scenarios:
            break
        label_rate = f"saturated {backend} rounds/s" + (
            " (1 process)" if backend == "sqlite" else ""
        )
        for rep in range(args.repeat):  # the columns interleaved: a busy spell touches all
            for name, tree, env in columns:
                pair = Contention()
                pg0 = postgres_cpu_s() if backend == "postgresql" else None
                short = None
                if args.short_rounds:  # the same load, fewer rounds: what set-up costs cancels
                    s_args = argparse.Namespace(**{**vars(args), "rounds": args.short_rounds})
                    short = saturated(tree, backend, s_args, env, side_of[name])
                    ok &= short.pop("ok")
                    checks = short["checks"]
                    print(f"[{name}] saturated {backend}, the short run: {checks}", flush=True)
                r = saturated(tree, backend, args, env, side_of[name])
                ok &= r.pop("ok")
                totals = r.pop("_totals")
                figures: dict[str, Any] = {}
                if short is not None:
                    for key, value in marginal(short.pop("_totals"), totals).items():
                        figures[f"{backend}: {key}"] = value
                figures[label_rate] = r["rounds/s"]
                figures[f"{backend}: server CPU ms a round (play)"] = r[
                    "server CPU ms per round (play)"
                ]
                for part in ("steps", "event loop", "writer"):  # SQLite: the serving process
                    key = f"serving process, {part}, CPU ms per round (play)"
                    if key in r:
                        figures[f"{backend}: {key}"] = r[key]
                for key, value in figures.items():
                    if isinstance(value, int | float):
                        runs[name][key].append(value)
                results[name].update(figures)
                print(f"[{name}] saturated {backend}: {r}", flush=True)
                pg1 = postgres_cpu_s() if pg0 is not None else None
                print(
                    f"[{name}] run {rep + 1}/{args.repeat}: {figures}; {busy_line(pair, pg0, pg1)}",
                    flush=True,
                )
                if backend == "sqlite":
                    results[name]["saturated sqlite synchronous"] = args.sqlite_synchronous
                for k, v in r.items():
                    if k != "rounds/s":
                        results[name][f"saturated {backend} {k}"] = v
    spread_keys: list[str] = []
    if args.repeat > 1:  # the mean of each headline figure, each run's and their spread
        for name in results:
            for key, values in runs[name].items():
                results[name][key] = round(sum(values) / len(values), 1)
                results[name][f"{key}: median"] = round(statistics.median(values), 1)
                results[name][f"{key}: runs"] = " ".join(f"{v:g}" for v in values)
                results[name][f"{key}: spread"] = round(max(values) - min(values), 1)
                spread_keys += [f"{key}: median", f"{key}: runs", f"{key}: spread"]
    for name, tree, env in columns:  # paced and reads: on PostgreSQL if asked, else SQLite
        if args.side == "both" and side_of[name]:
            continue  # (the paced bots place no side wagers: one run of each tree)
        if "paced" in args.scenarios:
            backend = "postgresql" if "postgresql" in backends else "sqlite"
            r = paced(tree, backend, args, env)
            ok &= r.pop("ok")
            print(f"[{name}] paced {backend}: {r}", flush=True)
            results[name].update(r)
    line, _quiet = machine.report()
    print(line)
    keys = list(dict.fromkeys(k for r in results.values() for k in r))
    headline = [k for k in keys if "(marginal" in k or k.endswith("rounds/s (1 process)")]
    headline += [k for k in keys if k == "saturated postgresql rounds/s"]
    headline = [k for k in headline if k not in spread_keys]
    headline = [
        x for k in headline for x in (k, f"{k}: median", f"{k}: runs", f"{k}: spread") if x in keys
    ]
    keys = headline + [k for k in keys if k not in headline]
    goals = dict(GOALS)
    width = max(len(k) for k in keys) if keys else 10
    cell = max(
        [16, *(len(str(v)) for r in results.values() for k, v in r.items() if k in headline)]
    )
    names = [n for n, _, _ in columns]
    print(f"\n{'figure':<{width}}  {'goal':>8}  " + "  ".join(f"{n:>{cell}}" for n in names))
    for k in keys:
        cells = "  ".join(f"{results[n].get(k, '')!s:>{cell}}" for n in names)
        print(f"{k:<{width}}  {goals.get(k, ''):>8}  {cells}")
    if args.repeat > 1 and len(columns) > 1:
        print()
        for line in compare(runs, names):
            print(line)
    if args.metrics_cost:
        print()
        for line in cost_ratios(runs, names):
            print(line)
        calls = metrics_call_us()
        print("the step path's metrics, µs a call:", calls)
        for name in names:
            for backend in backends:
                per_round = results[name].get(f"saturated {backend} metrics recorded a round")
                cpu = results[name].get(f"{backend}: server CPU ms a round (play)")
                if name.endswith("metrics-on") and per_round and cpu:
                    extra = per_round * (
                        calls["step timed, metrics on"] - calls["step timed, metrics off"]
                    )
                    print(
                        f"{name} {backend}: {per_round} metrics recorded a round x their cost "
                        f"= {extra:.1f} µs a round, {extra / (10 * cpu):.3f}% of the "
                        f"{cpu} ms of CPU a round"
                    )
    return 0 if ok else 1


def cost_ratios(runs: dict[str, dict[str, list[float]]], names: list[str]) -> list[str]:
    """``--metrics-cost``: for each pair of columns ``X/metrics-on`` and ``X/metrics-off`` (or
    ``metrics-on`` and ``metrics-off``), the ratio of their servers' CPU a round, on / off: of
    the runs' means and of their medians.

    >>> cost_ratios({"metrics-on": {"sqlite: server CPU ms a round (play)": [10.3, 10.1, 10.2]},
    ...              "metrics-off": {"sqlite: server CPU ms a round (play)": [10.0, 9.9, 10.1]}},
    ...             ["metrics-on", "metrics-off"])  # doctest: +NORMALIZE_WHITESPACE
    ['metrics on / off, sqlite: server CPU ms a round (play): 1.020 (medians 1.020;
      on 10.20 [10.1-10.3], off 10.00 [9.9-10.1])']
    """
    out = []
    for on in names:
        if not on.endswith("metrics-on"):
            continue
        off = on.removesuffix("on") + "off"
        if off not in runs:
            continue
        for key, a in runs[on].items():
            b = runs[off].get(key)
            if "CPU ms a round" not in key or not a or not b or min(b) <= 0:
                continue
            mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
            ratio = statistics.median(a) / statistics.median(b)
            prefix = on.removesuffix("metrics-on").rstrip("/")
            out.append(
                f"metrics on / off{' (' + prefix + ')' if prefix else ''}, {key}: "
                f"{mean_a / mean_b:.3f} (medians {ratio:.3f}; on {mean_a:.2f} "
                f"[{min(a):g}-{max(a):g}], off {mean_b:.2f} [{min(b):g}-{max(b):g}])"
            )
    return out


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """``NAME=ENV=VALUE[,ENV=VALUE]``: a column served with those environment settings.

    >>> parse_variant("plain=PAIGOW_PG_WIRE=plain,PAIGOW_PG_STEP_CONNECTIONS=8")
    ('plain', {'PAIGOW_PG_WIRE': 'plain', 'PAIGOW_PG_STEP_CONNECTIONS': '8'})
    """
    name, _, rest = text.partition("=")
    env = {}
    for pair in filter(None, rest.split(",")):
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--variant {text!r}: want NAME=ENV=VALUE[,ENV=VALUE]")
        env[key] = value
    if not name:
        raise SystemExit(f"--variant {text!r}: want NAME=ENV=VALUE[,ENV=VALUE]")
    return name, env


def busy_line(pair: Any, pg0: float | None, pg1: float | None) -> str:
    """What other processes used of the machine during one column's run: PostgreSQL (which
    serves the run, but maybe others too) set apart."""
    m = pair.measure()
    if m is None:
        return "machine: unknown"
    others, steal, wall, _quiet = m
    cores = os.cpu_count() or 1
    pg = (pg1 - pg0) if pg0 is not None and pg1 is not None else 0.0
    rest = max(others - pg, 0.0)
    return (
        f"during its {wall:.0f} s, other processes than this script and its servers used "
        f"{others:.1f} CPU-s, PostgreSQL {pg:.1f} of them, the rest {rest:.1f} "
        f"({rest / (wall * cores):.0%} of {cores} CPUs); steal {steal:.1f} s"
    )


def compare(runs: dict[str, dict[str, list[float]]], names: list[str]) -> list[str]:
    """Each column's headline figures against the first column's: the difference of the means
    (and of the medians), and whether the two columns' runs lie apart (every run of one below
    every run of the other) or their ranges overlap (a difference within the runs' spread).

    >>> compare({"a": {"x": [10.0, 11.0, 10.2]}, "b": {"x": [12.0, 12.5, 12.1]}}, ["a", "b"])
    ['x: b - a = +1.8, medians +1.9 (b 12.2 [12-12.5], a 10.4 [10-11]): apart']
    """
    out = []
    first = names[0]
    for key, base in runs[first].items():
        for other in names[1:]:
            values = runs[other].get(key)
            if not values or not base:
                continue
            a, b = sum(base) / len(base), sum(values) / len(values)
            apart = max(values) < min(base) or min(values) > max(base)
            medians = statistics.median(values) - statistics.median(base)
            out.append(
                f"{key}: {other} - {first} = {b - a:+.1f}, medians {medians:+.1f} "
                f"({other} {b:.1f} [{min(values):g}-{max(values):g}], "
                f"{first} {a:.1f} [{min(base):g}-{max(base):g}]): "
                + ("apart" if apart else "ranges overlap")
            )
    return out


if __name__ == "__main__":
    sys.exit(main())
