"""Fixtures of the table service's tests.

Every API test runs twice: on SQLite (a file in a temporary folder) and on PostgreSQL
(127.0.0.1:5432, database ``test``, a fresh schema per test, dropped afterwards; marked ``slow``,
so the quick lane runs SQLite alone). Each test's database is a copy of one migrated once per
process (:func:`tests.helpers.service.migrated_sqlite`, :func:`tests.helpers.service.pg_schema`),
not a run of every migration. The service runs as a real uvicorn server in a thread of the test
process (real HTTP, real WebSockets); the kill-and-restart tests start ``paigow serve``
processes instead. The helpers themselves are in :mod:`tests.helpers.service`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.service import Service, migrated_sqlite, pg_schema


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def backend(request: pytest.FixtureRequest) -> str:
    """Each API test on SQLite and on PostgreSQL (the full suite; the quick lane: SQLite)."""
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A migrated database of ``backend``, this test's own."""
    if backend == "sqlite":
        yield migrated_sqlite(tmp_path / "tables.sqlite3")
    else:
        with pg_schema(migrated=True) as url:
            yield url


@pytest.fixture
def db(db_url: str) -> Iterator[Any]:
    """The database of ``db_url``, migrated (the steps' tests: ``side_steps.py``)."""
    from paigow.service.store.db import Database

    d = Database(db_url)
    d.migrate()
    try:
        yield d
    finally:
        d.dispose()


@pytest.fixture
def svc(db_url: str) -> Iterator[Service]:
    s = Service(db_url)
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tables.sqlite3'}"
