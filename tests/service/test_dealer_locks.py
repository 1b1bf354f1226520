"""The dealer locks (:mod:`paigow.service.process.lock`): a supervisor's pass tries every table
it does not deal in one statement, whatever the number of tables, and takes exactly those no
other process holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paigow.service.process.lock import FileLock, PgAdvisoryLocks
from paigow.service.store.db import Database
from tests.helpers.service import pg_schema, run_on_own_loop


def _counted(locks: PgAdvisoryLocks) -> list[str]:
    """The statements ``locks`` sends from now on."""
    sent: list[str] = []
    rows = locks._rows

    async def counted(sql: str, *args: object) -> list[tuple[Any, ...]]:
        sent.append(sql)
        return await rows(sql, *args)

    locks._rows = counted  # type: ignore[method-assign]
    return sent


def test_advisory_locks_are_tried_in_one_statement() -> None:
    async def main(db: Database) -> None:
        a, b = PgAdvisoryLocks(db), PgAdvisoryLocks(db)
        await a.start()
        await b.start()
        try:
            sent_a, sent_b = _counted(a), _counted(b)
            tables = list(range(1, 21))
            assert await a.try_acquire_all(tables[:12]) == set(tables[:12])
            assert len(sent_a) == 1
            # the other process: twenty tables, one statement, only the free ones taken
            assert await b.try_acquire_all(tables) == set(tables[12:])
            assert len(sent_b) == 1
            # what a process holds costs no statement
            assert await a.try_acquire_all(tables[:12]) == set(tables[:12])
            assert len(sent_a) == 1
            # nothing free: nothing taken
            assert await b.try_acquire_all(tables[:12]) == set()
            # a lock given back is taken by the other process's next pass
            await a.release(5)
            assert await b.try_acquire_all(tables) == {5, *tables[12:]}
            assert await a.try_acquire_all([5]) == set()
        finally:
            await a.stop()
            await b.stop()
        # a process gone gives its locks back (its connection closes)
        c = PgAdvisoryLocks(db)
        await c.start()
        try:
            assert await c.try_acquire_all(tables) == set(tables)
        finally:
            await c.stop()

    with pg_schema() as url:
        db = Database(url)
        try:
            run_on_own_loop(main(db))
        finally:
            db.dispose()


def test_the_sqlite_lock_is_all_tables_or_none(tmp_path: Path) -> None:
    async def main(db: Database) -> None:
        a, b = FileLock(db), FileLock(db)
        await a.start()
        await b.start()
        try:
            assert await a.try_acquire_all([1, 2, 3]) == {1, 2, 3}
            assert await b.try_acquire_all([1, 2, 3]) == set()
        finally:
            await a.stop()
        assert await b.try_acquire_all([4]) == {4}  # the first process is gone
        await b.stop()

    db = Database(f"sqlite:///{tmp_path / 'tables.sqlite3'}")
    try:
        run_on_own_loop(main(db))
    finally:
        db.dispose()
