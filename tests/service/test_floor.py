"""The operator's floor, the gaming-day report and players' limits.

Rounds are played through the service's own steps (``rounds.place_wager``, ``deal`` with a seeded
deck, ``dealer_sets`` with the house way, ``settle``) on a server whose dealers are off, so every
round is known in advance; the floor's figures and the report's lines are checked to the cent
against the ledger's entries.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Iterator
from concurrent.futures import Future
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.analysis.edge import saved_name
from paigow.analysis.kernels import edge_digest
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.config import ServiceConfig
from paigow.service.floor import edges
from paigow.service.floor import view as floor_read
from paigow.service.floor.hold import DEC, Z95, as_decimal, table_ident
from paigow.service.game import rounds, seats, table_rows
from paigow.service.runtime import Runtime
from paigow.service.store.db import LedgerEntry, LedgerTransaction, RoundRow, RoundWager
from paigow.service.store.floor_models import FloorEdge
from tests.helpers.edges import DEALS, HOUSE_WAY_COUNTS, STANDARD, save_counts, saved_result
from tests.helpers.service import OPERATOR, Service, run_bots


@cache
def standard_counts() -> dict[str, Any]:
    """The exact counts of the standard house way as the worker reads them from what ``paigow
    edge`` saved (the published counts above; the count itself is the full-deck lane's, checked
    on reduced decks by the suite: ``tests/test_edge.py``)."""
    with tempfile.TemporaryDirectory() as folder:
        save_counts(Path(folder))
        counts = edges.saved_house_way(Path(folder), STANDARD, "second")
    assert counts is not None and counts["win"] == HOUSE_WAY_COUNTS["none"][0]
    return counts


class Floor:
    """A live server without dealers, a runtime on the same database, an operator, players."""

    def __init__(self, db_url: str) -> None:
        self.svc = Service(db_url, run_dealers=False)
        self.rt = Runtime(ServiceConfig(db_url))
        self.players: list[tuple[Principal, Any]] = []

    def close(self) -> None:
        self.svc.stop()
        self.rt.db.dispose()

    def table(self, seed_edge: bool = True, **cfg: Any) -> int:
        tid = self.svc.new_table(betting_time_ms=3_600_000, setting_time_ms=3_600_000, **cfg)
        if seed_edge:
            self.seed_edge(tid)
        return tid

    def seed_edge(self, tid: int) -> None:
        """The table's exact counts, as the background worker would store them."""
        with self.rt.write() as tx:
            s = tx.session
            t = table_rows.get_table(s, tid)
            edges.store_counts(
                s, table_ident(t), t.house_way, t.ruleset["wheel"], standard_counts(), min_hands=100
            )

    def seat(self, tid: int, n: int, credit: int = 1_000_000) -> list[Principal]:
        while len(self.players) < n:
            c = self.svc.player(credit=credit)
            me = c.ok(c.get("/api/me"))
            self.players.append((Principal(me["id"], me["username"], "player"), c))
        out = []
        for spot, (p, _) in enumerate(self.players[:n], start=1):
            with self.rt.write() as s:
                seats.sit(s, tid, p, spot)
            out.append(p)
        return out

    def play(self, tid: int, wagers: dict[Principal, int], seed: int, void: bool = False) -> str:
        for p, amount in wagers.items():
            with self.rt.write() as s:
                rid = rounds.place_wager(s, tid, p, amount)["round_id"]
        if void:
            with self.rt.write() as s:
                assert rounds.void(s, tid, rid, "test: a fault", actor="test")
            return rid
        with self.rt.write() as s:
            assert rounds.deal(s, tid, rid, random.Random(seed))
        with self.rt.write() as s:
            row = s.session.get(RoundRow, rid)
            assert row is not None
            row.deadline = 0.0  # every hand set by the house way (time-outs)
        with self.rt.write() as s:
            assert rounds.dealer_sets(s, tid, rid)
        with self.rt.write() as s:
            assert rounds.settle(s, tid, rid)
        return rid

    def floor(self) -> dict[str, Any]:
        return self.svc.op.ok(self.svc.op.get("/api/admin/floor"))

    def row(self, tid: int) -> dict[str, Any]:
        return next(t for t in self.floor()["tables"] if t["id"] == tid)


@pytest.fixture
def fl(db_url: str) -> Iterator[Floor]:
    f = Floor(db_url)
    try:
        yield f
    finally:
        f.close()


@pytest.fixture
def fl_sqlite(sqlite_url: str) -> Iterator[Floor]:
    f = Floor(sqlite_url)
    try:
        yield f
    finally:
        f.close()


def ledger_figures(rt: Runtime, tid: int) -> dict[str, int]:
    """A table's figures straight from the ledger's entries and the wager records."""
    wagers, win, com = (
        f"{k}:table-{tid}" for k in ("wagers-in-play", "house:win", "house:commission")
    )
    with rt.db.read() as s:

        def total(account: str, kind: str | None, sign: int) -> int:
            q = (
                sa.select(sa.func.coalesce(sa.func.sum(LedgerEntry.amount), 0))
                .join(LedgerTransaction, LedgerTransaction.id == LedgerEntry.txn_id)
                .where(LedgerEntry.account == account, LedgerEntry.amount * sign > 0)
            )
            if kind:
                q = q.where(LedgerTransaction.kind == kind)
            return abs(int(s.execute(q).scalar_one()))

        balances = dict(
            s.execute(
                sa.text("SELECT name, balance FROM accounts WHERE name IN (:a, :b)"),
                {"a": win, "b": com},
            ).all()
        )
        hands = s.execute(
            sa.select(sa.func.count())
            .select_from(RoundWager)
            .join(RoundRow, RoundRow.id == RoundWager.round_id)
            .where(RoundRow.table_id == tid, RoundWager.status == "settled")
        ).scalar_one()
        settled = s.execute(
            sa.select(sa.func.count())
            .select_from(RoundRow)
            .where(RoundRow.table_id == tid, RoundRow.phase == "settled")
        ).scalar_one()
        voided = s.execute(
            sa.select(sa.func.count())
            .select_from(RoundRow)
            .where(RoundRow.table_id == tid, RoundRow.phase == "voided")
        ).scalar_one()
        return {
            "rounds": int(settled),
            "hands": int(hands),
            "handle": total(wagers, "settlement", -1),
            "player_wins": total(win, None, -1),
            "player_losses": total(win, None, 1),
            "commission_taken": total(com, None, 1),
            "house_result": int(balances[win]) + int(balances[com]),
            "voided_rounds": int(voided),
            "voided_returned": total(wagers, "void-refund", -1),
        }


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
def test_floor_figures_and_the_report_reconcile_to_the_ledger_to_the_cent(fl: Floor) -> None:
    a = fl.table(name="Alpha")
    b = fl.table(name="Beta", commission="0.04")
    pa = fl.seat(a, 3)
    pb = fl.seat(b, 2)
    amounts = [500, 1250, 2000, 777, 10_000, 3333]
    for i in range(12):
        fl.play(a, {p: amounts[(i + j) % 6] for j, p in enumerate(pa)}, seed=100 + i)
    for i in range(7):
        fl.play(b, {p: amounts[(2 * i + j) % 6] for j, p in enumerate(pb)}, seed=200 + i)
    fl.play(a, {pa[0]: 900, pa[1]: 1100}, seed=0, void=True)
    fl.svc.op.ok(
        fl.svc.op.post(
            f"/api/admin/wallets/{pa[0].username}/debit", {"amount": 4321, "idempotency_key": "d1"}
        )
    )
    view = fl.floor()
    totals = {k: 0 for k in ledger_figures(fl.rt, a)}
    for tid, players in ((a, pa), (b, pb)):
        got = next(t for t in view["tables"] if t["id"] == tid)
        want = ledger_figures(fl.rt, tid)
        for k, v in want.items():
            assert got[k] == v, (tid, k, got[k], v)
            totals[k] += v
        assert (
            want["house_result"]
            == want["player_losses"] - want["player_wins"] + want["commission_taken"]
        )
        assert got["actual_hold"]["exact"] == str(Fraction(want["house_result"], want["handle"]))
        assert sorted(got["players"]) == sorted(p.username for p in players)
        assert got["theoretical"]["status"] == "ready"
        lo, hi = (float(x) for x in got["band_95"])
        assert lo < float(got["theoretical"]["house_way_hold"]["decimal"]) < hi
    assert a != b and view["tables"][0]["rounds"] == 12
    for k, v in totals.items():
        assert view["totals"][k] == v
    # the theoretical hold at 4% follows from the same exact counts
    c = standard_counts()
    beta = next(t for t in view["tables"] if t["id"] == b)
    assert beta["theoretical"]["house_way_hold"]["exact"] == str(
        (c["loss"] - Fraction(c["win"]) * Fraction(96, 100)) / c["deals"]
    )

    # the report: every line, every day and the total, in JSON, CSV and HTML
    today = dt.datetime.now(dt.UTC).date()
    q = f"/api/admin/floor/report?from={today - dt.timedelta(days=1)}&to={today + dt.timedelta(days=1)}"
    report = fl.svc.op.ok(fl.svc.op.get(q))
    assert report["reconciled"] is True and len(report["days"]) == 3
    for tid in (a, b):
        want = ledger_figures(fl.rt, tid)
        lines = [x for x in report["tables"] if x["table_id"] == tid]
        for k in (
            "rounds",
            "hands",
            "handle",
            "player_wins",
            "player_losses",
            "house_result",
            "voided_rounds",
            "voided_returned",
        ):
            assert sum(x[k] for x in lines) == want[k], (tid, k)
        assert sum(x["commission"] for x in lines) == want["commission_taken"]
    assert report["total"]["operator_credits"] == 1_000_000 * 3
    assert report["total"]["operator_debits"] == 4321
    assert report["total"]["house_result"] == totals["house_result"]
    assert report["total"]["handle"] == totals["handle"]
    r = fl.svc.op.get(q.replace("report?", "report?format=csv&"))
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.text)))
    total_row = next(x for x in rows if len(x) > 2 and x[2] == "TOTAL")
    header = rows[0]
    assert int(total_row[header.index("house_result_cents")]) == totals["house_result"]
    assert int(total_row[header.index("operator_credits_cents")]) == 3_000_000
    assert rows[-1][0].startswith("# reconciled to the ledger to the cent: true")
    r = fl.svc.op.get(q.replace("report?", "report?format=html&"))
    assert "Reconciled to the ledger to the cent" in r.text
    small = fl.svc.op.ok(fl.svc.op.get(f"/api/admin/floor/tables/{a}/chart?points=5"))
    assert [p["round"] for p in small["points"]] == [3, 6, 9, 12]
    assert small["points"][-1]["result"] == ledger_figures(fl.rt, a)["house_result"]
    # players are refused the floor
    player = fl.players[0][1]
    assert player.get("/api/admin/floor").status_code == 403

    # the migration rebuilds the same running totals and chart from the rounds played before it
    chart = fl.svc.op.ok(fl.svc.op.get(f"/api/admin/floor/tables/{a}/chart?points=2000"))
    migrate_down_and_up(fl.rt)
    # the sessions went down with their table: the server's cache of them may already have
    # forgotten the operator's (a loaded machine), so the operator logs in again
    fl.svc.op = fl.svc.login(*OPERATOR)
    fl.seed_edge(a)
    again = fl.floor()
    assert again["tables"] == view["tables"]
    assert fl.svc.op.ok(fl.svc.op.get(f"/api/admin/floor/tables/{a}/chart?points=2000")) == chart


def migrate_down_and_up(rt: Runtime) -> None:
    from alembic import command

    from paigow.service.store.migrate import alembic_config

    cfg = alembic_config(rt.db)
    with rt.db.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0002_doors")
    with rt.db.engine.begin() as conn:
        assert "floor_tables" not in sa.inspect(conn).get_table_names()
    rt.db.migrate()


def test_a_report_that_does_not_reconcile_fails_loudly(fl_sqlite: Floor) -> None:
    fl = fl_sqlite
    a = fl.table()
    ps = fl.seat(a, 2)
    rid = None
    for i in range(4):
        rid = fl.play(a, {p: 1000 for p in ps}, seed=i)
    from paigow.service.books.gaming_day import GamingDay

    day = GamingDay().day_of(time.time())  # before 06:00 it is yesterday's gaming day
    args = [
        "--database",
        fl.svc.db_url,
        "--from",
        str(day - dt.timedelta(days=1)),
        "--to",
        str(day),
    ]
    ok = subprocess.run(
        [sys.executable, "-m", "paigow.cli", "report", "floor", *args, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["reconciled"] is True
    with fl.rt.write() as s:  # a round's record altered after the fact
        row = s.session.get(RoundRow, rid)
        assert row is not None
        result = json.loads(json.dumps(row.result))
        result["totals"]["commission"] += 7
        row.result = result
    bad = subprocess.run(
        [sys.executable, "-m", "paigow.cli", "report", "floor", *args, "--format", "csv"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 1
    assert "does not reconcile" in bad.stderr and "commission" in bad.stderr
    r = fl.svc.op.get(f"/api/admin/floor/report?from={day}&to={day}")
    assert r.status_code == 409 and r.json()["code"] == "not-reconciled", r.text[:600]


def test_a_simulated_table_stays_inside_its_band(fl_sqlite: Floor) -> None:
    fl = fl_sqlite
    a = fl.table()
    ps = fl.seat(a, 6)
    for i in range(80):
        fl.play(a, {p: 1000 for p in ps}, seed=10_000 + i)
    row = fl.row(a)
    assert row["hands"] == 480 and row["rounds"] == 80
    assert row["flagged"] is False
    lo, hi = (Fraction(x) for x in row["band_999"])
    assert lo < Fraction(row["actual_hold"]["exact"]) < hi
    chart = fl.svc.op.ok(fl.svc.op.get(f"/api/admin/floor/tables/{a}/chart?points=20"))
    assert chart["points"][-1]["hands"] == 480 and len(chart["points"]) <= 21
    assert all("band_95" in p for p in chart["points"])


def test_a_rigged_table_that_pays_the_house_twice_is_flagged(
    fl_sqlite: Floor, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paigow.round
    from paigow.settlement import Outcome, Settlement

    real = paigow.round.settle

    def rigged(*args: Any, **kw: Any) -> Settlement:  # a push pays the house too
        s = real(*args, **kw)
        if s.outcome is Outcome.PUSH:
            return Settlement(Outcome.LOSS, s.high, s.low, s.wager, 0, 0, s.foul)
        return s

    monkeypatch.setattr(paigow.round, "settle", rigged)
    fl = fl_sqlite
    a = fl.table(name="Rigged")
    ps = fl.seat(a, 2)
    for i in range(60):
        fl.play(a, {p: 2500 for p in ps}, seed=i)
    row = fl.row(a)
    assert row["hands"] == 120
    assert row["flagged"] is True and row["flag"]["hands"] >= 100
    assert Fraction(row["actual_hold"]["exact"]) > Fraction(row["band_999"][1])
    audit = [json.loads(x) for x in fl.svc.op.get("/api/admin/audit").text.splitlines()]
    flags = [x for x in audit if x["action"] == "floor-flag"]
    assert len(flags) == 1 and flags[0]["target"] == f"table:{a}"
    assert flags[0]["details"]["theoretical_hold"]["decimal"].startswith("0.0272")
    assert fl.floor()["flagged"] == [a]


@pytest.mark.full_deck  # the worker counts every deal (a minute of two cores, cold): the
# full-deck lane's; the suite runs the worker's job with a stand-in count and from a saved result
def test_the_theoretical_hold_of_a_preset_equals_the_exact_edge(
    fl_sqlite: Floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))  # no saved counts: the worker counts
    fl = fl_sqlite
    a = fl.table(seed_edge=False)
    first = fl.row(a)
    assert first["theoretical"]["status"] in ("computing", "ready")
    deadline = time.time() + 600
    while time.time() < deadline:
        row = fl.row(a)
        if row["theoretical"]["status"] != "computing":
            break
        time.sleep(1)
    assert row["theoretical"]["status"] == "ready", row["theoretical"]
    win, pushes = HOUSE_WAY_COUNTS["none"]
    exact = (DEALS - win - pushes - Fraction(win) * Fraction(95, 100)) / DEALS
    assert row["theoretical"]["house_way_hold"]["exact"] == str(exact)


def test_players_limits_and_self_exclusion(fl_sqlite: Floor) -> None:
    fl = fl_sqlite
    a = fl.table()
    (p,) = fl.seat(a, 1, credit=100_000)
    c = fl.players[0][1]
    st = c.ok(c.post("/api/me/limits", {"daily_loss_limit": 3000}))
    assert st["daily_loss_limit"] == 3000 and st["loss_today"] == 0
    lost = 0
    seed = 0
    while lost < 2000:  # play 1000-cent wagers until 2000 or more is lost today
        fl.play(a, {p: 1000}, seed=seed)
        seed += 1
        lost = c.ok(c.get("/api/me/limits"))["loss_today"]
    r = c.wager(a, 1000 + max(0, 3000 - lost))
    assert r.status_code == 403 and r.json()["code"] == "loss-limit"
    assert "daily loss limit of $30.00" in r.json()["detail"]
    # raising the limit waits for the cooling-off; lowering is at once
    st = c.ok(c.post("/api/me/limits", {"daily_loss_limit": 900_000}))
    assert st["daily_loss_limit"] == 3000 and st["pending"]["daily_loss_limit"] == 900_000
    # self-exclusion: wagers refused, the operator sees it and cannot lift it
    st = c.ok(c.post("/api/me/exclusion", {"days": 30}))
    assert st["excluded"] is True
    r = c.wager(a, 500)
    assert r.status_code == 403 and r.json()["code"] == "self-excluded"
    assert "excluded yourself" in r.json()["detail"]
    shorter = c.post("/api/me/exclusion", {"days": 1})
    assert shorter.status_code == 409
    seen = fl.svc.op.ok(fl.svc.op.get("/api/admin/limits"))
    assert [x["username"] for x in seen if x["excluded"]] == [p.username]
    lift = fl.svc.op.post(f"/api/admin/players/{p.username}/lift-exclusion")
    assert lift.status_code == 403 and lift.json()["code"] == "self-exclusion-active"
    want = {  # each refusal recorded by the step that refused, before it was answered
        "wager-refused-loss-limit",
        "wager-refused-excluded",
        "exclusion-lift-refused",
        "self-excluded",
        "loss-limit-set",
    }
    audit = fl.svc.op.get("/api/admin/audit").text.splitlines()
    assert want <= {json.loads(x)["action"] for x in audit}
    assert fl.svc.verify()["ok"]


def test_two_processes_needing_one_edge_count_it_once(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two servers' workers (here two threads: the lock is a file's, per open file) asking at
    once for a ruleset's exact counts: one counts, the other waits and reads what it saved."""
    from paigow.analysis import edge as E
    from paigow.analysis import runner

    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    kept: dict[str, dict[str, Any]] = {}
    counted: list[str] = []
    counting = threading.Event()

    class Spec:  # the full deck's table is not built: the count below stands for it
        @staticmethod
        def of(way: HouseWay, wheel: Any) -> Spec:
            return Spec()

        def open(self) -> None:
            pass

    def count(spec: Any, run: Any, push: Any) -> Any:
        counted.append(threading.current_thread().name)
        counting.set()
        time.sleep(0.3)  # long enough for the other to ask while this one counts
        return types.SimpleNamespace(deals=10, win=3, push=4, loss=3)

    def save(spec: Any, result: Any) -> None:
        kept["standard"] = {"deals": 10, "win": 3, "push": 4, "loss": 3, "optimal": None}

    monkeypatch.setattr(runner, "TableSpec", Spec)
    monkeypatch.setattr(E, "house_way_edge", count)
    monkeypatch.setattr(E, "save_result", save)
    monkeypatch.setattr(edges, "saved_house_way", lambda *a: kept.get("standard"))
    got: list[dict[str, Any]] = []
    first = threading.Thread(
        target=lambda: got.append(edges.compute_edge_counts(STANDARD, "second"))
    )
    first.start()
    assert counting.wait(10)
    second = threading.Thread(
        target=lambda: got.append(edges.compute_edge_counts(STANDARD, "second"))
    )
    second.start()
    first.join(10)
    second.join(10)
    assert len(counted) == 1 and len(got) == 2
    assert [(g["deals"], g["win"], g["push"], g["loss"]) for g in got] == [(10, 3, 4, 3)] * 2


def test_the_optimal_players_saved_edge_is_shown_beside_the_house_way(tmp_path: Any) -> None:
    way = STANDARD
    assert edges.saved_optimal(tmp_path, way, "second") is None
    saved = {
        "player": "optimal",
        "house_way": way.to_dict(),
        "wheel": "second",
        "commission": "0.05",
        "house_edge_exact": "3/200",
        "code": edge_digest("optimal"),
    }
    path = tmp_path / saved_name(HouseWay.preset("standard"), "second", "optimal")
    # counted by other code (another digest, or none recorded): stale, not shown
    for stale in ({**saved, "code": "0" * 16}, {k: v for k, v in saved.items() if k != "code"}):
        path.write_text(json.dumps(stale))
        assert edges.saved_optimal(tmp_path, way, "second") is None
    path.write_text(json.dumps(saved))
    assert edges.saved_optimal(tmp_path, way, "second") == {"1/20": "3/200"}
    assert edges.saved_optimal(tmp_path, way, "lowest") is None
    # a file under this name holding another house way's figures is not taken
    path.write_text(json.dumps({**saved, "house_way": HouseWay.preset("foxwoods").to_dict()}))
    assert edges.saved_optimal(tmp_path, way, "second") is None
    edge = FloorEdge(status="ready", deals=10, win=3, push=4, loss=3, optimal={"1/20": "3/200"})
    assert floor_read._optimal(edge, "0.05") == {"exact": "3/200", "decimal": "0.01500000"}
    assert floor_read._optimal(edge, "0.04") is None


def test_bots_at_a_live_table_stay_inside_the_band_and_reconcile(sqlite_url: str) -> None:
    """Real bots (house-way settings, some fouls, some bad requests) through the public API and
    the table's dealer; then the floor's figures against the ledger and the band."""
    svc = Service(sqlite_url)
    rt = Runtime(ServiceConfig(sqlite_url))
    try:
        report = run_bots(
            svc.url,
            tables=1,
            players=6,
            rounds=20,
            betting_ms=3000,
            setting_ms=3000,
            bad_rate=0.0,
            retry_rate=0.0,
        )
        assert report["ledger_balanced"] and report["replay_mismatches"] == 0, report
        assert not report["errors"]["unexpected"], report["errors"]
        listed = svc.op.ok(svc.op.get("/api/tables?include_closed=true"))
        (tid,) = [t["id"] for t in listed if t["name"].startswith("bots ")]
        with rt.write() as tx:
            t = table_rows.get_table(tx.session, tid)
            edges.store_counts(
                tx.session, table_ident(t), t.house_way, "second", standard_counts(), min_hands=100
            )
        again = svc.op.ok(svc.op.get("/api/admin/floor?include_closed=true"))
        row = next(t for t in again["tables"] if t["id"] == tid)
        want = ledger_figures(rt, tid)
        assert {k: row[k] for k in want} == want
        assert row["rounds"] >= 20 and row["hands"] >= 100
        assert row["flagged"] is False
        lo, hi = (Fraction(x) for x in row["band_999"])
        assert lo < Fraction(row["actual_hold"]["exact"]) < hi
    finally:
        svc.stop()
        rt.db.dispose()


def test_the_report_splits_rounds_by_gaming_day(fl_sqlite: Floor) -> None:
    from paigow.service.books.gaming_day import GamingDay

    fl = fl_sqlite
    a = fl.table()
    ps = fl.seat(a, 2)
    for i in range(2):
        fl.play(a, {p: 1000 for p in ps}, seed=i)
    time.sleep(1.1)
    cut = dt.datetime.now(dt.UTC)
    time.sleep(1.1)
    for i in range(3):
        fl.play(a, {p: 1500 for p in ps}, seed=10 + i)
    # a gaming day that starts at the cut: the first two rounds fall on the day before
    served = (
        fl.svc.server.app.state.rt
    )  # the server's settings, as PAIGOW_GAMING_DAY_START gives them
    served.use_settings(gaming_day_start=cut.time().isoformat())
    day = GamingDay.of(served.config).day_of(cut.timestamp() + 0.5)
    q = f"/api/admin/floor/report?from={day - dt.timedelta(days=1)}&to={day}"
    report = fl.svc.op.ok(fl.svc.op.get(q))
    lines = {x["gaming_day"]: x for x in report["tables"] if x["table_id"] == a}
    before, after = lines[str(day - dt.timedelta(days=1))], lines[str(day)]
    assert (before["rounds"], before["hands"], before["handle"]) == (2, 4, 4000)
    assert (after["rounds"], after["hands"], after["handle"]) == (3, 6, 9000)
    want = ledger_figures(fl.rt, a)
    assert before["house_result"] + after["house_result"] == want["house_result"]
    assert report["gaming_day"].startswith("from " + cut.time().strftime("%H:%M"))


def test_the_edge_workers_process_ends_with_a_killed_server(tmp_path: Any) -> None:
    """A server killed with ``kill -9`` leaves no edge worker behind (it would wait on its task
    queue forever, holding its memory)."""
    import os
    import signal

    script = (
        "import os, sys, time\n"
        "from paigow.service.floor.edges import EdgeWorker\n"
        "w = EdgeWorker()\n"
        "print(w._executor().submit(os.getpid).result(), flush=True)\n"
        "time.sleep(60)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    gone = False
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert worker != server.pid
        os.kill(worker, 0)  # the worker runs beside its server
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not gone:
            try:
                os.kill(worker, 0)
                time.sleep(0.1)
            except ProcessLookupError:
                gone = True
        assert gone, f"edge worker {worker} outlived its killed server"
    finally:
        server.kill()
        if "worker" in locals() and not gone:
            os.kill(worker, signal.SIGKILL)


def test_a_saved_exact_edge_is_shown_at_once_not_computing(
    fl_sqlite: Floor, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 11: the exact edge ``paigow edge`` saved is on the floor at the first
    look, with no worker started (before: "computing" while a worker recounted it)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(cache))
    saved = saved_result()
    path = cache / saved_name(HouseWay.preset("standard"), "second", "house-way")
    # a result for another deck, or counts that do not add up, are not taken
    path.write_text(json.dumps({**saved, "deck": 52}))
    assert edges.saved_house_way(cache, STANDARD, "second") is None
    path.write_text(json.dumps({**saved, "push": 1}))
    assert edges.saved_house_way(cache, STANDARD, "second") is None
    # nor one counted by other code: another digest of the counting code, or none recorded
    path.write_text(json.dumps({**saved, "code": "0" * 16}))
    assert edges.saved_house_way(cache, STANDARD, "second") is None
    path.write_text(json.dumps({k: v for k, v in saved.items() if k != "code"}))
    assert edges.saved_house_way(cache, STANDARD, "second") is None
    path.write_text(json.dumps(saved))
    assert edges.saved_house_way(cache, STANDARD, "lowest") is None
    # a file under this name holding another house way's counts is not taken
    path.write_text(json.dumps({**saved, "house_way": HouseWay.preset("foxwoods").to_dict()}))
    assert edges.saved_house_way(cache, STANDARD, "second") is None
    path.write_text(json.dumps(saved))

    started: list[str] = []
    monkeypatch.setattr(edges.EdgeWorker, "_executor", lambda self: started.append("pool"))
    fl = fl_sqlite
    a = fl.table(seed_edge=False)
    row = fl.row(a)
    assert row["theoretical"]["status"] == "ready", row["theoretical"]
    assert row["theoretical"]["house_way_hold"]["decimal"] == "0.02721934"
    assert started == []
    assert fl.floor()["gaming_day"] == "from 06:00 to 06:00 the next day, UTC"


def test_a_refused_wager_is_recorded_in_the_audit_log_on_both_back_ends(fl: Floor) -> None:
    """A self-excluded player's refused wager is recorded by the step that refused (its record
    kept, nothing else), before the refusal is answered."""
    a = fl.table()
    (p,) = fl.seat(a, 1, credit=100_000)
    c = fl.players[0][1]
    c.ok(c.post("/api/me/exclusion", {"days": 30}))
    r = c.wager(a, 500)
    assert r.status_code == 403 and r.json()["code"] == "self-excluded"
    found = [
        x
        for x in map(json.loads, fl.svc.op.get("/api/admin/audit").text.splitlines())
        if x["action"] == "wager-refused-excluded"
    ]
    assert [(x["actor"], x["details"]["amount"]) for x in found] == [(p.username, 500)]


# ------------------------------------------------------------------ each table's own push rule
VARIANT_EDGES = {  # the README's exact figures
    "indiana": ("none", Fraction(5, 100), None, "0.02721934"),
    "ez": (
        "queen-high-pai-gow",
        Fraction(0),
        Fraction(28985756726527, 1031307378901800),
        "0.02810584",
    ),
    "commission-free": (
        "nine-high-low",
        Fraction(0),
        Fraction(506316574383, 20221713311800),
        "0.02503826",
    ),
}
"""variant -> (push rule, commission, exact house edge where the README gives it, to 8 places)."""


def _reference_edge(push: str, rate: Fraction) -> Fraction:
    """The house's mean gain per unit wagered from the exact counts: loss - win (1 - rate)."""
    win, pushes = HOUSE_WAY_COUNTS[push]
    return Fraction(DEALS - win - pushes - win * (1 - rate), DEALS)


def _cents(x: Fraction) -> int:
    """An amount of money to the cent, half to even (as the floor rounds its decimals)."""
    return round(x)


def test_the_floors_background_hold_takes_each_tables_push_rule_and_commission(
    fl: Floor, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21, end to end: an EZ table, a commission-free table and an Indiana table, played
    before and after their exact edges are known. The floor hands each ruleset (house way,
    wheel, push rule) to the background worker, whose computation reads the counts ``paigow
    edge --variant`` saved for that push rule; the floor then holds each table to its own exact
    edge at its own commission: its theoretical result (handle x edge) to the cent, its sigma
    and bands, its chart. A push rule ignored anywhere on the way would give the EZ or
    commission-free table the Indiana counts at 0%, and a different figure."""
    from paigow.analysis import edge as E
    from paigow.analysis.runner import TableSpec

    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(cache))

    def no_full_deck_run(*_: Any, **__: Any) -> Any:
        raise AssertionError("a full-deck computation in a test: no saved counts were found")

    monkeypatch.setattr(TableSpec, "open", no_full_deck_run)
    monkeypatch.setattr(E, "house_way_edge", no_full_deck_run)
    # the background worker: this process's, fresh, its jobs kept until the test runs them
    jobs: list[tuple[Any, tuple[Any, ...], Future[Any]]] = []

    class Deferred:
        def submit(self, fn: Any, *args: Any) -> Future[Any]:
            fut: Future[Any] = Future()
            jobs.append((fn, args, fut))
            return fut

    worker = edges.EdgeWorker()
    monkeypatch.setattr(worker, "_executor", Deferred)
    monkeypatch.setattr(edges, "_worker", worker)

    # the reference figures agree with the README's
    for push, rate, exact, text in VARIANT_EDGES.values():
        want = _reference_edge(push, rate)
        assert f"{as_decimal(want):.8f}" == text and exact in (None, want)
    assert len({_reference_edge(p, r) for p, r, _, _ in VARIANT_EDGES.values()}) == 3

    ids = {name: fl.table(seed_edge=False, name=name, variant=name) for name in VARIANT_EDGES}
    seated = {name: fl.seat(tid, 3) for name, tid in ids.items()}
    amounts = [500, 1250, 2000, 777, 10_000, 3333, 2500]
    handle = dict.fromkeys(ids, 0)
    handle_sq = dict.fromkeys(ids, 0)

    def play_rounds(first: int, n: int) -> None:
        for i in range(first, first + n):
            for k, (name, tid) in enumerate(ids.items()):
                wagers = {
                    p: amounts[(i + j + k) % len(amounts)] for j, p in enumerate(seated[name])
                }
                fl.play(tid, wagers, seed=1000 * k + i)
                handle[name] += sum(wagers.values())
                handle_sq[name] += sum(w * w for w in wagers.values())

    play_rounds(0, 4)  # the exact edges not known yet
    view = fl.floor()
    rows = {t["name"]: t for t in view["tables"]}
    for name in ids:
        assert rows[name]["theoretical"]["status"] == "computing", rows[name]["theoretical"]
        assert rows[name]["push"] == VARIANT_EDGES[name][0]
    # one job a ruleset, each with its table's push rule
    asked = sorted(args[3] for _, args, _ in jobs)
    assert asked == sorted(p for p, _, _, _ in VARIANT_EDGES.values())
    assert all(fn is edges.compute_edge_counts for fn, _, _ in jobs)

    # what `paigow edge --variant NAME` saves, then the worker's jobs run
    for push in HOUSE_WAY_COUNTS:
        save_counts(cache, push)
    for fn, args, fut in jobs:
        fut.set_result(fn(*args))  # the done callback stores the counts
    assert not worker._running

    play_rounds(4, 5)  # settled against the known edges
    view = fl.floor()
    rows = {t["name"]: t for t in view["tables"]}
    cents = {}
    for name, (push, rate, _, _) in VARIANT_EDGES.items():
        row, edge = rows[name], _reference_edge(push, rate)
        theo = row["theoretical"]
        assert theo["status"] == "ready", theo
        assert (row["push"], Commission(row["commission"]).rate) == (push, rate)
        assert row["rounds"] == 9 and row["hands"] == 27
        assert row["handle"] == handle[name]
        # the theoretical hold is this table's exact edge, at its commission
        assert Fraction(theo["house_way_hold"]["exact"]) == edge, (name, theo)
        assert theo["house_way_hold"]["decimal"] == f"{as_decimal(edge):.8f}"
        cents[name] = _cents(row["handle"] * edge)
        shown = row["handle"] * Decimal(theo["house_way_hold"]["decimal"])
        assert int(shown.quantize(Decimal(1))) == cents[name], (name, shown, cents[name])
        # its spread and bands from the same counts
        win, pushes = HOUSE_WAY_COUNTS[push]
        p_win, p_loss = Fraction(win, DEALS), Fraction(DEALS - win - pushes, DEALS)
        variance = p_loss + p_win * (1 - rate) ** 2 - edge * edge
        sigma = as_decimal(variance).sqrt(DEC)
        assert theo["sigma_per_hand"] == f"{sigma:.8f}"
        half = Z95 * sigma * Decimal(handle_sq[name]).sqrt(DEC) / Decimal(handle[name])
        lo, hi = (Decimal(x) for x in row["band_95"])
        assert abs(lo - (as_decimal(edge) - half)) <= Decimal("1e-8"), (name, lo)
        assert abs(hi - (as_decimal(edge) + half)) <= Decimal("1e-8"), (name, hi)
        chart = fl.svc.op.ok(fl.svc.op.get(f"/api/admin/floor/tables/{ids[name]}/chart"))
        assert chart["theoretical"] == theo["house_way_hold"]
        assert chart["points"][-1]["handle"] == handle[name]
        # at this handle, another table's push rule would be another figure, to the cent
        for other in HOUSE_WAY_COUNTS.keys() - {push}:
            assert _cents(row["handle"] * _reference_edge(other, rate)) != cents[name], other
    # the push rule alone: EZ and commission-free at 0% against Indiana's counts at 0%
    assert len({rows[n]["theoretical"]["house_way_hold"]["exact"] for n in ids}) == 3
    assert not view["flagged"]
    assert fl.svc.verify()["ok"]
