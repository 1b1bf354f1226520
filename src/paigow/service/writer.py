"""Where the service's steps run: every write the players and the dealers make (a wager, a
setting, a deal, a settlement) is a function of a :class:`paigow.service.sql.Tx`, handed to the
process's writer and awaited.

- SQLite (:class:`SqliteWriter`): one thread owns the write connection and runs the steps one
  after another, each inside a savepoint of its own (a step that fails is rolled back alone and
  nothing of it remains), and commits the steps waiting together: one commit, one ``fsync``, for
  as many steps as came in while the last commit was being written (group commit). A step is
  answered only once its commit is on disk. SQLite has one writer at a time anyway; this one
  never waits on the others' locks, and the event loop never waits on a thread pool.
- PostgreSQL (:class:`PostgresWriter`): each step is a transaction of its own on a pooled
  connection of an asyncio engine (row locks let steps at different tables run at once; the
  step's code runs on the event loop, its statements awaited), retried on a deadlock, a
  serialization failure or a unique-key race.

Either way a step's table notices are sent at its commit (PostgreSQL: ``pg_notify`` inside the
transaction, for every process) and delivered in this process on the event loop, with the
step's work to do once committed (caches) done first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from paigow.service.sql import Tx

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from paigow.service.events_bus import Notice
    from paigow.service.runtime import Runtime

T = TypeVar("T")
Step = Callable[[Tx], Any]
log = logging.getLogger("paigow.service.writer")

MAX_GROUP = 64
"""The most steps one SQLite commit takes."""


def retryable(exc: BaseException) -> bool:
    """Deadlocks, serialization failures and unique-key races (PostgreSQL); a locked SQLite."""
    orig = getattr(exc, "orig", None)
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in ("40001", "40P01", "23505"):
        return True
    return isinstance(exc, OperationalError) and "locked" in str(orig)


@dataclass
class _Job:
    fn: Step
    future: asyncio.Future[Any]
    tx: Tx | None = None
    result: Any = None
    error: BaseException | None = None
    notices: list[Notice] = field(default_factory=list)
    undone: list[Callable[[], None]] = field(default_factory=list)
    """What the step asked to do once it has been rolled back."""


class SqliteWriter:
    """One thread, one connection, steps committed in groups (see the module's text)."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._conn: sa.Connection | None = None
        self.groups = 0
        self.steps = 0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name="paigow-writer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(30)
            self._thread = None

    async def aclose(self) -> None:
        await asyncio.to_thread(self.stop)

    async def run(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` as a step; its result once its commit is on disk (or its exception)."""
        loop = asyncio.get_running_loop()
        if self._thread is None or self._loop is not loop:
            raise RuntimeError("the writer is not running on this event loop")
        job = _Job(fn, loop.create_future())
        self._queue.put(job)
        return await job.future  # type: ignore[no-any-return]

    # ----------------------------------------------------------------------------- the thread
    def _main(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            group = [first]
            while len(group) < MAX_GROUP:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stopping = True
                    break
                group.append(nxt)
            try:
                self._run_group(group)
            except BaseException as exc:  # never lose the thread (nor leave a step waiting)
                log.exception("writer: a group of steps failed")
                for job in group:
                    if job.tx is not None or job.error is None:
                        job.error, job.tx = exc, None
            self._deliver(group)
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()

    def _connection(self) -> sa.Connection:
        if self._conn is None or self._conn.invalidated or self._conn.closed:
            self._conn = self.rt.db.engine.connect()
        return self._conn

    def _run_group(self, group: list[_Job]) -> None:
        rt = self.rt
        with rt.db.write_lock:
            conn = self._connection()
            try:
                trans = conn.begin()  # BEGIN IMMEDIATE
                for job in group:
                    tx = Tx(conn, caches=rt.caches, trace=rt.db.trace)
                    tx.text("SAVEPOINT step")
                    try:
                        job.result = job.fn(tx)
                        tx.finish()
                        job.notices = rt.seal(tx)
                        tx.text("RELEASE step")
                        job.tx = tx
                        _run_all(tx.kept, "work after a step")  # the next steps see it
                    except Exception as exc:
                        job.error = exc
                        job.undone = tx.undone
                        tx.abandon()
                        tx.text("ROLLBACK TO step")
                        tx.text("RELEASE step")
                trans.commit()
            except Exception as exc:  # the framing or the commit failed: nothing is written
                rt.rounds.clear()  # it may hold rounds as the steps left them
                with contextlib.suppress(Exception):
                    conn.rollback()
                with contextlib.suppress(Exception):
                    conn.invalidate()
                self._conn = None
                for job in group:
                    if job.tx is not None:
                        job.undone = job.tx.undone
                    if job.tx is not None or job.error is None:
                        job.error, job.tx = exc, None
                raise
            finally:
                self.groups += 1
                self.steps += len(group)
                for job in group:  # rolled back: what the steps asked for then
                    if job.error is not None:
                        _run_all(job.undone, "work after a rollback")
        for job in group:  # committed: the steps' caches first, then the answers
            if job.tx is not None:
                _run_all(job.tx.after, "work after a commit")

    def _deliver(self, group: list[_Job]) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(_answer, self.rt, group)


def _run_all(fns: list[Callable[[], None]], what: str) -> None:
    for fn in fns:
        try:
            fn()
        except Exception:
            log.exception("writer: %s failed", what)


def _answer(rt: Runtime, group: list[_Job]) -> None:
    """On the event loop: answer each step, then deliver the group's notices."""
    notices: list[Notice] = []
    for job in group:
        if not job.future.done():
            if job.error is not None:
                job.future.set_exception(job.error)
            else:
                job.future.set_result(job.result)
        if job.error is None:
            notices += job.notices
        job.tx = None  # no cycles through the futures
    if notices:
        rt.bus.dispatch_all(notices)


class PostgresWriter:
    """A transaction per step on a pooled connection of an asyncio engine (see the module's
    text): a step's Python runs on the event loop, and while it waits for the server other
    requests and steps go on. (Steps on threads of their own would each wait for the
    interpreter's lock after every statement while the event loop holds it.)"""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.steps = 0
        self._engine: AsyncEngine | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._engine is None:
            self._engine = self.rt.db.async_engine()

    async def aclose(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    def stop(self) -> None:
        """Nothing to wait for (see :meth:`aclose`)."""

    async def run(self, fn: Callable[[Tx], T]) -> T:
        engine = self._engine
        if engine is None:
            raise RuntimeError("the writer is not running")
        rt = self.rt
        for attempt in range(4):
            done: list[Tx] = []
            try:
                async with engine.connect() as conn, conn.begin():
                    result = await conn.run_sync(self._step, fn, done)
            except Exception as exc:
                again = (
                    isinstance(exc, IntegrityError | OperationalError | DBAPIError)
                    and attempt < 3
                    and retryable(exc)
                )
                if not again:
                    if done:
                        _run_all(done[0].undone, "work after a rollback")
                    raise
                await asyncio.sleep(0.01 * (attempt + 1))
                continue
            tx = done[0]
            self.steps += 1
            _run_all(tx.kept, "work after a step")
            _run_all(tx.after, "work after a commit")
            notices: list[Notice] = tx.info.get("notices", [])
            if notices:
                rt.bus.dispatch_all(notices)
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    def _step(self, conn: sa.Connection, fn: Callable[[Tx], T], done: list[Tx]) -> T:
        """The step in its transaction (run by the engine, its statements awaited)."""
        rt = self.rt
        tx = Tx(
            conn, caches=rt.caches, trace=rt.db.trace, pipeline=conn.connection.driver_connection
        )
        done.append(tx)
        try:
            result = fn(tx)
            tx.finish()
        except BaseException:
            tx.abandon()
            raise
        tx.info["notices"] = rt.seal(tx)  # pg_notify in the transaction
        tx.commit_pending()  # what waits, and the commit, in one round trip
        return result


Writer = SqliteWriter | PostgresWriter
