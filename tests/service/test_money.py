"""Money: idempotency keys, the double-entry ledger and its invariant, concurrency."""

from __future__ import annotations

import secrets
import threading
from typing import Any

import sqlalchemy as sa

from paigow.service.store.db import Database, LedgerTransaction


def _count(db_url: str, kind: str) -> int:
    db = Database(db_url)
    try:
        with db.read() as s:
            return int(
                s.execute(
                    sa.select(sa.func.count()).where(LedgerTransaction.kind == kind)
                ).scalar_one()
            )
    finally:
        db.dispose()


def test_wager_idempotency(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=10_000)
    a, idle = svc.player(), svc.player()
    a.sit(table, 1)
    idle.sit(table, 2)
    first = a.ok(a.wager(table, 1200, key="wager-1"))
    again = a.ok(a.wager(table, 1200, key="wager-1"))
    assert again == first
    assert a.balance() == 100_000 - 1200
    assert _count(svc.db_url, "wager") == 1
    r = a.wager(table, 1300, key="wager-1")
    assert r.status_code == 409 and r.json()["code"] == "idempotency-key-reused"
    # the header works too, and must agree with the body
    r = a.post(
        f"/api/tables/{table}/wager", {"amount": 1200}, headers={"Idempotency-Key": "wager-1"}
    )
    assert r.status_code == 200 and r.json() == first
    r = a.post(
        f"/api/tables/{table}/wager",
        {"amount": 1200, "idempotency_key": "a"},
        headers={"Idempotency-Key": "b"},
    )
    assert r.status_code == 400 and r.json()["code"] == "idempotency-key-mismatch"
    r = a.post(
        f"/api/tables/{table}/wager", {"amount": 1200}, headers={"Idempotency-Key": "bad key!"}
    )
    assert r.status_code == 422
    # keys belong to their user: another player's same key is a different request
    idle_w = idle.ok(idle.wager(table, 900, key="wager-1"))
    assert idle_w["spot"] == 2
    assert svc.verify()["ok"]


def test_credit_and_debit_idempotency(svc: Any) -> None:
    p = svc.player(credit=0)
    name = p.username
    op = svc.op
    body = {"amount": 5000, "idempotency_key": "credit-1"}
    first = op.ok(op.post(f"/api/admin/wallets/{name}/credit", body))
    assert op.ok(op.post(f"/api/admin/wallets/{name}/credit", body)) == first
    assert p.balance() == 5000
    r = op.post(
        f"/api/admin/wallets/{name}/credit", {"amount": 6000, "idempotency_key": "credit-1"}
    )
    assert r.status_code == 409
    r = op.post(f"/api/admin/wallets/{name}/debit", {"amount": 6000, "idempotency_key": "debit-1"})
    assert r.status_code == 409 and r.json()["code"] == "insufficient-funds"
    op.ok(
        op.post(f"/api/admin/wallets/{name}/debit", {"amount": 2000, "idempotency_key": "debit-1"})
    )
    op.ok(
        op.post(f"/api/admin/wallets/{name}/debit", {"amount": 2000, "idempotency_key": "debit-1"})
    )
    assert p.balance() == 3000
    r = op.post("/api/admin/wallets/nobody/credit", {"amount": 1, "idempotency_key": "x"})
    assert r.status_code == 404
    r = op.post(f"/api/admin/wallets/{name}/credit", {"amount": 1.5, "idempotency_key": "y"})
    assert r.status_code == 422
    r = op.post(f"/api/admin/wallets/{name}/credit", {"amount": 10})
    assert r.status_code == 400
    report = svc.verify()
    assert report["ok"] and report["ledger"]["credited"] == 3000
    assert report["ledger"]["sum_of_accounts"] == 3000
    audit = op.get("/api/admin/audit")
    assert audit.headers["content-type"].startswith("application/x-ndjson")
    actions = [line for line in audit.text.splitlines() if '"action":"credit"' in line]
    assert len(actions) == 1


def test_concurrent_retries_move_money_once(svc: Any) -> None:
    p = svc.player(credit=0)
    results: list[int] = []

    def go() -> None:
        r = svc.op.post(
            f"/api/admin/wallets/{p.username}/credit", {"amount": 777, "idempotency_key": "same"}
        )
        results.append(r.status_code)

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [200] * 8
    assert p.balance() == 777
    assert _count(svc.db_url, "credit") == 1


def test_many_players_many_tables_concurrently(svc: Any) -> None:
    tables = [svc.new_table(betting_time_ms=300, setting_time_ms=400) for _ in range(3)]
    players = [(svc.player(credit=20_000), t, spot) for t in tables for spot in (1, 2, 3)]
    for p, t, spot in players:
        p.sit(t, spot)
    errors: list[str] = []

    def play(p: Any, t: int) -> None:
        for _ in range(3):
            r = p.wager(t, 1000 + secrets.randbelow(10) * 100)
            if r.status_code not in (200, 409):
                errors.append(r.text)
            try:
                p.wait_phase(t, (None, "settled", "voided"), timeout=20)
            except AssertionError as exc:
                errors.append(str(exc))

    threads = [threading.Thread(target=play, args=(p, t)) for p, t, _ in players]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:3]
    report = svc.verify()
    assert report["ok"], report
    assert report["rounds"] >= 3
    assert report["ledger"]["system_accounts"]["wagers-in-play"] == 0
