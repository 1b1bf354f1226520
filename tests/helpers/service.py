"""The table service's test helpers: a live server in a thread (:class:`Service`,
:class:`LiveServer`), ``paigow serve`` processes (:class:`ServerProcess`), HTTP and WebSocket
clients, PostgreSQL schemas (:func:`pg_schema`) and migrated SQLite copies
(:func:`migrated_sqlite`). Tests import them from here (``from tests.helpers.service import
...``); the fixtures built on them are in ``tests/service/conftest.py``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

# Fast password hashing for tests (the servers started as subprocesses inherit it).
os.environ.setdefault("PAIGOW_ARGON2_MEMORY_KIB", "1024")
os.environ.setdefault("PAIGOW_ARGON2_TIME_COST", "1")
# Token secret files of PostgreSQL servers (one per test schema) go to a temporary folder, not
# ~/.local/share/paigow (the servers started as subprocesses share it).
os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp(prefix="paigow-test-data-"))
for _proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
    os.environ.pop(_proxy, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

PG_HOST = "127.0.0.1"
PG_PORT = 5432
PG_DB = "test"
FAST = {"dealer_poll_s": 0.05, "lock_poll_s": 0.1}
OPERATOR = ("boss", "operator-password")


T = TypeVar("T")


def run_on_own_loop(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a thread of its own (a browser test's event loop may be running on
    this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


# ----------------------------------------------------------------------------- PostgreSQL
_pg_user: str | bool | None = False


def pg_user() -> str | None:
    """The PostgreSQL user that works (trust auth): postgres, else root; None if no server."""
    global _pg_user
    if _pg_user is False:
        import psycopg

        _pg_user = None
        for user in ("postgres", "root"):
            try:
                with psycopg.connect(
                    host=PG_HOST, port=PG_PORT, dbname=PG_DB, user=user, connect_timeout=3
                ):
                    _pg_user = user
                    break
            except psycopg.Error:
                continue
    return _pg_user if isinstance(_pg_user, str) else None


def pg_admin() -> Any:
    import psycopg

    user = pg_user()
    assert user is not None
    return psycopg.connect(host=PG_HOST, port=PG_PORT, dbname=PG_DB, user=user, autocommit=True)


def pg_url(schema: str) -> str:
    return f"postgresql://{pg_user()}@{PG_HOST}:{PG_PORT}/{PG_DB}?options=-csearch_path%3D{schema}"


_TEMPLATES: dict[str, Any] = {}
"""Migrated databases, one per backend and process: a test's database is a copy of it (its
rows and all), not a run of every migration (a second or more each)."""


def migrated_sqlite(path: Path) -> str:
    """The URL of a migrated SQLite database at ``path``: a copy of this process's template."""
    import shutil

    from paigow.service.store.db import Database

    template = _TEMPLATES.get("sqlite")
    if template is None:
        template = Path(tempfile.mkdtemp(prefix="paigow-template-")) / "template.sqlite3"
        d = Database(f"sqlite:///{template}")
        d.migrate()
        d.dispose()
        _TEMPLATES["sqlite"] = template
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


def _pg_template_sql() -> str:
    """This process's migrated PostgreSQL schema as SQL (``pg_dump --inserts``) naming it
    ``__SCHEMA__``, made once: a migrated schema, dumped, dropped."""
    sql = _TEMPLATES.get("postgresql")
    if sql is None:
        import re

        from paigow.service.store.db import Database

        name = "tmpl_" + uuid.uuid4().hex[:12]
        with pg_admin() as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        try:
            d = Database(pg_url(name))
            d.migrate()
            d.dispose()
            dump = subprocess.run(
                ["pg_dump", "-h", PG_HOST, "-p", str(PG_PORT), "-U", str(pg_user()), "-d",
                 PG_DB, "--schema", name, "--inserts", "--no-owner", "--no-privileges"],
                capture_output=True, text=True, check=True, timeout=60,
            ).stdout  # fmt: skip
        finally:
            with pg_admin() as conn:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        lines = [
            line
            for line in dump.splitlines()
            if line.strip()
            and not line.startswith(("--", "\\"))
            and "transaction_timeout" not in line
        ]
        sql = re.sub(rf"\b{name}\b", "__SCHEMA__", "\n".join(lines))
        _TEMPLATES["postgresql"] = sql
    return str(sql)


@contextlib.contextmanager
def pg_schema(migrated: bool = False) -> Iterator[str]:
    """A fresh schema in the database ``test`` (``migrated``: a copy of this process's migrated
    template), dropped afterwards."""
    if pg_user() is None:
        pytest.skip(f"no PostgreSQL server at {PG_HOST}:{PG_PORT} (database {PG_DB})")
    schema = "t_" + uuid.uuid4().hex[:12]
    template = _pg_template_sql() if migrated else ""
    with pg_admin() as conn:
        if template:
            conn.execute(template.replace("__SCHEMA__", schema))  # CREATE SCHEMA among it
        else:
            conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield pg_url(schema)
    finally:
        with pg_admin() as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid() AND query LIKE %s",
                (PG_DB, f"%{schema}%"),
            )
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


# ----------------------------------------------------------------------------- a live server
class LiveServer:
    """The service in a uvicorn server on a thread of this process."""

    def __init__(self, db_url: str, **overrides: Any) -> None:
        import uvicorn

        from paigow.service.process.app import create_app

        self.db_url = db_url
        self.app = create_app(db_url, **{**FAST, **overrides})
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.time() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)
        if self.thread.is_alive():
            import faulthandler

            faulthandler.dump_traceback(all_threads=True)
        assert not self.thread.is_alive(), "the test server did not stop"


class Client:
    """An HTTP client of the service with helpers for the routes."""

    def __init__(self, url: str, token: str | None = None, username: str | None = None) -> None:
        self.url = url
        self.token = token
        self.username = username
        self.http = httpx.Client(base_url=url, timeout=30, trust_env=False, verify=False)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.http.get(path, headers={**self.headers, **kw.pop("headers", {})}, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> httpx.Response:
        return self.http.post(
            path, json=body, headers={**self.headers, **kw.pop("headers", {})}, **kw
        )

    def ok(self, r: httpx.Response, status: int = 200) -> Any:
        assert r.status_code == status, (
            f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
        )
        return r.json()

    # routes
    def sit(self, table: int, spot: int) -> Any:
        return self.ok(self.post(f"/api/tables/{table}/sit", {"spot": spot}))

    def wager(self, table: int, amount: int, key: str | None = None) -> httpx.Response:
        return self.post(
            f"/api/tables/{table}/wager",
            {"amount": amount, "idempotency_key": key or secrets.token_hex(8)},
        )

    def hand(self, table: int) -> Any:
        return self.ok(self.get(f"/api/tables/{table}/hand"))

    def set(self, table: int, low: list[str], confirm_foul: bool = False) -> httpx.Response:
        return self.post(f"/api/tables/{table}/set", {"low": low, "confirm_foul": confirm_foul})

    def balance(self) -> int:
        return int(self.ok(self.get("/api/me"))["balance"])

    def play_balance(self) -> int | None:
        """The player's play money (practice tables), None before any."""
        found = self.ok(self.get("/api/me"))["play_balance"]
        return None if found is None else int(found)

    def table(self, table: int) -> Any:
        return self.ok(self.get(f"/api/tables/{table}"))

    def wait_dealt(self, table: int, timeout: float = 15) -> Any:
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = self.get(f"/api/tables/{table}/hand")
            if r.status_code == 200 and r.json()["cards"]:
                return r.json()
            time.sleep(0.03)
        raise AssertionError(f"no cards dealt at table {table}")

    def wait_phase(self, table: int, phases: tuple[str | None, ...], timeout: float = 15) -> Any:
        deadline = time.time() + timeout
        state = None
        while time.time() < deadline:
            state = self.table(table)
            phase = state["round"]["phase"] if state["round"] else None
            if phase in phases:
                return state
            time.sleep(0.03)
        raise AssertionError(f"table {table} never reached {phases}: {state}")

    def ws(self, table: int, token: str | None = None) -> WsReader:
        return WsReader(self.url, table, token if token is not None else self.token)


class WsReader:
    """A WebSocket client reading table events on a thread, with waits that time out."""

    def __init__(
        self,
        url: str,
        table: int,
        token: str | None,
        *,
        cookie: str | None = None,
        origin: str | None = None,
    ) -> None:
        """``cookie``: the session cookie's value, sent as a browser does (with ``origin``)."""
        from websockets.sync.client import connect

        from paigow.service.api.deps import SESSION_COOKIE

        ws_url = url.replace("http://", "ws://") + f"/ws/tables/{table}"
        if token:
            ws_url += f"?token={token}"
        headers = {"Cookie": f"{SESSION_COOKIE}={cookie}"} if cookie else {}
        self.conn = connect(
            ws_url,
            proxy=None,
            open_timeout=10,
            legacy=True,
            origin=origin,  # type: ignore[arg-type]
            additional_headers=headers,
        )
        self.messages: list[dict[str, Any]] = []
        self.q: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.closed: int | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.conn:
                msg = json.loads(raw)
                self.messages.append(msg)
                self.q.put(msg)
        except Exception:
            pass
        self.closed = self.conn.close_code
        self.q.put(None)

    def wait_for(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 15
    ) -> dict[str, Any]:
        for m in list(self.messages):
            if pred(m):
                return m
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                m = self.q.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            if m is None:
                break
            if pred(m):
                return m
        raise AssertionError(
            f"no such WebSocket message; got {[x.get('type') for x in self.messages]}"
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        self.thread.join(5)


class Service:
    """A live server on a fresh database with an operator logged in."""

    def __init__(self, db_url: str, **overrides: Any) -> None:
        from paigow.service.accounts.operators import create_operator

        self.db_url = db_url
        create_operator(db_url, *OPERATOR)
        self.server = LiveServer(db_url, **overrides)
        self.url = self.server.url
        self.op = self.login(*OPERATOR)
        self._n = 0

    def stop(self) -> None:
        self.server.stop()

    def login(self, username: str, password: str) -> Client:
        return login(self.url, username, password)

    def player(self, name: str | None = None, credit: int = 100_000) -> Client:
        self._n += 1
        name = name or f"p{self._n}_{secrets.token_hex(2)}"
        c = Client(self.url)
        # registered with the operator's token: not counted against this address's limit
        body = {"username": name, "password": "password-" + name}
        c.ok(c.post("/api/auth/register", body, headers=self.op.headers), 201)
        if credit:
            self.credit(name, credit)
        return self.login(name, "password-" + name)

    def credit(self, name: str, amount: int, key: str | None = None) -> Any:
        return self.op.ok(
            self.op.post(
                f"/api/admin/wallets/{name}/credit",
                {"amount": amount, "idempotency_key": key or secrets.token_hex(8)},
            )
        )

    def new_table(self, **cfg: Any) -> int:
        body = {"name": "t", "betting_time_ms": 400, "setting_time_ms": 5000, **cfg}
        return int(self.op.ok(self.op.post("/api/admin/tables", body), 201)["id"])

    def verify(self) -> dict[str, Any]:
        from paigow.service.books.audit import verify
        from paigow.service.store.db import Database

        db = Database(self.db_url)
        try:
            return verify(db)
        finally:
            db.dispose()


# ----------------------------------------------------------------------------- server processes
class ServerProcess:
    """``paigow serve`` as a subprocess (for kill-and-restart tests); ``launcher``: how Python
    starts it (e.g. the test-only ``fault_server.py``, which injects a fault)."""

    def __init__(
        self,
        db_url: str,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        launcher: tuple[str, ...] = ("-m", "paigow.cli"),
    ) -> None:
        full_env = {
            **os.environ,
            "PAIGOW_DEALER_POLL_S": "0.05",
            "PAIGOW_LOCK_POLL_S": "0.2",
            **(env or {}),
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                *launcher,
                "serve",
                "--port",
                "0",
                "--database",
                db_url,
                *args,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=full_env,
        )
        self.lines: list[str] = []
        self.url = ""
        assert self.proc.stdout is not None
        # a cold start compiles the kernels (numba's cache is empty in a fresh clone) on busy cores
        deadline = time.time() + 180
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if line.startswith("paigow table server: http"):
                self.url = line.split(": ", 1)[1].strip().rstrip("/")
                break
        if not self.url:
            self.proc.kill()
            raise RuntimeError("paigow serve did not start:\n" + "".join(self.lines))
        self._drain = threading.Thread(target=self._read_rest, daemon=True)
        self._drain.start()

    def _read_rest(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def login(url: str, username: str = OPERATOR[0], password: str = OPERATOR[1]) -> Client:
    """A client of the server at ``url``, logged in (the operator by default)."""
    c = Client(url)
    data = c.ok(c.post("/api/auth/login", {"username": username, "password": password}))
    c.token, c.username = data["token"], username
    return c


def run_bots(url: str, **config: Any) -> dict[str, Any]:
    """``paigow bots`` against the server at ``url`` as the operator, in a thread of its own (a
    browser test of this worker may leave an event loop running on this one); its report."""
    from concurrent.futures import ThreadPoolExecutor

    from paigow.cli.bots import run_bots as run
    from paigow.cli.bots_player import BotConfig

    cfg = BotConfig(url=url, operator=OPERATOR[0], operator_password=OPERATOR[1], **config)
    with ThreadPoolExecutor(1) as pool:
        report: dict[str, Any] = pool.submit(run, cfg).result()
    return report


def driver_statements() -> dict[str, Any]:
    """Every statement the service runs on the driver (each :class:`paigow.service.store.statements.Sql` of
    its modules), by module and name."""
    import importlib
    import pkgutil

    import paigow.service
    from paigow.service.store.statements import Sql

    out: dict[str, Any] = {}
    for info in pkgutil.walk_packages(paigow.service.__path__, "paigow.service."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, Sql):
                out[f"{info.name}.{name}"] = value
    return out


def house_low(cards: list[str]) -> list[str]:
    """The two cards the standard house way sets low (as card codes)."""
    from paigow.cards import parse_cards
    from paigow.house_way import HouseWay

    return [c.code for c in HouseWay.preset("standard").set_hand(parse_cards(cards)).setting.low]
