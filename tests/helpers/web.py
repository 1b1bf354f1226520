"""The browser tests' helpers: a live server on a free port (uvicorn in a thread, an SQLite
database, an operator: :class:`Site`) and the API client of the tests' own moves (:class:`Api`).
Tests import them from here (``from tests.helpers.web import Site``); the fixtures are in
``tests/web/conftest.py``."""

from __future__ import annotations

import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from tests.helpers.walks import OPERATOR

os.environ.setdefault("PAIGOW_ARGON2_MEMORY_KIB", "1024")
os.environ.setdefault("PAIGOW_ARGON2_TIME_COST", "1")
for _proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
    os.environ.pop(_proxy, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"


class Api:
    """The service's HTTP API for the tests' own moves (operator actions, checks)."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.http = httpx.Client(base_url=url, timeout=30, trust_env=False, verify=False)
        self.token = token

    def call(self, method: str, path: str, body: Any = None, status: int | None = 200) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        r = self.http.request(method, path, json=body, headers=headers)
        if status is not None:
            assert r.status_code == status, f"{method} {path}: {r.status_code} {r.text}"
        return r.json() if r.headers.get("content-type", "").startswith("application/json") else r

    def login(self, username: str, password: str) -> Api:
        data = self.call("POST", "/api/auth/login", {"username": username, "password": password})
        return Api(str(self.http.base_url), data["token"])


class Site:
    """The live server, with an operator logged in over the API."""

    def __init__(self, db_url: str) -> None:
        import uvicorn

        from paigow.service.accounts.operators import create_operator
        from paigow.service.process.app import create_app

        self.db_url = db_url
        create_operator(db_url, *OPERATOR)
        app = create_app(db_url, dealer_poll_s=0.05, lock_poll_s=0.1)
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
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
        self.op = Api(self.url).login(*OPERATOR)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)

    def table(self, **cfg: Any) -> int:
        body = {
            "name": "Test",
            "betting_time_ms": 30_000,
            "setting_time_ms": 60_000,
            **cfg,
        }
        return int(self.op.call("POST", "/api/admin/tables", body, 201)["id"])

    def credit(self, username: str, amount: int) -> None:
        self.op.call(
            "POST",
            f"/api/admin/wallets/{username}/credit",
            {"amount": amount, "idempotency_key": secrets.token_hex(8)},
        )

    def login(self, username: str, password: str) -> Api:
        return Api(self.url).login(username, password)

    def player(self, credit: int = 100_000) -> tuple[str, str, Api]:
        """A registered, credited player (over the API): name, password, logged-in client."""
        name = "p" + secrets.token_hex(4)
        password = "password-" + name
        Api(self.url).call(
            "POST", "/api/auth/register", {"username": name, "password": password}, 201
        )
        if credit:
            self.credit(name, credit)
        return name, password, Api(self.url).login(name, password)
