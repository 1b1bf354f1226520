"""A request that finds no connection of its pool free within ``pg_pool_wait_s`` is answered
503 ``busy`` with ``Retry-After`` (nothing of it done; the client retries with the same
idempotency key), never a 500 (issue 51: 200 tables on PostgreSQL, whose opening burst held
every connection of the steps' pool for 30 s and failed requests)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.helpers.service import Service, pg_admin, pg_schema


@pytest.mark.slow
def test_a_step_that_finds_no_connection_free_is_answered_503_busy() -> None:
    with pg_schema(migrated=True) as url:
        schema = url.rsplit("%3D", 1)[1]
        svc = Service(url, pg_step_connections=2, pg_pool_wait_s=0.5)
        try:
            tables = [svc.new_table(betting_time_ms=60_000) for _ in range(3)]
            players = [svc.player() for _ in tables]
            for p, t in zip(players, tables, strict=True):
                p.sit(t, 1)
            keys = [f"pool-wait-{i}" for i in range(3)]
            with pg_admin() as lock:  # the three tables' rows held: their steps wait for them
                lock.autocommit = False
                lock.execute(
                    f"SELECT id FROM {schema}.game_tables WHERE id = ANY(%s) FOR UPDATE",
                    (tables,),
                )
                with ThreadPoolExecutor(3) as pool:
                    futures = [
                        pool.submit(p.wager, t, 1000, k)
                        for p, t, k in zip(players, tables, keys, strict=True)
                    ]
                    time.sleep(2.0)  # two steps hold the pool's two connections; one waits
                    lock.rollback()
                    answers = [f.result(timeout=30) for f in futures]
            statuses = sorted(r.status_code for r in answers)
            assert 500 not in statuses, [r.text for r in answers]
            busy = [r for r in answers if r.status_code == 503]
            assert busy, statuses
            for r in busy:
                assert r.json()["code"] == "busy", r.text
                assert r.headers["Retry-After"] == "1"
            for p, t, k, r in zip(players, tables, keys, answers, strict=True):
                if r.status_code == 503:  # the retry, with the same key, is taken
                    assert p.wager(t, 1000, k).status_code == 200
                else:
                    assert r.status_code == 200, r.text
                assert p.balance() == 100_000 - 1000  # each wager once
            metrics = svc.op.get("/metrics").text
            assert 'paigow_db_errors_total{code="busy"' in metrics
            assert svc.verify()["ok"]
        finally:
            svc.stop()


def test_a_pool_wait_of_zero_or_less_is_refused() -> None:
    """Zero or less would answer every request 503 as soon as the pool is lent out: the server
    does not start with it, and says why."""
    from paigow.service.store.db import Database

    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="pool wait must be more than 0 seconds"):
            Database("sqlite:///x.db", pool_wait_s=bad)
