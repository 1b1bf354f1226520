"""The browser's session in an HttpOnly cookie: its flags, the Origin check on what changes
something, forged and expired cookies, log-out and a password change ending sessions, the idle
expiry, the WebSocket opened with the cookie, and no-store on the API's answers."""

from __future__ import annotations

import time
from http.cookies import SimpleCookie
from typing import Any

import httpx
import pytest

from paigow.service.api.deps import SESSION_COOKIE
from tests.helpers.service import Client, Service, WsReader


def _browser(svc: Service, username: str, password: str) -> tuple[httpx.Client, str]:
    """A browser's log-in: the cookie's client (its Origin the service's own) and the
    Set-Cookie header it got."""
    http = httpx.Client(base_url=svc.url, timeout=30, trust_env=False, verify=False)
    http.headers["Origin"] = svc.url
    r = http.post(
        "/api/auth/login", json={"username": username, "password": password, "cookie": True}
    )
    assert r.status_code == 200, r.text
    return http, r.headers["set-cookie"]


def _flags(set_cookie: str) -> dict[str, Any]:
    jar: SimpleCookie = SimpleCookie()
    jar.load(set_cookie)
    morsel = jar[SESSION_COOKIE]
    return {k: morsel[k] for k in ("httponly", "samesite", "secure", "path", "max-age")}


def test_a_browser_log_in_sets_an_httponly_cookie_and_no_token(svc: Service) -> None:
    svc.player("amy")
    http, set_cookie = _browser(svc, "amy", "password-amy")
    flags = _flags(set_cookie)
    assert flags["httponly"] is True and flags["samesite"] == "strict" and flags["path"] == "/"
    assert flags["secure"] == ""  # plain HTTP here, and not behind TLS
    assert flags["max-age"] == ""  # the browser's session: the token inside expires
    body = http.post(
        "/api/auth/login", json={"username": "amy", "password": "password-amy", "cookie": True}
    ).json()
    assert body["token"] is None and body["user"]["username"] == "amy"
    me = http.get("/api/me")
    assert me.status_code == 200 and me.json()["username"] == "amy"
    assert me.headers["cache-control"] == "no-store"
    # a script's log-in still gets its bearer token, and no cookie
    r = httpx.post(
        f"{svc.url}/api/auth/login", json={"username": "amy", "password": "password-amy"}
    )
    assert r.json()["token"] and "set-cookie" not in r.headers


def test_the_cookie_is_secure_behind_tls(db_url: str) -> None:
    s = Service(db_url, behind_tls=True)
    try:
        s.player("tls")
        _, set_cookie = _browser(s, "tls", "password-tls")
        assert _flags(set_cookie)["secure"] is True
    finally:
        s.stop()


def test_a_change_from_another_origin_is_refused_and_changes_nothing(svc: Service) -> None:
    table = svc.new_table()
    svc.player("ben")
    http, _ = _browser(svc, "ben", "password-ben")
    for origin in ("https://evil.example", None):
        headers = {"Origin": origin} if origin else {}
        if origin is None:
            del http.headers["Origin"]
        r = http.post(f"/api/tables/{table}/sit", json={"spot": 1}, headers=headers)
        assert r.status_code == 403 and r.json()["code"] == "bad-origin", r.text
    assert http.get("/api/me").json()["seats"] == []  # a GET needs no Origin
    assert not any(s["occupied"] for s in svc.op.table(table)["spots"])
    http.headers["Origin"] = svc.url
    assert http.post(f"/api/tables/{table}/sit", json={"spot": 1}).status_code == 200
    assert http.get("/api/me").json()["seats"] == [{"table_id": table, "spot": 1}]


def test_forged_and_expired_cookies_are_refused(db_url: str) -> None:
    s = Service(db_url, token_ttl_s=2)
    try:
        s.player("cat")
        http, _ = _browser(s, "cat", "password-cat")
        good = http.cookies[SESSION_COOKIE]
        payload, sig = good.split(".")
        forged = f"{payload}.{'A' * len(sig)}"
        for value, code in ((forged, "invalid-token"), ("garbage", "invalid-token")):
            r = httpx.get(f"{s.url}/api/me", cookies={SESSION_COOKIE: value})
            assert r.status_code == 401 and r.json()["code"] == code, r.text
        time.sleep(3.1)
        r = httpx.get(f"{s.url}/api/me", cookies={SESSION_COOKIE: good})
        assert r.status_code == 401 and r.json()["code"] == "token-expired"
    finally:
        s.stop()


def test_log_out_revokes_the_cookie_and_clears_it(svc: Service) -> None:
    table = svc.new_table()
    svc.player("dan")
    http, _ = _browser(svc, "dan", "password-dan")
    old = http.cookies[SESSION_COOKIE]
    feed = WsReader(svc.url, table, None, cookie=old, origin=svc.url)
    try:
        hello = feed.wait_for(lambda m: m.get("type") == "hello")
        assert hello["viewer"]["username"] == "dan"
        r = http.post("/api/auth/logout")
        assert r.status_code == 204
        assert _flags(r.headers["set-cookie"])["max-age"] == "0"
        # the open feed of the session is told and closed
        assert feed.wait_for(lambda m: m.get("type") == "error")["code"] == "token-revoked"
        feed.thread.join(5)
        assert feed.closed == 4401
    finally:
        feed.close()
    r = httpx.get(f"{svc.url}/api/me", cookies={SESSION_COOKIE: old})
    assert r.status_code == 401 and r.json()["code"] == "token-revoked"
    again = WsReader(svc.url, table, None, cookie=old, origin=svc.url)
    try:
        assert again.wait_for(lambda m: m.get("type") == "error")["code"] == "token-revoked"
    finally:
        again.close()


def test_a_websocket_with_the_cookie_from_another_origin_is_refused(svc: Service) -> None:
    table = svc.new_table()
    svc.player("eve")
    http, _ = _browser(svc, "eve", "password-eve")
    cookie = http.cookies[SESSION_COOKIE]
    feed = WsReader(svc.url, table, None, cookie=cookie, origin="https://evil.example")
    try:
        assert feed.wait_for(lambda m: m.get("type") == "error")["code"] == "bad-origin"
        feed.thread.join(5)
        assert feed.closed == 4403
    finally:
        feed.close()


def test_a_password_change_ends_every_other_session(svc: Service) -> None:
    fay = svc.player("fay")
    other = svc.login("fay", "password-fay")
    http, _ = _browser(svc, "fay", "password-fay")
    r = fay.post(
        "/api/auth/password",
        {"current_password": "wrong-one-1", "new_password": "a-new-passphrase"},
    )
    assert r.status_code == 401 and r.json()["code"] == "bad-credentials"
    r = fay.post(
        "/api/auth/password",
        {"current_password": "password-fay", "new_password": "password"},
    )
    assert r.status_code == 422 and r.json()["code"] == "weak-password"
    assert other.get("/api/me").status_code == 200  # nothing changed by the refusals
    r = fay.post(
        "/api/auth/password",
        {"current_password": "password-fay", "new_password": "a-new-passphrase"},
    )
    assert r.status_code == 204, r.text
    assert fay.get("/api/me").status_code == 200  # this session goes on
    assert other.get("/api/me").json()["code"] == "token-revoked"
    assert http.get("/api/me").json()["code"] == "token-revoked"
    bad = Client(svc.url).post("/api/auth/login", {"username": "fay", "password": "password-fay"})
    assert bad.status_code == 401
    assert svc.login("fay", "a-new-passphrase").get("/api/me").status_code == 200


def test_an_idle_session_ends_and_an_active_one_does_not(db_url: str) -> None:
    s = Service(db_url, session_idle_s=2, session_cache_s=0.2)
    try:
        busy = s.player("gus", credit=0)
        idle = s.login("gus", "password-gus")
        for _ in range(8):  # 2.4 s of activity, past the idle expiry
            assert busy.get("/api/me").status_code == 200
            time.sleep(0.3)
        assert busy.get("/api/me").status_code == 200
        r = idle.get("/api/me")
        assert r.status_code == 401 and r.json()["code"] == "session-idle", r.text
        assert "log in again" in r.json()["detail"]
    finally:
        s.stop()


@pytest.mark.parametrize("path", ["/api/tables", "/api/me", "/api/admin/audit"])
def test_api_answers_are_not_stored(svc: Service, path: str) -> None:
    r = svc.op.get(path)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"


def test_static_files_are_cacheable(svc: Service) -> None:
    r = httpx.get(f"{svc.url}/static/api.js")
    assert r.status_code == 200 and r.headers.get("cache-control") != "no-store"
    assert "paigow.token" not in r.text and "localStorage" not in r.text
