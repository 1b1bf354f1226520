"""Every route answers after a PostgreSQL outage (issue 34).

A private cluster (:mod:`tests.helpers.pg_cluster`), two ``paigow serve`` processes on it, bots
playing; the postmaster is SIGKILLed, restarted, stopped ``immediate`` and restarted again. Then
every route of the app (listed from ``create_app(...).routes``) and the WebSocket are called on
both servers: once both answer ``/api/health``, no request may answer 5xx.
"""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from paigow.service.accounts.operators import create_operator
from tests.helpers import pg_cluster
from tests.helpers.service import OPERATOR, Client, ServerProcess, WsReader, run_bots

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not pg_cluster.available(), reason="no PostgreSQL 15 binaries here"),
]

SETTLE_S = 3.0
"""After both servers answer /api/health again, how long a coded 503 (``busy``) is still
forgiven; a 500 never is."""


def app_routes(tmp_path: Path) -> list[tuple[str, str]]:
    """Every (method, path) of the app and its routers (WebSocket routes as ``WS``)."""
    from paigow.service.process.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'routes.sqlite3'}")
    out: list[tuple[str, str]] = []

    def walk(routes: Any) -> None:
        for r in routes:
            if hasattr(r, "original_router"):
                walk(r.original_router.routes)
            elif type(r).__name__ == "APIWebSocketRoute":
                out.append(("WS", r.path))
            elif type(r).__name__ == "APIRoute":
                out.extend((m, r.path) for m in sorted(r.methods) if m != "HEAD")

    walk(app.routes)
    return out


def wait_healthy(url: str, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer /api/health")


class Sweep:
    """Calls on one server; records every 5xx seen after ``strict_from``."""

    def __init__(self, url: str, strict_from: float) -> None:
        self.url, self.strict_from = url, strict_from
        self.failures: list[str] = []
        self.forgiven: list[str] = []
        """The 5xx answers of the settling window (reported, not failed)."""
        self.called: set[tuple[str, str]] = set()

    def call(self, c: Any, route: tuple[str, str], path: str, body: Any = None) -> httpx.Response:
        """``c``'s request, retried while a 5xx is still forgiven; a later 5xx is recorded."""
        self.called.add(route)
        method = route[0]
        while True:
            try:
                r: httpx.Response = (
                    c.get(path) if method == "GET" else c.post(path, {} if body is None else body)
                )
            except httpx.TransportError as e:
                if time.time() < self.strict_from:
                    time.sleep(0.2)
                    continue
                self.failures.append(f"{self.url} {method} {path}: {e!r}")
                raise
            if r.status_code < 500:
                return r
            if time.time() < self.strict_from and coded(r):
                self.forgiven.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
                time.sleep(0.2)
                continue
            self.failures.append(f"{self.url} {method} {path}: {r.status_code} {r.text[:300]}")
            return r


def coded(r: httpx.Response) -> bool:
    """A refusal the service means (a ``ServiceError``'s JSON with its code), not a crash."""
    try:
        return r.status_code != 500 and "code" in r.json()
    except ValueError:
        return False


def exercise(url: str, routes: list[tuple[str, str]], strict_from: float) -> Sweep:
    """The players' flow first (register, login, me, sit, wager, hand, set, leave, recall), then
    every other route with its path filled in; the destructive ones last."""
    s = Sweep(url, strict_from)
    anon = Client(url)
    r = s.call(anon, ("POST", "/api/auth/login"), "/api/auth/login",
               {"username": OPERATOR[0], "password": OPERATOR[1]})  # fmt: skip
    assert r.status_code == 200, r.text
    op = Client(url, r.json()["token"], OPERATOR[0])

    name = "o" + secrets.token_hex(4)
    pw = "password-" + name
    r = s.call(anon, ("POST", "/api/auth/register"), "/api/auth/register",
               {"username": name, "password": pw})  # fmt: skip
    assert r.status_code == 201, r.text
    r = s.call(op, ("POST", "/api/admin/wallets/{username}/credit"),
               f"/api/admin/wallets/{name}/credit",
               {"amount": 100_000, "idempotency_key": secrets.token_hex(8)})  # fmt: skip
    assert r.status_code == 200, r.text
    r = s.call(anon, ("POST", "/api/auth/login"), "/api/auth/login",
               {"username": name, "password": pw})  # fmt: skip
    assert r.status_code == 200, r.text
    p = Client(url, r.json()["token"], name)
    s.call(p, ("GET", "/api/me"), "/api/me")
    r = s.call(op, ("POST", "/api/admin/tables"), "/api/admin/tables",
               {"name": "after", "betting_time_ms": 400, "setting_time_ms": 5000})  # fmt: skip
    assert r.status_code == 201, r.text
    table = int(r.json()["id"])
    s.call(p, ("GET", "/api/tables"), "/api/tables")
    r = s.call(p, ("POST", "/api/tables/{table_id}/sit"), f"/api/tables/{table}/sit", {"spot": 1})
    assert r.status_code == 200, r.text
    s.call(p, ("POST", "/api/tables/{table_id}/wager"), f"/api/tables/{table}/wager",
           {"amount": 1000, "idempotency_key": secrets.token_hex(8)})  # fmt: skip
    s.call(p, ("GET", "/api/tables/{table_id}/hand"), f"/api/tables/{table}/hand")
    s.call(p, ("POST", "/api/tables/{table_id}/set"), f"/api/tables/{table}/set",
           {"low": ["2c", "3d"]})  # fmt: skip
    r = s.call(p, ("GET", "/api/tables/{table_id}/rounds"), f"/api/tables/{table}/rounds")
    rounds = r.json() if r.status_code == 200 else []
    items = rounds.get("rounds", rounds.get("items", [])) if isinstance(rounds, dict) else rounds
    round_id = str(items[0]["id"]) if items else "0" * 32

    # the WebSocket: a table's feed opens and sends its first message
    s.called.add(("WS", "/ws/tables/{table_id}"))
    ws = WsReader(url, table, p.token)
    try:
        ws.wait_for(lambda m: True, timeout=15)
    except Exception as e:
        s.failures.append(f"{url} WS /ws/tables/{table}: {e!r}")
    finally:
        ws.close()

    fill = {"{table_id}": str(table), "{round_id}": round_id, "{username}": name,
            "{bank}": "fortune"}  # fmt: skip
    last = {"/api/auth/logout", "/api/admin/tables/{table_id}/close", "/api/me/exclusion",
            "/api/admin/users/{username}/sessions/revoke"}  # fmt: skip
    todo = [rt for rt in routes if rt not in s.called and rt[0] != "WS"]
    todo.sort(key=lambda rt: rt[1] in last)
    for method, path in todo:
        filled = path
        for k, v in fill.items():
            filled = filled.replace(k, v)
        who = op if "/admin/" in path else p
        s.call(who, (method, path), filled)
    return s


def test_every_route_answers_after_outage(tmp_path: Path) -> None:
    routes = app_routes(tmp_path)
    assert ("POST", "/api/auth/register") in routes and ("WS", "/ws/tables/{table_id}") in routes
    with pg_cluster.cluster() as pg:
        url = pg.url()
        create_operator(url, *OPERATOR)
        procs = [ServerProcess(url), ServerProcess(url)]
        try:
            done = threading.Event()
            report: dict[str, Any] = {}

            def play() -> None:
                try:
                    report.update(
                        run_bots(
                            ",".join(p.url for p in procs),
                            tables=2,
                            players=3,
                            rounds=4,
                            seed=34,
                            failover_s=40.0,
                            betting_ms=400,
                            setting_ms=2000,
                        )
                    )
                except Exception as e:  # the outage may end a bot's run
                    report["error"] = repr(e)
                finally:
                    done.set()

            bots = threading.Thread(target=play, daemon=True)
            bots.start()
            time.sleep(8)  # rounds under way on both servers
            pg.kill()  # under play
            time.sleep(1)
            pg.start()
            done.wait(150)  # the bots carry on through it and end
            pg.stop("immediate")  # idle servers: their pools hold connections now dead
            time.sleep(1)
            pg.start()
            for proc in procs:
                wait_healthy(proc.url)
            strict_from = time.time() + SETTLE_S
            failures: list[str] = []
            for proc in procs:
                sweep = exercise(proc.url, routes, strict_from)
                missing = set(routes) - sweep.called
                assert not missing, f"routes not exercised: {sorted(missing)}"
                failures += sweep.failures
                print(f"{proc.url}: {len(sweep.forgiven)} 5xx forgiven", sweep.forgiven[:5])
            logs = "".join(line for p in procs for line in p.lines[-60:])
            assert not failures, "\n".join(failures) + "\n" + logs
            assert all(p.proc.poll() is None for p in procs), "a server ended"
        finally:
            for p in procs:
                p.stop()
