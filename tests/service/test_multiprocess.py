"""Several server processes on one PostgreSQL database: each table's dealer runs in exactly one
process (an advisory lock), a survivor takes the lock over when that process is killed, and table
events reach the WebSocket clients of every process (LISTEN/NOTIFY). And ``paigow bots``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.service.accounts.operators import create_operator
from paigow.service.books.audit import verify
from paigow.service.store.db import Database
from tests.helpers.service import OPERATOR, Client, ServerProcess, WsReader, login, pg_schema

HW = HouseWay.preset("standard")
pytestmark = pytest.mark.slow
JACKPOT = """
name = "mp-jackpot"
target = "player"
[pays]
seven-card-straight-flush = "100% of meter"
flush = "100% of meter"
[progressive]
share = "20%"
seed = "$100"
"""


def dealer_pid(db_url: str, table_id: int) -> int | None:
    """The pid of the process that holds table ``table_id``'s dealer lock (its lock connection
    is named paigow-locks-<pid>)."""
    db = Database(db_url)
    try:
        key = db.namespace_key()
        with db.engine.connect() as conn:
            import sqlalchemy as sa

            name = conn.execute(
                sa.text(
                    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = CAST(:c AS oid) "
                    "AND l.objid = CAST(:o AS oid)"
                ),
                {"c": key & 0xFFFFFFFF, "o": table_id},
            ).scalar()
        return int(name.rsplit("-", 1)[1]) if name else None
    finally:
        db.dispose()


def wait_holder(db_url: str, table_id: int, among: set[int], timeout: float = 15) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline:
        pid = dealer_pid(db_url, table_id)
        if pid in among:
            return pid
        time.sleep(0.05)
    raise AssertionError(f"no process of {among} took the dealer lock of table {table_id}")


def test_two_processes_one_killed(tmp_path: Path) -> None:
    with pg_schema() as db_url:
        create_operator(db_url, *OPERATOR)
        procs = [ServerProcess(db_url), ServerProcess(db_url)]
        try:
            by_pid = {p.proc.pid: p for p in procs}
            op = login(procs[0].url)
            body = {
                "name": "shared",
                "betting_time_ms": 60_000,
                "setting_time_ms": 60_000,
                "side_wagers": [
                    {
                        "name": "jackpot",
                        "paytable_toml": JACKPOT,
                        "min_wager": 100,
                        "max_wager": 1000,
                        "bank": "mp-bank",
                    }
                ],
            }
            table = op.ok(op.post("/api/admin/tables", body), 201)["id"]
            other = op.ok(op.post("/api/admin/tables", {**body, "name": "same bank"}), 201)["id"]
            holder = by_pid[wait_holder(db_url, table, set(by_pid))]
            survivor = next(p for p in procs if p is not holder)
            # exactly one process holds the lock
            time.sleep(0.5)
            assert dealer_pid(db_url, table) == holder.proc.pid

            players = []
            for name in ("amy", "ben"):
                c = Client(survivor.url)
                c.ok(
                    c.post("/api/auth/register", {"username": name, "password": "password-x"}), 201
                )
                op.ok(
                    op.post(
                        f"/api/admin/wallets/{name}/credit",
                        {"amount": 10_000, "idempotency_key": name},
                    )
                )
                c.token = c.ok(
                    c.post("/api/auth/login", {"username": name, "password": "password-x"})
                )["token"]
                players.append(c)
            amy, ben = players
            amy.sit(table, 1)
            ben.sit(table, 2)
            ws_holder = WsReader(holder.url, table, ben.token)  # a client of the doomed process
            ws_amy = WsReader(survivor.url, table, amy.token)
            ws_ben = WsReader(survivor.url, table, ben.token)
            ws_other = WsReader(survivor.url, other, ben.token)  # the bank's other table
            try:
                # each feed is subscribed once its hello came (a wager committed before that is
                # in the hello's log, not sent again as an event)
                for ws in (ws_holder, ws_amy, ws_ben, ws_other):
                    ws.wait_for(lambda m: m.get("type") == "hello")
                round_id = amy.ok(
                    amy.post(
                        f"/api/tables/{table}/wager",
                        {"amount": 1000, "side": {"jackpot": 500}, "idempotency_key": "a1"},
                    )
                )["round_id"]
                # a wager made through the survivor reaches the other process's clients
                ws_holder.wait_for(lambda m: m.get("type") == "wager-placed" and m.get("spot") == 1)
                ws_ben.wait_for(lambda m: m.get("type") == "wager-placed" and m.get("spot") == 1)
                holder.kill()
                wait_holder(db_url, table, {survivor.proc.pid})
                ben.ok(  # all seated have wagered: the survivor deals
                    ben.post(
                        f"/api/tables/{table}/wager",
                        {"amount": 2000, "side": {"jackpot": 300}, "idempotency_key": "b1"},
                    )
                )
                dealt_amy = ws_amy.wait_for(lambda m: m.get("type") == "dealt")
                dealt_ben = ws_ben.wait_for(lambda m: m.get("type") == "dealt")
                assert list(dealt_amy["your_cards"]) == ["1"] and list(dealt_ben["your_cards"]) == [
                    "2"
                ]
                for c, ws, spot in ((amy, ws_amy, "1"), (ben, ws_ben, "2")):
                    cards = ws.wait_for(lambda m: m.get("type") == "dealt")["your_cards"][spot]
                    c.ok(
                        c.set(table, [x.code for x in HW.set_hand(parse_cards(cards)).setting.low])
                    )
                settled = ws_amy.wait_for(lambda m: m.get("type") == "round-settled")
                assert settled["round_id"] == round_id
                ws_ben.wait_for(lambda m: m.get("type") == "round-settled")
                # the meter (seed and the two wagers' shares, less any hit) reaches every table
                # of its bank
                hits = [
                    m
                    for m in ws_amy.messages
                    if m.get("type") == "side-wager-settled" and m["meter"] != m["meter_after"]
                ]
                want = 10_000 + 100 + 60 if not hits else hits[-1]["meter_after"]
                for ws in (ws_amy, ws_other):
                    m = ws.wait_for(lambda m: m.get("type") == "meter")
                    assert m == {"type": "meter", "bank": "mp-bank", "meter": want}
                state = amy.ok(amy.get(f"/api/tables/{other}"))
                assert state["meters"] == {"mp-bank": want}
            finally:
                for ws in (ws_holder, ws_amy, ws_ben, ws_other):
                    ws.close()
            report = verify(Database(db_url))
            assert report["ok"] and report["rounds"] == 1, report
            assert report["ledger"]["system_accounts"]["progressive:meter"] == want
            audit = op.__class__(survivor.url, op.token).get("/api/admin/audit").text
            assert '"action":"round-resumed"' in audit
        finally:
            for p in procs:
                p.stop()


def _bots(url: str, pw: Path, *extra: str) -> dict[str, Any]:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "paigow.cli",
            "bots",
            "--url",
            url,
            "--operator",
            "boss",
            "--operator-password-file",
            str(pw),
            "--betting-ms",
            "500",
            "--setting-ms",
            "2000",
            "--json",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return json.loads(r.stdout)


def test_bots_against_two_processes(tmp_path: Path) -> None:
    with pg_schema() as db_url:
        create_operator(db_url, *OPERATOR)
        pw = tmp_path / "pw"
        pw.write_text(OPERATOR[1])
        procs = [ServerProcess(db_url), ServerProcess(db_url)]
        try:
            report = _bots(
                ",".join(p.url for p in procs),
                pw,
                "--tables",
                "3",
                "--players",
                "3",
                "--rounds",
                "3",
                "--seed",
                "7",
            )
        finally:
            for p in procs:
                p.stop()
        for key in (
            "rounds",
            "requests",
            "errors",
            "latency_ms",
            "ledger_balanced",
            "replay_mismatches",
        ):
            assert key in report
        assert (
            report["rounds"] >= 3 and report["ledger_balanced"] and report["replay_mismatches"] == 0
        )
        assert report["errors"]["unexpected"] == {}
        assert set(report["latency_ms"]["wager"]) == {"p50", "p99", "n"}
        # side wagers at three tables sharing one progressive meter, through two processes
        assert report["side_wagered"] > 0
        assert verify(Database(db_url))["ok"]


def test_bots_cli_on_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    create_operator(sqlite_url, *OPERATOR)
    pw = tmp_path / "pw"
    pw.write_text(OPERATOR[1])
    proc = ServerProcess(sqlite_url)
    try:
        report = _bots(
            proc.url, pw, "--tables", "2", "--players", "4", "--rounds", "3", "--seed", "3"
        )
        assert (
            report["rounds"] >= 3 and report["ledger_balanced"] and report["replay_mismatches"] == 0
        )
        assert report["errors"]["unexpected"] == {}
        assert report["side_wagered"] > 0 and report["side_returned"] >= 0
        bad = subprocess.run(
            [sys.executable, "-m", "paigow.cli", "bots", "--url", proc.url, "--operator", "boss"],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin"},
        )
        assert bad.returncode != 0
    finally:
        proc.stop()
