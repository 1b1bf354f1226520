"""``paigow serve`` itself: the default database, the URL it prints, health, the OpenAPI document;
and the WebSocket's answers to bad tokens and unknown tables."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect


@pytest.mark.slow
def test_serve_defaults_to_a_sqlite_file_here(tmp_path: Path) -> None:
    env = {**os.environ, "PAIGOW_DEALER_POLL_S": "0.05"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "paigow.cli", "serve", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("paigow table server: http://127.0.0.1:"), line
        url = line.split(": ", 1)[1].strip()
        assert url.endswith("/")
        http = httpx.Client(base_url=url, trust_env=False, verify=False)
        assert http.get("api/health").json() == {"status": "ok", "storage": "ok"}
        doc = http.get("openapi.json").json()
        assert doc["info"]["title"] == "paigow table service"
        paths = doc["paths"]
        for path in (
            "/api/auth/register",
            "/api/auth/login",
            "/api/me",
            "/api/tables",
            "/api/tables/{table_id}",
            "/api/tables/{table_id}/sit",
            "/api/tables/{table_id}/leave",
            "/api/tables/{table_id}/wager",
            "/api/tables/{table_id}/set",
            "/api/tables/{table_id}/hand",
            "/api/tables/{table_id}/hint",
            "/api/tables/{table_id}/rounds",
            "/api/rounds/{round_id}",
            "/api/admin/tables",
            "/api/admin/tables/{table_id}/close",
            "/api/admin/wallets/{username}/credit",
            "/api/admin/wallets/{username}/debit",
            "/api/admin/audit",
            "/api/admin/ledger",
            "/api/health",
        ):
            assert path in paths, path
            for op in paths[path].values():
                assert op.get("tags") and op.get("summary") is not None
        assert "409" in paths["/api/tables/{table_id}/wager"]["post"]["responses"]
        assert (tmp_path / "paigow-tables.sqlite3").exists()
    finally:
        proc.terminate()
        proc.wait(10)
    assert proc.stderr is not None
    assert "database sqlite:///" in proc.stderr.read()


def test_serve_refuses_a_bad_database_url() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "paigow.cli", "serve", "--port", "0", "--database", "mysql://x/y"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and "unsupported" in r.stderr


def test_websocket_answers(svc: Any) -> None:
    table = svc.new_table()
    base = svc.url.replace("http://", "ws://")
    with connect(f"{base}/ws/tables/{table}?token=forged.token", proxy=None, legacy=True) as ws:
        import json

        msg = json.loads(ws.recv(timeout=10))
        assert msg["type"] == "error" and msg["code"] == "invalid-token"
        with pytest.raises(Exception):  # noqa: B017 - closed by the server
            ws.recv(timeout=10)
        assert ws.close_code == 4401
    with connect(f"{base}/ws/tables/99999", proxy=None, legacy=True) as ws:
        msg = json.loads(ws.recv(timeout=10))
        assert msg["code"] == "no-table"
        with pytest.raises(Exception):  # noqa: B017
            ws.recv(timeout=10)
        assert ws.close_code == 4404
    # a spectator gets the table and a pong
    with connect(f"{base}/ws/tables/{table}", proxy=None, legacy=True) as ws:
        hello = json.loads(ws.recv(timeout=10))
        assert hello["type"] == "hello" and hello["viewer"] is None
        assert hello["table"]["commission_posted"] == "5%"
        ws.send("ping")
        deadline = time.time() + 10
        while time.time() < deadline:
            if json.loads(ws.recv(timeout=10))["type"] == "pong":
                break
        else:
            raise AssertionError("no pong")


def test_operators_see_no_cards_during_a_round(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=5000)
    a = svc.player()
    a.sit(table, 1)
    rid = a.ok(a.wager(table, 1000))["round_id"]
    h = a.wait_dealt(table)
    live = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
    assert not live["complete_log"]
    shown = str(live)
    assert "deck" not in shown and "leftover" not in shown
    assert all(e.get("your_cards") is None for e in live["events"])
    assert not any(c in [x for e in live["events"] for x in e.get("high", [])] for c in h["cards"])
