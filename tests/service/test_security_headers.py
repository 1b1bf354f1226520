"""Every kind of HTTP response carries the strict Content-Security-Policy and its companions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.types import Message, Receive, Scope, Send

from paigow.service.ops.headers import CSP, SecurityHeaders
from tests.helpers.service import LiveServer, run_on_own_loop

EXPECTED = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('headers') / 'tables.sqlite3'}"
    server = LiveServer(url, max_body_bytes=1024)
    try:
        yield server.url
    finally:
        server.stop()


def test_the_policy_is_strict() -> None:
    parts = dict(p.split(" ", 1) for p in CSP.split("; "))
    assert parts["default-src"] == "'none'"
    assert parts["script-src"] == "'self'" and parts["style-src"] == "'self'"
    assert parts["base-uri"] == "'none'" and parts["frame-ancestors"] == "'none'"
    assert "unsafe" not in CSP and "*" not in CSP


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),  # the page
        ("GET", "/static/app.js", 200),  # a static module
        ("GET", "/static/style.css", 200),
        ("GET", "/api/health", 200),  # the API
        ("GET", "/api/me", 401),  # a ServiceError
        ("POST", "/api/auth/login", 422),  # a validation error
        ("GET", "/no/such/page", 404),
        ("GET", "/static/missing.js", 404),
        ("GET", "/openapi.json", 200),
        ("GET", "/docs", 404),  # off: it loads a CDN's scripts
        ("GET", "/redoc", 404),
    ],
)
def test_every_response_has_the_headers(base: str, method: str, path: str, status: int) -> None:
    r = httpx.request(method, base + path, json={} if method == "POST" else None, timeout=10)
    assert r.status_code == status, r.text
    assert {k: r.headers.get(k) for k in EXPECTED} == EXPECTED
    assert len(r.headers.get_list("content-security-policy")) == 1


def test_a_refused_body_has_the_headers(base: str) -> None:
    r = httpx.post(base + "/api/auth/login", content=b"x" * 4096, timeout=10)
    assert r.status_code == 413
    assert {k: r.headers.get(k) for k in EXPECTED} == EXPECTED


def test_the_pages_need_nothing_inline() -> None:
    """index.html has no inline script, style or handler (the policy would block them)."""
    html = (Path(__file__).parents[2] / "src/paigow/service/web/index.html").read_text()
    assert "style=" not in html and "<style" not in html and " on" not in html.replace("\n", " ")
    assert all("src=" in tag for tag in html.split("<script")[1:])


def test_a_route_header_is_replaced_not_doubled() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        start = [(b"x-frame-options", b"SAMEORIGIN"), (b"content-type", b"text/plain")]
        await send({"type": "http.response.start", "status": 200, "headers": start})
        await send({"type": "http.response.body", "body": b""})

    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request"}

    async def send(message: Message) -> None:
        sent.append(message)

    run_on_own_loop(SecurityHeaders(app)({"type": "http"}, receive, send))
    headers = sent[0]["headers"]
    assert [v for k, v in headers if k == b"x-frame-options"] == [b"DENY"]
    assert (b"content-type", b"text/plain") in headers and len(headers) == 5
