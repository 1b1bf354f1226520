"""In Chromium: the session in an HttpOnly cookie no script can read, an expired session said
plainly with the log-in form shown again, the Log out button revoking the session at the
server, a session ended by the operator said so, and an operator enrolling a second factor from
the operator page (the QR code shown under the strict CSP, the code computed with pyotp, the
recovery codes shown once). Screenshots in artifacts/."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyotp
import pytest
from playwright.sync_api import Page, expect

from tests.helpers.walks import OPERATOR, log_in
from tests.helpers.web import Api

pytestmark = pytest.mark.slow

WAIT = 30_000
EXPIRED = "Your session has expired — log in again."
ENDED = "Your session was ended"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "second-factor"


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def _session_cookie(page: Page) -> dict[str, Any]:
    from paigow.service.api.deps import SESSION_COOKIE

    found = [c for c in page.context.cookies() if c["name"] == SESSION_COOKIE]
    assert len(found) == 1, page.context.cookies()
    return dict(found[0])


class Server:
    """A live server with its own settings (uvicorn in a thread, SQLite, an operator)."""

    def __init__(self, db_url: str, **overrides: Any) -> None:
        import uvicorn

        from paigow.service.accounts.operators import create_operator
        from paigow.service.process.app import create_app

        create_operator(db_url, *OPERATOR)
        app = create_app(db_url, dealer_poll_s=0.05, lock_poll_s=0.1, **overrides)
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.time() < deadline, "the server did not start"
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)


@pytest.fixture
def short(tmp_path: Path) -> Iterator[Server]:
    s = Server(f"sqlite:///{tmp_path / 'short.sqlite3'}", token_ttl_s=4)
    yield s
    s.stop()


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[Server]:
    s = Server(f"sqlite:///{tmp_path / 'strict.sqlite3'}", operator_second_factor="required")
    yield s
    s.stop()


def _player(url: str) -> tuple[str, str]:
    name, password = "pat" + str(int(time.time() * 1000) % 100_000), "password-pat-1"
    Api(url).call("POST", "/api/auth/register", {"username": name, "password": password}, 201)
    return name, password


def test_an_expired_session_is_said_plainly(page: Page, short: Server) -> None:
    name, password = _player(short.url)
    page.set_viewport_size({"width": 1366, "height": 768})
    log_in(page, short.url, name, password)
    # the session is an HttpOnly, SameSite=Strict cookie: no script (nor localStorage) holds it
    cookie = _session_cookie(page)
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    assert "paigow_session" not in page.evaluate("document.cookie")
    assert page.evaluate("JSON.stringify(Object.keys(localStorage))").find("token") == -1
    time.sleep(4.2)
    page.reload()  # the page asks /api/me with the expired session
    expect(page.locator("#auth-msg")).to_have_text(EXPIRED, timeout=WAIT)
    expect(page.locator("#login-form")).to_be_visible()
    _shot(page, "session-expired-1366x768")
    page.set_viewport_size({"width": 375, "height": 812})
    _shot(page, "session-expired-375x812")
    page.set_viewport_size({"width": 1366, "height": 768})
    # logging in again clears it
    log_in(page, short.url, name, password)
    expect(page.locator("#login-form")).to_have_count(0)
    # Log out revokes the session at the server
    token = _session_cookie(page)["value"]
    assert Api(short.url, token).call("GET", "/api/me", status=200)
    page.click("#logout")
    expect(page.locator("#login-form")).to_be_visible(timeout=WAIT)
    r = Api(short.url, token).call("GET", "/api/me", status=401)
    assert r["code"] == "token-revoked"
    # a session ended elsewhere (an operator) sends the page back to the log-in form, said so
    log_in(page, short.url, name, password)
    op = Api(short.url).login(*OPERATOR)
    op.call("POST", f"/api/admin/users/{name}/sessions/revoke")
    page.goto(short.url + "/#/operator")
    expect(page.locator("#auth-msg")).to_contain_text(ENDED, timeout=WAIT)
    _shot(page, "session-ended-by-operator-1366x768")


def test_an_operator_enrols_a_second_factor(page: Page, strict: Server) -> None:
    violations: list[str] = []
    page.on(
        "console", lambda m: violations.append(m.text) if "Content Security" in m.text else None
    )
    page.set_viewport_size({"width": 1366, "height": 768})
    log_in(page, strict.url, *OPERATOR)
    page.goto(strict.url + "/#/operator")
    qr = page.locator("#sf-qr")
    expect(qr).to_be_visible(timeout=WAIT)
    assert page.evaluate("document.getElementById('sf-qr').naturalWidth") > 0  # drawn, not blocked
    uri = page.locator("#sf-uri").inner_text()
    totp = pyotp.parse_uri(uri)
    assert isinstance(totp, pyotp.TOTP)
    page.fill("#sf-code", "000000" if totp.now() != "000000" else "111111")
    page.click("#sf-form button[type=submit]")
    expect(page.locator("#sf-msg")).to_contain_text("not right", timeout=WAIT)
    _shot(page, "enrol-1366x768")
    page.set_viewport_size({"width": 375, "height": 812})
    _shot(page, "enrol-375x812")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.fill("#sf-code", totp.now())
    page.click("#sf-form button[type=submit]")
    codes = page.locator("#sf-recovery-codes li")
    expect(codes).to_have_count(10, timeout=WAIT)  # shown once
    _shot(page, "recovery-codes-1366x768")
    recovery = codes.nth(2).inner_text().strip()
    page.click("#sf-continue")
    expect(page.locator("#t-name")).to_be_visible(timeout=WAIT)  # the operator page itself
    assert not violations, violations
    # the next log-in asks the code: the page offers to verify it
    page.click("#logout")
    expect(page.locator("#login-form")).to_be_visible(timeout=WAIT)  # the page re-rendered
    log_in(page, strict.url, *OPERATOR)
    page.goto(strict.url + "/#/operator")
    expect(page.locator("#sf-form")).to_be_visible(timeout=WAIT)
    expect(page.locator("#sf-qr")).to_have_count(0)
    step = totp.timecode(time.time())
    page.fill("#sf-code", totp.generate_otp(step + 1))  # the next step's: within the window
    page.click("#sf-form button[type=submit]")
    expect(page.locator("#t-name")).to_be_visible(timeout=WAIT)
    # a lost authenticator: a recovery code stands in, once
    page.click("#logout")
    expect(page.locator("#login-form")).to_be_visible(timeout=WAIT)  # the page re-rendered
    log_in(page, strict.url, *OPERATOR)
    page.goto(strict.url + "/#/operator")
    expect(page.locator("#sf-recovery")).to_be_visible(timeout=WAIT)
    page.fill("#sf-recovery", recovery)
    page.click("#sf-form button[type=submit]")
    expect(page.locator("#t-name")).to_be_visible(timeout=WAIT)
    assert not violations, violations
