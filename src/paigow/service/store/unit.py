"""A unit of work: one step's work in a database transaction (:class:`Tx`: a connection and
the step's typed context, :attr:`Tx.step`), the statements it runs
(:class:`paigow.service.store.statements.Sql`) on the DBAPI cursor of the transaction's
connection, and one commit sequence for what the step leaves (see :class:`Tx`). SQLAlchemy still
opens and commits the transactions, runs the migrations and serves the cold paths through the
ORM, in the same transaction when a step needs it (:attr:`Tx.session`).

Every statement takes one path: the methods that run one (:meth:`Tx.run`, :meth:`Tx.first`,
:meth:`Tx.scalar`, :meth:`Tx.rowcount`, :meth:`Tx.together`, :meth:`Tx.many`, :meth:`Tx.text`)
or let one wait (:meth:`Tx.later`, :meth:`Tx.ahead`) make it an item of
:data:`paigow.service.store.pgwire.Pending` and hand it to ``_go`` (now) or ``_queue`` (with the
next), and only ``_go`` tells the back ends apart. On PostgreSQL with the wire layer, what waits
goes with the step's next statement or its commit, in one message sent by
:func:`paigow.service.store.pgwire.send_together`. Without the driver's connection (SQLite;
``pg_wire`` plain, asyncpg: see :meth:`paigow.service.store.db.Database.wire_driver`) each
statement runs when it is asked for, on the cursor (a read sent ahead runs when asked).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol, cast

import sqlalchemy as sa
from sqlalchemy.engine import AdaptedConnection
from sqlalchemy.orm import Session

from paigow.service.config import ServiceConfig
from paigow.service.store import commit, pgwire
from paigow.service.store.statements import Compiled, Row, Sql
from paigow.service.store.step import FreshKeep, RoundEnded, RoundKeep, StepContext


class Refused(Exception):
    """A step's refusal that keeps what the step wrote (its record of the refusal): the step's
    runner commits it, then raises ``error`` to the caller. A step raises it only before it has
    changed anything else (a refused wager: before any money moves)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class Projector(Protocol):
    """Turns the rounds a step ended (:class:`paigow.service.store.step.RoundEnded`) into the
    floor's totals, in the step's transaction (:meth:`Tx.finish`, before its deferred writes:
    :func:`paigow.service.floor.totals.project`, handed in by the runtime)."""

    def __call__(self, tx: Tx, ended: Sequence[RoundEnded], /) -> None: ...


class NoProjector(RuntimeError):
    """A step ended a round in a :class:`Tx` given no projector (``project``): the floor's
    totals would miss it, so the step fails rather than skip them."""


DEFAULT_CONFIG: Final = ServiceConfig("")
"""The settings of a :class:`Tx` not given any (every default)."""


class Tx:
    """One step's work in a database transaction: statements on the connection's DBAPI cursor,
    and what the step leaves for its commit (:attr:`step`, its typed context).

    ``connection``: the SQLAlchemy connection whose transaction the step runs in; ``session``:
    an ORM session in that transaction when the step already has one (otherwise made on first
    use). ``rounds``, ``fresh``: the process's round cache and events just committed, if any
    (:class:`StepContext`); ``config``: the process's settings, which the step reads
    (:data:`DEFAULT_CONFIG` if none); ``project``: the floor's totals of the rounds it ends.

    The commit sequence, the same for every step (the writer's, :meth:`Runtime.write`'s):

    1. :meth:`finish`: the step's work is done; the rounds it ended go to the floor's totals
       (:attr:`project`), its deferred writes go (the rounds' rows it changed, then the house
       accounts' movements) and its own ORM session is flushed;
    2. the bus seals its notices (:meth:`paigow.service.store.bus.EventBus.seal`: with
       PostgreSQL, ``pg_notify`` in its transaction);
    3. :meth:`keep`: its work is kept (SQLite: its savepoint released; PostgreSQL: just before
       its commit is sent): the rounds it leaves go back into the round cache;
    4. the commit (:meth:`commit_pending`, then the transaction's);
    5. :meth:`committed`: its events to the process's fresh events, its rounds counted; then
       its notices are delivered.

    A step that fails is :meth:`abandon` ed (rolled back by its caller); a commit that fails
    clears the round cache (what :meth:`keep` put there was never committed)."""

    def __init__(
        self,
        connection: sa.Connection,
        session: Session | None = None,
        *,
        rounds: RoundKeep | None = None,
        fresh: FreshKeep | None = None,
        trace: Callable[[str], None] | None = None,
        driver: Any = None,
        config: ServiceConfig | None = None,
        project: Projector | None = None,
    ) -> None:
        self.connection = connection
        self.project = project
        """The floor's projector of the rounds the step ends (:attr:`StepContext.ended`: the
        process's; a step that ends a round without one fails at :meth:`finish`)."""
        self.config: ServiceConfig = DEFAULT_CONFIG if config is None else config
        self.dialect = connection.dialect
        self._asyncpg = self.dialect.driver == "asyncpg"
        """asyncpg's connection (``pg_driver``): its rows are records, its placeholders ``$n``."""
        self.database: str = database_name(connection.engine.url)
        """Tells this database from others a process may use (a key for caches of what never
        changes in a database: its tables' configurations, accounts seen to exist), whichever
        driver the connection is of."""
        self._pending: list[pgwire.Pending] = []
        """What waits to be sent: (text, values, one row of values or several, the key of a
        read sent ahead)."""
        self._ahead: dict[Hashable, list[Row] | None] = {}
        """The reads sent ahead (:meth:`ahead`): their rows, None until they have been sent."""
        self.is_sqlite = self.dialect.name == "sqlite"
        self.is_postgres = self.dialect.name == "postgresql"
        raw = connection.connection.dbapi_connection
        assert raw is not None
        self._pipe: AdaptedConnection | None = None
        """With ``driver`` (the driver's asyncio connection, psycopg's): SQLAlchemy's adapted
        connection around it, which runs the driver's coroutines from the step
        (:meth:`~sqlalchemy.engine.AdaptedConnection.run_async`, in the greenlet the asyncio
        engine runs the step in); statements whose results the step does not need then wait
        to be sent with the next one (:meth:`later`)."""
        self._wire: pgwire.Wire | None = None
        """What the wire layer keeps for the driver's connection (its prepared statements)."""
        if driver is not None:
            assert isinstance(raw, AdaptedConnection) and raw.driver_connection is driver
            self._pipe = raw
            self._wire = pgwire.wire_of(connection.connection.info)
        self._cursor = raw.cursor()
        self._error: type[Exception] = self.dialect.loaded_dbapi.Error
        self._session = session
        self._own_session = False
        self.step = StepContext(rounds, fresh)
        """What the step's modules keep for the rest of the step and its commit, in named
        fields (:class:`StepContext`): the caches, the round heads and house movements to
        write, the banks locked, the rounds to keep and to count, the rounds ended, the
        outbox of its notices, the wallets it moved, whether its commit was sent."""
        self._trace = trace

    # ------------------------------------------------------------------ statements
    # Every statement goes one way: as a pgwire.Pending item to _go (now) or _queue (when the
    # step's next statement or its commit goes); only _go tells the back ends apart.
    def run(self, sql: Sql, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run one statement; its rows (an empty list for a statement without rows)."""
        return self.together((sql, params))[0]

    def first(self, sql: Sql, params: Mapping[str, Any] | None = None) -> Row | None:
        rows = self.run(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: Sql, params: Mapping[str, Any] | None = None) -> Any:
        row = self.first(sql, params)
        return None if row is None else row[0]

    def rowcount(self, sql: Sql, params: Mapping[str, Any] | None = None) -> int:
        """Run a statement; how many rows it changed (or returned)."""
        c = self._compiled(sql)
        return self._go([(c.text, c.params(params), False, None)])[0][1]

    def together(self, *statements: tuple[Sql, Mapping[str, Any] | None]) -> list[list[Row]]:
        """Run ``statements`` in order, in one round trip where the connection allows it
        (PostgreSQL's asyncio connection: one message with what waits), and return the rows of
        each. Each statement sees what was committed before it ran (READ COMMITTED takes a
        snapshot per statement), so a read that follows a row lock in the same message sees the
        locked row as its last writer committed it. Elsewhere, one after another."""
        if self._ahead:
            taken = self._take_ahead(statements)
            if taken is not None:
                return taken
        compiled = [self._compiled(sql) for sql, _ in statements]
        got = self._go(
            [
                (c.text, c.params(p), False, None)
                for c, (_, p) in zip(compiled, statements, strict=True)
            ]
        )
        return [
            rows if c.out is None else [c.row(r) for r in rows]
            for c, (rows, _) in zip(compiled, got, strict=True)
        ]

    @property
    def batched(self) -> bool:
        """Whether statements may wait to be sent with the next (:meth:`later`)."""
        return self._pipe is not None

    def later(self, sql: Sql, params: Mapping[str, Any] | None = None) -> None:
        """Run a statement whose result (rows, row count) the step does not need. With
        PostgreSQL's asyncio connection it waits to be sent with the step's next statement or
        its commit (one message and one round trip for all of them: see
        :func:`.pgwire.send_together`); otherwise it runs now."""
        c = self._compiled(sql)
        self._queue((c.text, c.params(params), False, None))

    def many(self, sql: Sql, rows: Iterable[Mapping[str, Any]], *, later: bool = False) -> None:
        """Run one statement for each of ``rows`` (``executemany``); ``later``: see
        :meth:`later`."""
        c = sql.compiled(self.dialect)
        params = [c.params(r) for r in rows]
        if not params:
            return
        self._compiled(sql)  # traced once
        item = (c.text, params, True, None)
        if later:
            self._queue(item)
        else:
            self._go([item])

    def text(
        self,
        statement: str,
        params: Sequence[Any] | Mapping[str, Any] = (),
        *,
        later: bool = False,
    ) -> list[Row]:
        """A statement of psycopg's placeholders (framing: savepoints, ``pg_notify``); its
        rows. ``later``: see :meth:`later` (no rows then, where it waits)."""
        if self._trace is not None:
            self._trace(statement)
        if self._asyncpg:
            statement, params = _dollar(statement, params)
        item = (statement, params, False, None)
        if later and self._pipe is not None:
            self._queue(item)
            return []
        return self._go([item])[0][0]

    def ahead(self, sql: Sql, params: Mapping[str, Any] | None = None) -> None:
        """Send a read the step will run later (:meth:`run`, :meth:`first`, :meth:`together`
        with the same statement and parameters) with the step's next message, rather than in a
        round trip of its own when it is asked for (PostgreSQL's asyncio connection; elsewhere
        nothing: the read runs when asked). Only for a read whose rows nothing the step sends
        in between changes (a row lock the step takes before it keeps them as they are). A
        read already sent ahead is not sent again. Parameters must be hashable values."""
        if self._pipe is None:
            return
        key = (sql, _frozen(params))
        if key in self._ahead:
            return
        c = self._compiled(sql)
        self._queue((c.text, c.params(params), False, key))
        self._ahead[key] = None

    def commit_pending(self) -> bool:
        """Send what waits and commit, in one round trip (PostgreSQL's asyncio connection; the
        caller's ``COMMIT`` then finds nothing to do). Without waiting statements, nothing.
        True: committed."""
        if not self._pending:
            return False
        self._send([], commit=True)
        return True

    def _queue(self, item: pgwire.Pending) -> None:
        """``item`` waits for the step's next statement or its commit where statements may
        wait (:attr:`batched`); elsewhere it runs now."""
        if self._pipe is None:
            self._go([item])
        else:
            self._pending.append(item)

    def _go(self, items: Sequence[pgwire.Pending]) -> list[pgwire.Result]:
        """Run ``items`` now, in order, and return the result of each: on PostgreSQL's asyncio
        connection in one message with what waits (:func:`.pgwire.send_together`), elsewhere
        one after another on the connection's cursor (SQLAlchemy's, on the driver's)."""
        if self._pipe is not None:
            return self._send(items)
        cur = self._cursor
        out: list[pgwire.Result] = []
        for text, values, many, _ in items:
            try:
                if many:
                    cur.executemany(text, values)
                else:
                    cur.execute(text, values)
                rows: list[Row] = [] if cur.description is None else list(cur.fetchall())
            except self._error as exc:
                raise self._wrap(text, values, exc) from exc
            if self._asyncpg:  # records
                rows = [tuple(r) for r in rows]
            out.append((rows, int(cur.rowcount)))
        return out

    def _send(
        self, items: Sequence[pgwire.Pending], *, commit: bool = False
    ) -> list[pgwire.Result]:
        """Send the waiting statements, then ``items`` (or ``COMMIT``, or nothing more), in one
        message; the result of each of ``items`` (the rows of reads sent ahead are kept for
        when they are asked for)."""
        assert self._pipe is not None and self._wire is not None
        pending, self._pending = self._pending, []
        wire = self._wire
        try:
            got, kept = self._pipe.run_async(
                lambda conn: pgwire.send_together(conn, wire, pending, items, commit)
            )
        except self._error as exc:
            text = "COMMIT" if commit else "; ".join(i[0] for i in items) or "(waiting)"
            params = items[0][1] if len(items) == 1 else None
            raise self._wrap(text, params, exc) from exc
        self._ahead.update(kept)
        return got

    def _compiled(self, sql: Sql) -> Compiled:
        """``sql`` for this connection's dialect, traced."""
        c = sql.compiled(self.dialect)
        if self._trace is not None:
            self._trace(c.text)
        return c

    def _take_ahead(
        self, statements: Sequence[tuple[Sql, Mapping[str, Any] | None]]
    ) -> list[list[Row]] | None:
        """The rows of ``statements`` if every one was sent ahead (sending what waits first if
        they have not gone yet), else None."""
        try:
            keys = [(sql, _frozen(params)) for sql, params in statements]
            if not all(k in self._ahead for k in keys):
                return None
        except TypeError:  # a parameter that is no part of a key: not sent ahead
            return None
        if any(self._ahead[k] is None for k in keys):
            self._send([])
        out = []
        for (sql, _), k in zip(statements, keys, strict=True):
            c, rows = sql.compiled(self.dialect), self._ahead.pop(k) or []
            out.append(rows if c.out is None else [c.row(r) for r in rows])
        return out

    def _wrap(self, statement: str, params: Any, exc: Exception) -> sa.exc.StatementError:
        """The driver's error as SQLAlchemy raises it (``IntegrityError``, ``OperationalError``
        ...), so that callers handle one kind of error whichever way a statement ran."""
        return sa.exc.DBAPIError.instance(statement, params, exc, self._error, dialect=self.dialect)

    # ------------------------------------------------------------------ the ORM, when needed
    @property
    def session(self) -> Session:
        """An ORM session in this step's transaction (cold paths: audit records, seats, limits).
        A session the step opened itself is flushed when the step finishes."""
        if self._session is None:
            self._session = Session(
                bind=self.connection,
                join_transaction_mode="create_savepoint",
                expire_on_commit=False,
                autoflush=True,
            )
            self._own_session = True
        return self._session

    # ------------------------------------------------------------------ the commit sequence
    def finish(self) -> None:
        """The step's work is done (the commit sequence's first stage): the rounds it ended go
        to the floor's totals (:attr:`project`), the rounds' rows it changed are written, then
        the house accounts' movements (:func:`.commit.write_left`), and its own ORM session is
        flushed."""
        ended, self.step.ended = self.step.ended, []
        if ended:
            if self.project is None:
                raise NoProjector(f"{len(ended)} round(s) ended with no projector of the totals")
            self.project(self, ended)
        commit.write_left(self)
        if self._own_session and self._session is not None:
            self._session.commit()  # flush, and release its savepoint (not the transaction)
            self._session.close()
            self._session = None
            self._own_session = False
        elif self._session is not None:
            self._session.flush()

    def keep(self) -> None:
        """The step's work is kept (:func:`.commit.keep`)."""
        commit.keep(self)

    def committed(self) -> None:
        """The step has committed (:func:`.commit.committed`)."""
        commit.committed(self)

    def abandon(self) -> None:
        """The step failed: forget its session, what waits and what it left for its commit
        (the caller rolls back)."""
        self._pending.clear()
        self._ahead.clear()
        if self._own_session and self._session is not None:
            self._session.rollback()
            self._session.close()
        self._session = None
        self._own_session = False
        self.step = StepContext(self.step.rounds, self.step.fresh)


_NAMES: dict[int, tuple[sa.URL, str]] = {}
"""Engine URL (by identity, with the URL itself) -> :func:`database_name`."""


def database_name(url: sa.URL) -> str:
    """The database an engine's ``url`` names, as a key for the caches of what never changes in
    a database: the URL as text, its password left out (it names no database, and a cache's key
    holds no secret), the same for its psycopg and asyncpg engines. Remembered per URL object:
    a URL's own hash renders it as text each time, and the steps look their caches up several
    times each.

    >>> a = sa.make_url("postgresql+asyncpg://u:pw@h/db")
    >>> database_name(a) == database_name(sa.make_url("postgresql+psycopg://u:other@h/db"))
    True
    >>> database_name(a), database_name(a) is database_name(a)
    ('postgresql+psycopg://u:***@h/db', True)
    >>> database_name(sa.make_url("postgresql+psycopg://u:pw@h/other")) == database_name(a)
    False
    """
    hit = _NAMES.get(id(url))
    if hit is not None and hit[0] is url:
        return hit[1]
    shown = _as_psycopg(url) if url.drivername == "postgresql+asyncpg" else url
    name = shown.render_as_string(hide_password=True)
    if len(_NAMES) > 1_000:  # engines come and go in tests: never more than a thousand kept
        _NAMES.clear()
    _NAMES[id(url)] = (url, name)
    return name


def _as_psycopg(url: sa.URL) -> sa.URL:
    """The URL of an asyncpg engine as the psycopg engines of the same database have it."""
    return url.set(drivername="postgresql+psycopg")


def _dollar(statement: str, params: Sequence[Any] | Mapping[str, Any]) -> tuple[str, Sequence[Any]]:
    """A statement of psycopg's placeholders (``%s``, ``%(name)s``; ``%%``) and its values as
    asyncpg takes them (``$n``, values in order).

    >>> _dollar("SELECT pg_notify(%s, %s)", ("c", "x"))
    ('SELECT pg_notify($1, $2)', ('c', 'x'))
    >>> _dollar("SELECT %(a)s, %(b)s, %(a)s LIKE 'p%%'", {"b": 2, "a": 1})
    ("SELECT $1, $2, $1 LIKE 'p%'", [1, 2])
    >>> _dollar("SAVEPOINT step", ())
    ('SAVEPOINT step', ())
    """
    named = isinstance(params, Mapping)
    prepared = pgwire.preparable(statement, named)
    if prepared is None:
        if params:
            raise ValueError(f"placeholders asyncpg cannot take: {statement!r}")
        return statement.replace("%%", "%"), ()
    if prepared.names is None:
        return prepared.text, cast(Sequence[Any], params)
    values = cast(Mapping[str, Any], params)
    return prepared.text, [values[n] for n in prepared.names]


def _frozen(params: Mapping[str, Any] | None) -> Hashable:
    """Parameters as part of a key (:meth:`Tx.ahead`)."""
    return tuple(sorted(params.items())) if params else ()
