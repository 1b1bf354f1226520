"""``paigow serve --workers N``: several processes on one port (PostgreSQL), refused on SQLite."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from paigow.cards import parse_cards
from paigow.house_way import HouseWay

pytestmark = pytest.mark.slow


def test_workers_refused_with_sqlite(tmp_path: Any) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "paigow.cli",
            "serve",
            "--port",
            "0",
            "--workers",
            "2",
            "--database",
            f"sqlite:///{tmp_path / 'x.sqlite3'}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0
    assert "--workers 2 needs PostgreSQL" in r.stdout + r.stderr


def test_two_workers_on_postgresql_share_a_port_and_play(helpers: Any) -> None:
    from paigow.service.admin import create_operator

    with helpers.pg_schema() as url:
        create_operator(url, *helpers.OPERATOR)
        server = helpers.ServerProcess(url, args=("--workers", "2"))
        try:
            base = server.url
            workers: set[str] = set()
            deadline = time.time() + 60
            while len(workers) < 2 and time.time() < deadline:
                # a fresh connection each time: the kernel hands it to either process
                with httpx.Client(base_url=base, timeout=10, trust_env=False) as h:
                    r = h.get("/api/health")
                if r.status_code == 200:
                    workers.add(r.headers["X-Paigow-Worker"])
                else:
                    time.sleep(0.1)
            assert len(workers) == 2, f"answers came from {workers}"
            assert str(server.proc.pid) not in workers  # the supervisor serves nothing itself
            # a round through the shared port, each request on a fresh connection
            svc = helpers.Service.__new__(helpers.Service)
            svc.db_url, svc.url, svc._n = url, base, 0
            svc.op = svc.login(*helpers.OPERATOR)
            tid = svc.new_table(betting_time_ms=60_000, setting_time_ms=30_000)
            a, b = svc.player(), svc.player()
            a.sit(tid, 1)
            b.sit(tid, 2)
            a.ok(a.wager(tid, 500))
            b.ok(b.wager(tid, 500))  # everyone has wagered: the dealer deals at once
            way = HouseWay.preset("standard")
            for c in (a, b):
                cards = c.wait_dealt(tid, timeout=30)["cards"]
                c.ok(c.set(tid, [x.code for x in way.set_hand(parse_cards(cards)).setting.low]))
            a.wait_phase(tid, ("settled", None), timeout=30)  # None: the round is over
            (played,) = a.ok(a.get(f"/api/tables/{tid}/rounds"))
            assert played["phase"] == "settled"
            assert sorted(played["players"]) == ["1", "2"]
            report = svc.verify()
            assert report["ledger_balanced"] and report["ok"], report
        finally:
            server.stop()
            assert server.proc.returncode is not None
