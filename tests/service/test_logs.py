"""JSON log lines (``PAIGOW_LOG_FORMAT=json``) from a real ``paigow serve``: every line parses, each
request's id (given when sane, else made) is in its ``X-Request-ID`` header and its lines, the
table where the path names one, and tokens stay out."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx
import pytest

from paigow.service.ops.logs import REQUEST_ID, ROUND_ID, TABLE_ID, USER, JsonFormatter
from tests.helpers.service import Client, ServerProcess


def _record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("paigow.service.x", logging.WARNING, __file__, 1, msg, args, None)


def test_a_json_line_carries_the_context_and_hides_tokens() -> None:
    tokens = (REQUEST_ID.set("req-1"), TABLE_ID.set(7), ROUND_ID.set("r-9"), USER.set("ann"))
    try:
        line = JsonFormatter().format(_record("GET /ws/tables/7?token=%s done", "abc.def"))
    finally:
        REQUEST_ID.reset(tokens[0])
        TABLE_ID.reset(tokens[1])
        ROUND_ID.reset(tokens[2])
        USER.reset(tokens[3])
    doc = json.loads(line)
    assert doc["request_id"] == "req-1" and doc["table"] == 7 and doc["round"] == "r-9"
    assert doc["user"] == "ann"
    assert doc["level"] == "WARNING" and doc["logger"] == "paigow.service.x"
    assert doc["message"] == "GET /ws/tables/7?token=<redacted> done"
    assert doc["time"].endswith("+00:00")
    bare = json.loads(JsonFormatter().format(_record("outside a request")))
    assert "request_id" not in bare and "table" not in bare and "user" not in bare


def _logged(server: Any, needle: str, timeout: float = 10) -> list[dict[str, Any]]:
    """The server's JSON lines that contain ``needle`` (waiting for at least one)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = [json.loads(x) for x in server.lines if needle in x]
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no line with {needle!r} in {server.lines[-20:]}")


@pytest.mark.slow
def test_serve_logs_json_lines_with_request_ids(sqlite_url: str) -> None:
    """``paigow serve`` with ``PAIGOW_LOG_FORMAT=json`` at ``--log-level info``: a sane incoming id
    is kept, an unsafe one replaced, a missing one made; each is in the response's header and in
    the access line of its request (with the table of ``/api/tables/{id}``, the user of an
    authenticated request); every line the
    server writes but its start-up announcements is a JSON object; a WebSocket's token is
    redacted."""
    from paigow.service.process.server import STOP_HINT

    server = ServerProcess(
        sqlite_url, env={"PAIGOW_LOG_FORMAT": "json"}, args=("--log-level", "info")
    )
    try:
        r = httpx.get(f"{server.url}/api/health", headers={"X-Request-ID": "probe-42"})
        assert r.headers["x-request-id"] == "probe-42"
        kept = _logged(server, "probe-42")
        assert any("/api/health" in d["message"] for d in kept), kept

        r = httpx.get(f"{server.url}/api/tables/3", headers={"X-Request-ID": "bad id<script>"})
        made = r.headers["x-request-id"]
        assert made != "bad id<script>" and len(made) == 32
        (line,) = [d for d in _logged(server, made) if "/api/tables/3" in d["message"]]
        assert line["request_id"] == made and line["table"] == 3
        assert line["logger"] == "uvicorn.access" and line["level"] == "INFO"

        # an authenticated request's lines carry its user; an anonymous one's none
        body = {"username": "logan", "password": "password-logan"}
        assert httpx.post(f"{server.url}/api/auth/register", json=body).status_code == 201
        token = httpx.post(f"{server.url}/api/auth/login", json=body).json()["token"]
        auth = {"Authorization": f"Bearer {token}", "X-Request-ID": "who-1"}
        assert httpx.get(f"{server.url}/api/me", headers=auth).status_code == 200
        (line,) = [d for d in _logged(server, "who-1") if "/api/me" in d["message"]]
        assert line["user"] == "logan" and line["request_id"] == "who-1"
        r = httpx.get(f"{server.url}/api/me", headers={"X-Request-ID": "who-2"})
        assert r.status_code == 401
        (line,) = [d for d in _logged(server, "who-2") if "/api/me" in d["message"]]
        assert "user" not in line

        r = httpx.get(f"{server.url}/api/health")
        fresh = r.headers["x-request-id"]
        assert len(fresh) == 32 and fresh != made
        _logged(server, fresh)

        from websockets.sync.client import connect

        ws_url = server.url.replace("http://", "ws://") + "/ws/tables/1"
        with connect(ws_url, proxy=None, additional_headers={"X-Request-ID": "feed-7"}) as conn:
            assert conn.response is not None
            assert conn.response.headers["X-Request-ID"] == "feed-7"  # the upgrade's answer

        secret = "eyJhbGciOi.secret-token-value"
        ws = Client(server.url).ws(1, token=secret)  # a bad token: refused at once
        try:
            assert ws.wait_for(lambda m: m.get("type") == "error")["code"] == "invalid-token"
        finally:
            ws.close()
        _logged(server, "/ws/tables/1")
    finally:
        server.stop()
    time.sleep(0.2)
    lines = [x.strip() for x in server.lines if x.strip()]
    logged = [x for x in lines if not x.startswith("paigow table server") and x != STOP_HINT]
    assert len(logged) >= 4
    for x in logged:
        doc = json.loads(x)  # every line a JSON object
        assert {"time", "level", "logger", "message"} <= set(doc), x
    assert not any(secret in x for x in lines)
