"""A full disk and a read-only database, for real: the database on a small tmpfs that a filler
file fills (SQLite's file; a PostgreSQL tablespace holding the whole database), and PostgreSQL
made read-only (``ALTER SYSTEM SET default_transaction_read_only`` and a reload, which every open
session takes). Each refused step answers 503 with ``storage-full`` / ``storage-read-only``,
nothing of it is applied, the dealer holds its round (never voided) and play resumes by itself
once the space or the writes come back."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.helpers import pg_cluster
from tests.helpers.disk import fill, tmpfs
from tests.helpers.service import Client, Service, house_low

COUNTED = ("ledger_entries", "ledger_transactions", "rounds", "round_events", "round_wagers")


def counts(url: str) -> dict[str, int]:
    """The rows of the tables a step writes (read by a connection of the test's own)."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return {
                t: int(conn.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar_one())
                for t in COUNTED
            }
    finally:
        engine.dispose()


def refused(r: Any, code: str) -> None:
    assert r.status_code == 503, f"{r.status_code} {r.text}"
    body = r.json()
    assert body["code"] == code and "nothing was applied" in body["detail"], body
    assert r.headers.get("Retry-After")


def phase(c: Client, table: int) -> tuple[str | None, str | None, int]:
    """The table's round as its server holds it (the cached round): phase, id, wagers."""
    rnd = c.table(table)["round"]
    return (rnd["phase"], rnd["id"], len(rnd["wagers"])) if rnd else (None, None, 0)


def credits_until_refused(svc: Service, name: str, code: str, tries: int = 400) -> int:
    """Operator credits of 1 cent until one is refused with ``code``; the cents accepted."""
    accepted = 0
    for _ in range(tries):
        r = svc.op.post(
            f"/api/admin/wallets/{name}/credit",
            {"amount": 1, "idempotency_key": secrets.token_hex(8)},
        )
        if r.status_code == 200:
            accepted += 1
            continue
        refused(r, code)
        return accepted
    raise AssertionError(f"no credit refused in {tries} tries")


def play_through(svc: Service, a: Client, b: Client, table: int, url: str,
                 stop: Any, start: Any, code: str, strict_hold: bool) -> None:  # fmt: skip
    """``a`` wagers; the database stops taking writes (``stop``); ``b``'s wager and credits are
    refused with ``code`` and nothing of them is applied; the dealer holds the round; writes
    come back (``start``); the round deals and settles, ``b`` wagers again, the books are
    clean."""
    a.sit(table, 1)
    b.sit(table, 2)
    placed = a.ok(a.wager(table, 1500))
    rid = placed["round_id"]
    stop()
    before = counts(url)
    if strict_hold:  # (PostgreSQL takes a wager into its tables' free room: see below)
        refused(b.wager(table, 2000), code)
    accepted = credits_until_refused(svc, b.username or "", code)
    after = counts(url)
    if strict_hold:  # SQLite: the WAL was emptied, every write needs room
        assert accepted == 0 and after == before, (before, after)
    else:  # PostgreSQL: a step fits until a page must be added; then none is applied
        assert after["ledger_transactions"] == before["ledger_transactions"] + accepted
        assert after["round_wagers"] == before["round_wagers"]
    assert b.balance() == 100_000 + accepted  # nothing of the refused wager
    assert a.balance() == 100_000 - 1500
    time.sleep(3)  # betting (1.5 s) is over: the dealer's steps fail while it is full
    ph, same, wagers = phase(a, table)
    assert same == rid and ph != "voided" and wagers == 1  # the refused wager is not cached
    if strict_hold:
        assert ph == "betting"  # held, not dealt, not voided
        assert counts(url) == after
    assert svc.op.get("/api/health").json()["storage"] == code  # the pages say play is paused
    scraped = svc.op.get("/metrics").text  # and the operator's alert reads it
    assert re.search(rf'paigow_storage_paused\{{code="{code}"[^}}]*\}} 1\.0', scraped), scraped
    start()
    hand = a.wait_dealt(table, timeout=30)  # resumes by itself
    cards = hand["cards"]
    a.ok(a.set(table, house_low(cards)))
    a.wait_phase(table, (None, "settled", "betting"), timeout=30)
    rnd = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
    assert rnd["phase"] == "settled", rnd["phase"]
    assert a.balance() == 100_000 - 1500 + sum(rnd["result"]["returned"].values())
    b.ok(b.wager(table, 2000))  # the next step succeeds
    assert svc.op.get("/api/health").json()["storage"] == "ok"  # writes work: not paused
    report = svc.verify()
    assert report["ok"], report


# ----------------------------------------------------------------------------- the codes
def test_the_drivers_refusals_are_classified() -> None:
    import psycopg.errors as pe
    from sqlalchemy.exc import InternalError, OperationalError

    from paigow.service.store.faults import classify

    def code(exc: BaseException) -> str | None:
        fault = classify(exc)
        return None if fault is None else fault.code

    full = sqlite3.OperationalError("database or disk is full")
    locked = sqlite3.OperationalError("database is locked")
    read_only = sqlite3.OperationalError("attempt to write a readonly database")
    assert code(OperationalError("INSERT", {}, full)) == "storage-full"
    assert code(OperationalError("INSERT", {}, read_only)) == "storage-read-only"
    assert code(OperationalError("INSERT", {}, locked)) is None  # busy: retried, as before
    assert code(OperationalError("INSERT", {}, pe.DiskFull("could not extend"))) == "storage-full"
    pg_ro = pe.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction")
    assert code(InternalError("INSERT", {}, pg_ro)) == "storage-read-only"
    assert code(OperationalError("INSERT", {}, pe.DeadlockDetected("deadlock"))) is None


# ----------------------------------------------------------------------------- SQLite
@pytest.mark.slow
def test_sqlite_full_disk_refuses_holds_and_resumes() -> None:
    with tmpfs(48) as disk:
        path = disk / "tables.sqlite3"
        url = f"sqlite:///{path}"
        svc = Service(url)
        try:
            table = svc.new_table(betting_time_ms=1500, setting_time_ms=60_000)
            a, b = svc.player("ann"), svc.player("bob")
            filler: list[Path] = []

            def stop() -> None:
                # the WAL emptied (a writer reuses an old WAL's pages without new room)
                with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
                    for _ in range(50):
                        busy, _log, _done = conn.execute(
                            "PRAGMA wal_checkpoint(TRUNCATE)"
                        ).fetchone()
                        if not busy:
                            break
                        time.sleep(0.05)
                    assert not busy
                assert os.path.getsize(f"{path}-wal") == 0
                filler.append(fill(disk))

            def start() -> None:
                filler.pop().unlink()

            play_through(svc, a, b, table, url, stop, start, "storage-full", strict_hold=True)
        finally:
            svc.stop()


# ----------------------------------------------------------------------------- PostgreSQL
needs_clusters = pytest.mark.skipif(
    not pg_cluster.available(), reason="no PostgreSQL binaries or postgres user for a cluster"
)


@pytest.mark.slow
@needs_clusters
def test_postgres_tablespace_full_refuses_holds_and_resumes() -> None:
    pg = pg_cluster.Cluster().init()
    try:
        pg.start()
        with tmpfs(64, owner="postgres") as disk:
            space = disk / "space"
            space.mkdir()
            shutil.chown(space, "postgres", "postgres")
            pg.sql(f"CREATE TABLESPACE small LOCATION '{space}'", db="postgres")
            pg.sql(f"CREATE DATABASE {pg_cluster.DB} TABLESPACE small", db="postgres")
            url = pg.url()
            svc = Service(url)
            try:
                table = svc.new_table(betting_time_ms=1500, setting_time_ms=60_000)
                a, b = svc.player("ann"), svc.player("bob")
                filler: list[Path] = []

                def stop() -> None:
                    pg.sql("CHECKPOINT")  # the dirty pages written while there is room
                    filler.append(fill(disk))

                def start() -> None:
                    filler.pop().unlink()

                play_through(svc, a, b, table, url, stop, start, "storage-full", strict_hold=False)
                assert "No space left on device" in pg.log_text()
            finally:
                svc.stop()
                with contextlib.suppress(Exception):
                    pg.stop("immediate")
    finally:
        pg.remove()


@pytest.mark.slow
@needs_clusters
def test_postgres_read_only_refuses_holds_and_resumes() -> None:
    with pg_cluster.cluster() as pg:
        url = pg.url()
        svc = Service(url)
        try:
            table = svc.new_table(betting_time_ms=1500, setting_time_ms=60_000)
            a, b = svc.player("ann"), svc.player("bob")

            def read_only(on: bool) -> None:
                # every session (the servers' pooled ones too) takes it at the reload
                value = "on" if on else "off"
                pg.sql(f"ALTER SYSTEM SET default_transaction_read_only = {value}")
                pg.sql("SELECT pg_reload_conf()")
                time.sleep(0.5)

            play_through(
                svc, a, b, table, url,
                lambda: read_only(True), lambda: read_only(False),
                "storage-read-only", strict_hold=True,
            )  # fmt: skip
        finally:
            svc.stop()
