"""Accounts and tokens: register, log in, expiry, rate limits, roles."""

from __future__ import annotations

import time
from typing import Any

import pytest

from paigow.service.accounts.auth_tokens import TokenSigner
from tests.helpers.service import Client, Service


def test_register_login_me(svc: Any) -> None:
    c = svc.player("alice", credit=0)
    me = c.ok(c.get("/api/me"))
    assert me["username"] == "alice" and me["role"] == "player" and me["balance"] == 0
    assert me["seats"] == []
    # the same name again
    r = c.post("/api/auth/register", {"username": "alice", "password": "another-password"})
    assert r.status_code == 409 and r.json()["code"] == "username-taken"
    # wrong password, unknown user: the same answer
    for body in (
        {"username": "alice", "password": "wrong-password"},
        {"username": "nobody", "password": "x" * 8},
    ):
        r = c.http.post("/api/auth/login", json=body)
        assert r.status_code == 401 and r.json()["code"] == "bad-credentials"


def test_bad_registrations_are_refused(svc: Any) -> None:
    c = svc.op
    for body in (
        {"username": "ab", "password": "password1"},  # too short
        {"username": "a b c", "password": "password1"},  # a space
        {"username": "x" * 33, "password": "password1"},
        {"username": "bob", "password": "short"},
        {"username": "bob", "password": "p" * 129},
        {"username": "bob", "password": "password1", "role": "operator"},  # unknown field
        {"username": "bob\u0000", "password": "password1"},
        {"username": 5, "password": "password1"},
        [],
    ):
        r = c.http.post("/api/auth/register", json=body)
        assert r.status_code == 422, (body, r.text)
    r = c.http.post(
        "/api/auth/register", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    r = c.http.post(
        "/api/auth/register", content=b"x" * 100_000, headers={"content-type": "application/json"}
    )
    assert r.status_code == 413


def test_tokens_expire_and_forgeries_fail(svc: Any) -> None:
    c = svc.player("carol", credit=0)
    rt = svc.server.app.state.rt
    # an expired token signed with the server's secret
    claims = rt.signer.verify(c.token)
    expired = rt.signer.issue(claims["sub"], "player", ttl_s=1, at=time.time() - 10)
    for token, code in (
        (expired, "token-expired"),
        (c.token[:-3] + "abc", "invalid-token"),
        ("not-a-token", "invalid-token"),
        (
            TokenSigner(b"another secret, 32 bytes long!!").issue(claims["sub"], "operator", 60),
            "invalid-token",
        ),
    ):
        r = c.http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401 and r.json()["code"] == code, (token, r.text)
    r = c.http.get("/api/me")
    assert r.status_code == 401 and r.json()["code"] == "not-logged-in"
    # a forged role in a valid-looking token does not make an operator
    r = c.get("/api/admin/ledger")
    assert r.status_code == 403


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_token_expiry_end_to_end(db_url: str) -> None:
    # five seconds of life: a loaded CI machine can take more than one between a login and
    # the next request, which must still be inside the token's life
    ttl = 5
    s = Service(db_url, token_ttl_s=ttl)
    try:
        before = time.time()
        c = s.player("dave", credit=0)
        r = c.get("/api/me")
        if time.time() - before < ttl - 1:
            assert r.status_code == 200, r.text
        time.sleep(max(0.0, before + ttl + 1.2 - time.time()))
        r = c.get("/api/me")
        assert r.status_code == 401 and r.json()["code"] == "token-expired"
    finally:
        s.stop()


def test_login_rate_limit(db_url: str) -> None:
    s = Service(db_url, login_limit_user=3, login_limit_addr=5, login_window_s=60)
    try:
        c = Client(s.url)
        c.ok(c.post("/api/auth/register", {"username": "erin", "password": "erin-password"}), 201)
        for _ in range(3):
            assert (
                c.post("/api/auth/login", {"username": "erin", "password": "nope-nope"}).status_code
                == 401
            )
        r = c.post("/api/auth/login", {"username": "erin", "password": "erin-password"})
        assert r.status_code == 429 and "Retry-After" in r.headers
        # failed attempts also count per client address, whatever the username
        codes = [
            c.post("/api/auth/login", {"username": f"u{i}", "password": "nope-nope"}).status_code
            for i in range(4)
        ]
        assert codes[-1] == 429, codes
    finally:
        s.stop()


def test_players_cannot_reach_operator_routes(svc: Any) -> None:
    p = svc.player("frank")
    table = svc.new_table()
    for method, path, body in (
        ("post", "/api/admin/tables", {"name": "mine"}),
        ("post", f"/api/admin/tables/{table}/close", None),
        ("post", "/api/admin/wallets/frank/credit", {"amount": 100, "idempotency_key": "k1"}),
        ("post", "/api/admin/wallets/frank/debit", {"amount": 100, "idempotency_key": "k2"}),
        ("get", "/api/admin/audit", None),
        ("get", "/api/admin/ledger", None),
    ):
        r = p.post(path, body) if method == "post" else p.get(path)
        assert r.status_code == 403 and r.json()["code"] == "operators-only", (path, r.text)
        anon = p.http.post(path, json=body) if method == "post" else p.http.get(path)
        assert anon.status_code == 401, path
    assert p.balance() == 100_000


def test_operator_cli_and_secrets_stay_out_of_logs(
    tmp_path: Any, sqlite_url: str, caplog: Any
) -> None:
    import subprocess
    import sys

    pw = tmp_path / "pw"
    pw.write_text("sup3r-secret-pass\n")
    cmd = [sys.executable, "-m", "paigow.cli", "admin", "create", "--database", sqlite_url]
    r = subprocess.run(
        [*cmd, "--username", "boss", "--password-file", str(pw)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert "sup3r-secret-pass" not in r.stdout + r.stderr
    again = subprocess.run(
        [*cmd, "--username", "boss", "--password-file", str(pw)], capture_output=True, text=True
    )
    assert again.returncode != 0 and "taken" in again.stderr
    short = tmp_path / "short"
    short.write_text("x\n")
    bad = subprocess.run(
        [*cmd, "--username", "boss2", "--password-file", str(short)], capture_output=True, text=True
    )
    assert bad.returncode != 0
    missing = subprocess.run(
        [*cmd, "--username", "boss3", "--password-file", str(tmp_path / "none")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode != 0 and "password file" in missing.stderr


def test_every_response_says_the_servers_time(svc: Any) -> None:
    """``Server-Timing: app;dur=MS`` on answers and refusals alike (what a client subtracts
    from its own latency to see its queueing)."""
    import re

    c = svc.player("tim")
    responses = [c.get("/api/health"), c.get("/api/me"), c.get("/api/tables/999999")]
    responses.append(c.http.get("/api/me"))  # no token: 401
    assert [r.status_code for r in responses] == [200, 200, 404, 401]
    for r in responses:
        timing = r.headers.get("server-timing", "")
        assert re.fullmatch(r"app;dur=\d+\.\d", timing), (r.request.url, timing)
