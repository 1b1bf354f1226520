"""The doors of issue 9 that need ``paigow serve`` processes: forwarded addresses believed only
from named proxies, WebSocket heartbeats, one secret shared by the processes of a deployment, and
``paigow bots`` going on when a server is lost."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from paigow.service.accounts.operators import create_operator
from paigow.service.books.audit import verify
from paigow.service.store.db import Database
from tests.helpers.service import OPERATOR, Client, ServerProcess, WsReader, login, pg_schema

pytestmark = pytest.mark.slow


def _login(url: str, username: str, password: str, xff: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": xff} if xff else {}
    return httpx.post(
        url + "/api/auth/login",
        json={"username": username, "password": password},
        headers=headers,
        timeout=30,
        trust_env=False,
    )


def test_forwarded_addresses_are_believed_only_from_named_proxies(sqlite_url: str) -> None:
    """By default X-Forwarded-For is ignored: rotating it does not escape the limit on failures
    per address. Named with --forwarded-allow-ips, the proxy's forwarded address is the client."""
    create_operator(sqlite_url, *OPERATOR)
    boss, password = OPERATOR
    env = {"PAIGOW_LOGIN_LIMIT_USER": "100", "PAIGOW_LOGIN_LIMIT_ADDR": "5"}
    proc = ServerProcess(sqlite_url, env=env)
    try:
        codes = [
            _login(proc.url, boss, f"nope-{i}", f"203.0.113.{i + 1}").status_code for i in range(6)
        ]
        assert codes == [401] * 5 + [429], codes
    finally:
        proc.stop()
    proc = ServerProcess(sqlite_url, env=env, args=("--forwarded-allow-ips", "127.0.0.1"))
    try:
        codes = [
            _login(proc.url, boss, f"nope-{i}", f"203.0.113.{i + 1}").status_code for i in range(10)
        ]
        assert codes == [401] * 10, codes
        assert _login(proc.url, boss, password, "198.51.100.9").status_code == 200
    finally:
        proc.stop()


def _raw_websocket(url: str, path: str) -> socket.socket:
    """A WebSocket handshake by hand, after which this client never answers a ping."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the server closed during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head[:200]
    return sock


def test_a_client_that_does_not_answer_pings_is_dropped(sqlite_url: str) -> None:
    create_operator(sqlite_url, *OPERATOR)
    env = {"PAIGOW_WS_PING_S": "0.5", "PAIGOW_WS_PING_TIMEOUT_S": "0.5"}
    proc = ServerProcess(sqlite_url, env=env)
    try:
        op = login(proc.url)
        table = op.ok(op.post("/api/admin/tables", {"name": "t"}), 201)["id"]
        answering = WsReader(proc.url, table, None)  # its library answers pings
        silent = _raw_websocket(proc.url, f"/ws/tables/{table}")
        try:
            silent.settimeout(1.0)
            deadline = time.time() + 10
            closed_after = None
            while time.time() < deadline:
                try:
                    data = silent.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    closed_after = time.time()
                    break
            assert closed_after is not None, "the silent client was not dropped within 10 s"
            time.sleep(1.5)
            assert answering.closed is None and answering.thread.is_alive()
        finally:
            silent.close()
            answering.close()
    finally:
        proc.stop()


def test_processes_on_postgresql_share_the_secret_file(tmp_path: Path) -> None:
    with pg_schema() as db_url:
        create_operator(db_url, *OPERATOR)
        data = tmp_path / "data"
        procs = [ServerProcess(db_url, args=("--data-dir", str(data))) for _ in range(2)]
        try:
            token = _login(procs[0].url, *OPERATOR).json()["token"]
            r = httpx.get(
                procs[1].url + "/api/admin/ledger",
                headers={"Authorization": f"Bearer {token}"},
                trust_env=False,
            )
            assert r.status_code == 200, r.text
            files = list(data.glob("*.secret"))
            assert len(files) == 1 and files[0].stat().st_mode & 0o777 == 0o600
            db = Database(db_url)
            try:
                with db.read() as s:
                    assert s.execute(sa.text("SELECT count(*) FROM server_settings")).scalar() == 0
            finally:
                db.dispose()
        finally:
            for p in procs:
                p.stop()


def test_bots_go_on_when_a_server_is_lost(tmp_path: Path) -> None:
    """Bots against two processes on PostgreSQL; one is killed mid-run; the bots finish every
    round with nothing unexpected, the ledger balances and every round replays."""
    with pg_schema() as db_url:
        create_operator(db_url, *OPERATOR)
        pw = tmp_path / "pw"
        pw.write_text(OPERATOR[1])
        procs = [ServerProcess(db_url), ServerProcess(db_url)]
        bots = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "paigow.cli",
                "bots",
                "--url",
                procs[0].url,
                "--url",
                procs[1].url,
                "--operator",
                OPERATOR[0],
                "--operator-password-file",
                str(pw),
                "--tables",
                "2",
                "--players",
                "3",
                "--rounds",
                "6",
                "--betting-ms",
                "400",
                "--setting-ms",
                "2000",
                "--seed",
                "11",
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            db = Database(db_url)
            try:
                deadline = time.time() + 120
                settled = 0
                while time.time() < deadline and bots.poll() is None:
                    with db.read() as s:
                        settled = s.execute(
                            sa.text("SELECT count(*) FROM rounds WHERE phase = 'settled'")
                        ).scalar_one()
                    if settled >= 2:
                        break
                    time.sleep(0.2)
            finally:
                db.dispose()
            assert settled >= 2 and bots.poll() is None, "the bots did not get going"
            procs[0].kill()  # mid-run
            out, err = bots.communicate(timeout=300)
        finally:
            if bots.poll() is None:
                bots.kill()
            for p in procs:
                p.stop()
        assert bots.returncode == 0, out[-3000:] + err[-3000:]
        report = json.loads(out)
        print({k: report[k] for k in ("rounds", "failovers", "ws_reconnects", "errors")})
        assert report["errors"]["unexpected"] == {}, report["error_notes"]
        assert report["ledger_balanced"] and report["replay_mismatches"] == 0
        assert report["failovers"] + report["ws_reconnects"] >= 1, report["errors"]
        assert report["rounds"] >= 6
        assert verify(Database(db_url))["ok"]


def test_a_dealer_keeps_its_deadlines_while_the_hash_pool_is_saturated(sqlite_url: str) -> None:
    """Log-ins flood a server whose hashes are slow (argon2id, 64 MiB, 3 passes) on one thread
    with two places in its queue: the pool is full all along and the excess refused with 503,
    while at a table the dealer deals when betting closes, sets the bank's hand when the setting
    time is up and settles, each step within 250 ms of falling due (one in nine may be up to a
    second, for a machine shared with other tests), round after round."""
    create_operator(sqlite_url, *OPERATOR)
    env = {
        "PAIGOW_HASH_THREADS": "1",
        "PAIGOW_HASH_QUEUE": "2",
        "PAIGOW_ARGON2_MEMORY_KIB": "65536",
        "PAIGOW_ARGON2_TIME_COST": "3",
    }
    proc = ServerProcess(sqlite_url, env=env)
    stop = threading.Event()
    codes: list[int] = []

    def flood() -> None:
        with httpx.Client(base_url=proc.url, timeout=60, trust_env=False, verify=False) as h:
            while not stop.is_set():
                r = h.post(
                    "/api/auth/login",
                    json=dict(zip(("username", "password"), OPERATOR, strict=True)),
                )
                codes.append(r.status_code)
                if r.status_code == 503:
                    time.sleep(0.05)

    flooders = [threading.Thread(target=flood, daemon=True) for _ in range(6)]
    try:
        op = login(proc.url)
        op.ok(
            op.post("/api/auth/register", {"username": "steady", "password": "password-steady"}),
            201,
        )
        op.ok(
            op.post("/api/admin/wallets/steady/credit", {"amount": 10_000, "idempotency_key": "c"})
        )
        setting_s = 0.6
        table = op.ok(
            op.post(
                "/api/admin/tables",
                {"name": "t", "betting_time_ms": 400, "setting_time_ms": int(setting_s * 1000)},
            ),
            201,
        )["id"]
        player = Client(proc.url)
        player.token = player.ok(
            player.post("/api/auth/login", {"username": "steady", "password": "password-steady"})
        )["token"]
        player.sit(table, 1)
        ws = WsReader(proc.url, table, player.token)
        for t in flooders:
            t.start()
        time.sleep(1.0)  # the pool is full by now
        late: list[float] = []
        try:
            for _ in range(3):
                placed = player.ok(player.wager(table, 500))
                rid = placed["round_id"]
                ws.wait_for(
                    lambda m, rid=rid: (
                        m.get("round_id") == rid and m.get("type") == "round-settled"
                    ),
                    30,
                )
                at = {m["type"]: m["committed_at"] for m in ws.messages if m.get("round_id") == rid}
                late += [
                    at["dealt"] - placed["betting_closes_at"],  # deal when betting closes
                    at["dealer-set"] - (at["dealt"] + setting_s),  # the hand set by time-out
                    at["round-settled"] - at["dealer-set"],
                ]
        finally:
            ws.close()
        stop.set()
        for t in flooders:
            t.join(60)
        assert codes.count(503) >= 3 and codes.count(200) >= 3, sorted(set(codes))
        assert set(codes) <= {200, 503}, sorted(set(codes))
        # every step but one within 250 ms of falling due, and none a second late: a hash on
        # the event loop (0.23 s each here, one after another while the flood lasts) makes
        # several steps late; a test machine shared with the suite's other workers may delay
        # one now and then (once 0.38 s, on a day the machine ran the suite 1.7 times slower)
        shown = [round(x, 3) for x in late]
        assert sorted(late)[-2] < 0.25 and max(late) < 1.0, shown
    finally:
        stop.set()
        proc.stop()
