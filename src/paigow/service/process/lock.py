"""The dealer lock of each table: the process that holds it deals that table; no other does.

PostgreSQL: session advisory locks ``pg_try_advisory_lock(namespace, table id)`` held on one
dedicated connection per process; when the process dies its connection closes and the server
releases its locks, so a surviving process takes them over. SQLite: one exclusive ``flock`` on a
file beside the database: the process that holds it deals every table; the kernel releases it
when the process dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import psycopg

    from paigow.service.store.db import Database

log = logging.getLogger("paigow.service.process.lock")


class DealerLocks(Protocol):
    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def try_acquire_all(self, table_ids: Sequence[int]) -> set[int]:
        """The tables of ``table_ids`` whose locks this process holds once it has tried to
        take each one it did not hold (the others are held by another process)."""
        ...

    async def release(self, table_id: int) -> None: ...
    async def healthy(self) -> bool:
        """False when the locks may have been lost (the holder must stop dealing)."""
        ...


class PgAdvisoryLocks:
    """Session advisory locks on a dedicated connection."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.key = db.namespace_key()
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._held: set[int] = set()
        self._mutex = asyncio.Lock()

    async def start(self) -> None:
        await self._connect()

    async def _connect(self) -> None:
        import psycopg

        self._conn = await psycopg.AsyncConnection.connect(
            self.db.psycopg_conninfo("locks"), autocommit=True
        )
        self._held.clear()

    async def stop(self) -> None:
        conn = self._conn
        self._conn = None
        self._held.clear()
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _rows(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        async with self._mutex:
            if self._conn is None:
                await self._connect()
            assert self._conn is not None
            cur = await self._conn.execute(sql, args)
            return await cur.fetchall()

    async def _query(self, sql: str, *args: int) -> object:
        rows = await self._rows(sql, *args)
        return rows[0][0] if rows else None

    async def try_acquire_all(self, table_ids: Sequence[int]) -> set[int]:
        """One statement tries the locks of all the tables not held yet (a supervisor's pass
        over twenty tables another process deals was twenty round trips)."""
        wanted = [t for t in dict.fromkeys(table_ids) if t not in self._held]
        if wanted:
            rows = await self._rows(
                "SELECT t, pg_try_advisory_lock(%s, t) FROM unnest(%s::integer[]) AS t",
                self.key,
                wanted,
            )
            self._held.update(int(t) for t, got in rows if got)
        return {t for t in table_ids if t in self._held}

    async def release(self, table_id: int) -> None:
        if table_id in self._held:
            self._held.discard(table_id)
            with contextlib.suppress(Exception):
                await self._query("SELECT pg_advisory_unlock(%s, %s)", self.key, table_id)

    async def healthy(self) -> bool:
        try:
            async with asyncio.timeout(5):
                await self._query("SELECT 1")
            return True
        except Exception as exc:
            log.warning("dealer lock connection lost (%s)", type(exc).__name__)
            await self.stop()
            return False


class FileLock:
    """One exclusive ``flock`` for the whole SQLite database."""

    def __init__(self, db: Database) -> None:
        assert db.path is not None
        self.path = db.path.with_name(db.path.name + ".dealer-lock")
        self._fd: int | None = None

    async def start(self) -> None:
        if not self._try():
            log.warning(
                "another process deals the tables of %s: with SQLite run one server process "
                "(table events reach only the WebSocket clients of the process that made them); "
                "use PostgreSQL for several",
                self.path.with_suffix("").name,
            )

    def _try(self) -> bool:
        import fcntl

        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    async def stop(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    async def try_acquire_all(self, table_ids: Sequence[int]) -> set[int]:
        return set(table_ids) if self._try() else set()

    async def release(self, table_id: int) -> None:
        return None

    async def healthy(self) -> bool:
        return True


def dealer_locks(db: Database) -> DealerLocks:
    return PgAdvisoryLocks(db) if db.is_postgres else FileLock(db)
