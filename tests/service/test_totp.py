"""The operators' second factor (TOTP): enrol, confirm, wrong and replayed codes, the admin and
floor APIs refused without it and accepted with it, the secret encrypted at rest."""

from __future__ import annotations

import time
from typing import Any

import pyotp
import pytest
import sqlalchemy as sa

from tests.helpers.service import OPERATOR, Client, Service


def _steady() -> float:
    """Now, at least 6 s before the next 30 s step (so that t-1, t and t+1 stay in the window
    for the test's few seconds)."""
    if time.time() % 30 > 24:
        time.sleep(30 - time.time() % 30 + 0.2)
    return time.time()


def _login(svc: Service, code: str | None = None) -> Any:
    body = {"username": OPERATOR[0], "password": OPERATOR[1]}
    if code is not None:
        body["code"] = code
    return Client(svc.url).post("/api/auth/login", body)


def _as(svc: Service, token: str) -> Client:
    return Client(svc.url, token)


def _enrol(c: Client) -> pyotp.TOTP:
    out = c.ok(c.post("/api/auth/totp/enrol"))
    assert out["qr"].startswith("data:image/svg+xml")
    assert out["otpauth_uri"].startswith("otpauth://totp/")
    totp = pyotp.parse_uri(out["otpauth_uri"])
    assert isinstance(totp, pyotp.TOTP)
    return totp


def test_required_second_factor(db_url: str) -> None:
    svc = Service(db_url, operator_second_factor="required")
    try:
        limited = svc.op
        for path in (
            "/api/admin/floor",
            "/api/admin/audit",
            "/api/admin/table-defaults",
            "/metrics",
        ):
            r = limited.get(path)
            assert r.status_code == 403 and r.json()["code"] == "second-factor-required", r.text
            assert "enrol" in r.json()["detail"]
        r = limited.post("/api/admin/tables", {"name": "t"})
        assert r.json()["code"] == "second-factor-required"
        assert _login(svc).json()["second_factor"] == "enrol"
        # a player may not enrol
        player = Client(svc.url)
        player.ok(
            player.post("/api/auth/register", {"username": "pam", "password": "pw-pam-1"}), 201
        )
        player = svc.login("pam", "pw-pam-1")
        assert player.post("/api/auth/totp/enrol").json()["code"] == "operators-only"

        totp = _enrol(limited)
        at = _steady()
        wrong = f"{(int(totp.at(at)) + 1) % 1_000_000:06d}"
        r = limited.post("/api/auth/totp/confirm", {"code": wrong})
        assert r.status_code == 401 and r.json()["code"] == "bad-code"
        assert limited.post("/api/auth/totp/confirm", {"code": "12"}).status_code == 422
        full = limited.ok(limited.post("/api/auth/totp/confirm", {"code": totp.at(at - 30)}))
        assert full["second_factor"] is None
        assert limited.get("/api/me").json()["code"] == "token-revoked"
        op = _as(svc, full["token"])
        assert op.get("/api/admin/floor").status_code == 200
        assert op.get("/api/admin/table-defaults").status_code == 200
        assert op.post("/api/auth/totp/enrol").json()["code"] == "second-factor-enrolled"

        # log-in with the code in one call; the same code again is refused (replay)
        now_code = totp.at(at)
        assert _login(svc, now_code).status_code == 200
        r = _login(svc, now_code)
        assert r.status_code == 401 and r.json()["code"] == "code-used"
        r = _login(svc, totp.at(at - 30))  # an earlier step than one used: refused too
        assert r.json()["code"] == "code-used"
        r = _login(svc, totp.at(at + 90))  # outside the ±1 step window
        assert r.json()["code"] == "bad-code"
        # or in two: a token limited to verifying, then the code
        half = _login(svc).json()
        assert half["second_factor"] == "verify"
        c = _as(svc, half["token"])
        assert c.get("/api/admin/floor").json()["code"] == "second-factor-required"
        verified = c.ok(c.post("/api/auth/totp/verify", {"code": totp.at(at + 30)}))
        assert _as(svc, verified["token"]).get("/api/admin/floor").status_code == 200
        assert c.get("/api/me").json()["code"] == "token-revoked"

        # the secret is stored encrypted
        engine = sa.create_engine(db_url)
        try:
            with engine.connect() as conn:
                stored = conn.execute(sa.text("SELECT secret FROM operator_totp")).scalar_one()
        finally:
            engine.dispose()
        assert totp.secret not in stored and len(stored) > len(totp.secret)
    finally:
        svc.stop()


def test_enrolled_mode_asks_the_code_once_enrolled(svc: Service) -> None:
    """The default: an operator without a second factor works with the password alone (the
    fixtures, ``paigow bots``, the demo); once enrolled, the code is asked."""
    assert svc.op.get("/api/admin/floor").status_code == 200
    totp = _enrol(svc.op)
    at = _steady()
    svc.op.ok(svc.op.post("/api/auth/totp/confirm", {"code": totp.at(at)}))
    half = _login(svc).json()
    assert half["second_factor"] == "verify"
    r = _as(svc, half["token"]).get("/api/admin/floor")
    assert r.status_code == 403 and r.json()["code"] == "second-factor-required"
    assert (
        _as(svc, _login(svc, totp.at(at + 30)).json()["token"]).get("/api/admin/floor").status_code
        == 200
    )


def _audit(svc: Service, reader: Client | None = None) -> list[dict[str, Any]]:
    import json

    c = reader or svc.op
    return [json.loads(line) for line in c.get("/api/admin/audit").text.splitlines()]


def test_recovery_codes_work_once_each(svc: Service) -> None:
    totp = _enrol(svc.op)
    at = _steady()
    out = svc.op.ok(svc.op.post("/api/auth/totp/confirm", {"code": totp.at(at)}))
    codes = out["recovery_codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    # shown once: only their hashes are kept
    engine = sa.create_engine(svc.db_url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(sa.text("SELECT code_hash FROM recovery_codes")).scalars().all()
    finally:
        engine.dispose()
    assert len(stored) == 10 and not set(codes) & set(stored)
    body = {"username": OPERATOR[0], "password": OPERATOR[1], "recovery_code": codes[3].upper()}
    r = Client(svc.url).post("/api/auth/login", body)
    assert r.status_code == 200 and r.json()["second_factor"] is None, r.text
    assert _as(svc, r.json()["token"]).get("/api/admin/floor").status_code == 200
    r = Client(svc.url).post("/api/auth/login", body)  # spent
    assert r.status_code == 401 and r.json()["code"] == "bad-code"
    # or at the verify step
    half = _as(svc, _login(svc).json()["token"])
    full = half.ok(half.post("/api/auth/totp/verify", {"recovery_code": codes[4]}))
    assert _as(svc, full["token"]).get("/api/admin/floor").status_code == 200


def test_wrong_codes_are_throttled_and_audited(db_url: str) -> None:
    svc = Service(db_url, login_limit_user=5, login_limit_addr=50)
    try:
        totp = _enrol(svc.op)
        at = _steady()
        op = _as(
            svc, svc.op.ok(svc.op.post("/api/auth/totp/confirm", {"code": totp.at(at)}))["token"]
        )
        wrong = f"{(int(totp.at(at)) + 7) % 1_000_000:06d}"
        for _ in range(5):
            r = _login(svc, wrong)
            assert r.status_code == 401 and r.json()["code"] == "bad-code"
        r = _login(svc, totp.at(at + 30))  # even the right code now waits out the window
        assert r.status_code == 429, r.text
        refused = [a for a in _audit(svc, op) if a["action"] == "refused"]
        assert len(refused) == 5 and {a["details"]["code"] for a in refused} == {"bad-code"}
        assert all(a["actor"] == OPERATOR[0] for a in refused)
    finally:
        svc.stop()


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_an_operator_made_to_enrol_and_a_reset_by_the_cli(db_url: str) -> None:
    from typer.testing import CliRunner

    from paigow.cli.main import app
    from paigow.service.accounts.operators import create_operator

    svc = Service(db_url)
    try:
        create_operator(db_url, "newboss", "a-good-passphrase", require_2fa=True)
        first = Client(svc.url).post(
            "/api/auth/login", {"username": "newboss", "password": "a-good-passphrase"}
        )
        assert first.json()["second_factor"] == "enrol"
        limited = _as(svc, first.json()["token"])
        r = limited.get("/api/admin/floor")
        assert r.status_code == 403 and r.json()["code"] == "second-factor-required"
        refusals = [a for a in _audit(svc) if a["action"] == "refused"]
        assert refusals[-1]["actor"] == "newboss"
        assert refusals[-1]["details"]["route"] == "GET /api/admin/floor"
        totp = _enrol(limited)
        at = _steady()
        full = limited.ok(limited.post("/api/auth/totp/confirm", {"code": totp.at(at)}))
        op = _as(svc, full["token"])
        assert op.get("/api/admin/floor").status_code == 200

        # locked out: the CLI resets it (audited), ends the sessions, and they enrol again
        result = CliRunner().invoke(app, ["admin", "reset-2fa", "newboss", "--database", db_url])
        assert result.exit_code == 0, result.output
        assert "removed" in result.output
        time.sleep(5.2)  # another process's revocation is seen within session_cache_s
        assert op.get("/api/admin/floor").json()["code"] == "token-revoked"
        again = Client(svc.url).post(
            "/api/auth/login", {"username": "newboss", "password": "a-good-passphrase"}
        )
        assert again.json()["second_factor"] == "enrol"
        resets = [a for a in _audit(svc) if a["action"] == "second-factor-reset"]
        assert resets and resets[-1]["target"] == "user:newboss"
        assert resets[-1]["details"]["was_enrolled"] is True
        bad = CliRunner().invoke(app, ["admin", "reset-2fa", "nobody", "--database", db_url])
        assert bad.exit_code == 2 and "no operator nobody" in bad.output
    finally:
        svc.stop()
