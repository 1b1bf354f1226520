"""Benchmark of the table service: real servers, real bots, 20 tables of 6 players.

For each back end (SQLite in a temporary folder; PostgreSQL in a fresh schema of the database
``test`` on 127.0.0.1:5432) the script creates an operator, starts ``paigow serve`` (PostgreSQL:
``--processes`` of them, sharing the database; the bots' players are spread over them), runs the
``paigow bots`` logic (house-way settings, some fouls, some deliberately bad requests), and prints
rounds settled per second, the p50 and p99 latency of wager and set-hand requests, whether the
ledger balances, how many rounds' replays disagree with what was recorded, and what ``paigow audit
verify`` says afterwards. Exit status 1 if anything was lost or paid twice (ledger, replays, each
bot's wallet) or an unexpected error occurred.

    .venv/bin/python benchmarks/bench_service.py                      # both back ends
    .venv/bin/python benchmarks/bench_service.py --backend sqlite --rounds 10
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAIGOW = [sys.executable, "-m", "paigow.cli"]
PG_BASE = "postgresql://postgres@127.0.0.1:5432/test"


def start_server(url: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*PAIGOW, "serve", "--port", "0", "--database", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("paigow table server: http"):
            return proc, line.split(": ", 1)[1].strip()
    proc.kill()
    raise RuntimeError("the server did not start")


def run(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    from paigow.service.bots import BotConfig, run_bots

    env = dict(os.environ)
    env.setdefault("PAIGOW_ARGON2_MEMORY_KIB", "8192")
    tmp = tempfile.mkdtemp(prefix="paigow-bench-")
    schema = None
    if backend == "sqlite":
        url = f"sqlite:///{tmp}/bench.sqlite3"
        processes = 1
    else:
        import psycopg

        schema = "bench_" + uuid.uuid4().hex[:8]
        with psycopg.connect(
            "host=127.0.0.1 port=5432 dbname=test user=postgres", autocommit=True
        ) as c:
            c.execute(f"CREATE SCHEMA {schema}")
        url = f"{PG_BASE}?options=-csearch_path%3D{schema}"
        processes = args.processes
    password = secrets.token_urlsafe(12)
    pw_file = Path(tmp) / "pw"
    pw_file.write_text(password)
    subprocess.run(
        [
            *PAIGOW,
            "admin",
            "create",
            "--database",
            url,
            "--username",
            "bench",
            "--password-file",
            str(pw_file),
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    servers = [start_server(url, env) for _ in range(processes)]
    try:
        cfg = BotConfig(
            url=",".join(u for _, u in servers),
            tables=args.tables,
            players=args.players,
            rounds=args.rounds,
            operator="bench",
            operator_password=password,
            betting_ms=args.betting_ms,
            setting_ms=args.setting_ms,
            seed=args.seed,
        )
        report = run_bots(cfg)
    finally:
        for proc, _ in servers:
            proc.send_signal(signal.SIGTERM)
        for proc, _ in servers:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    verify = subprocess.run(
        [*PAIGOW, "audit", "verify", "--database", url, "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    report["audit_verify"] = json.loads(verify.stdout) if verify.stdout.strip() else {"ok": False}
    report["audit_verify_exit"] = verify.returncode
    report["backend"] = backend
    report["processes"] = processes
    shutil.rmtree(tmp, ignore_errors=True)
    if schema is not None:
        import psycopg

        with psycopg.connect(
            "host=127.0.0.1 port=5432 dbname=test user=postgres", autocommit=True
        ) as c:
            c.execute(f"DROP SCHEMA {schema} CASCADE")
    return report


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=10, help="rounds each player plays")
    ap.add_argument("--processes", type=int, default=2, help="server processes on PostgreSQL")
    ap.add_argument("--betting-ms", type=int, default=2000)
    ap.add_argument("--setting-ms", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the full reports as JSON")
    args = ap.parse_args()
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    ok = True
    reports = []
    for backend in backends:
        r = run(backend, args)
        reports.append(r)
        lat = r["latency_ms"]
        good = (
            r["ledger_balanced"]
            and r["replay_mismatches"] == 0
            and not r["errors"]["unexpected"]
            and r["audit_verify"].get("ok")
        )
        ok &= bool(good)
        print(
            f"{backend:<10} ({r['processes']} process{'es' if r['processes'] > 1 else ''}): "
            f"{r['tables']} tables x {args.players} players, {r['rounds']} rounds settled in "
            f"{r['elapsed_s']} s = {r['rounds_per_s']} rounds/s; "
            f"wager p50 {lat['wager']['p50']} ms p99 {lat['wager']['p99']} ms; "
            f"set p50 {lat['set']['p50']} ms p99 {lat['set']['p99']} ms; "
            f"requests {r['requests']}; ledger balanced {r['ledger_balanced']}; "
            f"replay mismatches {r['replay_mismatches']}; unexpected errors "
            f"{sum(r['errors']['unexpected'].values())}; audit verify "
            f"{'ok' if r['audit_verify'].get('ok') else 'FAILED'} "
            f"({r['audit_verify'].get('replayed')} rounds replayed) -> {'PASS' if good else 'FAIL'}",
            flush=True,
        )
    if args.json:
        print(json.dumps(reports, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
