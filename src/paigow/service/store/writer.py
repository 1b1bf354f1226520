"""Where the service's steps run: every write the players and the dealers make (a wager, a
setting, a deal, a settlement) is a function of a :class:`paigow.service.store.unit.Tx`, handed to
the process's writer and awaited.

- SQLite (:class:`SqliteWriter`): one connection writes; the steps waiting run one after
  another on the event loop, each inside a savepoint of its own (a step that fails is rolled
  back alone and nothing of it remains), and are committed together: one commit, one
  ``fsync``, for as many steps as came in while the last commit was being written (group
  commit). The writer's thread begins and commits each group's transaction, so the event loop
  never waits on a lock or a disk. A step is answered only once its commit is on disk.
- PostgreSQL (:class:`PostgresWriter`): each step is a transaction of its own on a pooled
  connection of an asyncio engine (row locks let steps at different tables run at once; the
  step's code runs on the event loop, its statements awaited), retried on a deadlock, a
  serialization failure or a unique-key race. Its statements go through
  :mod:`paigow.service.store.pgwire` (psycopg, ``pg_wire`` prepared: the default) or one at a
  time on the driver's cursor (``plain``, and asyncpg: ``pg_driver``).

Either way a step's table notices are sent at its commit (PostgreSQL: ``pg_notify`` inside the
transaction, for every process) and delivered in this process on the event loop, with the
step's work to do once committed (caches) done first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from paigow.service.ops import telemetry
from paigow.service.store.bus import EventBus, Notice
from paigow.service.store.retry import lost_before_commit, retry_kind, retryable
from paigow.service.store.step import FreshKeep, RoundKeep
from paigow.service.store.unit import Projector, Refused, Tx

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from paigow.service.config import ServiceConfig
    from paigow.service.store.db import Database

T = TypeVar("T")
Step = Callable[[Tx], Any]
Seal = Callable[[Tx], list[Notice]]
"""What turns a finished step into its notices (sent in its transaction where the database
does; delivered here once it commits)."""
log = logging.getLogger("paigow.service.store.writer")

MAX_GROUP = 64
"""The most steps one SQLite commit takes."""


@dataclass
class _Job:
    fn: Step
    future: asyncio.Future[Any]
    tx: Tx | None = None
    result: Any = None
    error: BaseException | None = None
    notices: list[Notice] = field(default_factory=list)
    refused: Exception | None = None
    """The step's kept refusal (:class:`Refused`): raised to it once its group has committed."""


class SqliteWriter:
    """Steps committed in groups (see the module's text). The steps run on the event loop, one
    after another, each in a savepoint; a thread of the writer's own begins each group's
    transaction (``BEGIN IMMEDIATE``, which may wait for another process's write) and commits
    it (the ``fsync``), so the event loop never waits on a lock or a disk and the steps never
    wait for the interpreter's lock between their statements.

    ``rounds``, ``fresh``: the process's round cache and events just committed, which each
    step's :class:`Tx` carries (:class:`~paigow.service.store.step.StepContext`) with the
    settings (``config``) and the floor's projector of the rounds it ends (``project``);
    ``seal``: a finished step's notices, delivered on ``bus`` once its group commits;
    ``clear_kept``: drops what the steps' work once kept (:meth:`Tx.keep`) left in the caches,
    when their group's commit fails."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        *,
        rounds: RoundKeep | None,
        fresh: FreshKeep | None = None,
        seal: Seal,
        clear_kept: Callable[[], None],
        config: ServiceConfig | None = None,
        project: Projector | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.rounds = rounds
        self.fresh = fresh
        self.config = config
        self.project = project
        self.seal = seal
        self.clear_kept = clear_kept
        self._queue: list[_Job] = []
        self._wanted = threading.Event()
        """Set when steps wait (the thread then begins a group)."""
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._conn: sa.Connection | None = None
        self._reader: sa.Connection | None = None
        """The event loop's connection for reads (:meth:`read`)."""
        self.groups = 0
        self.steps = 0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        if self._thread is None:
            self._stopping = False
            self._thread = threading.Thread(target=self._main, name="paigow-writer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stopping = True
            self._wanted.set()
            self._thread.join(30)
            self._thread = None

    async def aclose(self) -> None:
        await asyncio.to_thread(self.stop)
        if self._reader is not None:
            with contextlib.suppress(Exception):
                self._reader.close()
            self._reader = None

    async def read(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` in a read transaction on the event loop's connection for reads."""
        conn = self._reader
        if conn is None or conn.invalidated or conn.closed:
            conn = self._reader = self.db.read_engine.connect()
        try:
            with conn.begin():
                return fn(Tx(conn, trace=self.db.trace, config=self.config))
        except Exception:
            if conn.invalidated:
                self._reader = None
            raise

    def waiting(self) -> int:
        """Steps queued for the writer now."""
        return len(self._queue)

    def pools(self) -> dict[str, Any]:
        """No pool of the writer's own (one connection, from the database's write engine)."""
        return {}

    async def run(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` as a step; its result once its commit is on disk (or its exception)."""
        loop = asyncio.get_running_loop()
        if self._thread is None or self._loop is not loop:
            raise RuntimeError("the writer is not running on this event loop")
        job = _Job(fn, loop.create_future())
        self._queue.append(job)
        self._wanted.set()
        return await job.future  # type: ignore[no-any-return]

    # ----------------------------------------------------------------------------- the thread
    def _main(self) -> None:
        while True:
            if not self._queue:
                if self._stopping:  # checked after the last group: a stop is never missed
                    break
                self._wanted.wait()
                self._wanted.clear()
                continue
            self._wanted.clear()
            try:
                self._group()
            except BaseException:  # never lose the thread
                log.exception("writer: a group of steps failed")
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()

    def _connection(self) -> sa.Connection:
        if self._conn is None or self._conn.invalidated or self._conn.closed:
            self._conn = self.db.engine.connect()
        return self._conn

    def _group(self) -> None:
        """One group: begin, let the event loop run the steps waiting, commit, answer."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        ran: list[_Job] = []
        with self.db.write_lock:
            try:
                conn = self._connection()
                trans = conn.begin()  # BEGIN IMMEDIATE
            except Exception as exc:  # the steps waiting fail alike (503: retry)
                self._conn = None
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._fail_waiting, exc)
                return
            done = threading.Event()
            try:
                loop.call_soon_threadsafe(self._run_steps, conn, ran, done)
            except RuntimeError:  # the loop is closing
                trans.rollback()
                return
            while not done.wait(1.0):
                if loop.is_closed():  # the steps will never run: nothing to commit
                    with contextlib.suppress(Exception):
                        trans.rollback()
                    return
            try:
                if any(job.tx is not None for job in ran):
                    trans.commit()
                else:
                    trans.rollback()
            except Exception as exc:  # the commit failed: nothing of the group is written
                self.clear_kept()  # the caches may hold rounds as the steps left them
                with contextlib.suppress(Exception):
                    conn.rollback()
                with contextlib.suppress(Exception):
                    conn.invalidate()
                self._conn = None
                for job in ran:
                    if job.tx is not None:
                        job.error, job.tx = exc, None
            finally:
                self.groups += 1
                self.steps += len(ran)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._deliver, ran)

    def _fail_waiting(self, exc: BaseException) -> None:
        waiting, self._queue = self._queue, []
        for job in waiting:
            if not job.future.done():
                job.future.set_exception(exc)

    def _run_steps(self, conn: sa.Connection, ran: list[_Job], done: threading.Event) -> None:
        """On the event loop: the steps waiting, each in a savepoint of the group's
        transaction."""
        try:
            group, self._queue = self._queue[:MAX_GROUP], self._queue[MAX_GROUP:]
            if self._queue:
                self._wanted.set()  # the rest: the next group
            for job in group:
                ran.append(job)
                tx = Tx(
                    conn,
                    rounds=self.rounds,
                    fresh=self.fresh,
                    trace=self.db.trace,
                    config=self.config,
                    project=self.project,
                )
                tx.text("SAVEPOINT step")
                try:
                    try:
                        job.result = job.fn(tx)
                    except Refused as refused:  # kept: the step's record of its refusal
                        job.refused = refused.error
                    tx.finish()
                    job.notices = self.seal(tx)
                    tx.text("RELEASE step")
                    job.tx = tx
                    _safely(tx.keep, "work after a step")  # the next steps see it
                except Exception as exc:
                    job.error = exc
                    tx.abandon()
                    try:
                        tx.text("ROLLBACK TO step")
                        tx.text("RELEASE step")
                    except Exception as lost:  # the connection is lost: so is the group
                        for other in ran:
                            if other.tx is not None:
                                other.error, other.tx = lost, None
                        raise
        except Exception:
            log.exception("writer: the steps of a group failed")
        finally:
            done.set()

    def _deliver(self, group: list[_Job]) -> None:
        """On the event loop, once the group has committed (or failed): the work each step
        left for then, the answers, the notices."""
        for job in group:
            if job.error is None and job.tx is not None:
                _safely(job.tx.committed, "work after a commit")
        _answer(self.bus, group)


def _safely(fn: Callable[[], None], what: str) -> None:
    """A stage of the commit sequence once the work is kept: its failure is logged, not raised."""
    try:
        fn()
    except Exception:
        log.exception("writer: %s failed", what)


def _answer(bus: EventBus, group: list[_Job]) -> None:
    """On the event loop: answer each step, then deliver the group's notices."""
    notices: list[Notice] = []
    for job in group:
        if not job.future.done():
            if job.error is not None:
                job.future.set_exception(job.error)
            elif job.refused is not None:
                job.future.set_exception(job.refused)
            else:
                job.future.set_result(job.result)
        if job.error is None:
            notices += job.notices
        job.tx = None  # no cycles through the futures
    if notices:
        bus.dispatch_all(notices)


class PostgresWriter:
    """A transaction per step on a pooled connection of an asyncio engine (see the module's
    text): a step's Python runs on the event loop, and while it waits for the server other
    requests and steps go on. (Steps on threads of their own would each wait for the
    interpreter's lock after every statement while the event loop holds it.)

    ``rounds``, ``fresh``, ``config``, ``project``, ``seal``, ``clear_kept``: as
    :class:`SqliteWriter`'s (a step's notices are delivered on ``bus`` once it commits). A
    step's work once kept (:meth:`Tx.keep`: its rounds back in the cache) is done just before
    its commit is sent, so that the next step at its table, which that commit wakes, finds it; a
    commit that fails clears the caches."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        *,
        rounds: RoundKeep | None,
        fresh: FreshKeep | None = None,
        seal: Seal,
        clear_kept: Callable[[], None],
        config: ServiceConfig | None = None,
        project: Projector | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.rounds = rounds
        self.fresh = fresh
        self.config = config
        self.project = project
        self.seal = seal
        self.clear_kept = clear_kept
        self.steps = 0
        self._engine: AsyncEngine | None = None
        self._waiting = 0

    def waiting(self) -> int:
        """Steps waiting for a connection of the steps' pool now."""
        return self._waiting

    def pools(self) -> dict[str, Any]:
        """The steps' connection pool (none before :meth:`start`)."""
        return {} if self._engine is None else {"steps": self._engine.pool}

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._engine is None:
            self._engine = self.db.async_engine()

    async def aclose(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    def stop(self) -> None:
        """Nothing to wait for (see :meth:`aclose`)."""

    async def read(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` in a read transaction (its statements awaited)."""
        engine = self._engine
        if engine is None:
            raise RuntimeError("the writer is not running")
        async with engine.connect() as conn:
            return await conn.run_sync(self._read, fn)

    def _read(self, conn: sa.Connection, fn: Callable[[Tx], T]) -> T:
        driver = self.db.wire_driver(conn)
        return fn(Tx(conn, trace=self.db.trace, driver=driver, config=self.config))

    async def run(self, fn: Callable[[Tx], T]) -> T:
        engine = self._engine
        if engine is None:
            raise RuntimeError("the writer is not running")
        for attempt in range(4):
            done: list[Tx] = []
            lent = False
            self._waiting += 1  # till the pool lends a connection (the metrics' waiting steps)
            try:
                async with engine.connect() as conn:
                    self._waiting -= 1
                    lent = True
                    result, refused, notices = await conn.run_sync(self._step, fn, done)
            except Exception as exc:
                again = (
                    isinstance(exc, IntegrityError | OperationalError | DBAPIError)
                    and attempt < 3
                    and (retryable(exc) or lost_before_commit(exc, done))
                )
                if not again:
                    raise
                telemetry.retried(retry_kind(exc))
                await asyncio.sleep(0.01 * (attempt + 1))
                continue
            finally:
                if not lent:
                    self._waiting -= 1
            tx = done[0]
            self.steps += 1
            _safely(tx.committed, "work after a commit")
            if notices:
                self.bus.dispatch_all(notices)
            if refused is not None:
                raise refused
            return cast(T, result)
        raise AssertionError("unreachable")  # pragma: no cover

    def _step(
        self, conn: sa.Connection, fn: Callable[[Tx], T], done: list[Tx]
    ) -> tuple[T | None, Exception | None, list[Notice]]:
        """The step in a transaction of its own (begun, run and committed in one call of the
        engine's, its statements awaited); its result, or its kept refusal (:class:`Refused`),
        and its notices."""
        with conn.begin() as transaction:
            tx = Tx(
                conn,
                rounds=self.rounds,
                fresh=self.fresh,
                trace=self.db.trace,
                driver=self.db.wire_driver(conn),
                config=self.config,
                project=self.project,
            )
            done.append(tx)
            result: T | None = None
            refused: Exception | None = None
            try:
                try:
                    result = fn(tx)
                except Refused as r:  # kept: the step's record of its refusal
                    refused = r.error
                tx.finish()
            except BaseException:
                tx.abandon()
                raise
            notices = self.seal(tx)  # pg_notify in the transaction
            # the rounds this step leaves, in the cache before its commit is sent: the next step
            # at the table (waiting for its row) may run as soon as the commit lands, before
            # this step hears that it has
            _safely(tx.keep, "work after a step")
            try:
                tx.step.commit_sent = True  # from here a lost connection may have committed
                tx.commit_pending()  # what waits, and the commit, in one round trip
                transaction.commit()  # (then nothing left to send)
            except BaseException:
                self.clear_kept()  # the cache may hold rounds as this step left them
                raise
        return result, refused, notices


Writer = SqliteWriter | PostgresWriter
