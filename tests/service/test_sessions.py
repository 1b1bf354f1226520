"""Server-side sessions: log-out revokes a token on HTTP and on the live feed, an operator
revokes every session of a player (audited), an expired token says so, and the check's cost."""

from __future__ import annotations

import time
from typing import Any

from tests.helpers.service import Service, run_on_own_loop


def _refused(c: Any, code: str) -> None:
    r = c.get("/api/me")
    assert r.status_code == 401, r.text
    assert r.json()["code"] == code


def test_logout_revokes_the_token_on_http_and_ws(svc: Service) -> None:
    table = svc.new_table()
    alice = svc.player("alice")
    other = svc.login("alice", "password-alice")  # a second session of the same player
    assert alice.get("/api/me").status_code == 200
    feed = alice.ws(table)
    feed.wait_for(lambda m: m.get("type") == "hello")
    r = alice.post("/api/auth/logout")
    assert r.status_code == 204, r.text
    _refused(alice, "token-revoked")
    assert alice.post("/api/auth/logout").status_code == 401
    # the open socket of the revoked session is told and closed at once
    msg = feed.wait_for(lambda m: m.get("type") == "error", timeout=5)
    assert msg["code"] == "token-revoked"
    feed.thread.join(5)
    assert feed.closed == 4401
    # a new socket with the same token is refused
    again = alice.ws(table)
    assert again.wait_for(lambda m: m.get("type") == "error")["code"] == "token-revoked"
    again.close()
    # the other session still holds
    assert other.get("/api/me").status_code == 200


def test_operator_revokes_every_session_of_a_player(svc: Service) -> None:
    bob = svc.player("bob")
    bob2 = svc.login("bob", "password-bob")
    carol = svc.player("carol")
    r = bob.post("/api/admin/users/bob/sessions/revoke")
    assert r.status_code == 403  # players may not
    out = svc.op.ok(svc.op.post("/api/admin/users/bob/sessions/revoke"))
    assert out == {"revoked": 2}
    _refused(bob, "token-revoked")
    _refused(bob2, "token-revoked")
    assert carol.get("/api/me").status_code == 200
    assert svc.op.post("/api/admin/users/nobody/sessions/revoke").status_code == 404
    audit = svc.op.get("/api/admin/audit").text
    assert '"action":"revoke-sessions","target":"user:bob"' in audit
    # bob logs in again: a fresh session
    assert svc.login("bob", "password-bob").get("/api/me").status_code == 200


def test_a_token_without_a_known_session_is_refused(svc: Service) -> None:
    dave = svc.player("dave", credit=0)
    rt = svc.server.app.state.rt
    claims = rt.signer.verify(dave.token)
    for sid in (None, "f" * 32):
        forged = type(dave)(svc.url, rt.signer.issue(claims["sub"], "player", 60, sid=sid))
        _refused(forged, "invalid-token")


def test_expired_token(db_url: str) -> None:
    s = Service(db_url, token_ttl_s=2)
    try:
        erin = s.player("erin", credit=0)
        assert erin.get("/api/me").status_code == 200
        time.sleep(2.1)
        _refused(erin, "token-expired")
    finally:
        s.stop()


def test_the_check_costs_no_database_read_when_cached(svc: Service) -> None:
    """A request's session check is a dict look-up once the session is cached: count the reads
    and measure the CPU time of the whole check (signature, session, user)."""
    from paigow.service.api.deps import token_session

    fred = svc.player("fred", credit=0)
    token = fred.token
    assert token is not None
    rt = svc.server.app.state.rt
    reads = 0
    real = rt.db.read

    def counting() -> Any:
        nonlocal reads
        reads += 1
        return real()

    claims = rt.signer.verify(token)
    # the log-in left both cached (the session's first requests read nothing); kept fresh here
    # as it did, in case the check below starts after the cache's few seconds
    assert rt.sessions.cached(claims["sid"]) is not None
    assert rt.cached_principal(claims["sub"]) is not None
    rt.sessions.remember(claims["sid"], rt.sessions.cached(claims["sid"]))
    rt.keep_principal(rt.cached_principal(claims["sub"]))

    async def checks(n: int) -> float:
        nonlocal reads
        await token_session(rt, token)
        t = time.process_time()
        for _ in range(n):
            await token_session(rt, token)
        return (time.process_time() - t) / n

    rt.db.read = counting
    try:
        per_check = run_on_own_loop(checks(2000))
    finally:
        rt.db.read = real
    assert reads == 0  # no read per check
    print(f"token check with a cached session: {per_check * 1e6:.1f} us CPU")
    assert per_check < 0.001
