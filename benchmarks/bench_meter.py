"""Does a progressive meter shared by many tables make their settlements wait on each other?

``python benchmarks/bench_meter.py [--database URL] [--tables 20] [--rounds 5] [--tree NAME=PATH
...] [--repeat N]`` prepares, at each of ``--tables`` tables, a round up to the dealer's setting
(one player, a wager, side wagers), then settles every table's round at once from as many
threads (one transaction each, the dealer's own step :func:`paigow.service.game.rounds.settle`)
and times the whole batch; three floors side by side: no side wagers, Fortune only, and Fortune
plus a progressive all the tables share. Printed for each: settlements per second (the best
and the median of ``--rounds`` batches); the CPU a settlement cost this process (the steps'
Python) and PostgreSQL's backends serving it (``/proc/<pid>/schedstat``, PostgreSQL on this
machine), over all the timed batches; and the share of the settling backends' time spent
waiting on a lock (``pg_stat_activity`` sampled every few milliseconds): whether the tables'
settlements wait on each other. Other work on a shared machine disturbs the last two far less
than the rate.

Each source tree given (``--tree NAME=PATH``, its ``src``; default this checkout's) runs in a
process of its own, ``--repeat`` times, interleaved (A B B A ...), each run on a fresh schema
(PostgreSQL: ``--database`` names the server and database, ``postgresql://postgres@127.0.0.1:
5432/test`` by default; its ``search_path`` is replaced) or a fresh SQLite file
(``--database sqlite``). The machine's load is printed before and after.

    git archive 9739843 src | tar -x -C /tmp/meter-base
    .venv/bin/python benchmarks/bench_meter.py --tree base=/tmp/meter-base/src --tree new=src
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PG_BASE = "postgresql://postgres@127.0.0.1:5432/test"
KINDS = ("none", "fortune", "progressive")
JACKPOT = """
name = "bench-jackpot"
target = "player"
[pays]
seven-card-straight-flush = "100% of meter"
five-aces = "10% of meter"
four-of-a-kind = "$75"
[progressive]
share = "15%"
seed = "$10000"
"""


# ----------------------------------------------------------------------------- one run (child)
def step(db: Any, fn: Any) -> Any:
    from paigow.service.floor import totals
    from paigow.service.store.unit import Tx

    with db.engine.begin() as conn:
        tx = Tx(conn, project=totals.project)  # the floor's totals of the rounds it ends
        out = fn(tx)
        tx.finish()
        return out


def floor(db: Any, kind: str, n: int, tag: str) -> list[tuple[int, Any]]:
    from paigow.house_way import HouseWay
    from paigow.service.accounts.auth_tokens import Principal
    from paigow.service.accounts.users import create_user
    from paigow.service.books import ledger
    from paigow.service.books.ledger import Movement
    from paigow.service.game import seats, side_offers, table_rows

    hw = HouseWay.preset("standard")
    specs = []
    if kind != "none":
        specs.append(side_offers.OfferSpec("fortune", "fortune-a", None, 100, 5000))
    if kind == "progressive":
        specs.append(side_offers.OfferSpec("jackpot", None, JACKPOT, 100, 1000, f"bank-{tag}"))
    rules = table_rows.build_ruleset(
        commission="0.05",
        house_way=hw,
        start="rng",
        foul="loses",
        wheel="second",
        min_wager=100,
        max_wager=100_000,
        setting_time_ms=60_000,
        side_wagers=side_offers.build_offers(specs),
    )
    out = []
    for i in range(n):

        def make(tx: Any, i: int = i) -> tuple[int, Any]:
            t = table_rows.create_table(
                tx,
                operator="bench",
                name=f"{tag} {i}",
                ruleset=rules,
                house_way=hw,
                mode="casino",
                betting_time_ms=60_000,
                setting_time_ms=60_000,
            )
            name = f"{tag}{i}"
            user = create_user(tx.session, name, "x", "player")
            tx.session.flush()
            ledger.post(
                tx,
                "credit",
                [Movement(ledger.CREDITS, ledger.wallet(name), 10**9)],
                amount=10**9,
            )
            who = Principal(user["id"], name, "player")
            seats.sit(tx, t.id, who, 1)
            return t.id, who

        out.append(step(db, make))
    return out


def prepare(db: Any, table: int, who: Any, kind: str, rng: random.Random) -> str:
    from paigow.cards import parse_cards
    from paigow.house_way import HouseWay
    from paigow.service.game import rounds

    hw = HouseWay.preset("standard")
    wagers = {} if kind == "none" else {"fortune": 500}
    if kind == "progressive":
        wagers["jackpot"] = 100
    placed = step(db, lambda tx: rounds.place_wager(tx, table, who, 1000, wagers))
    rid = placed["round_id"]
    step(db, lambda tx: rounds.deal(tx, table, rid, rng))
    hand = step(db, lambda tx: rounds.my_hand(tx, table, who))
    low = [c.code for c in hw.set_hand(parse_cards(hand["cards"])).setting.low]
    step(db, lambda tx: rounds.set_hand(tx, table, who, low, True))
    step(db, lambda tx: rounds.dealer_sets(tx, table, rid))
    return str(rid)


def _proc_cpu_s(pid: int) -> float | None:
    """The CPU seconds process ``pid`` has run (``/proc/<pid>/schedstat``: nanoseconds; the
    ticks of ``stat`` are too coarse for a few milliseconds a settlement), None if it is gone."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def _own_cpu() -> float:
    return time.process_time()


def backends_cpu(db: Any) -> dict[int, float]:
    """The CPU seconds of each PostgreSQL backend serving this process (application_name
    ``paigow-<pid>``), empty elsewhere."""
    if not db.is_postgres:
        return {}
    import sqlalchemy as sa

    with db.engine.connect() as conn:
        pids = conn.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = :n"),
            {"n": f"paigow-{os.getpid()}"},
        ).scalars()
        return {int(p): c for p in pids if (c := _proc_cpu_s(int(p))) is not None}


class LockWaits:
    """Samples, every few milliseconds while a batch settles, this process's PostgreSQL
    backends that are running a statement and those of them waiting on a lock (a row another
    transaction holds): the share of the settlements' time spent waiting on each other, which
    other work on a shared machine does not disturb the way it disturbs the rate."""

    def __init__(self, db: Any) -> None:
        import threading

        self.db, self.active, self.waiting = db, 0, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self) -> LockWaits:
        if self.db.is_postgres:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.db.is_postgres:
            self.stop.set()
            self.thread.join()

    def run(self) -> None:
        import sqlalchemy as sa

        q = sa.text(
            "SELECT count(*) FILTER (WHERE state = 'active'), "
            "count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock') "
            "FROM pg_stat_activity WHERE application_name = :n AND pid <> pg_backend_pid()"
        )
        with self.db.engine.connect() as conn:
            while not self.stop.is_set():
                active, waiting = conn.execute(q, {"n": f"paigow-{os.getpid()}"}).one()
                self.active += int(active)
                self.waiting += int(waiting)
                conn.rollback()
                time.sleep(0.003)


def run_child(args: argparse.Namespace) -> None:
    from paigow.service.books import ledger
    from paigow.service.game import rounds
    from paigow.service.store.db import Database

    db = Database(args.database, pool_size=2 * args.tables + 4)
    db.migrate()
    rng = random.Random(1)
    out: dict[str, Any] = {"backend": db.backend}
    try:
        for kind in KINDS:
            at = floor(db, kind, args.tables, f"{kind[:4]}{secrets.token_hex(3)}")
            times: list[float] = []
            cpu = pg = 0.0
            active = waiting = 0
            with ThreadPoolExecutor(args.tables) as pool:
                for _ in range(args.rounds):
                    rids = [prepare(db, t, who, kind, rng) for t, who in at]
                    pg0, own0 = backends_cpu(db), _own_cpu()
                    t0 = time.perf_counter()
                    with LockWaits(db) as waits:
                        done = list(
                            pool.map(
                                lambda a: step(db, lambda tx: rounds.settle(tx, a[0], a[1])),
                                [(t, rid) for (t, _), rid in zip(at, rids, strict=True)],
                            )
                        )
                        times.append(time.perf_counter() - t0)
                    cpu += _own_cpu() - own0
                    active, waiting = active + waits.active, waiting + waits.waiting
                    pg1 = backends_cpu(db)
                    pg += sum(c - pg0.get(p, 0.0) for p, c in pg1.items())
                    assert all(done)
            n = args.tables * args.rounds
            out[kind] = {
                "best": args.tables / min(times),
                "median": args.tables / statistics.median(times),
                "cpu_ms": 1000 * cpu / n,
                "pg_ms": 1000 * pg / n if db.is_postgres else None,
                "lock_wait": waiting / active if active else None,
            }
        with db.read() as s:
            out["balanced"] = ledger.check(s).balanced
    finally:
        db.dispose()
    print(json.dumps(out), flush=True)


# ----------------------------------------------------------------------------- the runs (parent)
def fresh_url(database: str, tmp: str) -> tuple[str, str | None]:
    """A fresh database for one run: (URL, PostgreSQL schema or None)."""
    if database == "sqlite" or database.startswith("sqlite"):
        return f"sqlite:///{tmp}/meter-{uuid.uuid4().hex[:8]}.sqlite3", None
    base = database.split("?", 1)[0]
    schema = "bench_meter_" + uuid.uuid4().hex[:8]
    return f"{base}?options=-csearch_path%3D{schema}", schema


def drop_schema(database: str, schema: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(
        database.split("?", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    )
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    finally:
        engine.dispose()


def machine_line() -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _machine import Contention

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"load average {load}; {Contention().idle_check()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=PG_BASE, help="a PostgreSQL URL, or sqlite")
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tree", action="append", default=[], help="NAME=PATH of a src folder")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each tree, interleaved")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        run_child(args)
        return
    trees = [t.split("=", 1) for t in args.tree] or [["this", str(ROOT / "src")]]
    order = [
        name
        for i in range(args.repeat)
        for name, _ in (trees if i % 2 == 0 else list(reversed(trees)))
    ]
    paths = dict((n, str(Path(p).resolve())) for n, p in trees)
    print(f"{args.tables} tables settling at once, {args.rounds} batches a floor; runs: {order}")
    print(machine_line())
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _machine import Contention

    contention = Contention()
    results: dict[str, list[dict[str, Any]]] = {n: [] for n, _ in trees}
    with tempfile.TemporaryDirectory(prefix="paigow-meter-") as tmp:
        for name in order:
            url, schema = fresh_url(args.database, tmp)
            env = {**os.environ, "PYTHONPATH": paths[name]}
            cmd = [sys.executable, __file__, "--child", "--database", url]
            cmd += ["--tables", str(args.tables), "--rounds", str(args.rounds)]
            try:
                got = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            finally:
                if schema is not None:
                    drop_schema(args.database, schema)
            if got.returncode != 0:
                raise SystemExit(f"run of {name} failed:\n{got.stderr[-3000:]}")
            run = json.loads(got.stdout.strip().splitlines()[-1])
            results[name].append(run)
            print(f"  {name}: {run['backend']}, ledger balanced: {run['balanced']}", flush=True)
            for kind in KINDS:
                k = run[kind]
                pg = "" if k["pg_ms"] is None else f", PostgreSQL {k['pg_ms']:.2f} ms"
                if k.get("lock_wait") is not None:
                    pg += f"; waiting on a lock {k['lock_wait']:.0%} of the settling time"
                print(
                    f"    {kind:12s} best {k['best']:6.0f}/s, median {k['median']:6.0f}/s; "
                    f"CPU a settlement: steps {k['cpu_ms']:.2f} ms{pg}"
                )
    print(contention.report()[0])
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        "means over the runs (settlements/s best, median; CPU ms a settlement: steps, "
        "PostgreSQL; share of the settling backends' time waiting on a lock)"
    )
    for name, runs in results.items():
        for kind in KINDS:
            rows = [r[kind] for r in runs]

            def mean(key: str, rows: list[dict[str, Any]] = rows) -> str:
                vals = [r[key] for r in rows if r[key] is not None]
                return f"{statistics.mean(vals):.2f}" if vals else "-"

            print(
                f"  {name:8s} {kind:12s} {mean('best'):>8s} {mean('median'):>8s} "
                f"{mean('cpu_ms'):>6s} {mean('pg_ms'):>6s} {mean('lock_wait'):>6s}"
            )
    if not all(r["balanced"] for runs in results.values() for r in runs):
        raise SystemExit("a ledger did not balance")


if __name__ == "__main__":
    main()
