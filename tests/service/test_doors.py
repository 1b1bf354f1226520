"""The doors of issue 9, each with a test that failed before they were locked: log-in lockout by
someone else, usernames that differ only by case, weak passwords, registration floods, seats held
without money or by players gone, long-lived or malformed tokens, the token secret in the
database, WebSockets without limits or past their token's life, concurrent retries of one
idempotency key, stored keys kept for ever, and password hashing on the request threads."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from paigow.service.store.db import AuditRecord, Database, IdempotencyKey, ServerSetting
from paigow.service.store.unit import Tx
from tests.helpers.service import OPERATOR, Client, LiveServer, Service, pg_schema


def _client_from(url: str, local_address: str) -> httpx.Client:
    """A client whose connections come from another loopback address (another client)."""
    transport = httpx.HTTPTransport(local_address=local_address)
    return httpx.Client(
        base_url=url, timeout=30, trust_env=False, verify=False, transport=transport
    )


def _audit(db_url: str, action: str) -> list[dict[str, Any]]:
    db = Database(db_url)
    try:
        with db.read() as s:
            return [
                dict(d)
                for d in s.execute(
                    sa.select(AuditRecord.details).where(AuditRecord.action == action)
                ).scalars()
            ]
    finally:
        db.dispose()


# ----------------------------------------------------------------------------- log-in lockout
def test_bad_passwords_from_elsewhere_never_lock_a_user_out(db_url: str) -> None:
    """Ten bad passwords for the operator from rotating forwarded addresses (the test server
    believes X-Forwarded-For from 127.0.0.1, as a deployment behind a proxy does): the operator
    still logs in from a new address. Failures from one address do lock that address out."""
    s = Service(db_url, login_limit_user=10, login_limit_addr=50)
    try:
        c = Client(s.url)
        boss, password = OPERATOR
        for i in range(10):
            r = c.post(
                "/api/auth/login",
                {"username": boss, "password": f"guess-{i}-nope"},
                headers={"X-Forwarded-For": f"203.0.113.{i + 1}"},
            )
            assert r.status_code == 401, r.text
        r = c.post(
            "/api/auth/login",
            {"username": boss, "password": password},
            headers={"X-Forwarded-For": "198.51.100.7"},
        )
        assert r.status_code == 200, r.text
        # one address guessing: that (user, address) pair is stopped, the user is not
        for _ in range(10):
            r = c.post("/api/auth/login", {"username": boss, "password": "still-guessing"})
            assert r.status_code == 401
        r = c.post("/api/auth/login", {"username": boss, "password": password})
        assert r.status_code == 429 and r.json()["code"] == "too-many-logins"
        assert int(r.headers["Retry-After"]) >= 1
        with _client_from(s.url, "127.0.0.2") as other:
            r = other.post("/api/auth/login", json={"username": boss, "password": password})
            assert r.status_code == 200, r.text
    finally:
        s.stop()


# ----------------------------------------------------------------------------- registration
def test_usernames_are_one_whatever_the_case(svc: Any) -> None:
    c = svc.player("Case1", credit=0)
    for name in ("case1", "CASE1", "cAsE1"):
        r = c.http.post("/api/auth/register", json={"username": name, "password": "xyzzy-plugh-7"})
        assert r.status_code == 409 and r.json()["code"] == "username-taken", (name, r.text)
    # the fullwidth compatibility forms are the same name (refused either way, never a 2nd user)
    r = c.http.post(
        "/api/auth/register",
        json={"username": "\uff23\uff41\uff53\uff45\uff11", "password": "xyzzy-plugh-7"},
    )
    assert r.status_code in (409, 422), r.text
    # logging in with another case finds the one account
    r = c.http.post("/api/auth/login", json={"username": "CASE1", "password": "password-Case1"})
    assert r.status_code == 200 and r.json()["user"]["username"] == "Case1", r.text
    db = Database(svc.db_url)
    try:
        with db.read() as s:
            keys = s.execute(sa.text("SELECT username_key FROM users WHERE username = 'Case1'"))
            assert keys.scalar() == "case1"
    finally:
        db.dispose()


def test_weak_passwords_are_refused_with_the_reason(svc: Any) -> None:
    c = svc.op
    for password, why in (
        (" " * 12, "only spaces"),
        ("password123", "commonly used"),
        ("Qwerty123", "commonly used"),
        ("12345678", "commonly used"),
        ("iloveyou", "commonly used"),
    ):
        r = c.http.post("/api/auth/register", json={"username": "weakling", "password": password})
        assert r.status_code == 422, (password, r.text)
        assert r.json()["code"] == "weak-password" and why in r.json()["detail"], r.text
    r = c.http.post(
        "/api/auth/register", json={"username": "weakling", "password": "quiet harbor lamp 9"}
    )
    assert r.status_code == 201, r.text


def test_registrations_are_limited_per_address(db_url: str) -> None:
    s = Service(db_url, register_limit_addr=3, register_window_s=600)
    try:
        c = Client(s.url)
        for i in range(3):
            r = c.post("/api/auth/register", {"username": f"reg{i}", "password": "lantern-moss-9"})
            assert r.status_code == 201, r.text
        r = c.post("/api/auth/register", {"username": "reg3", "password": "lantern-moss-9"})
        assert r.status_code == 429 and "registrations" in r.json()["detail"], r.text
        assert int(r.headers["Retry-After"]) > 0
        # another address is not held back; an operator enrolling players is not limited
        with _client_from(s.url, "127.0.0.3") as other:
            r = other.post(
                "/api/auth/register", json={"username": "reg4", "password": "lantern-moss-9"}
            )
            assert r.status_code == 201, r.text
        r = s.op.post("/api/auth/register", {"username": "reg5", "password": "lantern-moss-9"})
        assert r.status_code == 201, r.text
    finally:
        s.stop()


# ----------------------------------------------------------------------------- seats
def test_no_money_no_seat_and_seats_are_bounded(db_url: str) -> None:
    s = Service(db_url, max_seats_per_user=2)
    try:
        tables = [s.new_table(min_wager=500, max_wager=5000) for _ in range(3)]
        broke = s.player("broke", credit=0)
        r = broke.post(f"/api/tables/{tables[0]}/sit", {"spot": 1})
        assert r.status_code == 409 and r.json()["code"] == "no-money", r.text
        assert "minimum" in r.json()["detail"]
        short = s.player("short", credit=499)
        r = short.post(f"/api/tables/{tables[0]}/sit", {"spot": 1})
        assert r.status_code == 409 and r.json()["code"] == "no-money"
        rich = s.player("rich")
        rich.sit(tables[0], 1)
        rich.sit(tables[1], 1)
        rich.sit(tables[1], 1)  # sitting again where one sits is no new seat
        r = rich.post(f"/api/tables/{tables[2]}/sit", {"spot": 1})
        assert r.status_code == 409 and r.json()["code"] == "too-many-seats", r.text
        rich.ok(rich.post(f"/api/tables/{tables[0]}/leave"))
        rich.sit(tables[2], 1)
        assert all(not sp["occupied"] for sp in s.op.table(tables[0])["spots"])
    finally:
        s.stop()


def test_seat_of_a_player_who_never_wagers_is_freed(db_url: str) -> None:
    s = Service(db_url, idle_rounds=2, seat_away_s=0)
    try:
        table = s.new_table(betting_time_ms=300, setting_time_ms=1000)
        amy, idle = s.player("amy"), s.player("idler")
        amy.sit(table, 1)
        idle.sit(table, 2)
        ws = amy.ws(table)
        try:
            for _ in range(2):
                amy.ok(amy.wager(table, 1000))  # opens a round; it ends with no current round
                amy.wait_phase(table, ("settled", "voided", None), timeout=30)
            ws.wait_for(
                lambda m: (
                    m.get("type") == "table"
                    and not m["table"]["spots"][1]["occupied"]
                    and m["table"]["spots"][0]["occupied"]
                ),
                timeout=15,
            )
        finally:
            ws.close()
        freed = _audit(db_url, "seat-freed")
        assert [(f["spot"], f["username"]) for f in freed] == [(2, "idler")], freed
        assert "no wager in the last 2 rounds" in freed[0]["reason"]
        assert idle.ok(idle.get("/api/me"))["seats"] == []
        assert [(x["table_id"], x["spot"]) for x in amy.ok(amy.get("/api/me"))["seats"]] == [
            (table, 1)
        ]
        assert s.verify()["ok"]
    finally:
        s.stop()


def test_seat_of_a_player_whose_connections_are_gone_is_freed(db_url: str) -> None:
    s = Service(db_url, idle_rounds=0, seat_away_s=1.0)
    try:
        table = s.new_table()
        stays, goes = s.player("stays"), s.player("goes")
        stays.sit(table, 1)
        goes.sit(table, 2)
        watch = stays.ws(table)
        gone = goes.ws(table)
        try:
            gone.wait_for(lambda m: m.get("type") == "hello")
            time.sleep(0.8)  # seen while connected
            gone.close()
            deadline = time.time() + 15
            while time.time() < deadline and _audit(db_url, "seat-freed") == []:
                time.sleep(0.1)
            watch.wait_for(
                lambda m: m.get("type") == "table" and not m["table"]["spots"][1]["occupied"]
            )
            time.sleep(1.5)  # the connected player keeps the seat
        finally:
            watch.close()
        freed = _audit(db_url, "seat-freed")
        assert [(f["spot"], f["username"]) for f in freed] == [(2, "goes")], freed
        assert "no connection" in freed[0]["reason"]
        assert [(x["table_id"], x["spot"]) for x in stays.ok(stays.get("/api/me"))["seats"]] == [
            (table, 1)
        ]
    finally:
        s.stop()


# ----------------------------------------------------------------------------- tokens
def _forge(secret: bytes, claims: dict[str, Any]) -> str:
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    payload = b64(json.dumps(claims, separators=(",", ":")).encode())
    sig = b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())
    return f"{payload}.{sig}"


def test_tokens_longer_lived_than_allowed_or_without_an_id_are_refused(db_url: str) -> None:
    s = Service(db_url, token_ttl_s=600)
    try:
        c = s.player("tina", credit=0)
        rt = s.server.app.state.rt
        secret = rt._load_secret().encode()
        real = rt.signer.verify(c.token)
        uid, sid = real["sub"], real["sid"]
        t = int(time.time())
        good = _forge(secret, {"sub": uid, "role": "player", "iat": t, "exp": t + 600, "sid": sid})
        assert c.http.get("/api/me", headers={"Authorization": f"Bearer {good}"}).status_code == 200
        for claims in (
            {"sub": uid, "role": "player", "iat": t, "exp": t + 10 * 365 * 86400},
            {"sub": uid, "role": "player", "iat": t - 86400, "exp": t + 60},
            {"sub": str(uid), "role": "player", "iat": t, "exp": t + 60},
            {"sub": True, "role": "player", "iat": t, "exp": t + 60},
            {"sub": uid, "role": "player", "exp": t + 60},
            {"sub": 1.0, "role": "player", "iat": t, "exp": t + 60},
            {"sub": uid, "role": "player", "iat": t, "exp": t + 60, "sid": None},  # no session
            {"sub": uid, "role": "player", "iat": t, "exp": t + 60, "sid": "0" * 32},  # unknown
        ):
            claims = {"sid": sid, **claims}
            r = c.http.get("/api/me", headers={"Authorization": f"Bearer {_forge(secret, claims)}"})
            assert r.status_code == 401 and r.json()["code"] == "invalid-token", (claims, r.text)
    finally:
        s.stop()


def test_the_secret_is_a_private_file_not_a_row_and_a_new_one_ends_every_token(
    sqlite_url: str, tmp_path: Any
) -> None:
    s = Service(sqlite_url)
    try:
        token = s.player("sam", credit=0).token
    finally:
        s.stop()
    secret_file = tmp_path / "tables.sqlite3.secret"
    assert secret_file.exists() and secret_file.stat().st_mode & 0o777 == 0o600
    db = Database(sqlite_url)
    try:
        with db.read() as sess:
            assert sess.execute(sa.select(ServerSetting.key)).scalars().all() == []
    finally:
        db.dispose()
    # the same file after a restart: the token holds
    again = LiveServer(sqlite_url)
    try:
        r = httpx.get(again.url + "/api/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
    finally:
        again.stop()
    # a new secret: every token ends
    secret_file.unlink()
    fresh = LiveServer(sqlite_url)
    try:
        r = httpx.get(fresh.url + "/api/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401 and r.json()["code"] == "invalid-token"
    finally:
        fresh.stop()
    assert secret_file.exists()
    fresh2 = LiveServer(sqlite_url, secret="an operator-chosen secret, 32+ chars")
    try:
        r = httpx.get(fresh2.url + "/api/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401
    finally:
        fresh2.stop()


def test_migration_moves_the_secret_out_and_keys_the_usernames(tmp_path: Any) -> None:
    from paigow.service.store.migrate import current_revision, upgrade

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    db = Database(url)
    try:
        upgrade(db, "0001")
        with db.write() as s:
            s.execute(
                sa.text("INSERT INTO server_settings (key, value) VALUES ('token_secret', 'x' )")
            )
            for name in ("Bob", "bob", "Zed"):
                s.execute(
                    sa.text(
                        "INSERT INTO users (username, password_hash, role, created_at) "
                        "VALUES (:n, 'h', 'player', 0)"
                    ),
                    {"n": name},
                )
        upgrade(db, "0002_doors")
        assert current_revision(db) == "0002_doors"
        with db.read() as s:
            assert s.execute(sa.text("SELECT count(*) FROM server_settings")).scalar() == 0
            keys = dict(s.execute(sa.text("SELECT username, username_key FROM users")).all())
        assert keys["Bob"] == "bob" and keys["Zed"] == "zed" and keys["bob"].startswith("bob#")
        with pytest.raises(sa.exc.IntegrityError), db.write() as s:
            s.execute(
                sa.text(
                    "INSERT INTO users (username, username_key, password_hash, role, created_at) "
                    "VALUES ('BOB', 'bob', 'h', 'player', 0)"
                )
            )
    finally:
        db.dispose()


# ----------------------------------------------------------------------------- WebSockets
def test_websocket_closed_when_its_token_expires(db_url: str) -> None:
    s = Service(db_url, token_ttl_s=4)  # room for a loaded machine to connect first
    try:
        table = s.new_table()
        c = s.player("eve", credit=0)
        ws = c.ws(table)
        try:
            ws.wait_for(lambda m: m.get("type") == "hello")
            m = ws.wait_for(lambda m: m.get("code") == "token-expired", timeout=15)
            assert "log in again" in m["detail"]
            ws.thread.join(10)
            assert ws.closed == 4401
        finally:
            ws.close()
    finally:
        s.stop()


def test_websockets_are_capped_per_user_and_per_address(db_url: str) -> None:
    s = Service(db_url, ws_per_user=2, ws_per_addr=4)
    try:
        table = s.new_table()
        c = s.player("wendy", credit=0)
        mine = []
        for _ in range(2):  # one after the other: which socket is the one too many is certain
            mine.append(c.ws(table))
            mine[-1].wait_for(lambda m: m.get("type") == "hello")
        extra = c.ws(table)
        try:
            m = extra.wait_for(lambda m: m.get("type") == "error")
            assert m["code"] == "too-many-connections"
            extra.thread.join(10)
            assert extra.closed == 4429
            spectators = []
            for _ in range(2):
                spectators.append(c.ws(table, token=""))
                spectators[-1].wait_for(lambda m: m.get("type") == "hello")
            spectators.append(c.ws(table, token=""))
            assert spectators[2].wait_for(lambda m: m.get("type") == "error")["code"] == (
                "too-many-connections"
            )
            mine[0].close()
            for w in spectators:
                w.close()
            deadline = time.time() + 15  # a closed connection frees its place (once seen closed)
            while True:
                again = c.ws(table)
                try:
                    first = again.wait_for(lambda m: m.get("type") in ("hello", "error"))
                finally:
                    again.close()
                if first["type"] == "hello" or time.time() > deadline:
                    break
                time.sleep(0.2)
            assert first["type"] == "hello", first
        finally:
            for w in [*mine, extra]:
                w.close()
    finally:
        s.stop()


# ----------------------------------------------------------------------------- idempotency
def test_concurrent_retries_of_one_key_get_the_stored_response() -> None:
    """50 identical wager requests at once on PostgreSQL: one wager, 50 identical answers."""
    with pg_schema() as db_url:
        s = Service(db_url)
        try:
            table = s.new_table(betting_time_ms=60_000)
            p = s.player("paula")
            p.sit(table, 1)
            before = p.balance()
            body = {"amount": 1500, "idempotency_key": "one-key-" + secrets.token_hex(4)}
            start = threading.Barrier(50)

            def send(_: int) -> httpx.Response:
                with httpx.Client(base_url=s.url, timeout=60, trust_env=False, verify=False) as h:
                    start.wait()
                    return h.post(
                        f"/api/tables/{table}/wager",
                        json=body,
                        headers={"Authorization": f"Bearer {p.token}"},
                    )

            with ThreadPoolExecutor(50) as pool:
                answers = list(pool.map(send, range(50)))
            codes = [r.status_code for r in answers]
            assert codes == [200] * 50, [r.text for r in answers if r.status_code != 200][:3]
            assert len({r.text for r in answers}) == 1
            assert p.balance() == before - 1500
        finally:
            s.stop()


def test_stored_keys_expire_after_a_day(db_url: str) -> None:
    from paigow.service.api import idempotency

    s = Service(db_url)
    try:
        s.player("kim", credit=0)
        first = s.credit("kim", 100, key="fund-kim")
        assert s.credit("kim", 100, key="fund-kim") == first  # a retry: the stored answer
        db = Database(db_url)
        try:
            with db.write() as sess:
                sess.execute(
                    sa.update(IdempotencyKey)
                    .where(IdempotencyKey.key == "fund-kim")
                    .values(created_at=time.time() - 86_400 - 60)
                )
            again = s.credit("kim", 100, key="fund-kim")  # expired: a new request
            assert again["balance"] == first["balance"] + 100
            with db.write() as sess:
                sess.execute(sa.update(IdempotencyKey).values(created_at=time.time() - 2 * 86_400))
            with db.write() as sess:
                assert idempotency.purge(Tx(sess.connection(), sess)) >= 1
            with db.read() as sess:
                assert (
                    sess.execute(sa.select(sa.func.count()).select_from(IdempotencyKey)).scalar()
                    == 0
                )
        finally:
            db.dispose()
    finally:
        s.stop()


# ----------------------------------------------------------------------------- hashing
def test_password_hashing_is_argon2id_at_owasp_parameters() -> None:
    from paigow.service.accounts.auth_tokens import Passwords
    from paigow.service.config import ServiceConfig

    cfg = ServiceConfig("sqlite:///x.db")
    assert (cfg.argon2_memory_kib, cfg.argon2_time_cost, cfg.argon2_parallelism) == (19_456, 2, 1)
    hashed = Passwords().hash("a password")
    assert hashed.startswith("$argon2id$v=19$m=19456,t=2,p=1$")


def test_a_login_flood_queues_on_its_own_pool_and_overflows_with_503(sqlite_url: str) -> None:
    """Slow hashes, one hashing thread, two places in its queue: of 12 simultaneous log-ins some
    are refused at once (503, Retry-After) while health checks and table reads keep answering;
    the hashing threads are not the request threads."""
    s = Service(
        sqlite_url, hash_threads=1, hash_queue=2, argon2_memory_kib=65_536, argon2_time_cost=3
    )
    try:
        s.player("flood", credit=0)
        results: list[httpx.Response] = []
        reads: list[int] = []
        go = threading.Barrier(13)

        def login(_: int) -> None:
            with httpx.Client(base_url=s.url, timeout=60, trust_env=False, verify=False) as h:
                go.wait()
                results.append(
                    h.post(
                        "/api/auth/login",
                        json={"username": "flood", "password": "password-flood"},
                    )
                )

        def read() -> None:
            with httpx.Client(base_url=s.url, timeout=60, trust_env=False, verify=False) as h:
                go.wait()
                for _ in range(5):
                    reads.append(h.get("/api/health").status_code)
                    reads.append(h.get("/api/tables").status_code)

        threads = [threading.Thread(target=login, args=(i,)) for i in range(12)]
        threads.append(threading.Thread(target=read))
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        codes = sorted(r.status_code for r in results)
        assert codes.count(200) >= 1 and codes.count(503) >= 1, codes
        assert set(codes) <= {200, 503}
        refused = next(r for r in results if r.status_code == 503)
        assert refused.json()["code"] == "overloaded" and refused.headers["Retry-After"] == "1"
        assert reads == [200] * 10
        rt = s.server.app.state.rt
        assert rt.hash_pool.threads == 1
    finally:
        s.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_hashing_threads_run_at_a_lower_priority() -> None:
    """When the cores are busy, requests and dealers go before password hashes."""
    import asyncio
    import os

    from paigow.service.accounts.throttles import HashPool

    pool = HashPool(2, 4, nice=7)
    try:

        async def niceness() -> list[int]:
            here = threading.get_native_id
            return list(
                await asyncio.gather(
                    *(pool.run(lambda: os.getpriority(os.PRIO_PROCESS, here())) for _ in range(4))
                )
            )

        base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        with ThreadPoolExecutor(1) as loop_thread:  # a browser test's loop may run on this one
            seen = loop_thread.submit(asyncio.run, niceness()).result()
        assert set(seen) == {min(19, base + 7)}
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base  # ours as was
    finally:
        pool.shutdown()


def test_a_hash_made_with_older_parameters_is_upgraded_at_log_in(sqlite_url: str) -> None:
    s = Service(sqlite_url, argon2_memory_kib=2048, argon2_time_cost=2)
    try:
        s.player("olda", credit=0)
        db = Database(sqlite_url)
        try:
            from paigow.service.accounts.auth_tokens import Passwords

            weak = Passwords(time_cost=1, memory_kib=1024).hash("password-olda")
            with db.write() as sess:
                sess.execute(
                    sa.text("UPDATE users SET password_hash = :h WHERE username = 'olda'"),
                    {"h": weak},
                )
            s.login("olda", "password-olda")
            with db.read() as sess:
                now_hash = sess.execute(
                    sa.text("SELECT password_hash FROM users WHERE username = 'olda'")
                ).scalar_one()
            assert now_hash.startswith("$argon2id$v=19$m=2048,t=2,p=1$"), now_hash
            s.login("olda", "password-olda")  # and the new hash works
        finally:
            db.dispose()
    finally:
        s.stop()
