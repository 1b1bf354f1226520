"""Benchmark of the operator's floor view: 200 open tables with 10,000 settled rounds each.

Target: ``GET /api/admin/floor`` answers in under 100 ms (median).

The database (SQLite in a temporary folder, or ``--database URL``) is migrated, then loaded in
bulk with what 200 tables x 10,000 rounds leave behind: the tables, six seated players each, the
floor's running totals (``floor_tables``) and the chart's points (``floor_points``, one row per
round: 2,000,000), the exact counts of the standard house way, and the rounds themselves with
one wager each (``rounds``, ``round_wagers``: 2,000,000 each) so that the peer has something to
scan. Timed, side by side:

- ours: ``floor_view`` (the running totals, a handful of indexed reads), in-process, and
  the whole request through the app (auth, JSON) with FastAPI's TestClient;
- the peer: the same figures computed by scanning the settled wagers (``SUM``/``COUNT`` over
  ``round_wagers`` joined to ``rounds``, grouped by table), which is what a floor without
  running totals must do.

    .venv/bin/python benchmarks/bench_floor.py                  # 200 x 10,000 (about a minute to load)
    .venv/bin/python benchmarks/bench_floor.py --rounds 1000    # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("PAIGOW_ARGON2_MEMORY_KIB", "1024")
os.environ.setdefault("PAIGOW_ARGON2_TIME_COST", "1")

from _machine import Contention

# the exact counts of the standard house way (`paigow edge`), so that the view computes its bands
EDGE = {"deals": 8250459031214400, "win": 2358120164000604, "push": 3427552624666108}
TARGET_MS = 100.0


def load(url: str, tables: int, rounds: int, seed: int) -> None:
    import sqlalchemy as sa

    from paigow.house_way import HouseWay
    from paigow.ruleset import Ruleset
    from paigow.service.accounts.operators import create_operator
    from paigow.service.floor.edges import store_counts
    from paigow.service.floor.hold import table_ident
    from paigow.service.store.db import Database

    create_operator(url, "boss", "operator-password")
    db = Database(url)
    rng = random.Random(seed)
    way = HouseWay.preset("standard")
    ruleset = Ruleset().to_dict()
    now = time.time()
    with db.engine.begin() as c:
        users = [
            {"username": f"p{i:04d}", "password_hash": "x", "role": "player", "created_at": now}
            for i in range(tables * 6)
        ]
        c.execute(
            sa.text(
                "INSERT INTO users (username, password_hash, role, created_at) VALUES (:username, :password_hash, :role, :created_at)"
            ),
            users,
        )
        ids = [
            r[0]
            for r in c.execute(sa.text("SELECT id FROM users WHERE role = 'player' ORDER BY id"))
        ]
        c.execute(
            sa.text(
                "INSERT INTO game_tables (id, name, ruleset, house_way, mode, betting_time_ms, setting_time_ms, status, created_at, created_by, round_count) "
                "VALUES (:id, :name, :ruleset, :house_way, 'casino', 15000, 60000, 'open', :at, 'boss', :rounds)"
            ),
            [
                {
                    "id": t,
                    "name": f"T{t}",
                    "ruleset": json.dumps(ruleset),
                    "house_way": json.dumps(way.to_dict()),
                    "at": now,
                    "rounds": rounds,
                }
                for t in range(1, tables + 1)
            ],
        )
        c.execute(
            sa.text("INSERT INTO seats (table_id, spot, user_id, sat_at) VALUES (:t, :s, :u, :at)"),
            [
                {"t": t, "s": s, "u": ids[(t - 1) * 6 + s - 1], "at": now}
                for t in range(1, tables + 1)
                for s in range(1, 7)
            ],
        )
    for t in range(1, tables + 1):
        hands = handle = sq = rsq = wins = losses = com = 0
        points: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        wagers: list[dict[str, Any]] = []
        for n in range(1, rounds + 1):
            w = rng.choice((500, 1000, 2500, 5000))
            u = rng.random()
            returned = 0 if u < 0.3 else (w if u < 0.71 else w + w - w // 20)
            hands += 1
            handle += w
            sq += w * w
            rsq += w * w
            if returned == 0:
                losses += w
            elif returned > w:
                wins += w
                com += w // 20
            rid = f"{t:08x}{n:08x}"
            points.append(
                {
                    "t": t,
                    "n": n,
                    "h": hands,
                    "hd": handle,
                    "sq": sq,
                    "rsq": rsq,
                    "res": losses - wins + com,
                }
            )
            rows.append({"id": rid, "t": t, "n": n, "at": now})
            wagers.append({"id": rid, "u": ids[(t - 1) * 6], "w": w, "r": returned})
        with db.engine.begin() as c:
            c.execute(
                sa.text(
                    "INSERT INTO floor_points (table_id, seq, hands, handle, handle_sq, round_sq, result) VALUES (:t, :n, :h, :hd, :sq, :rsq, :res)"
                ),
                points,
            )
            c.execute(
                sa.text(
                    "INSERT INTO rounds (id, table_id, number, phase, event_count, created_at, ended_at) VALUES (:id, :t, :n, 'settled', 0, :at, :at)"
                ),
                rows,
            )
            c.execute(
                sa.text(
                    "INSERT INTO round_wagers (round_id, spot, user_id, amount, status, returned) VALUES (:id, 1, :u, :w, 'settled', :r)"
                ),
                wagers,
            )
            c.execute(
                sa.text(
                    "INSERT INTO floor_tables (table_id, rounds, hands, handle, handle_sq, round_sq, player_wins, player_losses, commission, voided_rounds, voided_returned, flagged, updated_at) "
                    "VALUES (:t, :n, :h, :hd, :sq, :rsq, :wi, :lo, :co, 0, 0, :f, :at)"
                ),
                {
                    "t": t,
                    "n": rounds,
                    "h": hands,
                    "hd": handle,
                    "sq": sq,
                    "rsq": rsq,
                    "wi": wins,
                    "lo": losses,
                    "co": com,
                    "f": False,
                    "at": now,
                },
            )
    with db.write() as s:
        from paigow.service.game.table_rows import get_table

        table = get_table(s, 1)
        loss = EDGE["deals"] - EDGE["win"] - EDGE["push"]
        store_counts(
            s, table_ident(table), table.house_way, "second", {**EDGE, "loss": loss}, min_hands=100
        )
    db.dispose()


def peer_scan(session: Any) -> list[tuple[Any, ...]]:
    import sqlalchemy as sa

    from paigow.service.store.db import GameTable, RoundRow, RoundWager

    won = sa.case((RoundWager.returned > RoundWager.amount, RoundWager.amount), else_=0)
    lost = sa.case((RoundWager.returned == 0, RoundWager.amount), else_=0)
    com = sa.case(
        (RoundWager.returned > RoundWager.amount, 2 * RoundWager.amount - RoundWager.returned),
        else_=0,
    )
    return list(
        session.execute(
            sa.select(
                RoundRow.table_id,
                sa.func.count(sa.distinct(RoundRow.id)),
                sa.func.count(),
                sa.func.sum(RoundWager.amount),
                sa.func.sum(won),
                sa.func.sum(lost),
                sa.func.sum(com),
            )
            .join(RoundRow, RoundRow.id == RoundWager.round_id)
            .join(GameTable, GameTable.id == RoundRow.table_id)
            .where(GameTable.status != "closed", RoundWager.status == "settled")
            .group_by(RoundRow.table_id)
        ).all()
    )


def timeit(fn: Any, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--rounds", type=int, default=10_000)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--peer-repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--database", help="a fresh, empty database (default: SQLite in a temporary folder)"
    )
    args = p.parse_args()

    from fastapi.testclient import TestClient

    from paigow.service.books.gaming_day import GamingDay
    from paigow.service.floor.view import floor_view
    from paigow.service.process.app import create_app
    from paigow.service.store.db import Database

    folder = tempfile.mkdtemp(prefix="paigow-bench-floor-")
    url = args.database or f"sqlite:///{folder}/floor.sqlite3"
    Database(url).migrate()
    t0 = time.perf_counter()
    load(url, args.tables, args.rounds, args.seed)
    print(
        f"loaded {args.tables} tables x {args.rounds:,} rounds in {time.perf_counter() - t0:.1f} s ({url.split('?')[0]})"
    )

    machine = Contention()
    db = Database(url)

    def ours() -> None:
        with db.read() as s:
            view = floor_view(s, day=GamingDay(), flag_min_hands=100)
        assert len(view["tables"]) == args.tables and view["tables"][0]["rounds"] == args.rounds

    def peer() -> None:
        with db.read() as s:
            rows = peer_scan(s)
        assert len(rows) == args.tables

    with db.read() as s:  # the two agree
        view = {t["id"]: t for t in floor_view(s, day=GamingDay(), flag_min_hands=100)["tables"]}
        for tid, n, hands, handle, wins, losses, com in peer_scan(s):
            v = view[tid]
            assert (
                v["rounds"],
                v["hands"],
                v["handle"],
                v["player_wins"],
                v["player_losses"],
                v["commission_taken"],
            ) == (n, hands, handle, wins, losses, com), tid
    ours()
    fn_ms = timeit(ours, args.repeats)
    app = create_app(url, run_dealers=False)
    with TestClient(app) as client:
        token = client.post(
            "/api/auth/login", json={"username": "boss", "password": "operator-password"}
        ).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}

        def http() -> None:
            r = client.get("/api/admin/floor", headers=headers)
            assert r.status_code == 200 and len(r.json()["tables"]) == args.tables

        http()
        http_ms = timeit(http, args.repeats)
    peer_ms = timeit(peer, args.peer_repeats)
    db.dispose()

    def row(name: str, ms: list[float]) -> tuple[str, float, float]:
        return name, statistics.median(ms), min(ms)

    rows = [
        row("ours: floor_view (running totals)", fn_ms),
        row("ours: GET /api/admin/floor (TestClient)", http_ms),
        row("peer: scan of the settled wagers", peer_ms),
    ]
    print(f"{'':44} {'median ms':>10} {'best ms':>10} {'peer/this':>10}")
    for name, med, best in rows:
        print(f"{name:44} {med:10.1f} {best:10.1f} {statistics.median(peer_ms) / med:10.1f}x")
    ok = statistics.median(http_ms) < TARGET_MS
    print(
        f"target: GET /api/admin/floor under {TARGET_MS:.0f} ms for {args.tables} tables x {args.rounds:,} rounds: {'PASS' if ok else 'FAIL'}"
    )
    line, _quiet = machine.report()
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
