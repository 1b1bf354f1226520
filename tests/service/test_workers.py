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
from tests.helpers.service import OPERATOR, Client, ServerProcess, Service, pg_schema

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


def test_two_workers_on_postgresql_share_a_port_and_play() -> None:
    from paigow.service.accounts.operators import create_operator

    with pg_schema() as url:
        create_operator(url, *OPERATOR)
        server = ServerProcess(url, args=("--workers", "2"))
        try:
            base = server.url
            workers: set[str] = set()
            deadline = time.time() + 60
            while len(workers) < 2 and time.time() < deadline:
                # a fresh connection each time: the kernel hands it to either process
                with httpx.Client(base_url=base, timeout=10, trust_env=False, verify=False) as h:
                    r = h.get("/api/health")
                if r.status_code == 200:
                    workers.add(r.headers["X-Paigow-Worker"])
                else:
                    time.sleep(0.1)
            assert len(workers) == 2, f"answers came from {workers}"
            assert str(server.proc.pid) not in workers  # the supervisor serves nothing itself
            # a round through the shared port, each request on a fresh connection
            svc = Service.__new__(Service)
            svc.db_url, svc.url, svc._n = url, base, 0
            svc.op = svc.login(*OPERATOR)
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


def _dealer_pid(db_url: str, table_id: int) -> int | None:
    """The pid of the process holding the table's dealer lock (connection paigow-locks-<pid>)."""
    import sqlalchemy as sa

    from paigow.service.store.db import Database

    db = Database(db_url)
    try:
        key = db.namespace_key()
        with db.engine.connect() as conn:
            name = conn.execute(
                sa.text(
                    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
                    "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                    "AND l.classid = CAST(:c AS oid) AND l.objid = CAST(:o AS oid)"
                ),
                {"c": key & 0xFFFFFFFF, "o": table_id},
            ).scalar()
        return int(name.rsplit("-", 1)[1]) if name else None
    finally:
        db.dispose()


def test_cards_reach_a_player_whose_wager_another_process_took() -> None:
    """A process's feed hands on the events it committed itself without reading them back; the
    owners of wagers that another process took must stay known, or the deal would not show
    their cards to their players."""
    from paigow.service.accounts.operators import create_operator

    with pg_schema() as url:
        create_operator(url, *OPERATOR)
        procs = [ServerProcess(url), ServerProcess(url)]
        try:
            svc = Service.__new__(Service)
            svc.db_url, svc.url, svc._n = url, procs[0].url, 0
            svc.op = svc.login(*OPERATOR)
            tid = svc.new_table(betting_time_ms=60_000, setting_time_ms=60_000)
            by_pid = {p.proc.pid: p for p in procs}
            deadline = time.time() + 30
            while (pid := _dealer_pid(url, tid)) not in by_pid and time.time() < deadline:
                time.sleep(0.05)
            assert pid in by_pid, "no process took the dealer lock"
            dealer, other = by_pid[pid], next(p for p in procs if p.proc.pid != pid)
            a, b = svc.player(), svc.player()
            a_here = Client(dealer.url, a.token, a.username)
            b_there = Client(other.url, b.token, b.username)
            ws_a, ws_b = a_here.ws(tid), Client(dealer.url, b.token).ws(tid)
            try:
                for ws in (ws_a, ws_b):  # subscribed: later events come as messages
                    ws.wait_for(lambda m: m.get("type") == "hello")
                a_here.sit(tid, 1)
                b_there.sit(tid, 2)
                a_here.ok(a_here.wager(tid, 500))  # committed by the dealing process
                ws_b.wait_for(lambda m: m.get("type") == "wager-placed" and m["spot"] == 1)
                b_there.ok(b_there.wager(tid, 500))  # by the other: the dealer then deals
                dealt_b = ws_b.wait_for(lambda m: m.get("type") == "dealt", timeout=30)
                dealt_a = ws_a.wait_for(lambda m: m.get("type") == "dealt", timeout=30)
                assert len(dealt_b.get("your_cards", {}).get("2", [])) == 7, dealt_b
                assert len(dealt_a.get("your_cards", {}).get("1", [])) == 7, dealt_a
                assert "1" not in dealt_b["your_cards"] and "2" not in dealt_a["your_cards"]
            finally:
                ws_a.close()
                ws_b.close()
        finally:
            for p in procs:
                p.stop()


def test_the_workers_of_a_killed_supervisor_stop_and_free_the_port() -> None:
    """``kill -9`` of the supervisor: its workers notice, stop gracefully (their steps
    finish) and leave the port to a server started again; none serves on, unsupervised."""
    import contextlib
    import os
    import signal
    import socket

    with pg_schema() as url:
        server = ServerProcess(url, args=("--workers", "2"))
        try:
            port = int(server.url.rsplit(":", 1)[1].strip("/"))
            workers: set[int] = set()
            deadline = time.time() + 60
            while len(workers) < 2 and time.time() < deadline:
                with httpx.Client(
                    base_url=server.url, timeout=10, trust_env=False, verify=False
                ) as h:
                    r = h.get("/api/health")
                if r.status_code == 200:
                    workers.add(int(r.headers["X-Paigow-Worker"]))
            assert len(workers) == 2
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(10)
            alive = set(workers)
            deadline = time.time() + 30
            while alive and time.time() < deadline:
                for pid in list(alive):
                    try:
                        os.kill(pid, 0)
                    except ProcessLookupError:
                        alive.discard(pid)
                time.sleep(0.1)
            assert not alive, f"workers {alive} outlived their killed supervisor"
            with socket.socket() as s:  # the port is free for a server started again
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", port))
        finally:
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            server.stop()
